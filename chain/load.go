package chain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// File is one JSONL file of a session (the main transcript or a subagent's)
// as an index of its lines. The bytes stay in the source and are read back
// on demand.
type File struct {
	Path    string
	Size    int64
	Entries []Entry
	BOM     bool // the first line starts with a UTF-8 byte order mark
	// Sidechain marks a subagent transcript, whose entries are all sidechain.
	Sidechain bool

	src    io.ReaderAt
	closer io.Closer
	graph  *Graph
	active *Turns // ActiveTurns, made once (it walks the whole branch)
}

// LoadFile indexes the JSONL file at path. The file stays open until Close.
func LoadFile(path string) (*File, error) { return LoadFileWith(path, nil) }

// LoadFileWith is LoadFile reporting the bytes read to progress (may be nil).
func LoadFileWith(path string, progress func(n int64)) (*File, error) {
	fh, err := openShared(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if st.IsDir() {
		fh.Close()
		return nil, &Error{Msg: fmt.Sprintf("%s is a directory, not a session file", path), Hint: "give a session id or the path of a .jsonl file"}
	}
	budgetMemory(st.Size())
	f := &File{Path: path, Size: st.Size(), src: newBlockCache(fh), closer: fh}
	var r io.Reader = io.NewSectionReader(fh, 0, st.Size())
	if progress != nil {
		r = &progressReader{r: r, fn: progress}
	}
	lines, err := expectLines(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := f.index(r, lines); err != nil {
		fh.Close()
		return nil, err
	}
	return f, nil
}

// budgetMemory asks the garbage collector to keep the heap under 0.40 of
// the size of the biggest file loaded (and at least 32 MB), so that a
// command on a big session peaks at less than half the file: by default
// the heap may grow to twice what is live before a collection, and the
// index of a big session is most of what is live. It is a soft limit (the
// collector works harder near it, never fails), and a GOMEMLIMIT set by
// the user wins. (The floor was 64 MB: on a file of 114 MB that let every
// command grow its heap past half the file.)
//
// When what is live comes near the limit (two indexes of a session of
// many small entries: the input and the output a writer validates), a
// limit held there makes the collector run without pause for no memory
// saved; a watcher then raises it to a quarter above what is live, but
// not past half the file less what the process holds outside the heap
// (outsideHeap) while that leaves a tenth of it free.
func budgetMemory(size int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	memMu.Lock()
	defer memMu.Unlock()
	memSize = max(memSize, size)
	if limit := max(32<<20, size/100*40); limit > memLimit {
		memLimit = limit
		debug.SetMemoryLimit(limit)
	}
	memWatch.Do(func() { go watchMemory() })
}

// outsideHeap is about what a ccsurgeon process holds in memory outside
// what the memory limit counts: the program's code and data pages (peak
// RSS of 'ccsurgeon ls' on an empty folder: 9-10 MB on linux/amd64).
const outsideHeap = 12 << 20

var (
	memMu    sync.Mutex
	memLimit int64
	memSize  int64 // the biggest file loaded
	memWatch sync.Once
)

// watchMemory raises the memory limit when the live heap comes within 15%
// of it (see budgetMemory). It reads the live heap of the last collection
// every 20 ms.
func watchMemory() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		live := int64(sample[0].Value.Uint64())
		memMu.Lock()
		if live > memLimit/100*85 {
			limit := live / 100 * 125
			// while what is live leaves a tenth of the budget's ceiling
			// free, the limit stays under it: the command still peaks
			// under half the file, at the cost of more collections
			if ceiling := max(memLimit, memSize/2-outsideHeap); limit > ceiling && live < ceiling/100*90 {
				limit = ceiling
			}
			if limit > memLimit {
				memLimit = limit
				debug.SetMemoryLimit(memLimit)
			}
		}
		memMu.Unlock()
	}
}

// manyLines is the number of entries from which the index is made in one
// slice of the right length: below it, joining per-block slices costs
// less than counting the lines first.
const manyLines = 100_000

// expectLines returns the number of lines of a file with many of them (as
// its first block suggests), and 0 for other files.
func expectLines(r io.ReaderAt, size int64) (int, error) {
	head := getBlock()
	defer putBlock(head)
	head = head[:min(int64(blockSize), size)]
	k, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if k == 0 || int64(bytes.Count(head[:k], []byte{'\n'}))*size/int64(k) < manyLines {
		return 0, nil
	}
	return countLines(r, size)
}

// countLines counts the lines of the first size bytes of r (a vector
// count over the page cache, split over the cores), so that the index can
// be one slice of the right length from the start.
func countLines(r io.ReaderAt, size int64) (int, error) {
	parts := int64(runtime.GOMAXPROCS(0))
	if size < 8<<20 {
		parts = 1
	}
	counts := make([]int, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := int64(0); p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := getBlock()
			defer putBlock(buf)
			buf = buf[:blockSize]
			from, to := size*p/parts, size*(p+1)/parts
			for off := from; off < to; {
				k, err := r.ReadAt(buf[:min(int64(len(buf)), to-off)], off)
				counts[p] += bytes.Count(buf[:k], []byte{'\n'})
				off += int64(k)
				if err != nil {
					if !errors.Is(err, io.EOF) {
						errs[p] = err
					}
					return // EOF: the file shrank; the index will see it
				}
			}
		}()
	}
	wg.Wait()
	n := 0
	for p := range counts {
		if errs[p] != nil {
			return 0, errs[p]
		}
		n += counts[p]
	}
	var last [1]byte
	if size > 0 {
		if _, err := r.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
			n++
		}
	}
	return n, nil
}

