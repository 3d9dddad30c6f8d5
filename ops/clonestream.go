package ops

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// A plain clone (no branch chosen) renames the identifiers of every entry
// line and changes nothing else: its output is the input with each uuid
// outside content replaced by its image under the Remapper, line for line.
// Stream writes it without indexing the input: one pass that reads the
// file in large blocks, checks each line as the loader does (an entry is a
// valid JSON object; any other line is copied byte for byte, as a write
// over the index does), renames the entries' identifiers on every core,
// and writes the blocks in order.

// UnknownSessionIDsError: the file's entries carry session ids the
// Remapper was not made with (a continued session, a merged file). Their
// uuids were renamed as entry ids, not as the session's: the output is
// wrong and must be made again by a Remapper that knows them (IDs).
type UnknownSessionIDsError struct {
	IDs []string
}

func (e *UnknownSessionIDsError) Error() string {
	return fmt.Sprintf("the file carries %d session ids the renaming did not know", len(e.IDs))
}

// StreamResult is what a Stream wrote.
type StreamResult struct {
	Lines int   // lines of the file: the entries of its index, damaged and blank ones too
	Bytes int64 // bytes written (the input's size: uuids keep their length)
	// Damaged: the lines that are neither entries nor blank (each an
	// error of validate: invalid-json, or torn-final-line when last)
	Damaged int
	// Entries: the lines that are entries (none: validate's empty-file)
	Entries int
}

// streamBlock is the size of the blocks Stream reads and renames.
const streamBlock = 2 << 20

// pageSize is the alignment a block keeps in memory: its bytes lie at the
// same place in a page of memory as in the file.
const pageSize = 4096

type cloneBlock struct {
	data    []byte
	buf     []byte // what data lies in (from its start: reused)
	first   bool   // holds the file's first line
	off     int64
	lines   int
	damaged int
	entries int
	ids     [][36]byte // session ids of entries the Remapper does not know
	done    chan struct{}
	// written by the goroutine that renamed it (a positional destination)
	n   int
	err error
}

// Stream writes the file src (size bytes) to w with the identifiers of
// its entry lines renamed (Line's rule on every line the loader takes for
// an entry). When entries carry session ids the Remapper does not know,
// the whole file is still written, then an *UnknownSessionIDsError names
// them: nothing written may be kept.
//
// When w is also an io.WriterAt (a file: offsets from the start of the
// output, calls from several goroutines at a time), the file is written
// at places by every core (streamAt); only WriteAt is called then.
// Otherwise it is read in blocks, renamed on every core and written in
// order.
func (r *Remapper) Stream(w io.Writer, src io.ReaderAt, size int64) (StreamResult, error) {
	if size <= streamBlock {
		return r.streamSmall(w, src, size)
	}
	if wa, ok := w.(io.WriterAt); ok {
		return r.streamAt(wa, src, size, streamBlock, streamTail)
	}
	workers := runtime.GOMAXPROCS(0)
	// the blocks queued in order (each holds its buffer until written)
	q := make(chan *cloneBlock, 2*workers)
	free := make(chan []byte, 2*workers+2)
	sem := make(chan struct{}, workers)
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(q)
		readErr <- splitLines(src, size, free, func(b *cloneBlock) bool {
			select {
			case q <- b:
			case <-stop:
				return false
			}
			select {
			case sem <- struct{}{}:
			case <-stop:
				close(b.done) // queued, never renamed: the writer skips it
				return false
			}
			go func() {
				defer func() { <-sem }()
				r.renameBlock(b)
				close(b.done)
			}()
			return true
		})
	}()
	var res StreamResult
	var unknown [][36]byte
	var werr error
	for b := range q {
		<-b.done
		if werr != nil {
			continue
		}
		res.add(b)
		unknown = append(unknown, b.ids...)
		n, err := w.Write(b.data)
		res.Bytes += int64(n)
		if err != nil {
			werr = err
			close(stop)
			continue
		}
		select {
		case free <- b.buf[:0]:
		default:
		}
	}
	if werr != nil {
		<-readErr
		return res, werr
	}
	if err := <-readErr; err != nil {
		return res, err
	}
	return res, unknownIDs(unknown)
}

