package chain

import (
	"io"
	"sync"
	"sync/atomic"
)

// blockCache serves the small reads of a file's lines (File.Raw) from a few
// recently read blocks, so that a pass over many small entries makes one
// read per block instead of one system call per line. The blocks are
// shared by every file of the process (a session with hundreds of subagent
// files holds 2 MB of them in all, not 2 MB per file), and it is safe for
// concurrent use: the workers of a parallel pass each walk their own range
// of lines, and a few blocks per worker stay cached.
//
// Only the bytes a block read actually returned are served from it: a read
// past them (the file grew, or it ends inside the block) goes to the file.
type blockCache struct {
	r  io.ReaderAt
	id uint64 // which file a cached block is of (never reused)
}

type cacheSlot struct {
	id   uint64 // 0 when empty
	off  int64  // block offset
	n    int    // valid bytes
	used uint64
	buf  *[]byte
}

const (
	cacheBlock = 256 << 10 // bytes per block
	cacheSlots = 8         // blocks kept (2 MB in all)
	cacheMax   = 64 << 10  // reads longer than this go to the file
)

var (
	cacheMu   sync.Mutex
	cache     [cacheSlots]cacheSlot
	cacheTick uint64
	cacheIDs  atomic.Uint64
)

func newBlockCache(r io.ReaderAt) *blockCache {
	return &blockCache{r: r, id: cacheIDs.Add(1)}
}

// ReadAt reads len(p) bytes at off, through the cache when p is small.
func (c *blockCache) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > cacheMax || off < 0 {
		return c.r.ReadAt(p, off)
	}
	n := 0
	for n < len(p) {
		k, err := c.copyFrom(p[n:], off+int64(n))
		if k == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		n += k
	}
	return n, nil
}

// copyFrom copies into p what the block holding off has from off on,
// reading the block when it is not cached. A short block (the end of the
// file) yields fewer bytes; then the file is asked directly.
//
// The block is read with the lock let go: the workers of a parallel pass
// each read their own range of lines through the cache, and a read made
// under the lock held every other worker up for its length (the pass ran
// on one core while they waited). Two readers that miss the same block
// may both read it; the one that comes second uses the one installed.
func (c *blockCache) copyFrom(p []byte, off int64) (int, error) {
	boff := off - off%cacheBlock
	cacheMu.Lock()
	cacheTick++
	s := cachedBlock(c.id, boff)
	if s == nil {
		cacheMu.Unlock()
		buf := getCacheBuf()
		n, err := c.r.ReadAt(*buf, boff)
		if err != nil && err != io.EOF {
			cacheBufs.Put(buf)
			return c.r.ReadAt(p, off)
		}
		cacheMu.Lock()
		cacheTick++
		if s = cachedBlock(c.id, boff); s == nil {
			s = &cache[0] // the least recently used slot takes it
			for i := range cache {
				if cache[i].used < s.used {
					s = &cache[i]
				}
			}
			// no one copies from a slot's buffer without the lock: the
			// one it held goes back to the pool
			s.buf, buf = buf, s.buf
			s.id, s.off, s.n = c.id, boff, n
		}
		if buf != nil {
			cacheBufs.Put(buf)
		}
	}
	s.used = cacheTick
	start := int(off - boff)
	if start >= s.n {
		cacheMu.Unlock()
		// past what the block read returned: ask the file itself
		return c.r.ReadAt(p, off)
	}
	k, short := copy(p, (*s.buf)[start:s.n]), s.n < cacheBlock
	cacheMu.Unlock()
	if k < len(p) && short {
		// the block ended short of the request: the rest from the file
		m, err := c.r.ReadAt(p[k:], off+int64(k))
		return k + m, err
	}
	return k, nil
}

// cachedBlock is the slot holding the block of file id at boff, or nil
// (cacheMu held).
func cachedBlock(id uint64, boff int64) *cacheSlot {
	for i := range cache {
		if cache[i].id == id && cache[i].off == boff {
			return &cache[i]
		}
	}
	return nil
}

// cacheBufs recycles the blocks' buffers: a block is read into one of its
// own, outside the lock, and the slot it takes gives its old one back.
var cacheBufs = sync.Pool{New: func() any { b := make([]byte, cacheBlock); return &b }}

func getCacheBuf() *[]byte { return cacheBufs.Get().(*[]byte) }
