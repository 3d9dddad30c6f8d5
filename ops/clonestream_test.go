package ops

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestStreamRenamesAsLine: the pass of a plain clone (Stream: the loader's
// check and the renaming of each line in one walk, a value looked at by
// its kind, the session id of a run of lines decoded once, the last ids
// kept) gives every line the bytes Line gives it (the renaming of the
// full path, held to the oracle by TestRemapLineMatchesOracle), leaves
// the lines the loader does not take for entries as they are, and names
// the session ids it did not know as the index reads them. Members: a
// uuid as a whole string value, at the end of a string after an escaped
// quote, inside it, in arrays and objects; numbers, literals; capitals;
// escaped keys and session ids; session ids that change from line to
// line and come back; every line of testdata and the corpus.
func TestStreamRenamesAsLine(t *testing.T) {
	sid := "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
	other := "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f"
	u := "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
	lines := []string{
		`{"type":"user","uuid":"` + u + `","parentUuid":null,"sessionId":"` + sid + `"}`,
		`{"type":"user","note":"x\"` + u + `","n2":"\"` + u + `\"","n3":"` + u + ` tail","n4":"head ` + u + `"}`,
		`{"type":"user","ids":["` + u + `",1,"` + sid + `",{"a":"` + u + `"}],"o":{"p":{"q":"\"` + u + `"}},"n":12,"t":true,"f":false,"z":null,"sessionId":"` + sid + `"}`,
		`{"type":"user","uuid":"A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D","sessionId":"` + other + `"}`,
		`{"type":"user","uuid":"` + u + `","sessionId":"` + sid + `"}`,
		`{"type":"user","sessionId":"\u0036f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b","u\u0075id":"` + u + `"}`,
		`{"type":"user","sessionId":"` + other + `","sessionId":"` + sid + `"}`,
		`{"type":"user","sessionId":"` + sid + `","sessionId":"` + other + `"}`,
		`{"type":"user","sessionId":"00000000-0000-0000-0000-000000000000","uuid":"00000000-0000-0000-0000-000000000000"}`,
		`{"type":"user","sessionId":12,"parentUuid":"` + u + `"}`,
		`{"type":"user","message":{"id":"` + u + `"},"content":"` + u + `","uuid":"` + u + `"}`,
		`{"type":"user","uuid":"` + u + `"`, // torn: not an entry
		`not json "` + u + `"`,
		``,
		`{"uuid":"` + u + `"} {"uuid":"` + u + `"}`,
	}
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		lines = append(lines, string(bytes.TrimRight(b, "\n")))
	}
	in := []byte(joinLines(lines))
	r := fixedRemapper(t, sid)
	var out bytes.Buffer
	res, err := r.Stream(&out, bytes.NewReader(in), int64(len(in)))
	var unk *UnknownSessionIDsError
	require.True(t, errors.As(err, &unk), "the other session id is named: %v", err)

	// what Line and the index give, line by line, with the same Remapper
	// (a capitalised id's fresh one is kept in it)
	var want bytes.Buffer
	wantUnknown := map[string]bool{}
	entries := 0
	for i, l := range bytes.Split(in, []byte("\n")) {
		if i > 0 {
			want.WriteByte('\n')
		}
		line := append([]byte(nil), l...)
		if chain.EntryFields(line, i == 0, func(string, int, int) {}) == chain.KindEntry {
			entries++
			var s []byte
			chain.EntryFields(line, i == 0, func(k string, vs, ve int) {
				if k == "sessionId" {
					s = line[vs:ve]
				}
			})
			if k, ok := key(chain.SessionIDOf(s)); s != nil && ok && !r.oldIDs[k] {
				wantUnknown[string(k[:])] = true
			}
			line = r.Line(line)
		}
		want.Write(line)
	}
	require.Equal(t, want.String(), out.String())
	require.Equal(t, entries, res.Entries)
	names := make([]string, 0, len(wantUnknown))
	for k := range wantUnknown {
		names = append(names, k)
	}
	slices.Sort(names)
	require.Equal(t, names, unk.IDs)
	require.Contains(t, unk.IDs, other)
}

func joinLines(ls []string) string {
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

// bigStreamInput is a file of several of Stream's blocks: testdata's
// lines over and over, a line longer than a block among them, damaged
// and blank lines, no line end at the end.
func bigStreamInput(t *testing.T) []byte {
	var lines []string
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		lines = append(lines, string(bytes.TrimRight(b, "\n")))
	}
	one := joinLines(lines)
	var in bytes.Buffer
	for k := 0; in.Len() < 5*streamBlock; k++ {
		in.WriteString(one)
		in.WriteString("\n\nnot json\n")
		if k == 1 {
			in.WriteString(`{"type":"user","uuid":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d","pad":"`)
			in.Write(bytes.Repeat([]byte("x"), streamBlock+streamBlock/2))
			in.WriteString("\"}\n")
		}
	}
	in.WriteString(`{"type":"user","uuid":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"}`)
	return in.Bytes()
}