func (res *StreamResult) add(b *cloneBlock) {
	res.Lines += b.lines
	res.Damaged += b.damaged
	res.Entries += b.entries
}

// streamAt is Stream into a destination written at places. The file is
// cut into stretches of streamBlock bytes; each of the renamers (one a
// core) takes the next stretch, reads it with the end of the line that
// crosses its end, renames the lines that begin in it and hands the block
// to one of streamWaiters writers, which writes it at its place (the
// renaming keeps every byte's place), then takes the next stretch into a
// buffer of its own. No goroutine reads for the others (one reader's copy
// out of the page cache, 2 MB at a time, was a third of a clone's wall on
// its own, and the blocks it handed on waited in its order for the disk).
//
// A goroutine in a write that waits for the disk keeps its P (the
// scheduler's right to run Go code) until the runtime's monitor takes it
// back, some 0.1 ms later, and a P handed on wakes another thread: with
// the writes made by the renamers, a core stood idle while blocks waited
// to be renamed (65 of 97 idle core-ms of a 300 MB clone's trace). The
// writers get Ps of their own for the stream (morePs), and only the
// renamers run Go code on the cores.
//
// A line belongs to the stretch it begins in: a stretch's first line
// begins after the first line end at or after the byte before it (at its
// start when that byte is one), its last ends at the first line end at or
// after its own last byte. Each block lies in memory at the place in a
// page its offset has in the file (read from a page boundary), so that a
// writer can send its whole pages straight to the disk (backup's direct
// writes of a file that will be fsynced).
//
// stretch (a multiple of pageSize) and tail are streamBlock and streamTail
// but in tests.
func (r *Remapper) streamAt(wa io.WriterAt, src io.ReaderAt, size, stretch, tail int64) (StreamResult, error) {
	stretches := (size + stretch - 1) / stretch
	writers := int(min(streamWaiters, stretches))
	cores, restore := morePs(writers)
	defer restore()
	renamers := int(min(int64(cores), stretches))
	type part struct {
		res    StreamResult
		ids    [][36]byte
		blocks [][2]int64 // offset and length of each block written
		err    error
		errAt  int64 // the offset the error is met at: the first one is returned
	}
	parts := make([]part, renamers+writers)
	var next atomic.Int64
	var failed atomic.Bool
	fail := func(p *part, err error, at int64) {
		p.err, p.errAt = err, at
		failed.Store(true)
	}
	type written struct {
		b   *cloneBlock
		buf []byte
	}
	// the buffers (each made when first taken): one a renamer at work,
	// one a block queued, one a writer at work (with no block queued, a
	// renamer waited for a writer: 10 % slower on the chain, 5 pairs)
	nbuf := renamers + 2*writers
	free := make(chan []byte, nbuf)
	for range nbuf {
		free <- nil
	}
	queue := make(chan written, writers)
	var renaming, writing sync.WaitGroup
	for g := range renamers {
		renaming.Go(func() {
			p := &parts[g]
			for !failed.Load() {
				k := next.Add(1) - 1
				if k >= stretches {
					return
				}
				buf := <-free
				b, err := readStretch(src, size, k*stretch, stretch, tail, &buf)
				if err != nil || b == nil {
					free <- buf
					if err != nil {
						fail(p, err, k*stretch)
						return
					}
					continue // a long line's middle: no line begins here
				}
				r.renameBlock(b)
				p.res.add(b)
				p.ids = append(p.ids, b.ids...)
				p.blocks = append(p.blocks, [2]int64{b.off, int64(len(b.data))})
				queue <- written{b, buf}
			}
		})
	}
	for g := range writers {
		writing.Go(func() {
			p := &parts[renamers+g]
			for w := range queue {
				if !failed.Load() {
					n, err := wa.WriteAt(w.b.data, w.b.off)
					p.res.Bytes += int64(n)
					if err != nil {
						fail(p, err, w.b.off)
					}
				}
				if int64(cap(w.buf)) > maxKeptStretch*stretch {
					w.buf = nil // grown for a long line: not kept for the next
				}
				free <- w.buf
			}
		})
	}
	renaming.Wait()
	close(queue)
	writing.Wait()
	var res StreamResult
	var unknown [][36]byte
	var blocks [][2]int64
	var err error
	errAt := int64(-1)
	for _, p := range parts {
		res.Lines += p.res.Lines
		res.Damaged += p.res.Damaged
		res.Entries += p.res.Entries
		res.Bytes += p.res.Bytes
		unknown = append(unknown, p.ids...)
		blocks = append(blocks, p.blocks...)
		if p.err != nil && (errAt < 0 || p.errAt < errAt) {
			err, errAt = p.err, p.errAt
		}
	}
	if err != nil {
		return res, err
	}
	if err := tiled(blocks, size); err != nil {
		return res, err
	}
	return res, unknownIDs(unknown)
}

