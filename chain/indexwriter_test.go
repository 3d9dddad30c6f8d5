package chain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/sjson"
)

// TestIndexWriterMatchesLoader writes documents through an IndexWriter in
// chunks of every awkward size and checks that the sink got exactly the
// bytes and that the index equals the loader's index of the same bytes.
func TestIndexWriterMatchesLoader(t *testing.T) {
	long := `{"type":"user","uuid":"a","message":{"role":"user","content":"` + strings.Repeat("x", 3*blockSize+17) + `"}}`
	docs := map[string]string{
		"empty":         "",
		"no final eol":  `{"type":"user","uuid":"a"}` + "\n" + `{"type":"assistant","uuid":"b","parentUuid":"a"}`,
		"crlf and junk": "{\"uuid\":\"a\"}\r\nnot json\n\n{\"uuid\":\"b\"}\n",
		"long lines":    long + "\n" + `{"uuid":"b"}` + "\n" + long + "\n",
		"many blocks":   strings.Repeat(`{"type":"system","uuid":"c","content":"`+strings.Repeat("y", 1000)+`"}`+"\n", 3*blockSize/1000),
	}
	for name, doc := range docs {
		want, err := LoadBytes("x", []byte(doc))
		require.NoError(t, err)
		for k, chunk := range []int{1, 7, 4096, blockSize - 1, blockSize + 3, 1 << 30} {
			// the expected number of lines: right, unknown, too few, too many
			hint := []int{len(want.Entries), 0, len(want.Entries) / 2, len(want.Entries) + 5}[k%4]
			if chunk == 1 && len(doc) > 1<<16 {
				continue
			}
			var sink bytes.Buffer
			w := NewIndexWriter("x", &sink, hint)
			for rest := doc; len(rest) > 0; {
				n := min(chunk, len(rest))
				k, err := w.Write([]byte(rest[:n]))
				require.NoError(t, err)
				require.Equal(t, n, k)
				rest = rest[n:]
			}
			got, err := w.Close()
			require.NoError(t, err, name)
			assert.Equal(t, doc, sink.String(), "%s, chunks of %d: sink", name, chunk)
			assert.Equal(t, want.Size, got.Size, "%s, chunks of %d", name, chunk)
			assert.Equal(t, want.Entries, got.Entries, "%s, chunks of %d, %d lines expected", name, chunk, hint)
		}
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestIndexWriterReportsSinkErrors checks that a failing sink fails both
// the write and Close, and that the writer stops there.
func TestIndexWriterReportsSinkErrors(t *testing.T) {
	line := []byte(`{"uuid":"a","content":"` + strings.Repeat("z", 1<<20) + `"}` + "\n")
	w := NewIndexWriter("x", &failingWriter{after: blockSize}, 0)
	var err error
	for i := 0; i < 200 && err == nil; i++ {
		_, err = w.Write(line)
	}
	require.EqualError(t, err, "disk full")
	_, err = w.Write(line)
	require.Error(t, err)
	_, err = w.Close()
	require.EqualError(t, err, "disk full")
}

func TestLongestLine(t *testing.T) {
	for in, want := range map[string]int{"": 0, "\n": 0, "ab\nc": 2, "a\nbcd\n": 3, "abcd": 4, "\n\nxy\n": 2} {
		assert.Equal(t, want, longestLine([]byte(in)), "%q", in)
	}
}

// FuzzBlocks checks the two ways a stream is cut into blocks (the loader's
// splitBlocks and IndexWriter's cut) against parsing each line on its own,
// with blocks of 16 to 271 bytes so that small inputs cross many block
// edges, lines longer than a block, CRLF, blank and invalid lines and a
// missing final newline; the writer's sink must get the bytes unchanged
// whatever the chunks and the expected line count.
func FuzzBlocks(f *testing.F) {
	for _, s := range []string{"{\"uuid\":\"a\"}\n{\"uuid\":\"b\",\"parentUuid\":\"a\"}", "\r\n\n x\n{}\r\n", `{"type":"user","message":{"role":"user","content":"hello there, a longer line than a block"}}` + "\n",
		// content blocks on both sides of a line that is not JSON, and a string content after an array
		`{"message":{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"Bash"}]}}` + "\n" +
			`{"message":{"content":[{"type":"tool_result","tool_use_id":"t1"}` + "\n" +
			`{"message":{"content":[{"type":"thinking"}],"content":"x"}}` + "\n" +
			`{"message":{"content":[{"type":"image"},{"type":"text","text":""},{"type":"document"}]}}`} {
		f.Add([]byte(s), uint8(0), uint16(1), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, bs uint8, chunk uint16, hint uint8) {
		saved := blockSize
		blockSize = 16 + int(bs)
		defer func() { blockSize = saved }()

		var want []Entry
		for off, k := 0, 0; off < len(data); k++ {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += off + 1
			}
			one := make([]Entry, 1)
			var blocks []Block
			parseLine(&one[0], int64(off), data[off:end], off == 0, &blocks)
			placeBlocks(one, blocks, nil)
			one[0].Line = int32(k + 1)
			want = append(want, one[0])
			off = end
		}
		loaded, err := LoadBytes("x", data)
		require.NoError(t, err)
		require.Equal(t, len(want), len(loaded.Entries))
		if len(want) > 0 {
			require.Equal(t, want, loaded.Entries)
			require.Equal(t, plains(want), plains(loaded.Entries)) // every block, not only the first
		}
		var sink bytes.Buffer
		w := NewIndexWriter("x", &sink, []int{0, len(want), len(want) / 2, len(want) + 3}[hint%4])
		step := 1 + int(chunk)%300
		for rest := data; len(rest) > 0; {
			n := min(step, len(rest))
			_, err := w.Write(rest[:n])
			require.NoError(t, err)
			rest = rest[n:]
		}
		got, err := w.Close()
		require.NoError(t, err)
		require.Equal(t, string(data), sink.String())
		require.Equal(t, len(want), len(got.Entries))
		if len(want) > 0 {
			require.Equal(t, want, got.Entries)
			require.Equal(t, plains(want), plains(got.Entries))
		}
		require.Equal(t, int64(len(data)), got.Size)
	})
}

// plains is the entries as plain values (every content block included).
func plains(entries []Entry) []plainEntry {
	out := make([]plainEntry, len(entries))
	for i := range entries {
		out[i] = plain(&entries[i])
	}
	return out
}

// TestLoadedBlocksAreTheLinesBlocks: the content blocks of an entry of a
// loaded file (one array for the entries of a stretch of the file) are
// the blocks of its line parsed on its own, on every file of testdata and
// ../shared/corpus, in stretches of 4 KB and of the usual size.
func TestLoadedBlocksAreTheLinesBlocks(t *testing.T) {
	saved := blockSize
	defer func() { blockSize = saved }()
	for _, p := range corpusFiles(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var want []plainEntry
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			one := make([]Entry, 1)
			var blocks []Block
			parseLine(&one[0], 0, l, len(want) == 0, &blocks)
			placeBlocks(one, blocks, nil)
			want = append(want, plain(&one[0]))
		}
		for _, bs := range []int{4 << 10, saved} {
			blockSize = bs
			f, err := LoadBytes(p, data)
			require.NoError(t, err)
			require.Equal(t, want, plains(f.Entries), "%s, blocks of %d bytes", p, bs)
		}
	}
}