// LoadBytes indexes an in-memory JSONL document (tests, stdin).
func LoadBytes(path string, data []byte) (*File, error) {
	f := &File{Path: path, Size: int64(len(data)), src: bytes.NewReader(data)}
	lines := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	if err := f.index(bytes.NewReader(data), lines); err != nil {
		return nil, err
	}
	return f, nil
}

// LoadWritten indexes what write writes, as LoadBytes indexes the same
// bytes, and keeps them in blocks of 1 MB: a result read back in memory
// costs its size and its index once, where a growing buffer held up to
// twice its size while it was copied into a bigger one, and LoadBytes
// indexed it after it was whole. lines is the number of lines expected
// (0: unknown).
func LoadWritten(path string, lines int, write func(io.Writer) error) (*File, error) {
	cb := &chunks{}
	iw := NewIndexWriter(path, cb, lines)
	err := write(iw)
	f, cerr := iw.Close()
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	f.src, f.Size = cb, cb.n
	return f, nil
}

// chunks holds bytes written in blocks of chunkSize (every block full but
// the last), read back with ReadAt.
type chunks struct {
	bufs [][]byte
	n    int64
}

const chunkSize = 1 << 20

func (c *chunks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.bufs) == 0 || len(c.bufs[len(c.bufs)-1]) == chunkSize {
			c.bufs = append(c.bufs, make([]byte, 0, chunkSize))
		}
		last := &c.bufs[len(c.bufs)-1]
		k := copy((*last)[len(*last):chunkSize], p)
		*last = (*last)[:len(*last)+k]
		p = p[k:]
	}
	c.n += int64(n)
	return n, nil
}