// tiled refuses blocks (offset, length) that do not cover a file of size
// bytes exactly once. Each block's edges come from two reads of the bytes
// around them, by two goroutines: on a file rewritten in place between
// them the two can disagree on where a line ends, and leave bytes no block
// wrote (zeros in the output) or write some twice.
func tiled(blocks [][2]int64, size int64) error {
	slices.SortFunc(blocks, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var next int64
	for _, b := range blocks {
		if b[0] != next {
			break
		}
		next += b[1]
	}
	if next == size {
		return nil
	}
	return &chain.Error{
		Msg:  fmt.Sprintf("the file changed while it was read (its lines no longer meet at byte %d); nothing was kept", next),
		Hint: "another program rewrote it: retry once it is still",
	}
}

// readStretch reads the lines of src (size bytes) that begin in the
// stretch of stretch bytes at lo into *buf (grown when a line ends more
// than tail bytes past the stretch, and kept for the next), as a block;
// nil when no line begins in it (the middle of a line longer than a
// stretch).
func readStretch(src io.ReaderAt, size, lo, stretch, tail int64, buf *[]byte) (*cloneBlock, error) {
	hi := min(lo+stretch, size)
	from := max(lo-pageSize, 0) // from a page boundary, with the byte before lo
	// the stretch, the page before it, and room for the end of its last
	// line (most end within a few KB past hi)
	want := hi - from + tail
	if int64(cap(*buf)) < want {
		*buf = pageAligned(want)
	}
	data := (*buf)[:min(want, size-from)]
	if err := readFull(src, data, from); err != nil {
		return nil, err
	}
	start := lo
	if lo > 0 && data[lo-1-from] != '\n' {
		nl := bytes.IndexByte(data[lo-from:hi-from], '\n')
		if nl < 0 {
			return nil, nil
		}
		start = lo + int64(nl) + 1
	}
	if start >= hi {
		return nil, nil
	}
	end := size
	if hi < size {
		// the end of the line that holds hi-1, read further until found
		for at := hi - 1; ; {
			if nl := bytes.IndexByte(data[at-from:], '\n'); nl >= 0 {
				end = at + int64(nl) + 1
				break
			}
			read := from + int64(len(data))
			if read == size {
				break // the last line, without its end
			}
			lineStart := start
			if k := bytes.LastIndexByte(data[start-from:hi-from], '\n'); k >= 0 {
				lineStart = start + int64(k) + 1
			}
			if read-lineStart > chain.MaxLine {
				return nil, chain.LineTooLong(lineStart)
			}
			// twice what is read, in a larger buffer when this one is
			// full (what it holds copied over)
			n := int64(len(data))
			longer := min(2*n, size-from)
			if int64(cap(*buf)) < longer {
				*buf = append(pageAligned(longer), data...)
			}
			data = (*buf)[:longer]
			if err := readFull(src, data[n:], read); err != nil {
				return nil, err
			}
			at = read
		}
	}
	block := data[start-from : end-from]
	if err := chain.CheckLines(block, start); err != nil {
		return nil, err
	}
	return &cloneBlock{data: block, first: start == 0, off: start}, nil
}

// pageAligned is an empty buffer of capacity n whose first byte starts a
// page of memory.
func pageAligned(n int64) []byte {
	b := make([]byte, n+pageSize)
	skip := (pageSize - int(uintptr(unsafe.Pointer(&b[0]))%pageSize)) % pageSize
	return b[skip : skip : int64(skip)+n]
}

// maxKeptStretch is how many stretches' worth of buffer a goroutine keeps
// for its next stretch: one grown larger for a long line is let go.
const maxKeptStretch = 4

// streamTail is how far past its stretch a read goes at first for the end
// of the stretch's last line.
const streamTail = 64 << 10

// readFull reads len(p) bytes of src at off (the end of the file may come
// with them, as io.ReaderAt allows).
func readFull(src io.ReaderAt, p []byte, off int64) error {
	n, err := src.ReadAt(p, off)
	if n == len(p) && (err == nil || err == io.EOF) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// streamSmall is Stream of a file of one block (a subagent transcript, a
// small session): read, renamed and written in this goroutine, in a buffer
// of a pool that the many small files of a session share.
func (r *Remapper) streamSmall(w io.Writer, src io.ReaderAt, size int64) (StreamResult, error) {
	bp := smallBufs.Get().(*[]byte)
	defer smallBufs.Put(bp)
	if int64(cap(*bp)) < size {
		*bp = make([]byte, size)
	}
	data := (*bp)[:size]
	if n, err := src.ReadAt(data, 0); err != nil && !(err == io.EOF && int64(n) == size) {
		return StreamResult{}, err
	}
	b := &cloneBlock{data: data, first: true}
	r.renameBlock(b)
	n, err := w.Write(data)
	res := StreamResult{Lines: b.lines, Bytes: int64(n), Damaged: b.damaged, Entries: b.entries}
	if err != nil {
		return res, err
	}
	return res, unknownIDs(b.ids)
}

var smallBufs = sync.Pool{New: func() any { return new([]byte) }}

// unknownIDs is the error that names the session ids ids (nil for none).
func unknownIDs(ids [][36]byte) error {
	if len(ids) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, id := range ids {
		set[string(id[:])] = true
	}
	e := &UnknownSessionIDsError{}
	for id := range set {
		e.IDs = append(e.IDs, id)
	}
	sort.Strings(e.IDs)
	return e
}

// splitLines reads src in blocks that end at a newline (or at the end of
// the file) and hands each to emit, which returns false to stop. A line
// longer than a block makes the block grow to hold it; one longer than
// the loader reads is refused as the loader refuses it.
func splitLines(src io.ReaderAt, size int64, free chan []byte, emit func(*cloneBlock) bool) error {
	var carry []byte
	var off, pos int64
	for pos < size || len(carry) > 0 {
		want := max(streamBlock, 2*len(carry))
		var whole []byte
		select {
		case whole = <-free:
		default:
		}
		if cap(whole) < want {
			whole = make([]byte, 0, want)
		}
		buf := append(whole, carry...)
		n := min(int64(want-len(buf)), size-pos)
		buf = buf[:len(buf)+int(n)]
		if _, err := src.ReadAt(buf[len(carry):], pos); err != nil && !(err == io.EOF && pos+n == size) {
			return err
		}
		pos += n
		data := buf
		carry = nil
		if pos < size {
			cut := bytes.LastIndexByte(data, '\n')
			if cut < 0 {
				if int64(len(data)) > chain.MaxLine {
					return chain.LineTooLong(off)
				}
				carry = data // no line end yet: read more (this block is not reused)
				continue
			}
			carry = append([]byte(nil), data[cut+1:]...)
			data = data[:cut+1]
		}
		if len(data) == 0 {
			continue
		}
		if err := chain.CheckLines(data, off); err != nil {
			return err
		}
		if !emit(&cloneBlock{data: data, buf: whole, first: off == 0, off: off, done: make(chan struct{})}) {
			return nil
		}
		off += int64(len(data))
	}
	return nil
}

// renameBlock renames the entry lines of b in place.
func (r *Remapper) renameBlock(b *cloneBlock) {
	data := b.data
	var offs []int
	var seen idCache
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(data)
		}
		body := data[pos:end]
		if n := len(body); n > 0 && body[n-1] == '\r' && end < len(data) {
			body = body[:n-1]
		}
		b.lines++
		var id [36]byte
		var kind chain.Kind
		offs, kind, id = r.renameLine(body, b.first && pos == 0, offs[:0], &seen)
		switch {
		case kind == chain.KindInvalid:
			b.damaged++
		case kind == chain.KindEntry:
			b.entries++
			if id != ([36]byte{}) && (len(b.ids) == 0 || b.ids[len(b.ids)-1] != id) {
				b.ids = append(b.ids, id)
			}
		}
		pos = next
	}
}

