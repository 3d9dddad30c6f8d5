package ops

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

const (
	stretchSID   = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
	stretchOther = "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f"
)

// entryOfLen is an entry line of exactly n bytes (its end excluded), its
// ids drawn from rng; one in five carries another session's id.
func entryOfLen(t *testing.T, rng *rand.Rand, n int) string {
	sid := stretchSID
	if rng.Intn(5) == 0 {
		sid = stretchOther
	}
	id := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.Intn(1<<16), rng.Intn(1<<12), rng.Intn(1<<12), rng.Int63n(1<<48))
	}
	head := `{"type":"user","uuid":"` + id() + `","parentUuid":"` + id() + `","sessionId":"` + sid + `","pad":"`
	pad := n - len(head) - len(`"}`)
	require.GreaterOrEqual(t, pad, 0, "a line of %d bytes is too short for an entry", n)
	return head + strings.Repeat("x", pad) + `"}`
}

// minEntry is the shortest line entryOfLen makes.
const minEntry = 200

// fillTo appends entry lines (each with its end) to b until it holds
// exactly upto bytes.
func fillTo(t *testing.T, rng *rand.Rand, b *bytes.Buffer, upto int) {
	for b.Len() < upto {
		left := upto - b.Len()
		n := min(left-1, minEntry+rng.Intn(400))
		if rest := left - (n + 1); rest > 0 && rest < minEntry+1 {
			n = left - 1 // one line to the end: no room for another after it
		}
		b.WriteString(entryOfLen(t, rng, n))
		b.WriteByte('\n')
	}
	require.Equal(t, upto, b.Len())
}

// placedAt records the blocks a positional writer is given: each must lie
// in memory at the place in a page its offset has in the file, and
// together they must cover the file once.
type placedAt struct {
	mu     sync.Mutex
	buf    []byte
	blocks [][2]int64 // offset, length
	misled []string
}

func (a *placedAt) Write([]byte) (int, error) { panic("Write on a positional destination") }

func (a *placedAt) WriteAt(p []byte, off int64) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if addr := int64(uintptr(unsafe.Pointer(&p[0]))); addr%pageSize != off%pageSize {
		a.misled = append(a.misled, fmt.Sprintf("the block at %d lies at %d of a page", off, addr%pageSize))
	}
	if end := int(off) + len(p); end > len(a.buf) {
		a.buf = append(a.buf, make([]byte, end-len(a.buf))...)
	}
	copy(a.buf[off:], p)
	a.blocks = append(a.blocks, [2]int64{off, int64(len(p))})
	return len(p), nil
}