func (c *chunks) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("chunks: negative offset")
	}
	n := 0
	for n < len(p) && off < c.n {
		k := copy(p[n:], c.bufs[off/chunkSize][off%chunkSize:])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// IndexOf indexes what write writes, without keeping the bytes (Raw fails
// on the result): to check a result in memory about the size of its index,
// not of its bytes. lines is the number of lines expected (0: unknown).
func IndexOf(name string, lines int, write func(io.Writer) error) (*File, error) {
	iw := NewIndexWriter(name, io.Discard, lines)
	err := write(iw)
	f, cerr := iw.Close()
	if err != nil {
		return nil, err
	}
	return f, cerr
}

// Close releases the file handle.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Raw returns the bytes of entry i, terminator excluded. The slice is fresh.
func (f *File) Raw(i int) ([]byte, error) { return f.ReadRaw(i, nil) }

// ReadRaw is Raw reading into buf when it is large enough (a pass over
// many lines reuses one buffer instead of allocating one per line); the
// bytes are valid until buf is used again.
func (f *File) ReadRaw(i int, buf []byte) ([]byte, error) { return f.readRawFrom(f.src, i, buf) }

// readRawFrom is ReadRaw reading from src (f's source, or the reader
// behind its cache).
func (f *File) readRawFrom(src io.ReaderAt, i int, buf []byte) ([]byte, error) {
	e := &f.Entries[i]
	if src == nil {
		return nil, fmt.Errorf("%s: the bytes of line %d were not kept", f.Path, e.Line)
	}
	b := buf
	if cap(b) < int(e.Len) {
		b = make([]byte, e.Len)
	}
	b = b[:e.Len]
	if n, err := src.ReadAt(b, e.Off); err != nil && !(errors.Is(err, io.EOF) && n == len(b)) {
		return nil, fmt.Errorf("read %s line %d: %w", f.Path, e.Line, err)
	}
	return b, nil
}

// lineSpan is the bytes of consecutive lines of a file read at once
// (readLines, for a Batch).
type lineSpan struct {
	f     *File
	start int64
	b     []byte
}

// readLines reads lines lo..hi-1 of f (hi > lo), into buf when it is
// large enough. Their bytes are valid until buf is used again.
func (f *File) readLines(lo, hi int, buf []byte) (lineSpan, error) {
	if f.src == nil {
		return lineSpan{}, fmt.Errorf("%s: the bytes of line %d were not kept", f.Path, f.Entries[lo].Line)
	}
	start := f.Entries[lo].Off
	end := f.Entries[hi-1].Off + f.Entries[hi-1].TotalBytes()
	b := buf
	if int64(cap(b)) < end-start {
		b = make([]byte, end-start)
	}
	b = b[:end-start]
	if n, err := f.src.ReadAt(b, start); err != nil && !(errors.Is(err, io.EOF) && int64(n) >= f.Entries[hi-1].Off+int64(f.Entries[hi-1].Len)-start) {
		return lineSpan{}, fmt.Errorf("read %s lines %d-%d: %w", f.Path, f.Entries[lo].Line, f.Entries[hi-1].Line, err)
	}
	return lineSpan{f: f, start: start, b: b}, nil
}

// raw is the bytes of line i (one of the span's), terminator excluded: a
// part of the span's buffer whose capacity ends with the line (an append
// to it makes a copy).
func (l lineSpan) raw(i int) []byte {
	e := &l.f.Entries[i]
	a := e.Off - l.start
	z := a + int64(e.Len)
	return l.b[a:z:z]
}

// buf is the buffer the lines were read into (for the next readLines).
func (l lineSpan) buf() []byte { return l.b }

// ToolIDs returns the toolUseID and parentToolUseID fields of entry i (a
// progress entry's: the tool call it reports on, and the call it runs
// under), "" for one that is absent or not a string; the last of a
// repeated field counts, as for every field the index reads. They are read
// from the line (HasToolIDs says which entries have them): the index does
// not hold them.
func (f *File) ToolIDs(i int) (toolUseID, parentToolUseID string, err error) {
	e := &f.Entries[i]
	if e.Kind != KindEntry || !e.HasToolIDs() {
		return "", "", nil
	}
	raw, err := f.ReadRaw(i, nil)
	if err != nil {
		return "", "", err
	}
	if e.Off == 0 {
		raw = bytes.TrimPrefix(raw, bom)
	}
	toolUseID, parentToolUseID = lineToolIDs(raw)
	return toolUseID, parentToolUseID, nil
}

// lineToolIDs reads the top-level toolUseID and parentToolUseID fields of
// an entry's line (ToolIDs).
func lineToolIDs(raw []byte) (toolUseID, parentToolUseID string) {
	s := b2s(raw)
	Fields(s, skipWS(raw, 0), func(k string, vs, ve int) bool {
		switch k {
		case "toolUseID":
			toolUseID = strings.Clone(strValue(s[vs:ve]))
		case "parentToolUseID":
			parentToolUseID = strings.Clone(strValue(s[vs:ve]))
		}
		return true
	})
	return toolUseID, parentToolUseID
}

// Source returns the reader the file's bytes come from.
func (f *File) Source() io.ReaderAt { return f.src }

// blockSize is the unit of parallel indexing: the file is read in blocks
// of whole lines, each indexed by a worker, and the results are joined in
// order. A line longer than a block makes its block bigger.
var blockSize = 1 << 20 // a variable only so that tests can make blocks tiny

// blockPool recycles block buffers: indexing a big file then touches the
// same few megabytes of memory instead of fresh pages.
//
// A buffer holds a block and the start of the line that goes on past it
// (blockCap): up to a dozen of them are in flight while a file is indexed
// or written, and at twice the block size they were 12 MB of the heap of
// a command on a file of 114 MB.
var blockPool = sync.Pool{New: func() any { return make([]byte, blockCap()) }}

// blockCap is the capacity of a pooled block buffer: a block and a
// quarter (a longer carried line gets a buffer of its own).
func blockCap() int { return blockSize + blockSize/4 }

// getBlock returns an empty block buffer of capacity blockCap().
func getBlock() []byte {
	b := blockPool.Get().([]byte)
	if cap(b) != blockCap() { // made for another block size (tests)
		b = make([]byte, 0, blockCap())
	}
	return b[:0]
}

// putBlock gives a block buffer back (others are left to the GC).
func putBlock(b []byte) {
	if cap(b) == blockCap() {
		blockPool.Put(b[:0]) //nolint:staticcheck // a slice header is fine here
	}
}

type block struct {
	off     int64   // file offset of data[0]
	data    []byte  // whole lines; the last may lack its newline only at EOF
	first   bool    // the block starts the file
	start   int     // index of the block's first line in the file
	dst     []Entry // where its entries go (nil: a slice of its own)
	entries []Entry
	done    chan struct{}
	flushed chan struct{} // closed once an IndexWriter wrote the block out (nil: not written)
	// runs are the stretches of an IndexWriter's output in the block that
	// are lines of an indexed file copied unchanged (IndexWriter.Verbatim)
	runs   []verbatim
	copied int // entries taken from a run's file instead of parsed
	// span, when not 0, is the length in the file of the one line of the
	// block, which holds NUL bytes and was not kept (skipNULLine): data
	// is a stand-in of it (a NUL and its line end)
	span int64
	// skip, when not nil, is a stretch of an index-only writer's output
	// whose entries are those of lines of an indexed file, unread
	// (IndexWriter.skip, reparent): the block has no data
	skip *skipped
}

// skipped is the pieces of a block without data, lines entries and n
// bytes in all.
type skipped struct {
	pieces []piece
	lines  int
	n      int64
}

// piece is the lines [first, first+lines) of src, n bytes in all,
// unchanged; or, with parent set, line first given that parentUuid ("":
// null) and n bytes with its line end.
type piece struct {
	src          *File
	first, lines int
	n            int64
	parent       *string
}

// end is the file offset after the block.
func (b *block) end() int64 {
	if b.span > 0 {
		return b.off + b.span
	}
	if b.skip != nil {
		return b.off + b.skip.n
	}
	return b.off + int64(len(b.data))
}

// verbatim is a stretch [out0, out1) of an IndexWriter's output that is
// the lines of src from entry first on, byte for byte.
type verbatim struct {
	out0, out1 int64
	src        *File
	first      int
}

func (f *File) index(r io.Reader, lines int) error {
	x := newIndexer(lines)
	err := splitBlocks(r, x.submit)
	x.finish(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Path, err)
	}
	return nil
}