// An entry of manyBlocks content blocks or more holds them itself; the
// entries after it in the same stretch still find their own.
func TestManyBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"user","message":{"content":[`)
	for i := 0; i < manyBlocks+5; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"tool_result","tool_use_id":"t` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString("]}}\n")
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"u","name":"Bash"}]}}` + "\n")
	f, err := LoadBytes("x", []byte(b.String()))
	require.NoError(t, err)
	require.Len(t, f.Entries, 2)
	many := f.Entries[0].Blocks()
	require.Len(t, many, manyBlocks+5)
	require.Equal(t, "t0", many[0].ID)
	require.Equal(t, "t"+strconv.Itoa(manyBlocks+4), many[len(many)-1].ID)
	require.Equal(t, []Block{{Kind: BlockText, Size: 26}, {Kind: BlockToolUse, ID: "u", Name: "Bash", Size: 42}}, f.Entries[1].Blocks())
}

// TestIndexWriterTakesUnchangedLinesFromTheirIndex: a file written with
// edits through an IndexWriter (what every checked write does) gets, for
// the lines it copies unchanged, the entries of the input's index instead
// of parsing them again; the index must be the one the loader makes of
// the bytes written, on every kind of file (BOM, CRLF, lines that are not
// JSON, blank lines, no final newline, the real sessions of testdata and
// the corpus), with lines dropped, replaced and added next to the copied
// ones.
func TestIndexWriterTakesUnchangedLinesFromTheirIndex(t *testing.T) {
	docs := map[string][]byte{
		"bom first":                []byte("\ufeff{\"type\":\"user\",\"uuid\":\"a\"}\n{\"type\":\"assistant\",\"uuid\":\"b\",\"parentUuid\":\"a\"}\n{\"uuid\":\"c\"}\n"),
		"crlf and junk":            []byte("{\"uuid\":\"a\"}\r\nnot json\n\n{\"uuid\":\"b\"}\r\n{\"uuid\":\"c\"}\n{\"uuid\":\"d\"}"),
		"parents that are no uuid": []byte("{\"type\":\"user\",\"uuid\":\"a\"}\n{\"type\":\"user\",\"uuid\":\"b\",\"parentUuid\":\"a\"}\n{\"type\":\"user\",\"parentUuid\":\"not-a-uuid\",\"uuid\":\"c\"}\n{\"type\":\"user\",\"uuid\":\"0b7e7f1e-5d3c-4c2a-9e8f-1a2b3c4d5e6f\",\"parentUuid\":\"also not\"}\n{\"type\":\"user\",\"uuid\":\"d\",\"parentUuid\":\"c\"}\n{\"type\":\"user\",\"uuid\":\"e\",\"parentUuid\":\"d\"}\n"),
		"no final eol":             []byte("{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\n{\"type\":\"user\",\"uuid\":\"c\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}"),
	}
	var paths []string
	globs := []string{"../testdata/sessions/*/*.jsonl"}
	for _, glob := range globs {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	paths = append(paths, testcorpus.JSONLFiles(t, "")...) // every file of the corpus, at any depth
	require.NotEmpty(t, paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		docs[p] = b
	}
	copied, reparented := 0, 0
	var skipped int64
	defer func(n int) { blockSize = n }(blockSize)
	for _, bs := range []int{blockSize, 700} { // and runs across many small blocks
		blockSize = bs
		for name, doc := range docs {
			f, err := LoadBytes(name, doc)
			require.NoError(t, err)
			// the edits: every way a line next to a copied one can change
			// (the new lines have content blocks of their own, placed
			// among those of the copied ones)
			for _, every := range []int{2, 3, 7} {
				edits := NewEdits()
				for i := range f.Entries {
					switch {
					case i%every == 1:
						edits.Set(i, &Edit{Drop: true})
					case i%(every*2) == 0 && i > 0:
						edits.Set(i, &Edit{Raw: []byte(`{"type":"user","uuid":"x` + strconv.Itoa(i) + `","message":{"role":"user","content":[{"type":"text","text":"r"},{"type":"tool_result","tool_use_id":"t","content":"c"}]}}`)})
					case i%(every*3) == 2:
						edits.Set(i, &Edit{After: [][]byte{[]byte(`{"type":"assistant","uuid":"y` + strconv.Itoa(i) + `","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}`)}})
					case i%(every*5) == 3 && f.Entries[i].Kind == KindEntry:
						// a relink: the line made late with another parent
						// (a uuid, null, a string that is no uuid)
						p := []string{"0b7e7f1e-5d3c-4c2a-9e8f-1a2b3c4d5e6f", "", "not-a-uuid"}[i%3]
						edits.Set(i, &Edit{Late: true, Parent: &p, OnlyParent: true})
					}
				}
				late := func(i int) ([]byte, error) {
					raw, err := f.Raw(i)
					if err != nil {
						return nil, err
					}
					if p := *edits.At(i).Parent; p != "" {
						return sjson.SetBytes(raw, "parentUuid", p)
					}
					return sjson.SetRawBytes(raw, "parentUuid", []byte("null"))
				}
				var sink bytes.Buffer
				w := NewIndexWriter("x", &sink, 0)
				_, err := f.WriteWith(w, edits, nil, late)
				require.NoError(t, err)
				got, err := w.Close()
				require.NoError(t, err)
				want, err := LoadBytes("x", sink.Bytes())
				require.NoError(t, err)
				where := fmt.Sprintf("%s, edits every %d, blocks of %d", name, every, bs)
				require.Equal(t, len(want.Entries), len(got.Entries), where)
				assert.Equal(t, want.Size, got.Size, where)
				assert.Equal(t, want.BOM, got.BOM, where)
				for i := range want.Entries {
					if !assert.Equal(t, want.Entries[i], got.Entries[i], "%s: line %d", where, i+1) ||
						!assert.Equal(t, want.Entries[i].Blocks(), got.Entries[i].Blocks(), "%s: line %d's blocks", where, i+1) {
						break
					}
				}
				copied += w.copied

				// the same write to a writer that keeps no bytes (IndexOf:
				// a result checked, not written) makes the same index
				// without reading the unchanged lines it skips: every byte
				// it skips is one it did not read
				src := f.src
				reads := &countingReaderAt{r: src}
				f.src = reads
				kw := NewIndexWriter("x", &bytes.Buffer{}, 0)
				_, err = f.WriteWith(kw, edits, nil, late)
				require.NoError(t, err)
				_, err = kw.Close()
				require.NoError(t, err)
				readKept := reads.n
				reads.n = 0
				xw := NewIndexWriter("x", io.Discard, 0)
				n, err := f.WriteWith(xw, edits, nil, late)
				f.src = src
				require.NoError(t, err, where)
				assert.Equal(t, int64(sink.Len()), n, "%s: the bytes the index-only write says it wrote", where)
				only, err := xw.Close()
				require.NoError(t, err, where)
				require.Equal(t, len(want.Entries), len(only.Entries), "%s, index only", where)
				assert.Equal(t, want.Size, only.Size, "%s, index only", where)
				assert.Equal(t, want.BOM, only.BOM, "%s, index only", where)
				for i := range want.Entries {
					if !assert.Equal(t, byName(want.Entries[i]), byName(only.Entries[i]), "%s, index only: line %d", where, i+1) ||
						!assert.Equal(t, want.Entries[i].Blocks(), only.Entries[i].Blocks(), "%s, index only: line %d's blocks", where, i+1) {
						break
					}
				}
				assert.Equal(t, readKept-xw.skipped, reads.n, "%s: bytes read by the index-only write (%d skipped)", where, xw.skipped)
				skipped += xw.skipped
				reparented += xw.reparented
				// the input's index is as it was (a relinked entry's copy
				// changed its own extra fields, not its original's)
				again, err := LoadBytes(name, doc)
				require.NoError(t, err)
				for i := range again.Entries {
					if !assert.Equal(t, again.Entries[i], f.Entries[i], "%s: the input's line %d after the writes", where, i+1) {
						break
					}
				}
			}
		}
	}
	t.Logf("%d files, %d entries taken from their index, %d bytes not read by index-only writes, %d relinked entries not parsed", len(docs), copied, skipped, reparented)
	assert.Positive(t, copied, "no line was taken from its index")
	assert.Positive(t, skipped, "no unchanged line was skipped by an index-only write")
	assert.Positive(t, reparented, "no relinked line was taken from its index")
}

