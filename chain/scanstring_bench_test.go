package chain

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scanSets are the strings BenchmarkScanString scans: long ones of the
// shapes a session holds (a tool output of code, with an escaped newline
// every line; prose; escaped quotes; non-ASCII text; base64 of an image),
// and the strings of the real lines of testdata (mostly short: keys,
// uuids, timestamps).
func scanSets(tb testing.TB) []struct {
	name string
	strs [][]byte
} {
	rng := rand.New(rand.NewSource(1))
	long := func(n int, piece func() string) []byte {
		var sb strings.Builder
		sb.WriteByte('"')
		for sb.Len() < n {
			sb.WriteString(piece())
		}
		sb.WriteByte('"')
		return []byte(sb.String())
	}
	words := strings.Fields("the quick brown fox jumps over a lazy dog while func return if err nil package main import fmt")
	line := func() string {
		var sb strings.Builder
		for k := 20 + rng.Intn(60); sb.Len() < k; {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	sets := []struct {
		name string
		strs [][]byte
	}{
		{"plain64K", [][]byte{long(64<<10, line)}},
		{"code64K", [][]byte{long(64<<10, func() string { return "\\t" + line() + "\\n" })}},
		{"quoted64K", [][]byte{long(64<<10, func() string { return line() + `\"x\" \\ ` })}},
		{"utf8-64K", [][]byte{long(64<<10, func() string { return "日本語のテキスト、ここに。 " })}},
		{"base64-256K", [][]byte{long(256<<10, func() string { return string(b64[rng.Intn(64)]) })}},
	}
	var real [][]byte
	_ = filepath.Walk("../testdata", func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Ext(p) == ".jsonl" {
			data, _ := os.ReadFile(p)
			for _, l := range bytes.Split(data, []byte("\n")) {
				for i := 0; i < len(l); i++ {
					if l[i] != '"' {
						continue
					}
					end, _, ok := prevScanString(l, i)
					if !ok {
						break
					}
					real = append(real, l[i:end])
					i = end - 1
				}
			}
		}
		return nil
	})
	sets = append(sets, struct {
		name string
		strs [][]byte
	}{"testdata-strings", real})
	return sets
}

// BenchmarkScanString scans strings with scanString (new) and with the
// scan as it was (prev).
func BenchmarkScanString(b *testing.B) {
	for _, set := range scanSets(b) {
		var n int64
		for _, s := range set.strs {
			n += int64(len(s))
		}
		for _, v := range []struct {
			name string
			fn   func([]byte, int) (int, bool, bool)
		}{{"new", scanString}, {"prev", prevScanString}} {
			b.Run(set.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(n)
				for b.Loop() {
					for _, s := range set.strs {
						if _, _, ok := v.fn(s, 0); !ok {
							b.Fatal("not a string")
						}
					}
				}
			})
		}
	}
}
