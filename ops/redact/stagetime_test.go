//go:build redactstages

package redact_test

import (
	"fmt"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
)

// BenchmarkScanPerRule scans the texts of BenchmarkScanSecretDense (the
// prompts of the secrets bench shape) and prints each stage's share of the
// scan: the prefilter, the encoded sweep, each rule (by index and id) and
// the overlap resolution, largest first. Run it with the stage clock on:
//
//	go test ./ops/redact -tags redactstages -run '^$' -bench ScanPerRule -benchtime 20x -cpu 1
//
// Each b.N prints its table: read the last. The clock costs about two
// readings per rule run per text: compare shares, not the MB/s, with
// BenchmarkScanSecretDense.
func BenchmarkScanPerRule(b *testing.B) {
	redact.ResetStages()
	texts, size, s := secretBench(b)
	for range b.N {
		for _, t := range texts {
			s.Scan(t)
		}
	}
	b.StopTimer()
	fmt.Print(redact.StageTable(s, b.N, size)) // b.Log would cut it to a few lines
}

// TestPrefilterPositions prints the positions the prefilter sends on to
// the anchors in the texts of BenchmarkScanSecretDense, by their first
// four bytes (go test -tags redactstages -run PrefilterPositions -v).
func TestPrefilterPositions(t *testing.T) {
	s, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(redact.PrefilterTable(s, gen.SecretTexts(1, 500, 8<<10), 60))
}

// BenchmarkPrefilterSecrets: the prefilter alone (appendAnchors) over the
// texts of BenchmarkScanSecretDense.
func BenchmarkPrefilterSecrets(b *testing.B) {
	texts, _, s := secretBench(b)
	for range b.N {
		for _, t := range texts {
			s.PrefilterHits(t)
		}
	}
}
