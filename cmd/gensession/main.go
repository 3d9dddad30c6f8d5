// Command gensession grows the real sessions of testdata/sessions/2.1.328
// into a big session for benchmarks (see package internal/benchgen).
//
//	go run ./cmd/gensession -size 300MB -seed 1 -o DIR
//	go run ./cmd/gensession -sessions 1000 -size 100KB -o DIR
//	go run ./cmd/gensession -chain 1000000 -o DIR
//	go run ./cmd/gensession -shape dense -size 300MB -o DIR
//	go run ./cmd/gensession -list
//
// The session is written as DIR/projects/-bench/<sessionId>.jsonl (with its
// <sessionId>/ sidecar folder), so 'ccsurgeon --config-dir DIR' finds it by
// id. The session id is printed on stdout; with -sessions, N small
// independent sessions go to DIR/projects/<project>/.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
)

func main() {
	size := flag.String("size", "300MB", "target size of the main transcript (e.g. 10MB, 300MB, 1GB)")
	seed := flag.Int64("seed", 1, "random seed (same seed, same output)")
	out := flag.String("o", "", "config `DIR` to write into (required)")
	sessions := flag.Int("sessions", 0, "write `N` small independent sessions instead of one")
	project := flag.String("project", "", "project folder name under projects/ (default -bench, or -bench-ls with -sessions)")
	templates := flag.String("templates", "", "template folder (default: testdata/sessions/2.1.328 of this module)")
	chainN := flag.Int("chain", 0, "write one session that is a single chain of `N` small entries instead (-size is ignored)")
	shape := flag.String("shape", "bulk", "the `SHAPE` of the session (see -list)")
	list := flag.Bool("list", false, "print the shapes, one per line: name, a tab, what it looks like")
	flag.Parse()
	if *list {
		for _, s := range gen.Shapes() {
			fmt.Printf("%s\t%s\n", s.Name, s.Doc)
		}
		return
	}
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gensession [-shape SHAPE | -chain N | -sessions N] -size SIZE [-seed N] -o DIR (or -list)")
		os.Exit(2)
	}
	if *chainN > 0 {
		p := *project
		if p == "" {
			p = "-bench"
		}
		r, err := gen.GenerateChain(gen.Options{Seed: *seed, Dir: *out, Project: p, Templates: *templates}, *chainN)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gensession:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "gensession: %s: %d bytes, a chain of %d entries\n", r.Path, r.Bytes, *chainN)
		fmt.Println(r.SessionID)
		return
	}
	n, err := ParseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensession:", err)
		os.Exit(2)
	}
	if *sessions > 0 {
		p := *project
		if p == "" {
			p = "-bench-ls"
		}
		rs, err := gen.GenerateMany(*out, p, *sessions, n, *seed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gensession:", err)
			os.Exit(1)
		}
		var total int64
		for _, r := range rs {
			total += r.Bytes
		}
		fmt.Fprintf(os.Stderr, "gensession: %d sessions, %d bytes in all, in %s/projects/%s\n", len(rs), total, *out, p)
		return
	}
	p := *project
	if p == "" {
		p = "-bench"
	}
	sh, ok := gen.LookupShape(*shape)
	if !ok {
		fmt.Fprintf(os.Stderr, "gensession: no shape %q (see -list)\n", *shape)
		os.Exit(2)
	}
	r, err := sh.Generate(gen.Options{Size: n, Seed: *seed, Dir: *out, Project: p, Templates: *templates})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensession:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gensession: %s (%s): %d bytes, %d copies, %d subagents, %d big tool results, %d images, %d planted secrets, %d thinking blocks\n",
		r.Path, *shape, r.Bytes, r.Copies, r.Subagents, r.Bulk, r.Images, r.Secrets, r.Thinking)
	fmt.Println(r.SessionID)
}

// ParseSize reads 300MB, 1GB, 100KB, 512 (bytes); units are powers of 1024.
func ParseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, x := range []struct {
		suf string
		m   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(u, x.suf) {
			u, mult = strings.TrimSuffix(u, x.suf), x.m
			break
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(u), 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("bad size %q (e.g. 10MB, 1GB)", s)
	}
	return int64(f * float64(mult)), nil
}