// TestStreamAtCutsTheFileAsOneBlock: written at places by every core, a
// stretch of the file a goroutine, a clone is the clone of the file as one
// block (streamSmall): the same bytes, counts and unknown session ids,
// each line renamed whole by the stretch it begins in, every block laid
// out in memory as in the file, the blocks covering the file once. The
// members put each way a line can meet a stretch's edge there (stretches
// of one and two pages, and a tail read past them of 32 bytes, which the
// end of most lines outruns, or the real one), and the member says which
// one broke.
func TestStreamAtCutsTheFileAsOneBlock(t *testing.T) {
	type member struct {
		name  string
		build func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int)
	}
	more := func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int) {
		fillTo(t, rng, b, b.Len()+2*S+rng.Intn(S))
	}
	members := []member{
		{"a line ends on a stretch's last byte", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S)
			more(t, rng, b, S)
		}},
		{"a line crosses into the next stretch", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S-200)
			b.WriteString(entryOfLen(t, rng, 500) + "\n")
			more(t, rng, b, S)
		}},
		{"a line's CR ends a stretch, its LF begins the next", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S-200)
			b.WriteString(entryOfLen(t, rng, 199) + "\r\n")
			more(t, rng, b, S)
		}},
		{"blank lines on both sides of the edge", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S-2)
			b.WriteString("\n\n\n")
			more(t, rng, b, S)
		}},
		{"a line's end is the first byte past the tail read with its stretch", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			// the stretch is read from the page before it, to tail bytes
			// past it: the line's end is the first byte read again
			fillTo(t, rng, b, 2*S-300)
			b.WriteString(entryOfLen(t, rng, 300+tail) + "\n")
			more(t, rng, b, S)
		}},
		{"a line longer than two stretches", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S-100)
			b.WriteString(entryOfLen(t, rng, 2*S+300) + "\n")
			more(t, rng, b, S)
		}},
		{"a damaged line crosses the edge", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S-50)
			l := entryOfLen(t, rng, 400)
			b.WriteString(l[:len(l)-2] + "\n") // torn: not an entry
			more(t, rng, b, S)
		}},
		{"the last line, without its end, crosses the edge", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, 2*S-50)
			b.WriteString(entryOfLen(t, rng, 300))
		}},
		{"the file ends on a stretch's last byte", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, 3*S)
		}},
		{"the file ends with a line longer than a stretch, without its end", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			fillTo(t, rng, b, S+10*minEntry)
			b.WriteString(entryOfLen(t, rng, 2*S))
		}},
		{"a byte order mark before the first line", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			b.WriteString("\xef\xbb\xbf" + entryOfLen(t, rng, 300) + "\n")
			more(t, rng, b, S)
		}},
		{"lines of every length and kind", func(t *testing.T, rng *rand.Rand, b *bytes.Buffer, S int, tail int) {
			for b.Len() < 6*S {
				switch k := rng.Intn(10); {
				case k == 0:
					b.WriteString("\n")
				case k == 1:
					b.WriteString("not json\n")
				case k == 2:
					b.WriteString(entryOfLen(t, rng, minEntry+rng.Intn(3*S)) + "\r\n")
				default:
					b.WriteString(entryOfLen(t, rng, minEntry+rng.Intn(S)) + "\n")
				}
			}
			if rng.Intn(2) == 0 {
				b.WriteString(entryOfLen(t, rng, minEntry+rng.Intn(S)))
			}
		}},
	}
	r := NewRemapperFor("11111111-2222-4333-8444-555555555555", stretchSID)
	for _, m := range members {
		for _, S := range []int{pageSize, 2 * pageSize} {
			for _, tail := range []int64{32, streamTail} {
				for seed := range 8 {
					rng := rand.New(rand.NewSource(int64(seed)))
					var in bytes.Buffer
					m.build(t, rng, &in, S, int(tail))
					what := fmt.Sprintf("%s (stretch %d, tail %d, seed %d, %d bytes)", m.name, S, tail, seed, in.Len())
					var want bytes.Buffer
					wantRes, wantErr := r.Stream(&want, bytes.NewReader(in.Bytes()), int64(in.Len()))
					require.LessOrEqual(t, in.Len(), streamBlock, "the reference is the clone of one block")
					at := &placedAt{}
					got, err := r.streamAt(at, bytes.NewReader(in.Bytes()), int64(in.Len()), int64(S), tail)
					require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), what)
					require.Equal(t, wantRes, got, what)
					require.True(t, bytes.Equal(want.Bytes(), at.buf), "%s: the output differs from the clone of one block", what)
					require.Empty(t, at.misled, what)
					slices.SortFunc(at.blocks, func(a, b [2]int64) int { return int(a[0] - b[0]) })
					var next int64
					for _, bl := range at.blocks {
						require.Equal(t, next, bl[0], "%s: blocks %v do not follow each other", what, at.blocks)
						next += bl[1]
					}
					require.Equal(t, int64(in.Len()), next, "%s: the blocks do not cover the file", what)
				}
			}
		}
	}
}

// failingAt is a file whose reads fail from byte at on.
type failingAt struct {
	data []byte
	at   int64
}

func (f failingAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.at {
		return 0, fmt.Errorf("read error at %d", off)
	}
	return copy(p, f.data[off:]), nil
}

// TestStreamAtReturnsTheReadError: a file that cannot be read from some
// byte on (its first stretch, a later one, the tail read past a stretch)
// ends the clone written at places with the error a reading of the
// stretches in the file's order meets first (the lowest stretch that
// fails is always read: stretches are taken in order), every time,
// whichever goroutine met its error first, and returns.
func TestStreamAtReturnsTheReadError(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var in bytes.Buffer
	fillTo(t, rng, &in, 8*pageSize+100)
	size := int64(in.Len())
	r := NewRemapperFor("11111111-2222-4333-8444-555555555555", stretchSID)
	const S, tail = pageSize, 32
	for _, at := range []int64{0, 1, pageSize, 3*pageSize + 10, 8 * pageSize} {
		src := failingAt{in.Bytes(), at}
		var first error
		var buf []byte
		for k := int64(0); k*S < size && first == nil; k++ {
			_, first = readStretch(src, size, k*S, S, tail, &buf)
		}
		require.Error(t, first, "failing from byte %d: a read in order fails", at)
		for run := range 20 {
			_, err := r.streamAt(&placedAt{}, src, size, S, tail)
			require.EqualError(t, err, first.Error(), "failing from byte %d, run %d", at, run)
		}
	}
}

