package chain

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidJSONAgreesWithEncodingJSON checks the validator against
// encoding/json on hand-picked cases, every line we have, and mutations.
func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	cases := []string{`{}`, `[]`, `""`, `0`, `-0.5e+3`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `true `, ` null`, `[1,]`, `{"a":1,}`,
		`{"a" 1}`, `{"a":}`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"a\tb\"", `"abc`, `"12345678\"9"`, `"1234567\\"`, `{"k":[{"x":"y"}],"n":null}`,
		`[[[]]]`, `{"a":1}{}`, "\"\x7f\xff\"", `"\/"`, `1 2`}
	nest := func(n int, inner string) string {
		return `{"a":` + strings.Repeat("[", n-1) + inner + strings.Repeat("]", n-1) + `}`
	}
	// the depth limit: 10,000 levels of objects and arrays, as encoding/json
	cases = append(cases, nest(10000, "1"), nest(10000, "[]"), nest(10001, "1"), nest(9999, "{}"), nest(10000, "{}"))
	for _, c := range cases {
		assert.Equal(t, json.Valid([]byte(c)), validJSON([]byte(c)), "%.80q", c)
		var e Entry
		assert.Equal(t, json.Valid([]byte(c)) && c[0] == '{', parseEnvelope(&e, []byte(c)), "one pass: %.80q", c)
	}
	lines := sessionLines(t)
	require.NotEmpty(t, lines)
	rng := rand.New(rand.NewSource(1))
	for _, l := range lines {
		require.Equal(t, json.Valid(l), validJSON(l), "%.200q", l)
		for k := 0; k < 3 && len(l) > 0; k++ {
			m := append([]byte(nil), l...)
			const alphabet = "\"\\{}[],:0a\x01 \x80"
			m[rng.Intn(len(m))] = alphabet[rng.Intn(len(alphabet))]
			require.Equal(t, json.Valid(m), validJSON(m), "%.300q", m)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\n"]}`, `"\u1234"`, `[`, `-1.5e3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if json.Valid(b) != validJSON(b) {
			t.Fatalf("disagree on %q: encoding/json %v", b, json.Valid(b))
		}
	})
}

// BenchmarkValidJSON measures the validator, and the old one kept in the
// tests (old), on the lines of the generated sessions of testdata (tool
// outputs with escapes, base64 images, thinking) and, when
// CCSURGEON_BENCH_LINES names a session file, on its first 32 MB (the
// chain shape of cmd/gensession: short strings, uuids).
func BenchmarkValidJSON(b *testing.B) {
	var lines [][]byte
	_ = filepath.Walk("../testdata", func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Ext(p) == ".jsonl" {
			data, _ := os.ReadFile(p)
			lines = append(lines, bytes.Split(data, []byte("\n"))...)
		}
		return nil
	})
	sets := []struct {
		name  string
		lines [][]byte
	}{{"testdata", lines}}
	if p := os.Getenv("CCSURGEON_BENCH_LINES"); p != "" {
		f, err := os.Open(p)
		require.NoError(b, err)
		data := make([]byte, 32<<20)
		n, _ := io.ReadFull(f, data)
		f.Close()
		data = data[:n]
		if k := bytes.LastIndexByte(data, '\n'); k >= 0 {
			data = data[:k]
		}
		sets = append(sets, struct {
			name  string
			lines [][]byte
		}{filepath.Base(p), bytes.Split(data, []byte("\n"))})
	}
	for _, set := range sets {
		var n int64
		for _, l := range set.lines {
			n += int64(len(l))
		}
		for _, v := range []struct {
			name string
			fn   func([]byte) bool
		}{{"new", validJSON}, {"old", oldValidJSON}} {
			b.Run(set.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(n)
				for b.Loop() {
					for _, l := range set.lines {
						v.fn(l)
					}
				}
			})
		}
	}
}

// sessionLines returns every line of every session in testdata and in
// ../shared/corpus.
func sessionLines(t *testing.T) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, root := range []string{"../testdata", testcorpus.Optional(t)} {
		if root == "" {
			continue
		}
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && filepath.Ext(p) == ".jsonl" {
				b, _ := os.ReadFile(p)
				lines = append(lines, bytes.Split(b, []byte("\n"))...)
			}
			return nil
		})
	}
	return lines
}