// renameLine renames the identifiers of one line in place when it is an
// entry, as Line does (offs is scratch space, returned for reuse). It
// returns the line's kind and the entry's session id when the Remapper
// does not know it (else zero).
func (r *Remapper) renameLine(body []byte, first bool, offs []int, seen *idCache) ([]int, chain.Kind, [36]byte) {
	var sid []byte
	kind := chain.EntryFields(body, first, func(k string, vs, ve int) {
		if k == "sessionId" {
			sid = body[vs:ve] // the last one is the entry's, as the index reads it
		}
		if isContentKey(k) {
			return
		}
		switch body[vs] {
		case '"':
			// a string (valid: EntryFields checked it) holds a quoted
			// uuid only at its end: every quote inside it but the last
			// follows a backslash, and a uuid's last digit is no
			// backslash. One test, not a search (scanUUIDStrings finds
			// the same; TestStreamRenamesAsLine). Whether the 36 bytes
			// are a uuid is asked when it is renamed, after the ids kept
			// (which are): most are one of them
			if ve-vs >= 38 && body[ve-38] == '"' {
				offs = append(offs, ve-37)
			}
		case '{', '[':
			scanUUIDStrings(body[vs:ve], func(off int) { offs = append(offs, vs+off) })
		} // a number, true, false or null holds no string
	})
	var unknown [36]byte
	if kind != chain.KindEntry {
		return offs, kind, unknown
	}
	if sid != nil {
		unknown = seen.sessionID(r, sid)
	}
	for _, off := range offs {
		k := (*[36]byte)(body[off : off+36])
		if seen.rename(k) {
			continue
		}
		// parsed once: a canonical uuid (every one the client writes) is
		// one, and needs no IsUUID first
		if id, ok := chain.ParseID(unsafe.String(&k[0], len(k))); ok {
			seen.add(k, r.mapID(id, k, &seen.ciph))
		} else if chain.IsUUID(k[:]) {
			seen.add(k, r.mapOther(*k))
		}
	}
	return offs, kind, unknown
}

