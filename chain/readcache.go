package chain

import (
	"io"
	"sync"
)

// blockCache serves the small reads of a file's lines (File.Raw) from a few
// recently read blocks of the file, so that a pass over many small entries
// makes one read per block instead of one system call per line. It is safe
// for concurrent use: the workers of a parallel pass each walk their own
// range of lines, and a few blocks per worker stay cached.
//
// Only the bytes a block read actually returned are served from it: a read
// past them (the file grew, or it ends inside the block) goes to the file.
type blockCache struct {
	r     io.ReaderAt
	mu    sync.Mutex
	slots [cacheSlots]cacheSlot
	tick  uint64
}

type cacheSlot struct {
	off  int64 // block offset; -1 when empty
	n    int   // valid bytes
	used uint64
	buf  []byte
}

const (
	cacheBlock = 256 << 10 // bytes per block
	cacheSlots = 8         // blocks kept (2 MB in all)
	cacheMax   = 64 << 10  // reads longer than this go to the file
)

func newBlockCache(r io.ReaderAt) *blockCache {
	c := &blockCache{r: r}
	for i := range c.slots {
		c.slots[i].off = -1
	}
	return c
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
func (c *blockCache) copyFrom(p []byte, off int64) (int, error) {
	boff := off - off%cacheBlock
	c.mu.Lock()
	c.tick++
	var s *cacheSlot
	for i := range c.slots {
		if c.slots[i].off == boff {
			s = &c.slots[i]
			break
		}
	}
	if s == nil {
		s = &c.slots[0]
		for i := range c.slots {
			if c.slots[i].used < s.used {
				s = &c.slots[i]
			}
		}
		if s.buf == nil {
			s.buf = make([]byte, cacheBlock)
		}
		n, err := c.r.ReadAt(s.buf, boff)
		if err != nil && err != io.EOF {
			s.off = -1
			c.mu.Unlock()
			return c.r.ReadAt(p, off)
		}
		s.off, s.n = boff, n
	}
	s.used = c.tick
	start := int(off - boff)
	if start >= s.n {
		c.mu.Unlock()
		// past what the block read returned: ask the file itself
		return c.r.ReadAt(p, off)
	}
	k, short := copy(p, s.buf[start:s.n]), s.n < cacheBlock
	c.mu.Unlock()
	if k < len(p) && short {
		// the block ended short of the request: the rest from the file
		m, err := c.r.ReadAt(p[k:], off+int64(k))
		return k + m, err
	}
	return k, nil
}