// indexer indexes blocks of whole lines on every core and joins their
// entries in order. Blocks are submitted in file order; a block's buffer
// goes back to the pool once it is indexed. When the number of lines is
// known up front (lines > 0), the entries are parsed straight into one
// slice of that length: no per-block slices and no joining copy, which
// for a million entries was both the peak of memory and seconds of
// write-barriered copying.
type indexer struct {
	jobs, order chan *block
	wg          sync.WaitGroup
	joined      chan struct{}
	all         []Entry   // the entries, when their number was known
	next        int       // index of the next block's first line
	overflow    bool      // a block did not fit all: it and the rest went to parts
	parts       [][]Entry // blocks that did not fit all (or all of them without it)
	size        int64
	bom         bool
	copied      int // entries taken from an index instead of parsed
}

// newIndexer starts the workers; lines is the number of lines expected
// (0: unknown). More lines than expected are handled, only slower.
func newIndexer(lines int) *indexer {
	workers := runtime.GOMAXPROCS(0)
	x := &indexer{jobs: make(chan *block, workers), order: make(chan *block, workers+1), joined: make(chan struct{})}
	if lines > 0 {
		x.all = makeTouched[Entry](lines)
	}
	for w := 0; w < workers; w++ {
		x.wg.Add(1)
		go func() {
			defer x.wg.Done()
			for b := range x.jobs {
				b.entries = indexBlock(b)
				if b.span > 0 && len(b.entries) == 1 {
					e := &b.entries[0]
					e.Len = int32(b.span) - int32(e.EOL)
				}
				for i := range b.entries {
					b.entries[i].Line = int32(b.start + i + 1)
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(x.joined)
		for b := range x.order {
			<-b.done
			if b.flushed != nil {
				<-b.flushed // the buffer is still being written out
			}
			if b.first {
				x.bom = len(b.entries) > 0 && hasBOM(b.data)
			}
			if b.dst == nil {
				x.parts = append(x.parts, b.entries)
			}
			x.size = b.end()
			x.copied += b.copied
			putBlock(b.data)
			b.data, b.entries, b.dst, b.runs = nil, nil, nil, nil
		}
	}()
	return x
}

// makeTouched makes a slice of n zero values and writes to each of its
// pages before the collector can read them. A large new slice is memory
// the process never used; when the collector's scan of it (the entries
// hold pointers) comes before the workers fill it (its allocation starts
// a collection: the index's array is the first large thing a command
// makes), each page is first the kernel's shared zero page, and the
// worker's first write to it a copy-on-write fault that flushes the
// page's address on every core, an interrupt to each, dear on a VM: 55%
// of the TLB flushes of compress-old-turns on agentic 300 MB came from
// the index's workers so. The collector is held off while the pages are
// written (a few milliseconds for 18 MB); the lock keeps two of these
// from restoring each other's setting.
func makeTouched[T any](n int) []T {
	touchMu.Lock()
	defer touchMu.Unlock()
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	s := make([]T, n)
	var zero T
	step := max(1, pageSize/int(unsafe.Sizeof(zero)))
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
	return s
}

var touchMu sync.Mutex

// pageSize is the size of the pages makeTouched writes to (the smallest a
// system may use: a larger page is written to more than once).
const pageSize = 4096

// submit queues a block; its lines are counted here (a vector count) so
// that it knows where its entries go.
func (x *indexer) submit(b *block) {
	n := bytes.Count(b.data, []byte{'\n'})
	if len(b.data) > 0 && b.data[len(b.data)-1] != '\n' {
		n++
	}
	if b.skip != nil {
		n = b.skip.lines
	}
	b.start = x.next
	if x.all != nil && !x.overflow {
		if x.next+n <= len(x.all) {
			b.dst = x.all[x.next : x.next+n : x.next+n]
		} else {
			x.overflow = true
			x.all = x.all[:x.next] // this block and the rest go to parts, in order
		}
	}
	x.next += n
	x.order <- b
	x.jobs <- b
}

// finish waits for the submitted blocks and gives f their entries.
func (x *indexer) finish(f *File) {
	close(x.order)
	close(x.jobs)
	x.wg.Wait()
	<-x.joined
	f.BOM = x.bom
	f.Size = x.size
	if x.all != nil && !x.overflow {
		f.Entries = x.all[:x.next]
		return
	}
	n := len(x.all)
	for _, p := range x.parts {
		n += len(p)
	}
	f.Entries = make([]Entry, 0, n)
	f.Entries = append(f.Entries, x.all...)
	for k, p := range x.parts {
		f.Entries = append(f.Entries, p...)
		x.parts[k] = nil // let the block's copy go
	}
}

// IndexWriter passes what is written to it on to a sink in blocks of whole
// lines, and indexes each block on the other cores as the next one fills.
// The result of an operation is written through one, so that what reaches
// the disk is exactly what is validated, with no pipe, no second copy and
// no re-read. The sink is written from a goroutine of its own, so that the
// write system calls overlap the making of the next block.
type IndexWriter struct {
	name  string
	sink  io.Writer
	x     *indexer
	buf   []byte
	nl    int // index of the last newline in buf, or -1
	off   int64
	first bool
	err   error
	runs  []verbatim // Verbatim's stretches not yet passed on whole
	// copied is the number of entries taken from an index instead of
	// parsed (set by Close; for tests)
	copied int
	// discard: the sink is io.Discard, the bytes go nowhere (skip);
	// skipped is the number of unchanged bytes skipped so (for tests);
	// pending is the block without data being gathered
	discard    bool
	skipped    int64
	reparented int
	pending    *block

	flushQ    chan *block
	flushDone chan struct{}
	flushMu   sync.Mutex
	flushErr  error
}

// NewIndexWriter returns an IndexWriter that writes to sink and names the
// File it makes name. lines is the number of lines expected (0: unknown);
// a right guess saves memory and a copy of the index.
func NewIndexWriter(name string, sink io.Writer, lines int) *IndexWriter {
	w := &IndexWriter{name: name, sink: sink, x: newIndexer(lines), nl: -1, first: true,
		flushQ: make(chan *block, 2), flushDone: make(chan struct{}), discard: sink == io.Discard}
	go w.flusher()
	return w
}

// flusher writes the blocks out in order; after an error it only lets
// them go.
func (w *IndexWriter) flusher() {
	defer close(w.flushDone)
	var err error
	for b := range w.flushQ {
		if err == nil {
			if _, err = w.sink.Write(b.data); err != nil {
				w.flushMu.Lock()
				w.flushErr = err
				w.flushMu.Unlock()
			}
		}
		close(b.flushed)
	}
}

func (w *IndexWriter) sinkErr() error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	return w.flushErr
}

// Verbatim tells w that the next n bytes written are the lines of src
// from its entry first on, unchanged (n ends at the end of a line): their
// entries are taken from src's index, with their new offsets, instead of
// being parsed again. The entries share src's content blocks, which must
// not change while the index is in use. The first line of either file is
// parsed all the same (a byte order mark is read only there). The bytes
// are trusted to be src's as it was indexed: a session file rewritten
// while ccsurgeon works is refused by the in-place write's check of its
// size and time (backup), not here.
func (w *IndexWriter) Verbatim(src *File, first int, n int64) {
	if n <= 0 || first < 0 || first >= len(src.Entries) {
		return
	}
	at := w.off + int64(len(w.buf))
	w.runs = append(w.runs, verbatim{out0: at, out1: at + n, src: src, first: first})
}

// skip is Verbatim for a writer whose sink is io.Discard (IndexOf, a dry
// run: a result checked, not kept): the n bytes are not written at all,
// so the caller need not read them; their entries are src's. It reports
// false, and takes nothing, when the bytes must be written all the same:
// a writer that keeps them, the start of either file (its first line is
// parsed, for a byte order mark), a writer midway through a line, or n
// not the end of a line of src. What it takes is gathered with the lines
// taken next into one block without data (a check of a damaged session
// takes tens of thousands of runs between its edits), passed on when
// bytes are written again.
func (w *IndexWriter) skip(src *File, first int, n int64) bool {
	if !w.canSkip(src, first) || n <= 0 {
		return false
	}
	es := src.Entries
	start, k := es[first].Off, first
	for k < len(es) && es[k].Off-start < n {
		k++
	}
	if end := es[k-1].Off + es[k-1].TotalBytes(); end-start != n || es[k-1].EOL == 0 {
		return false
	}
	return w.gather(piece{src: src, first: first, lines: k - first, n: n})
}

// reparent is skip for line i of src made again with only its parentUuid
// changed, to parent ("": null), as the n bytes line (its line end
// excluded): its entry is src's with that parent and length, not parsed
// again. The same cases as skip's are refused, and a line that is no
// entry or ends the file without a line end.
func (w *IndexWriter) reparent(src *File, i int, line []byte, parent string) bool {
	if !w.canSkip(src, i) {
		return false
	}
	e := &src.Entries[i]
	if e.Kind != KindEntry || e.EOL == 0 || len(line) == 0 || len(line) > maxLine {
		return false
	}
	return w.gather(piece{src: src, first: i, lines: 1, n: int64(len(line)) + int64(e.EOL), parent: &parent})
}

// canSkip reports whether w may take lines of src from line first on
// without their bytes (skip).
func (w *IndexWriter) canSkip(src *File, first int) bool {
	if !w.discard || w.err != nil || first <= 0 || first >= len(src.Entries) {
		return false
	}
	at := w.off + int64(len(w.buf))
	return at > 0 && (len(w.buf) == 0 || w.buf[len(w.buf)-1] == '\n')
}

// maxPending is the most entries a block without data gathers before it
// is passed on (the workers copy them while the next ones gather).
const maxPending = 1 << 14

// gather adds p to the block without data being gathered, after passing
// on the bytes written before it.
func (w *IndexWriter) gather(p piece) bool {
	if w.pending == nil {
		if len(w.buf) > 0 {
			if err := w.cut(true); err != nil {
				return false
			}
		}
		w.pending = &block{off: w.off, skip: &skipped{}, done: make(chan struct{})}
	}
	k := w.pending.skip
	k.pieces = append(k.pieces, p)
	k.lines += p.lines
	k.n += p.n
	w.off += p.n
	if p.parent == nil {
		w.skipped += p.n
	} else {
		w.reparented++
	}
	if k.lines >= maxPending {
		w.passPending()
	}
	return true
}

// passPending passes on the block without data being gathered.
func (w *IndexWriter) passPending() {
	if w.pending != nil {
		w.x.submit(w.pending)
		w.pending = nil
	}
}

// Write buffers p and passes on every full block.
func (w *IndexWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.passPending()
	n := len(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = getBlock()
		}
		if len(w.buf) == cap(w.buf) { // one line longer than the buffer
			if len(w.buf) > maxLine {
				w.err = errLineTooLong(w.off)
				return n - len(p), w.err
			}
			w.buf = append(make([]byte, 0, 2*cap(w.buf)), w.buf...)
		}
		at := len(w.buf)
		k := copy(w.buf[at:cap(w.buf)], p)
		w.buf = w.buf[:at+k]
		p = p[k:]
		if j := lastNewline(w.buf[at:]); j >= 0 {
			w.nl = at + j
		}
		if len(w.buf) >= blockSize && w.nl >= 0 {
			if err := w.cut(false); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// lastNewline is bytes.LastIndexByte(b, '\n') with vector code: the
// written pieces are mostly line bodies (no newline at all, one vector
// scan) or end in their newline (no scan).
func lastNewline(b []byte) int {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return n - 1
	}
	last := -1
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\n')
		if k < 0 {
			return last
		}
		last = i + k
		i = last + 1
	}
}

// cut passes on the whole lines of the buffer (all of it at the end).
func (w *IndexWriter) cut(final bool) error {
	data := w.buf
	var carry []byte
	if !final {
		c := w.nl
		if rest := data[c+1:]; len(rest) > 0 {
			carry = append(getBlock(), rest...)
		}
		data = data[:c+1]
	}
	w.buf, w.nl = carry, -1
	if len(data) > maxLine && longestLine(data) > maxLine {
		w.err = errLineTooLong(w.off)
		return w.err
	}
	if len(data) == 0 {
		putBlock(data)
		return nil
	}
	if err := w.sinkErr(); err != nil {
		w.err = err
		putBlock(data)
		return err
	}
	b := &block{off: w.off, data: data, first: w.first, done: make(chan struct{}), flushed: make(chan struct{})}
	end := w.off + int64(len(data))
	for len(w.runs) > 0 && w.runs[0].out0 < end {
		b.runs = append(b.runs, w.runs[0])
		if w.runs[0].out1 > end {
			break // it goes on in the next block
		}
		w.runs = w.runs[1:]
	}
	w.flushQ <- b
	w.x.submit(b)
	w.off += int64(len(data))
	w.first = false
	return nil
}

// Close writes what is left and returns the index of everything written.
// The File has no bytes behind it (Raw fails).
func (w *IndexWriter) Close() (*File, error) {
	w.passPending()
	if w.err == nil {
		_ = w.cut(true)
	}
	close(w.flushQ)
	<-w.flushDone
	f := &File{Path: w.name}
	w.x.finish(f)
	w.copied = w.x.copied
	if w.err == nil {
		w.err = w.sinkErr()
	}
	if w.err != nil {
		return nil, w.err
	}
	return f, nil
}

// maxLine is the longest line the index holds (its lengths are int32).
const maxLine = 1<<31 - 1

// longestLine is the length of the longest line in data.
func longestLine(data []byte) int {
	longest := 0
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			n = len(data)
		}
		longest = max(longest, n)
		data = data[min(n+1, len(data)):]
	}
	return longest
}

