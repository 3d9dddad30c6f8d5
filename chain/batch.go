package chain

import (
	"sync"
	"unsafe"
)

// Batch reads the lines of one batch of a parallel pass over a file
// (InOrder): all at once when they lie close together (one read), else
// one at a time into one buffer (ReadRaw). Read one at a time through the
// cache of small reads, each line was copied under the cache's lock, and
// the workers of a pass over a session whose every line is read (a move's
// rewrite of its project path, the token estimate) took turns.
type Batch struct {
	f        *File
	span     lineSpan
	together bool
	// apart: the lines lie so far apart that each is read on its own
	// from the file, not through the cache of small reads, which reads
	// a block of cacheBlock bytes for each line it does not hold (the
	// parent links a repair sets, a few a megabyte, read the whole file
	// so at each of its checks)
	apart bool
	bp    *[]byte
	buf   []byte // the buffer the last line was read into
}

// batchBufs holds the buffers batches are read into.
var batchBufs = sync.Pool{New: func() any { return new([]byte) }}

// ReadBatch starts reading the lines idx of f (in any order): at once
// when the bytes from the lowest to the highest of them are at most twice
// theirs (and 64 KB) and at most batchMax, else each when it is asked for
// (and when the read at once fails: each line's read then says which
// failed). Close gives its buffer back.
func ReadBatch[I ~int | ~int32](f *File, idx []I) *Batch {
	if len(idx) == 0 || f.src == nil {
		return &Batch{f: f, bp: batchBufs.Get().(*[]byte)}
	}
	var want int64
	lo, hi := int(idx[0]), int(idx[0])
	for _, i := range idx {
		want += f.Entries[i].TotalBytes()
		lo, hi = min(lo, int(i)), max(hi, int(i))
	}
	first, last := &f.Entries[lo], &f.Entries[hi]
	if span := last.Off + last.TotalBytes() - first.Off; span > 2*want+64<<10 {
		// a cache block serves fewer than 8 of the lines on average
		apart := span/int64(len(idx)) >= cacheBlock/8
		return &Batch{f: f, bp: batchBufs.Get().(*[]byte), apart: apart}
	}
	return f.ReadRange(lo, hi+1)
}

// batchMax is the most a batch reads at once: a batch of InOrder is about
// 1 MB of lines, or one longer line, which a pass may not read at all (a
// run of NULs a crash left, hundreds of MB that is no entry).
const batchMax = 4 * inOrderBatch

// ReadRange is ReadBatch of lines lo..hi-1 of f (hi > lo): read at once
// when they are at most batchMax bytes.
func (f *File) ReadRange(lo, hi int) *Batch {
	b := &Batch{f: f, bp: batchBufs.Get().(*[]byte)}
	if f.src == nil || f.Entries[hi-1].Off+f.Entries[hi-1].TotalBytes()-f.Entries[lo].Off > batchMax {
		return b
	}
	if span, err := f.readLines(lo, hi, *b.bp); err == nil {
		b.span, b.together, *b.bp = span, true, span.buf()
	}
	return b
}

// Raw is the bytes of line i (one of the batch's), terminator excluded.
// They are valid until the next Raw or Close, and may be changed in place
// (an append to them reaches no other line's bytes).
func (b *Batch) Raw(i int) ([]byte, error) {
	if b.together {
		b.buf = b.span.buf()
		return b.span.raw(i), nil
	}
	src := b.f.src
	if c, ok := src.(*blockCache); ok && b.apart {
		src = c.r
	}
	raw, err := b.f.readRawFrom(src, i, b.buf)
	if err == nil {
		b.buf = raw
	}
	return raw, err
}

// Holds reports whether p shares memory with the bytes Raw returned last
// (then p must be copied to outlive them).
func (b *Batch) Holds(p []byte) bool { return Overlaps(p, b.buf) }

// Overlaps reports whether a and b share bytes of memory (within their
// capacities).
func Overlaps(a, b []byte) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(cap(b)) && pb < pa+uintptr(cap(a))
}

// Close gives the batch's buffer back: no line it returned may be used
// after.
func (b *Batch) Close() {
	if b.bp != nil {
		batchBufs.Put(b.bp)
		b.bp = nil
	}
}
