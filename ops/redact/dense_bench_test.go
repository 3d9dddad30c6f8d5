package redact_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
)

// BenchmarkScanSecretDense scans the prompts of the benchmark's secrets
// shape (8 KB of logs and configs with a secret about every 200 bytes):
// the scanner's share of redact-secrets on that shape.
func BenchmarkScanSecretDense(b *testing.B) {
	texts, _, s := secretBench(b)
	for range b.N {
		for _, t := range texts {
			s.Scan(t)
		}
	}
}

// secretBench: the texts of the secrets shape's prompts (500 of 8 KB),
// their size and a scanner with the built-in rules; the benchmark's bytes
// and timer set.
func secretBench(b *testing.B) ([]string, int, *redact.Scanner) {
	texts := gen.SecretTexts(1, 500, 8<<10)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	s, err := redact.New(redact.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	return texts, size, s
}