func errLineTooLong(off int64) error {
	return &Error{Msg: fmt.Sprintf("the line at byte %d is longer than 2 GB", off), Hint: "lines of up to 2 GB can be read; this file cannot be read or changed"}
}

// splitBlocks reads r into blocks that end at a newline (or at EOF).
func splitBlocks(r io.Reader, emit func(*block)) error {
	var carry []byte
	var off int64
	first := true
	for {
		var data []byte
		if len(carry) <= blockCap()-blockSize {
			data = getBlock()[:blockCap()] // reads a block or more after carry
		} else {
			want := max(blockSize, len(carry)) // a long line: double the read
			data = make([]byte, len(carry)+want)
		}
		copy(data, carry)
		n, err := io.ReadFull(r, data[len(carry):])
		data = data[:len(carry)+n]
		last := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !last {
			return err
		}
		carry = nil
		if !last {
			cut := bytes.LastIndexByte(data, '\n')
			if cut < 0 {
				if len(data) > maxLine {
					return errLineTooLong(off)
				}
				if len(data) >= blockSize && bytes.IndexByte(data, 0) >= 0 {
					// a long line holding NUL bytes (a sparse file, the
					// padding a crash leaves): never JSON, so recorded by
					// offset and length, its bytes not kept (doctor held
					// 3.95 GB for a 3.2 GB run)
					b, rest, err := skipNULLine(r, off, data)
					if err != nil {
						return err
					}
					b.first = first
					emit(b)
					off, first = b.end(), false
					if rest == nil {
						return nil // the line ran to EOF
					}
					carry = rest
					continue
				}
				carry = data // no line end yet: read more
				continue
			}
			carry = append([]byte(nil), data[cut+1:]...)
			data = data[:cut+1]
		}
		if len(data) > maxLine && longestLine(data) > maxLine {
			return errLineTooLong(off)
		}
		if len(data) > 0 {
			emit(&block{off: off, data: data, first: first, done: make(chan struct{})})
			off += int64(len(data))
			first = false
		}
		if last {
			return nil
		}
	}
}