// idCache holds the last few ids a pass renamed and their new ones: the
// lines of a session name the same few again and again (the session id
// on every line, a parentUuid the uuid of the line before, a promptId the
// prompt's, a requestRef the request's), and a comparison costs less
// than parsing and enciphering. The one used longest ago makes room for a
// new one. Eight: on the chain shape a line names five live ids (four
// kept every line's promptId or requestRef out: half the ids were
// enciphered again, where a sixth of them are new).
//
// An id is looked for by its first eight bytes (tag) and compared whole
// only where they match, and renamed where it lies: ids passed and
// returned by value (36 bytes, copied through the stack in overlapping
// 16-byte moves) stalled every look-up on a store the next load had to
// wait for (a fifth of renameLine's own samples under perf).
type idCache struct {
	tag      [8]uint64 // the first eight bytes of each old id
	old, new [8][36]byte
	used     [8]uint32 // when each was last asked for (tick)
	tick     uint32
	n        int
	// the last session id value checked (raw, a plain 38-byte string)
	// and what sessionID answered for it
	sid        [38]byte
	sidOK      bool
	sidUnknown [36]byte
	ciph       cipherScratch // mapID's
}

// rename replaces the id at k by its new one when it is one of the ids
// kept (each a uuid), and reports whether it was.
func (c *idCache) rename(k *[36]byte) bool {
	c.tick++
	t := binary.LittleEndian.Uint64(k[:8])
	for j := range c.n {
		if c.tag[j] == t && c.old[j] == *k {
			c.used[j] = c.tick
			*k = c.new[j]
			return true
		}
	}
	return false
}