// TestReadStretchKeepsItsBufferToWhatALineNeeds: a goroutine reads stretch
// after stretch into one buffer; one grown for a line that ends past the
// tail read with its stretch is grown to what that line needs, not to
// twice what the buffer was (doubled at each such stretch, a clone of the
// bench's bulk session asked for 35 GB). Members: every stretch's last
// line ends a few tails past it, and a line ten stretches long.
func TestReadStretchKeepsItsBufferToWhatALineNeeds(t *testing.T) {
	const S, tail = 2 * pageSize, 32
	for _, m := range []struct {
		name string
		line func(rng *rand.Rand) int
	}{
		{"lines a stretch long", func(rng *rand.Rand) int { return S + rng.Intn(S) }},
		{"a line ten stretches long among short ones", func(rng *rand.Rand) int {
			if rng.Intn(40) == 0 {
				return 10 * S
			}
			return minEntry + rng.Intn(500)
		}},
	} {
		rng := rand.New(rand.NewSource(1))
		var in bytes.Buffer
		longest := 0
		for in.Len() < 200*S {
			n := m.line(rng)
			longest = max(longest, n+1)
			in.WriteString(entryOfLen(t, rng, n) + "\n")
		}
		size := int64(in.Len())
		var buf []byte
		for lo := int64(0); lo < size; lo += S {
			b, err := readStretch(bytes.NewReader(in.Bytes()), size, lo, S, tail, &buf)
			require.NoError(t, err, m.name)
			// what a stretch needs: the page before it, itself and the
			// longest line past it, read in doublings
			bound := 2 * (pageSize + S + int64(longest) + tail)
			require.LessOrEqual(t, int64(cap(buf)), bound, "%s: the buffer after the stretch at %d", m.name, lo)
			if b != nil {
				require.Equal(t, in.Bytes()[b.off:b.off+int64(len(b.data))], b.data, m.name)
			}
		}
	}
}

// twoVersions serves version a to the reads that start at offset 0 and
// version b to every other: a file rewritten in place (the same size)
// between two goroutines' reads of the bytes around a stretch's edge.
type twoVersions struct{ a, b []byte }

func (f twoVersions) ReadAt(p []byte, off int64) (int, error) {
	src := f.b
	if off == 0 {
		src = f.a
	}
	return copy(p, src[off:]), nil
}

// Found in review: the bytes around a stretch's edge are read twice, by
// two goroutines; a file rewritten in place between the two reads (an
// editor saving in place) can make them disagree on where the line across
// the edge ends. Members: the second read has it end later (bytes no block
// wrote: zeros in the clone, and no error) and earlier (bytes written
// twice). Either is refused, naming the byte where the lines no longer
// meet; a file read alike both times is cloned.
func TestStreamAtRefusesAFileRewrittenWhileRead(t *testing.T) {
	const S = 2 * pageSize
	rng := rand.New(rand.NewSource(1))
	var a bytes.Buffer
	fillTo(t, rng, &a, S-300)
	a.WriteString(entryOfLen(t, rng, 399) + "\n") // its end at S+99
	fillTo(t, rng, &a, 3*S)
	A := a.Bytes()
	nl := S + 99
	require.Equal(t, byte('\n'), A[nl])
	r := NewRemapperFor("11111111-2222-4333-8444-555555555555", stretchSID)
	for _, m := range []struct {
		name  string
		shift int // where the line's end is in the second version
	}{{"the line ends later", 50}, {"the line ends earlier", -50}, {"read alike", 0}} {
		B := bytes.Clone(A)
		B[nl], B[nl+m.shift] = B[nl+m.shift], B[nl]
		at := &placedAt{}
		_, err := r.streamAt(at, twoVersions{A, B}, int64(len(A)), S, streamTail)
		if m.shift == 0 {
			if !isUnknownIDs(err) { // (a fifth of the lines carry another session's id)
				require.NoError(t, err, m.name)
			}
			continue
		}
		require.Error(t, err, "%s: the clone is refused", m.name)
		require.Contains(t, err.Error(), "the file changed while it was read", m.name)
	}
}

// gatedAt is a positional destination whose writes wait until open is
// closed; entered is closed at the first write.
type gatedAt struct {
	placedAt
	open, entered chan struct{}
	once          sync.Once
}

func newGatedAt() *gatedAt {
	return &gatedAt{open: make(chan struct{}), entered: make(chan struct{})}
}

// openAll lets every write of gs through (those let through already too).
func openAll(gs []*gatedAt) {
	for _, g := range gs {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
	}
}