// skipNULLine reads on past the start of a line, head (at file offset
// off, no newline in it, a NUL byte in it), to its newline or EOF, with a
// buffer of one block: the block it returns stands for the line (span),
// and rest is what follows the newline in the last read (nil at EOF).
func skipNULLine(r io.Reader, off int64, head []byte) (*block, []byte, error) {
	span := int64(len(head))
	last := head[len(head)-1]
	buf := getBlock()[:blockSize]
	defer putBlock(buf)
	for {
		n, err := io.ReadFull(r, buf)
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return nil, nil, err
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			if i > 0 {
				last = buf[i-1]
			}
			span += int64(i + 1)
			if span-1 > maxLine {
				return nil, nil, errLineTooLong(off)
			}
			stand := []byte{0, '\n'}
			if last == '\r' {
				stand = []byte{0, '\r', '\n'}
			}
			return &block{off: off, data: stand, span: span, done: make(chan struct{})}, append([]byte(nil), buf[i+1:n]...), nil
		}
		if n > 0 {
			last = buf[n-1]
		}
		span += int64(n)
		if span > maxLine {
			return nil, nil, errLineTooLong(off)
		}
		if eof {
			return &block{off: off, data: []byte{0}, span: span, done: make(chan struct{})}, nil, nil
		}
	}
}

