package chain

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
)

// Edit changes one line of a file when it is written.
type Edit struct {
	Drop  bool     // leave the line out
	Raw   []byte   // replacement bytes of the line, terminator excluded; nil keeps the line
	After [][]byte // new lines written after this one
	// Late: the line's bytes are made as it is written, by the writer's
	// LineFunc (an edit of most lines that would otherwise hold a copy of
	// the file in memory until it is written, such as a redaction).
	Late bool
	// Parent is the parentUuid an operation gave the line ("" for null)
	// when the bytes that hold it are made late: re-linking after removals
	// reads it (nil: the line's own, or Raw's).
	Parent *string
	// OnlyParent: the Late bytes are the line's own with no change but
	// Parent (a relink): a writer that keeps no bytes takes the line's
	// entry with that parent instead of parsing the bytes again.
	OnlyParent bool
}

// LineFunc makes the bytes of a Late line i (terminator excluded). It is
// called once per Late line, in order.
type LineFunc func(i int) ([]byte, error)

// Edits holds the edits of a file's lines by entry index. Entries without
// an edit are written back byte-for-byte. A line's state is one byte
// indexed by the line (none, only dropped, or an edit held in a map), so
// that the question asked of every line, "is it left out", is an index and
// not a map lookup, and a line that is only left out costs that byte: an
// operation that removes half a million lines (compress --target-tokens on
// a chain of small turns) makes no map entry for each. The nil *Edits has
// no edit; its methods that only read may be called on it.
type Edits struct {
	state []byte        // by line: editNone, editDropOnly, editHeld
	held  map[int]*Edit // the edits of the lines in state editHeld
	n     int           // lines with an edit
}

const (
	editNone     byte = iota
	editDropOnly      // left out, nothing else: At gives the shared dropOnly
	editHeld          // its edit is held[i]
)

// NewEdits returns an empty set of edits.
func NewEdits() *Edits { return &Edits{} }

// Len is the number of lines with an edit.
func (ed *Edits) Len() int {
	if ed == nil {
		return 0
	}
	return ed.n
}

// At returns the edit of entry i, nil if it has none. The edit of a line
// only dropped is shared: change a line's edit through Get.
func (ed *Edits) At(i int) *Edit {
	if ed == nil || i >= len(ed.state) {
		return nil
	}
	switch ed.state[i] {
	case editDropOnly:
		return dropOnly
	case editHeld:
		return ed.held[i]
	}
	return nil
}

// Set makes e the edit of entry i.
func (ed *Edits) Set(i int, e *Edit) {
	ed.grow(i)
	if ed.state[i] == editNone {
		ed.n++
	}
	if ed.held == nil {
		ed.held = map[int]*Edit{}
	}
	ed.state[i] = editHeld
	ed.held[i] = e
}

func (ed *Edits) grow(i int) {
	if i < len(ed.state) {
		return
	}
	n := max(2*len(ed.state), i+1, 64)
	ed.state = append(ed.state, make([]byte, n-len(ed.state))...)
}

// All yields the lines with an edit and their edits, in the order of the
// lines.
func (ed *Edits) All() func(yield func(int, *Edit) bool) {
	return func(yield func(int, *Edit) bool) {
		if ed == nil {
			return
		}
		for i, s := range ed.state {
			if s != editNone && !yield(i, ed.At(i)) {
				return
			}
		}
	}
}

// Get returns the edit of entry i, creating it (the line's own: one that
// was only dropped gets its own copy of the shared edit).
func (ed *Edits) Get(i int) *Edit {
	e := ed.At(i)
	switch e {
	case nil:
		e = &Edit{}
		ed.Set(i, e)
	case dropOnly:
		e = &Edit{Drop: true}
		ed.Set(i, e)
	}
	return e
}

// dropOnly is the edit At gives of every line that is only left out,
// shared. Get gives a line its own before it is changed.
var dropOnly = &Edit{Drop: true}

// Drop leaves entry i out.
func (ed *Edits) Drop(i int) {
	ed.grow(i)
	switch ed.state[i] {
	case editNone:
		ed.state[i] = editDropOnly
		ed.n++
	case editHeld:
		ed.held[i].Drop = true
	}
}