func (g *gatedAt) WriteAt(p []byte, off int64) (int, error) {
	g.once.Do(func() { close(g.entered) })
	<-g.open
	return g.placedAt.WriteAt(p, off)
}

// TestStreamGivesItsWritersPsOfTheirOwn: while a stream writes, the
// scheduler has streamWaiters Ps more than before (a writer waiting for
// the disk keeps its P, and the renamers are to keep every core); two
// streams at a time share the raise, and the last to end puts the number
// back, whichever of the two ends first. The member says which ended
// first; each stream's output is still the file renamed whole.
func TestStreamGivesItsWritersPsOfTheirOwn(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	rng := rand.New(rand.NewSource(5))
	var in bytes.Buffer
	fillTo(t, rng, &in, 40*pageSize)
	r := NewRemapperFor(stretchSID)
	var whole bytes.Buffer
	want, err := r.streamSmall(&whole, bytes.NewReader(in.Bytes()), int64(in.Len()))
	var unknown *UnknownSessionIDsError
	require.ErrorAs(t, err, &unknown)
	for _, firstEnds := range []string{"the first begun", "the second begun"} {
		gates := []*gatedAt{newGatedAt(), newGatedAt()}
		t.Cleanup(func() { openAll(gates) }) // a failed check leaves no stream waiting
		done := []chan error{make(chan error, 1), make(chan error, 1)}
		for i, g := range gates {
			go func() {
				res, err := r.streamAt(g, bytes.NewReader(in.Bytes()), int64(in.Len()), pageSize, 32)
				if err == nil || res != want {
					err = fmt.Errorf("stream %d: %+v, %v (want %+v and the unknown ids)", i, res, err, want)
				} else if errors.As(err, &unknown) {
					err = nil
				}
				done[i] <- err
			}()
			<-g.entered
		}
		require.Equal(t, base+streamWaiters, runtime.GOMAXPROCS(0), "%s: two streams writing", firstEnds)
		order := []int{0, 1}
		if firstEnds == "the second begun" {
			order = []int{1, 0}
		}
		openAll(gates[order[0] : order[0]+1])
		require.NoError(t, <-done[order[0]], firstEnds)
		require.Equal(t, base+streamWaiters, runtime.GOMAXPROCS(0), "%s ended, the other still writing", firstEnds)
		openAll(gates[order[1] : order[1]+1])
		require.NoError(t, <-done[order[1]], firstEnds)
		require.Equal(t, base, runtime.GOMAXPROCS(0), "%s ended, then the other: the Ps there were before", firstEnds)
		for _, g := range gates {
			require.Empty(t, g.misled)
			require.Equal(t, in.Len(), len(g.buf))
		}
		for i, g := range gates {
			require.Equal(t, whole.Bytes(), g.buf, "%s: stream %d's output is the file renamed as one block", firstEnds, i)
		}
	}
}

// countedAt counts the reads of a file.
type countedAt struct {
	data  []byte
	reads atomic.Int64
}

func (c *countedAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	n := copy(p, c.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestStreamRenamesOnTheCoresAndWritesApart: the stretches are read and
// renamed by one goroutine a core (the Ps there were before the stream),
// and written by streamWaiters others: with every write held, a stream
// reads exactly one stretch a renamer (waiting to hand its block on), one
// a queued block and one a writer, and then waits. A stream whose
// renamers write (each waits at its first write: fewer reads) or that
// counts the writers' Ps as cores (more) reads another number.
func TestStreamRenamesOnTheCoresAndWritesApart(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	rng := rand.New(rand.NewSource(6))
	var in bytes.Buffer
	fillTo(t, rng, &in, 60*pageSize)
	src := &countedAt{data: in.Bytes()}
	r := NewRemapperFor(stretchSID)
	g := newGatedAt()
	t.Cleanup(func() { openAll([]*gatedAt{g}) })
	done := make(chan error, 1)
	go func() {
		// a tail of a page: every line (at most 600 bytes) ends within
		// it, so that a stretch is one read
		_, err := r.streamAt(g, src, int64(in.Len()), pageSize, pageSize)
		done <- err
	}()
	want := int64(base + 2*streamWaiters)
	deadline := time.Now().Add(10 * time.Second)
	for src.reads.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // and no more after a while
	require.Equal(t, want, src.reads.Load(), "stretches read while every write is held (%d Ps before the stream)", base)
	openAll([]*gatedAt{g})
	err := <-done
	var unknown *UnknownSessionIDsError
	require.ErrorAs(t, err, &unknown)
	require.Equal(t, base, runtime.GOMAXPROCS(0))
}