// indexBlock parses the lines of one block.
func indexBlock(b *block) []Entry {
	if k := b.skip; k != nil {
		out := b.dst[:0]
		if b.dst == nil {
			out = make([]Entry, 0, k.lines)
		}
		off := b.off
		for _, p := range k.pieces {
			es := p.src.Entries[p.first : p.first+p.lines]
			at := len(out)
			out = append(out, es...)
			shift := off - es[0].Off
			for i := at; i < len(out); i++ {
				out[i].Off += shift
			}
			if p.parent != nil {
				e := &out[at]
				e.Len = int32(p.n) - int32(e.EOL)
				e.reparent(*p.parent)
			}
			off += p.n
		}
		b.copied += len(out)
		return out
	}
	out := b.dst[:0]
	if b.dst == nil {
		out = make([]Entry, 0, bytes.Count(b.data, []byte{'\n'})+1)
	}
	data := b.data
	pos := 0
	blocks := getBlocks()
	var copied []bool // which entries came from a run's file (their blocks are its)
	runs, j := b.runs, -1
	for pos < len(data) {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos + 1
		}
		off := b.off + int64(pos)
		if e, ok := verbatimEntry(&runs, &j, off, end-pos); ok {
			if copied == nil {
				copied = make([]bool, len(out), cap(out))
			}
			out = append(out, *e)
			out[len(out)-1].Off = off
			copied = append(copied, true)
			b.copied++
			pos = end
			continue
		}
		out = append(out, Entry{})
		if copied != nil {
			copied = append(copied, false)
		}
		parseLine(&out[len(out)-1], off, data[pos:end], b.first && pos == 0, &blocks)
		pos = end
	}
	placeBlocks(out, blocks, copied)
	putBlocks(blocks)
	return out
}