// Dropped reports whether entry i is left out.
func (ed *Edits) Dropped(i int) bool {
	if ed == nil || i >= len(ed.state) {
		return false
	}
	switch ed.state[i] {
	case editDropOnly:
		return true
	case editHeld:
		return ed.held[i].Drop
	}
	return false
}

var eols = [...]string{"", "\n", "\r\n"}

// eolBytes are eols as bytes: a string written through an io.Writer is
// copied to bytes first, an allocation for every line written
// (TestWriteAllocatesPerFileNotPerLine).
var eolBytes = [...][]byte{nil, []byte("\n"), []byte("\r\n")}

// copyAt copies the n bytes of r at off to w through buf: what io.CopyBuffer
// of an io.SectionReader does (a short file ends the copy without an
// error), without a reader made for every stretch (on a session of small
// lines, a run of unchanged lines is a line or two).
func copyAt(w io.Writer, r io.ReaderAt, off, n int64, buf []byte) error {
	for n > 0 {
		k := int(min(n, int64(len(buf))))
		m, err := r.ReadAt(buf[:k], off)
		if m > 0 {
			if _, werr := w.Write(buf[:m]); werr != nil {
				return werr
			}
		}
		off, n = off+int64(m), n-int64(m)
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		case m == 0:
			return io.ErrNoProgress
		}
	}
	return nil
}

// Transform rewrites the bytes of a kept line as it is written (UUID
// remapping for a new session). It may change raw in place (it gets a
// buffer of its own) and must not keep it.
type Transform func(raw []byte) []byte

// Write streams the file with edits applied to w: runs of untouched lines
// are copied from the source as they are. With a transform, every kept
// line passes through it. It returns the bytes written.
func (f *File) Write(w io.Writer, edits *Edits, tr Transform) (int64, error) {
	return f.WriteWith(w, edits, tr, nil)
}

// TransformAt is a Transform told which line it rewrites: i is the
// line's index in f.Entries, -1 for a line an edit adds after one.
type TransformAt func(i int, raw []byte) []byte

// WriteWith is Write with the maker of the Late lines' bytes.
func (f *File) WriteWith(w io.Writer, edits *Edits, tr Transform, late LineFunc) (int64, error) {
	var at TransformAt
	if tr != nil {
		at = func(_ int, raw []byte) []byte { return tr(raw) }
	}
	return f.WriteWithAt(w, edits, at, late)
}

// WriteWithAt is WriteWith with a transform told the line it rewrites (a
// move's, which knows where each line's paths are from its count).
func (f *File) WriteWithAt(w io.Writer, edits *Edits, tr TransformAt, late LineFunc) (int64, error) {
	if tr != nil && mappable(edits) {
		return f.writeMapped(w, edits, tr)
	}
	if tr != nil {
		return f.writeTransformed(w, edits, tr, late)
	}
	cw := &CountWriter{W: w}
	buf := make([]byte, 1<<20)
	var runStart int64 = -1
	var runEnd int64
	runFirst := 0
	iw, _ := w.(*IndexWriter) // the unchanged lines' entries are f's
	flush := func() error {
		if runStart < 0 {
			return nil
		}
		if iw != nil {
			if iw.skip(f, runFirst, runEnd-runStart) { // the bytes go nowhere: not read
				cw.N += runEnd - runStart
				runStart = -1
				return nil
			}
			iw.Verbatim(f, runFirst, runEnd-runStart)
		}
		err := copyAt(cw, f.src, runStart, runEnd-runStart, buf)
		runStart = -1
		return err
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		ed := edits.At(i)
		if ed == nil || (!ed.Drop && ed.Raw == nil && !ed.Late && len(ed.After) == 0) {
			if runStart < 0 {
				runStart, runFirst = e.Off, i
			}
			runEnd = e.Off + e.TotalBytes()
			continue
		}
		if err := flush(); err != nil {
			return cw.N, err
		}
		eol := eolBytes[e.EOL]
		if !ed.Drop {
			if ed.Late {
				b, err := lateLine(late, i)
				if err != nil {
					return cw.N, err
				}
				if iw != nil && ed.OnlyParent && ed.Parent != nil && len(ed.After) == 0 && iw.reparent(f, i, b, *ed.Parent) {
					cw.N += int64(len(b) + len(eol)) // the bytes go nowhere: not parsed
					continue
				}
				if _, err := cw.Write(b); err != nil {
					return cw.N, err
				}
			} else if ed.Raw != nil {
				if _, err := cw.Write(ed.Raw); err != nil {
					return cw.N, err
				}
			} else if err := copyAt(cw, f.src, e.Off, int64(e.Len), buf); err != nil {
				return cw.N, err
			}
		}
		sep := eol
		if len(sep) == 0 {
			sep = eolBytes[1]
		}
		for k, a := range ed.After {
			if !ed.Drop || k > 0 {
				if _, err := cw.Write(sep); err != nil {
					return cw.N, err
				}
			}
			if _, err := cw.Write(a); err != nil {
				return cw.N, err
			}
		}
		if !ed.Drop || len(ed.After) > 0 {
			if _, err := cw.Write(eol); err != nil {
				return cw.N, err
			}
		}
	}
	if err := flush(); err != nil {
		return cw.N, err
	}
	return cw.N, nil
}

