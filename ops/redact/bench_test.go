package redact

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// mixedText builds about n bytes of transcript-like strings: prose, code
// read with line numbers, shell output, npm lockfile JSON, base64 blobs,
// thinking signatures, and a few secrets.
func mixedText(n int) []string {
	r := rand.New(rand.NewSource(42))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	rs := func(set string, k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = set[r.Intn(len(set))]
		}
		return string(b)
	}
	words := strings.Fields(`the a to of and in is for that with on it as be this are by we can from
function returns value file test error config token session model user request response update
implementation should handle password validation before saving key secret manager auth flow then
run go build to check compile errors in package main while api read from env https://example.com/docs`)
	var out []string
	total := 0
	for total < n {
		var s string
		switch r.Intn(10) {
		case 0, 1, 2:
			var b strings.Builder
			for i := 0; i < 50+r.Intn(400); i++ {
				b.WriteString(words[r.Intn(len(words))])
				b.WriteByte(' ')
			}
			s = b.String()
		case 3, 4:
			var b strings.Builder
			for i := 0; i < 20+r.Intn(80); i++ {
				fmt.Fprintf(&b, "%6d→\tif err := s.store.Put(ctx, key%d, value); err != nil { return fmt.Errorf(\"put %%s: %%w\", key, err) } // token check\n", i+1, i)
			}
			s = b.String()
		case 5:
			var b strings.Builder
			for i := 0; i < 20+r.Intn(40); i++ {
				fmt.Fprintf(&b, "-rw-r--r--  1 dev staff %6d Jan %2d 12:%02d src/pkg/auth/file_%d.go\n", r.Intn(99999), 1+r.Intn(28), r.Intn(60), i)
			}
			s = b.String()
		case 6:
			var b strings.Builder
			for i := 0; i < 10+r.Intn(20); i++ {
				fmt.Fprintf(&b, `{"name":"pkg-%d","version":"1.%d.0","resolved":"https://registry.npmjs.org/pkg-%d/-/pkg-%d-1.0.0.tgz","integrity":"sha512-%s=="}`+"\n", i, i, i, i, rs(b64, 86))
			}
			s = b.String()
		case 7:
			s = rs(b64, 1000+r.Intn(6000))
		case 8:
			s = "Eu" + rs(b64, 300+r.Intn(1500))
		default:
			s = fmt.Sprintf("export GITHUB_TOKEN=ghp_%s\nDATABASE_URL=postgres://app:%s@db:5432/app\nmsg_01%s toolu_01%s",
				rs(b64[:62], 36), rs(b64[:62], 14), rs(b64[:62], 22), rs(b64[:62], 22))
		}
		out = append(out, s)
		total += len(s)
	}
	return out
}

func BenchmarkScan(b *testing.B) {
	texts := mixedText(4 << 20)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range texts {
			s.Scan(t)
		}
	}
}