// TestLoadWrittenIsLoadBytes: a document written in pieces of every
// awkward size, across the 1 MB blocks LoadWritten keeps it in, is the
// file LoadBytes makes of it: the same entries, size and lines read back.
func TestLoadWrittenIsLoadBytes(t *testing.T) {
	docs := map[string][]byte{
		"bom, crlf, junk, no final eol": []byte("\ufeff{\"uuid\":\"a\"}\r\nnot json\n\n{\"uuid\":\"b\"}"),
		"empty":                         nil,
	}
	// lines that cross the blocks' ends
	var big bytes.Buffer
	for i := 0; big.Len() < 3*chunkSize; i++ {
		fmt.Fprintf(&big, "{\"type\":\"user\",\"uuid\":\"u%d\",\"message\":{\"role\":\"user\",\"content\":%q}}\n", i, strings.Repeat("x", i%5000))
	}
	docs["3 MB"] = big.Bytes()
	paths, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	require.NotEmpty(t, paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		docs[p] = b
	}
	for name, doc := range docs {
		want, err := LoadBytes(name, doc)
		require.NoError(t, err)
		for _, piece := range []int{1, 7, 4096, chunkSize + 3} {
			if piece < 4096 && len(doc) > 1<<20 {
				continue
			}
			got, err := LoadWritten(name, 0, func(w io.Writer) error {
				for d := doc; len(d) > 0; {
					k := min(piece, len(d))
					if _, err := w.Write(d[:k]); err != nil {
						return err
					}
					d = d[k:]
				}
				return nil
			})
			require.NoError(t, err)
			where := fmt.Sprintf("%s in pieces of %d", name, piece)
			assert.Equal(t, want.Size, got.Size, where)
			require.Equal(t, len(want.Entries), len(got.Entries), where)
			for i := range want.Entries {
				a, err := want.Raw(i)
				require.NoError(t, err)
				b, err := got.Raw(i)
				require.NoError(t, err, where)
				if !assert.Equal(t, want.Entries[i], got.Entries[i], "%s: line %d", where, i+1) || !assert.Equal(t, a, b, "%s: line %d", where, i+1) {
					break
				}
			}
		}
	}
	_, err := LoadWritten("x", 0, func(io.Writer) error { return errors.New("stopped") })
	assert.EqualError(t, err, "stopped")
}

// byName is e with its extra fields in the order of their names: they are
// looked up by name, and a relinked entry's parent that is no uuid goes
// last among them where the loader puts it in the line's order.
func byName(e Entry) Entry {
	if e.x != nil {
		x := *e.x
		x.f = slices.Clone(x.f)
		slices.SortFunc(x.f, func(a, b xValue) int { return int(a.k) - int(b.k) })
		e.x = &x
	}
	return e
}
