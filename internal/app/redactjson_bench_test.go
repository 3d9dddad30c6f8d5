package app

import (
	"fmt"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops"
)

// BenchmarkRedactionEncoder: the --json report's records of the secrets
// bench (one file, a few fields, ~40 rules, numbers in the millions), as
// the list hands them to the encoder.
func BenchmarkRedactionEncoder(b *testing.B) {
	fields := []string{"message.content", "message.content[0].text", "toolUseResult.stdout", "message.content[1].content"}
	var rules []string
	for k := range 40 {
		rules = append(rules, fmt.Sprintf("rule-%02d-api-key", k))
	}
	recs := make([]ops.RedactionRec, 4096)
	for k := range recs {
		fi, ri := k%len(fields), (k*7)%len(rules)
		recs[k] = ops.RedactionRec{File: "/home/u/.claude/projects/-bench/52fdfc07-2182-454f-963f-5f0f9a621d72.jsonl", Field: fields[fi], Rule: rules[ri],
			Line: 10000 + k, Number: uint32(1000000 + k), Fingerprint: [4]byte{byte(k), 1, 2, 3}}
		recs[k].FieldNum, recs[k].RuleNum = uint32(1+fi), uint32(1+len(fields)+ri)
	}
	var e redactionEncoder
	buf := make([]byte, 0, 1<<20)
	b.ResetTimer()
	for range b.N {
		buf = buf[:0]
		for k := range recs {
			buf = e.encode(buf, &recs[k])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}