// CountWriter counts the bytes written through it.
type CountWriter struct {
	W io.Writer
	N int64
}

// Write passes p on and counts it.
func (c *CountWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// lateLine calls late for a Late line.
func lateLine(late LineFunc, i int) ([]byte, error) {
	if late == nil {
		return nil, fmt.Errorf("internal: line %d is made as it is written, but the writer has no maker", i)
	}
	return late(i)
}

// mappable reports whether edits only drop lines or replace them (no line
// made late, none added after another): writeMapped can write them.
func mappable(edits *Edits) bool {
	for _, ed := range edits.All() {
		if ed != nil && (ed.Late || len(ed.After) > 0) {
			return false
		}
	}
	return true
}

// renderBufs holds the buffers of the mapped renders (writeMapped): the
// writer hands each batch's back once written, and a batch made anew the
// one it read into, for the next batches and the next files (a move
// renders a session's sidecars eight at a time). Without them a move of
// 315 MB made 378 MB of garbage, its largest cause of collections and of
// first-touched pages (and its 859 sidecars ~60 MB more). It keeps as
// many as a render has in flight (at most 32), each at most renderBufMax:
// a buffer of a line far longer than a batch is not kept (the next
// batches would carry it). A channel, not a sync.Pool: what it keeps does
// not depend on the collector or the race detector (which drops a
// quarter of a Pool's puts), so a test can hold it to its promise.
var renderBufs = make(chan []byte, min(4*runtime.GOMAXPROCS(0)+4, 32))

// renderBufMax is the largest buffer renderBufs keeps.
const renderBufMax = 4 * inOrderBatch

// writeMapped writes the file with every kept entry line passed through tr
// (a clone, a fork: edits that only drop or replace lines): batches of
// lines are read and transformed on every core (InOrder) and written in
// order, so the transform does not hold up the writer. A batch of
// untouched lines is their bytes as they lie in the file, each line
// transformed where it lies.
func (f *File) writeMapped(w io.Writer, edits *Edits, tr TransformAt) (int64, error) {
	cw := &CountWriter{W: w}
	type batch struct {
		b   []byte
		sec *io.SectionReader // a long line passed on as it is, in pieces
	}
	take := func(n int) []byte {
		select {
		case b := <-renderBufs:
			if cap(b) >= n {
				return b[:n]
			}
		default:
		}
		if n > renderBufMax {
			return make([]byte, n) // not kept: no room to spare
		}
		// room for a batch made anew (an eighth more than its lines)
		// when the buffer is taken back for the read of the next: one
		// size serves both
		return make([]byte, n, n+n/4)
	}
	give := func(b []byte) {
		if cap(b) > renderBufMax {
			return
		}
		select {
		case renderBufs <- b[:0]:
		default:
		}
	}
	err := InOrder(f, len(f.Entries), func(k int) int { return k }, func(lo, hi int) (batch, error) {
		kept := false
		for i := lo; i < hi && !kept; i++ {
			kept = !edits.Dropped(i)
		}
		if !kept {
			return batch{}, nil // a batch of dropped lines is not read
		}
		start := f.Entries[lo].Off
		end := f.Entries[hi-1].Off + f.Entries[hi-1].TotalBytes()
		if e := &f.Entries[lo]; hi-lo == 1 && e.Kind != KindEntry && edits.At(lo) == nil && e.Len >= inOrderBatch {
			// a long line that is not an entry (a run of NULs a crash
			// left, 3 GB of a sparse file): copied, never held whole
			return batch{sec: io.NewSectionReader(f.src, start, end-start)}, nil
		}
		buf := take(int(end - start))
		if _, err := f.src.ReadAt(buf, start); err != nil {
			return batch{}, err
		}
		// a transform that keeps each line's length (the remapper) works
		// in place; one that does not makes the batch anew
		var out []byte
		for i := lo; i < hi; i++ {
			e := &f.Entries[i]
			a := e.Off - start
			body := buf[a : a+int64(e.Len) : a+int64(e.Len)]
			ed := edits.At(i)
			if ed != nil && ed.Drop {
				if out == nil {
					out = append(take(len(buf))[:0], buf[:a]...)
				}
				continue
			}
			if ed != nil && ed.Raw != nil {
				body = append([]byte(nil), ed.Raw...) // the edit stays as it is
			}
			if e.Kind == KindEntry || (ed != nil && ed.Raw != nil) {
				nb := tr(i, body)
				if out == nil && (ed != nil && ed.Raw != nil || len(nb) != int(e.Len) || len(nb) > 0 && &nb[0] != &buf[a]) {
					out = append(take(len(buf) + len(buf)/8)[:0], buf[:a]...)
				}
				body = nb
			}
			if out != nil {
				out = append(out, body...)
				out = append(out, eols[e.EOL]...)
			}
		}
		if out != nil {
			give(buf) // its lines are in out
			return batch{b: out}, nil
		}
		return batch{b: buf}, nil
	}, func(b batch) error {
		if b.sec != nil {
			_, err := io.CopyBuffer(cw, b.sec, make([]byte, inOrderBatch))
			return err
		}
		if b.b == nil {
			return nil
		}
		_, err := cw.Write(b.b)
		give(b.b)
		return err
	})
	return cw.N, err
}

func (f *File) writeTransformed(w io.Writer, edits *Edits, tr TransformAt, late LineFunc) (int64, error) {
	cw := &CountWriter{W: w}
	br := bufio.NewReaderSize(io.NewSectionReader(f.src, 0, f.Size), 1<<20)
	var long, scratch []byte
	for i := range f.Entries {
		e := &f.Entries[i]
		n := int(e.TotalBytes())
		// A line that fits the reader's buffer is used where it lies
		// (the transform edits it there); a longer one is read whole.
		var line []byte
		if n <= br.Size() {
			var err error
			if line, err = br.Peek(n); err != nil {
				return cw.N, err
			}
			line = line[:n:n]    // a transform that grows the line must not write past it
			_, _ = br.Discard(n) // the slice stays valid until the next read
		} else {
			if cap(long) < n {
				long = make([]byte, n)
			}
			line = long[:n]
			if _, err := io.ReadFull(br, line); err != nil {
				return cw.N, err
			}
		}
		ed := edits.At(i)
		if ed != nil && ed.Drop && len(ed.After) == 0 {
			continue
		}
		eol := eolBytes[e.EOL]
		var parts [][]byte
		if ed == nil || !ed.Drop {
			body := line[:e.Len]
			if ed != nil && ed.Late {
				b, err := lateLine(late, i)
				if err != nil {
					return cw.N, err
				}
				scratch = append(scratch[:0], b...)
				body = scratch
			} else if ed != nil && ed.Raw != nil {
				scratch = append(scratch[:0], ed.Raw...) // the edit stays as it is
				body = scratch
			}
			if e.Kind == KindEntry || (ed != nil && (ed.Raw != nil || ed.Late)) {
				body = tr(i, body)
			}
			parts = append(parts, body)
		}
		if ed != nil {
			for _, a := range ed.After {
				parts = append(parts, tr(-1, append([]byte(nil), a...)))
			}
		}
		sep := eol
		if len(sep) == 0 {
			sep = eolBytes[1]
		}
		for k, p := range parts {
			if k > 0 {
				if _, err := cw.Write(sep); err != nil {
					return cw.N, err
				}
			}
			if _, err := cw.Write(p); err != nil {
				return cw.N, err
			}
		}
		if _, err := cw.Write(eol); err != nil {
			return cw.N, err
		}
	}
	return cw.N, nil
}