// atOnly is a destination written at places only (as backup's file is
// by a render on every core): a Write is a mistake.
type atOnly struct {
	mu  sync.Mutex
	buf []byte
}

func (a *atOnly) Write([]byte) (int, error) {
	return 0, errors.New("Write called on a positional destination")
}

func (a *atOnly) WriteAt(p []byte, off int64) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if end := int(off) + len(p); end > len(a.buf) {
		a.buf = append(a.buf, make([]byte, end-len(a.buf))...)
	}
	copy(a.buf[off:], p)
	return len(p), nil
}

// TestStreamWritesEachBlockAtItsPlace: into a destination that writes at
// places (a file), Stream writes every block at its offset from the
// goroutine that renamed it, and the output is byte for byte the one it
// writes in order into a plain writer, with the same counts.
func TestStreamWritesEachBlockAtItsPlace(t *testing.T) {
	in := bigStreamInput(t)
	r := NewRemapperFor("11111111-2222-4333-8444-555555555555", "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b")
	var seq bytes.Buffer
	want, err := r.Stream(&seq, bytes.NewReader(in), int64(len(in)))
	if !isUnknownIDs(err) {
		require.NoError(t, err)
	}
	at := &atOnly{}
	got, err := r.Stream(at, bytes.NewReader(in), int64(len(in)))
	if !isUnknownIDs(err) {
		require.NoError(t, err)
	}
	require.Equal(t, want, got)
	require.Equal(t, int64(len(in)), got.Bytes)
	require.Greater(t, got.Damaged, 0)
	require.True(t, bytes.Equal(seq.Bytes(), at.buf), "the output written at places differs from the one written in order")
	require.NotEqual(t, in, at.buf, "ids were renamed")
}

// TestStreamLaysEachBlockOutAsInTheFile: each block Stream writes at its
// place lies in memory at the place in a page its offset has in the file
// (so that backup can send its whole pages straight to the disk): the
// first block, blocks that begin mid-page after a line's end, the block
// that holds a line longer than a block, and the last. The member says
// which block was not.
func TestStreamLaysEachBlockOutAsInTheFile(t *testing.T) {
	in := bigStreamInput(t)
	r := NewRemapperFor("11111111-2222-4333-8444-555555555555", "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b")
	at := &laidOut{}
	_, err := r.Stream(at, bytes.NewReader(in), int64(len(in)))
	if !isUnknownIDs(err) {
		require.NoError(t, err)
	}
	require.Greater(t, len(at.blocks), 3)
	var long, midPage bool
	for _, b := range at.blocks {
		require.Equal(t, b[0]%pageSize, b[1]%pageSize, "the block at %d (%d bytes) lies at %d of a page, not %d", b[1], b[2], b[0]%pageSize, b[1]%pageSize)
		long = long || b[2] > streamBlock
		midPage = midPage || b[1]%pageSize != 0
	}
	require.True(t, long && midPage, "the input has a block longer than a block and one that begins mid-page")
}

// laidOut notes where in memory each block written at a place lies.
type laidOut struct {
	mu     sync.Mutex
	blocks [][3]int64 // memory address, offset, length
}

func (a *laidOut) Write([]byte) (int, error) {
	return 0, errors.New("Write called on a positional destination")
}

func (a *laidOut) WriteAt(p []byte, off int64) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.blocks = append(a.blocks, [3]int64{int64(uintptr(unsafe.Pointer(&p[0]))), off, int64(len(p))})
	return len(p), nil
}

func isUnknownIDs(err error) bool {
	var u *UnknownSessionIDsError
	return errors.As(err, &u)
}

type blockFailer struct{ after int }

func (f *blockFailer) Write(p []byte) (int, error) {
	if f.after == 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

// blockFailerAt is blockFailer written at places, from several
// goroutines at a time
type blockFailerAt struct {
	mu sync.Mutex
	blockFailer
}

func (f *blockFailerAt) WriteAt(p []byte, _ int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Write(p)
}

// TestStreamReturnsTheWriteError: a destination that fails (a full disk)
// on its first or a later block ends Stream with that error, in order and
// at places, every time: no block is waited for that no goroutine will
// rename (a block queued as the failure stopped the reader hung the
// writer for ever).
func TestStreamReturnsTheWriteError(t *testing.T) {
	in := bigStreamInput(t)
	r := NewRemapperFor("11111111-2222-4333-8444-555555555555")
	for run := range 10 {
		for _, after := range []int{0, 1, 2} {
			for _, w := range []io.Writer{&blockFailer{after}, &blockFailerAt{blockFailer: blockFailer{after}}} {
				done := make(chan error, 1)
				go func() {
					_, err := r.Stream(w, bytes.NewReader(in), int64(len(in)))
					done <- err
				}()
				select {
				case err := <-done:
					require.ErrorContains(t, err, "disk full", "run %d, failing after %d blocks, %T", run, after, w)
				case <-time.After(10 * time.Second):
					t.Fatalf("run %d: Stream into %T failing after %d blocks did not return", run, w, after)
				}
			}
		}
	}
}
