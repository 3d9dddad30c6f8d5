// Package bench holds ccsurgeon's performance tooling: the session
// generator (internal/benchgen, cmd/gensession), the command benchmark
// (bench/run.sh, results in BENCHMARKS.md) and Go benchmarks of loading
// and inspecting a generated 50 MB session:
//
//	go test ./bench -run '^$' -bench . -benchtime 5x
//
// The benchmarks generate their session only when they run; plain
// 'go test ./...' does not touch it.
package bench
