// Command eval measures the redact engine: recall on planted secrets in
// realistic transcript contexts, false positives on hard negatives,
// throughput, and (with -corpus) findings on real session files.
//
//	go run ./cmd/redacteval                 # synthetic evaluation
//	go run ./cmd/redacteval -v              # also list every miss and false positive
//	go run ./cmd/redacteval -corpus ../shared/corpus
//	go run ./cmd/redacteval -public         # labelled sets through the real redactor: recall per family (development and held-out), findings/MB on real sessions
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/ops/redact"
)

func main() {
	seed := flag.Int64("seed", 1, "generator seed")
	reps := flag.Int("n", 5, "instances of each secret type per context")
	corpus := flag.String("corpus", "", "scan *.jsonl files under this directory instead")
	files := flag.String("files", "", "scan every regular file under this directory as one string (false-positive hunting)")
	rules := flag.String("rules", "", "rules file (see ops/redact/README.md)")
	verbose := flag.Bool("v", false, "print every miss and false positive")
	mb := flag.Int("mb", 8, "MB of mixed text for the throughput measurement")
	public := flag.Bool("public", false, "the public labelled sets through the real redactor, and findings per MB on real sessions (run from the repository root)")
	set := flag.String("set", "", "with -public: only this set (gitleaks, issue14)")
	flag.Parse()
	if *public {
		runPublic(*verbose, *set)
		return
	}

	var opts redact.Options
	if *rules != "" {
		var err error
		if opts, err = redact.LoadRulesFile(*rules); err != nil {
			fatal(err)
		}
	}
	sc, err := redact.New(opts)
	if err != nil {
		fatal(err)
	}
	if *files != "" {
		scanFiles(sc, *files)
		return
	}
	if *corpus != "" {
		scanCorpus(sc, *corpus)
		return
	}
	evaluate(sc, *seed, *reps, *verbose, *mb)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "eval:", err)
	os.Exit(1)
}

type stat struct {
	n, found, wrongID, fp int
}

func evaluate(sc *redact.Scanner, seed int64, reps int, verbose bool, mb int) {
	r := rand.New(rand.NewSource(seed))
	var plants []plant
	for _, t := range secretTypes() {
		for i := 0; i < reps; i++ {
			v, s, e := t.gen(r)
			plants = append(plants, place(r, t, v, s, e)...)
		}
	}
	negs := negatives(r)

	byType := map[string]*stat{}
	byCtx := map[string]*stat{}
	var total stat
	get := func(m map[string]*stat, k string) *stat {
		if m[k] == nil {
			m[k] = &stat{}
		}
		return m[k]
	}
	for _, p := range plants {
		fs := sc.Scan(p.text)
		st, sx := get(byType, p.typ), get(byCtx, p.ctx)
		for _, sp := range p.spans {
			st.n++
			sx.n++
			total.n++
			if covered(fs, sp) {
				st.found++
				sx.found++
				total.found++
				if id := coverID(fs, sp); id != p.rule {
					st.wrongID++
					total.wrongID++
					if verbose {
						fmt.Printf("ID   %-40s %-12s want %s got %s\n", p.typ, p.ctx, p.rule, id)
					}
				}
			} else if verbose {
				fmt.Printf("MISS %-40s %-12s %q\n", p.typ, p.ctx, clip(p.text, 300))
				for _, f := range fs {
					fmt.Printf("       got %s %q\n", f.Rule, p.text[f.Start:f.End])
				}
			}
		}
		for _, f := range fs {
			if !overlapsAny(f, p.spans) {
				st.fp++
				total.fp++
				if verbose {
					fmt.Printf("FP   %-40s %-12s %s %q\n", p.typ, p.ctx, f.Rule, p.text[f.Start:f.End])
				}
			}
		}
	}
	negFP := 0
	negByCtx := map[string]int{}
	for _, p := range negs {
		for _, f := range sc.Scan(p.text) {
			negFP++
			negByCtx[p.ctx]++
			if verbose {
				fmt.Printf("NEG  %-12s %s %q in %q\n", p.ctx, f.Rule, p.text[f.Start:f.End], clip(p.text, 200))
			}
		}
	}

	fmt.Printf("rules: %d rule ids\n\n", len(sc.RuleIDs()))
	fmt.Printf("%-58s %6s %6s %8s %6s %4s\n", "secret type (expected rule / variable)", "n", "found", "recall", "id≠", "fp")
	keys := make([]string, 0, len(byType))
	for k := range byType {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := byType[k]
		fmt.Printf("%-58s %6d %6d %7.1f%% %6d %4d\n", k, s.n, s.found, pct(s.found, s.n), s.wrongID, s.fp)
	}
	fmt.Printf("\n%-20s %6s %6s %8s\n", "context", "n", "found", "recall")
	keys = keys[:0]
	for k := range byCtx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := byCtx[k]
		fmt.Printf("%-20s %6d %6d %7.1f%%\n", k, s.n, s.found, pct(s.found, s.n))
	}
	fmt.Printf("\nhard negatives: %d strings, %d findings %v\n", len(negs), negFP, negByCtx)
	fmt.Printf("planted: %d secrets in %d strings (%d types), recall %.2f%% (%d missed), rule id differs for %d, extra findings in planted strings: %d\n",
		total.n, len(plants), len(byType), pct(total.found, total.n), total.n-total.found, total.wrongID, total.fp)

	// throughput: typical transcript text (filler), then filler plus every
	// planted and negative string (about 12% of the bytes, far denser in
	// secrets than real sessions)
	texts := filler(r, mb<<20)
	throughput(sc, "typical text", texts)
	for _, p := range append(plants, negs...) {
		texts = append(texts, p.text)
	}
	r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	throughput(sc, "with planted", texts)
}