// add keeps the uuid at k (not one of the ids kept) and its new id n,
// and renames it.
func (c *idCache) add(k *[36]byte, n [36]byte) {
	j := c.n
	if j == len(c.old) {
		j = 0
		for i := 1; i < len(c.used); i++ {
			if c.used[i] < c.used[j] {
				j = i
			}
		}
	} else {
		c.n++
	}
	c.tag[j] = binary.LittleEndian.Uint64(k[:8])
	c.old[j], c.new[j], c.used[j] = *k, n, c.tick
	*k = n
}

// sessionID is the session id of an entry (raw: its sessionId value) when
// the Remapper does not know it, else zero. Every line of a session holds
// the same value: it is decoded and looked up once a run of them.
func (c *idCache) sessionID(r *Remapper, raw []byte) [36]byte {
	plain := len(raw) == len(c.sid)
	if plain && c.sidOK && [38]byte(raw) == c.sid {
		return c.sidUnknown
	}
	var unknown [36]byte
	if k, isKey := key(chain.SessionIDOf(raw)); isKey && !r.oldIDs[k] {
		unknown = k
	}
	c.sidOK = plain
	if plain {
		c.sid, c.sidUnknown = [38]byte(raw), unknown
	}
	return unknown
}

// streamWaiters is how many goroutines of streamAt write the renamed
// blocks: a block written straight to the disk (backup sends a fsynced
// file's whole pages there) waits for it, and two let the renamers hand
// on a block while another is in the disk's hands.
const streamWaiters = 2

// morePs raises the scheduler's Ps (GOMAXPROCS) by n while a stream runs
// and returns what puts them back: the streams of a process at a time
// (a session's transcript and its large subagent files) share one raise,
// and the last to end restores the number there was before the first.
// cores is that number: how many goroutines are to run Go code at a time.
func morePs(n int) (cores int, restore func()) {
	extraPs.Lock()
	defer extraPs.Unlock()
	if extraPs.users == 0 {
		extraPs.base = runtime.GOMAXPROCS(0)
	}
	extraPs.users++
	if n > extraPs.n {
		extraPs.n = n
		runtime.GOMAXPROCS(extraPs.base + n)
	}
	return extraPs.base, func() {
		extraPs.Lock()
		defer extraPs.Unlock()
		extraPs.users--
		if extraPs.users == 0 {
			extraPs.n = 0
			// the runtime's own setting again (it follows the machine's
			// CPUs and quota), unless the number before was set otherwise
			// (an environment variable, a call): then that number
			runtime.SetDefaultGOMAXPROCS()
			if runtime.GOMAXPROCS(0) != extraPs.base {
				runtime.GOMAXPROCS(extraPs.base)
			}
		}
	}
}

var extraPs struct {
	sync.Mutex
	users, n, base int
}