// verbatimEntry returns the entry of the line of n bytes at output offset
// off when the line is one of a run's file, copied unchanged; j is the
// entry of that file found last (the lines come in order). The first line
// of either file is not taken (it is parsed knowing that it is first).
func verbatimEntry(runs *[]verbatim, j *int, off int64, n int) (*Entry, bool) {
	for len(*runs) > 0 && (*runs)[0].out1 <= off {
		*runs, *j = (*runs)[1:], -1
	}
	if len(*runs) == 0 {
		return nil, false
	}
	r := &(*runs)[0]
	if off < r.out0 || off+int64(n) > r.out1 || off == 0 {
		return nil, false
	}
	es := r.src.Entries
	in := es[r.first].Off + (off - r.out0)
	if *j < r.first {
		*j = r.first
	}
	for *j < len(es) && es[*j].Off < in {
		*j++
	}
	if *j == len(es) || es[*j].Off != in || in == 0 || es[*j].TotalBytes() != int64(n) {
		return nil, false
	}
	return &es[*j], true
}

// placeBlocks copies the content blocks of entries (gathered in their
// order) into one array and points each entry at its own. An entry whose
// one block names nothing (a text or thinking block: no tool id, no tool
// name) shares it with the entries of the stretch whose block is the same
// (same kind and size): blocks never change once indexed, and on a chain
// of short messages most blocks are alike, where each took 48 bytes of
// every entry.
func placeBlocks(entries []Entry, blocks []Block, copied []bool) {
	if len(blocks) == 0 {
		return
	}
	type plain struct {
		size, images int32
		kind         BlockKind
		isError      bool
		empty        bool
	}
	var seen map[plain]int32 // where in the arena a shared block is
	// what goes to the arena, every block but a repeated one, is moved
	// to the front of blocks (never ahead of what is still to be read)
	w := 0
	at := make([]int32, 0, len(entries)) // where each entry's blocks start (-1: none)
	k := 0
	for i := range entries {
		n := entries[i].nblk
		if (copied != nil && copied[i]) || n == 0 || n == manyBlocks {
			at = append(at, -1) // its blocks are its file's, or none, or in x
			continue
		}
		bs := blocks[k : k+int(n)]
		k += int(n)
		if n == 1 && bs[0].ID == "" && bs[0].Name == "" {
			b := bs[0]
			p := plain{b.Size, b.Images, b.Kind, b.IsError, b.Empty}
			if seen == nil {
				seen = map[plain]int32{}
			}
			if j, ok := seen[p]; ok {
				at = append(at, j)
				continue
			}
			seen[p] = int32(w)
		}
		at = append(at, int32(w))
		w += copy(blocks[w:], bs)
	}
	arena := make([]Block, w)
	copy(arena, blocks[:w])
	for i, j := range at {
		if j >= 0 {
			entries[i].blk = &arena[j]
		}
	}
}

// blocksPool recycles the buffers content blocks are gathered in.
var blocksPool = sync.Pool{New: func() any { return []Block(nil) }}

func getBlocks() []Block { return blocksPool.Get().([]Block)[:0] }

func putBlocks(b []Block) {
	clear(b)              // the strings they name may go
	blocksPool.Put(b[:0]) //nolint:staticcheck // a slice header is fine here
}

func hasBOM(data []byte) bool { return bytes.HasPrefix(data, bom) }

var bom = []byte{0xEF, 0xBB, 0xBF}

// parseLine indexes one line (terminator included) into e, a zero Entry
// where it is to stay (a returned Entry would be copied, with a write
// barrier per string, once per line); first marks the first line of the
// file, where a byte order mark may stand.
//
// The content blocks are appended to *blocks (see parseEnvelopeTo); a line
// that is not an entry leaves none there.
func parseLine(e *Entry, off int64, line []byte, first bool, blocks *[]Block) {
	e.Off = off
	body := line
	if n := len(body); n > 0 && body[n-1] == '\n' {
		e.EOL = 1
		body = body[:n-1]
		if n := len(body); n > 0 && body[n-1] == '\r' {
			e.EOL = 2
			body = body[:n-1]
		}
	}
	e.Len = int32(len(body)) // splitBlocks and IndexWriter refuse longer lines
	mark := len(*blocks)
	parse := body
	if first && bytes.HasPrefix(parse, bom) {
		parse = parse[len(bom):]
	}
	switch {
	case len(bytes.TrimSpace(parse)) == 0:
		e.Kind = KindBlank
	case parseEnvelopeTo(e, parse, blocks):
		e.Kind = KindEntry
	default:
		*blocks = (*blocks)[:mark]
		*e = Entry{Off: e.Off, Len: e.Len, EOL: e.EOL, Kind: KindInvalid} // drop what a partial walk read
		e.setX(xParseErr, describeInvalid(parse))
	}
}

func describeInvalid(b []byte) string {
	t := bytes.TrimSpace(b)
	switch {
	case bytes.IndexByte(b, 0) >= 0:
		return "line holds NUL bytes and is not valid JSON"
	case len(t) > 0 && t[0] != '{':
		if json := isValidJSON(t); json {
			return "line is JSON but not an object"
		}
		return "line is not valid JSON"
	default:
		return "line is not valid JSON"
	}
}

type progressReader struct {
	r  io.Reader
	fn func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.fn(int64(n))
	return n, err
}