func throughput(sc *redact.Scanner, name string, texts []string) {
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	best := time.Duration(1 << 62)
	n := 0
	for k := 0; k < 3; k++ {
		t0 := time.Now()
		n = 0
		for _, s := range texts {
			n += len(sc.Scan(s))
		}
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	fmt.Printf("throughput (%s): %.1f MB in %d strings, best of 3: %v = %.0f MB/s (%d findings)\n",
		name, float64(size)/1e6, len(texts), best.Round(time.Millisecond), float64(size)/1e6/best.Seconds(), n)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// covered: every byte of the span is inside some finding.
func covered(fs []redact.Finding, sp [2]int) bool {
	pos := sp[0]
	for _, f := range fs {
		if f.Start <= pos && f.End > pos {
			pos = f.End
		}
		if pos >= sp[1] {
			return true
		}
	}
	return pos >= sp[1]
}

func coverID(fs []redact.Finding, sp [2]int) string {
	for _, f := range fs {
		if f.Start <= sp[0] && f.End > sp[0] {
			return f.Rule
		}
	}
	return ""
}

func overlapsAny(f redact.Finding, spans [][2]int) bool {
	for _, sp := range spans {
		if f.Start < sp[1] && sp[0] < f.End {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// mask keeps the first and last 3 bytes of a secret.
func mask(s string) string {
	if len(s) <= 8 {
		return strings.Repeat("*", len(s))
	}
	return s[:3] + strings.Repeat("*", min(len(s)-6, 20)) + s[len(s)-3:]
}

func scanCorpus(sc *redact.Scanner, dir string) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		fatal(err)
	}
	var bytesScanned, strs, findings int
	var elapsed time.Duration
	perRule := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fatal(err)
		}
		sc2 := bufio.NewScanner(bytes.NewReader(data))
		sc2.Buffer(make([]byte, 1<<20), 256<<20)
		line := 0
		for sc2.Scan() {
			line++
			var v any
			if json.Unmarshal(sc2.Bytes(), &v) != nil {
				continue
			}
			var ss []string
			collect(v, &ss)
			for _, s := range ss {
				strs++
				bytesScanned += len(s)
				t0 := time.Now()
				fs := sc.Scan(s)
				elapsed += time.Since(t0)
				for _, fd := range fs {
					findings++
					perRule[fd.Rule]++
					a, b := max(0, fd.Start-40), min(len(s), fd.End+20)
					ex := s[a:fd.Start] + "[" + mask(s[fd.Start:fd.End]) + "]" + s[fd.End:b]
					fmt.Printf("%s\t%s:%d\t%q\n", fd.Rule, f, line, ex)
				}
			}
		}
	}
	mbs := float64(bytesScanned) / 1e6
	fmt.Printf("\ncorpus: %d files, %d strings, %.2f MB of decoded string values\n", len(files), strs, mbs)
	fmt.Printf("findings: %d (%.2f per MB) %v\n", findings, float64(findings)/mbs, perRule)
	if elapsed > 0 {
		fmt.Printf("scan time %v = %.0f MB/s\n", elapsed.Round(time.Microsecond), mbs/elapsed.Seconds())
	}
}

func collect(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collect(e, out)
		}
	case map[string]any:
		for _, e := range x {
			collect(e, out)
		}
	}
}

func scanFiles(sc *redact.Scanner, dir string) {
	var size, n int
	perRule := map[string]int{}
	var elapsed time.Duration
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 8<<20 || bytes.IndexByte(data, 0) >= 0 {
			return nil
		}
		s := string(data)
		size += len(s)
		t0 := time.Now()
		fs := sc.Scan(s)
		elapsed += time.Since(t0)
		for _, fd := range fs {
			n++
			perRule[fd.Rule]++
			a, b := max(0, fd.Start-40), min(len(s), fd.End+20)
			fmt.Printf("%s\t%s\t%q\n", fd.Rule, p, s[a:fd.Start]+"["+mask(s[fd.Start:fd.End])+"]"+s[fd.End:b])
		}
		return nil
	})
	mbs := float64(size) / 1e6
	fmt.Printf("\nfiles: %.1f MB, %d findings (%.2f per MB) %v, %.0f MB/s\n", mbs, n, float64(n)/mbs, perRule, mbs/elapsed.Seconds())
}
