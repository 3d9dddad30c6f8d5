// Package labelled reads the labelled example files of ops/redact/testdata
// (public scanners' test cases and the shapes issue 14 lists) and expands
// their generated records with a fixed seed. The evaluation command and the
// detector tests share it.
package labelled

import (
	"fmt"
	"go/scanner"
	"go/token"
	"hash/fnv"
	"math/rand"
	"os"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
)

// Example is one labelled string.
type Example struct {
	Set    string // file it came from (gitleaks, issue14)
	Kind   string // the rule id of the source scanner
	TP     bool   // a true positive (a secret); false: must not be reported
	Text   string
	Secret string // the secret inside text when known (generated ones)
	// Fixed is how many leading bytes of Secret are a fixed literal of its
	// pattern (_gitlab_session=, AKIA): they may survive redaction.
	Fixed int
	Form  string // the format the secret was placed in ("literal" for literal records)
}

// formats are the config and code shapes gitleaks' GenerateSampleSecrets
// places a secret in ({i} is an identifier, {s} the secret): INI, JSON,
// escaped JSON, XML, YAML (plain, quoted, block), C#, Go, Java, Kotlin, PHP,
// Python, CSV, logstash and make assignments.
var formats = []struct{ name, t string }{
	{"ini-quoted", `{i}Token="{s}"`},
	{"ini-quoted-spaced", `{i}Token = "{s}"`},
	{"ini", `{i}Token={s}`},
	{"ini-spaced", `{i}Token = {s}`},
	{"json", "{\n    \"{i}_token\": \"{s}\"\n}"},
	{"json-escaped", "\\{\n    \\\"{i}_token\\\": \\\"{s}\\\"\n\\}"},
	{"xml", `<{i}Token>{s}</{i}Token>`},
	{"xml-multiline", "<{i}Token>\n    {s}\n</{i}Token>"},
	{"yaml", `{i}_token: {s}`},
	{"yaml-single-quoted", `{i}_token: '{s}'`},
	{"yaml-double-quoted", `{i}_token: "{s}"`},
	{"yaml-literal", "{i}_token: |\n  {s}"},
	{"yaml-folded", "{i}_token: >\n  {s}"},
	{"csharp", `string {i}Token = "{s}";`},
	{"go", `var {i}Token string = "{s}"`},
	{"go-short", `{i}Token := "{s}"`},
	{"go-backticks", "{i}Token := `{s}`"},
	{"java", `String {i}Token = "{s}";`},
	{"kotlin", `var {i}Token = "{s}"`},
	{"php-concat", `${i}Token .= "{s}"`},
	{"python-single", `{i}Token = '{s}'`},
	{"python-double", `{i}Token = "{s}"`},
	{"csv", `{i}Token,{s},`},
	{"logstash", `  "{i}Token" => "{s}"`},
	{"make-recursive", `{i}_TOKEN = "{s}"`},
	{"make-simple", `{i}_TOKEN := "{s}"`},
	{"make-shell", `{i}_TOKEN ::= "{s}"`},
	{"make-evaluated", `{i}_TOKEN :::= "{s}"`},
	{"make-conditional", `{i}_TOKEN ?= "{s}"`},
	{"make-append", `{i}_TOKEN += "{s}"`},
}

// Load reads one labelled file (see the header of
// testdata/public/gitleaks.txt for the format) and expands the generated
// records with a fixed seed.
func Load(path, set string) ([]Example, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	var errs []string
	s.Init(file, src, func(pos token.Position, msg string) { errs = append(errs, fmt.Sprintf("%s: %s", pos, msg)) }, 0)
	type tok struct {
		pos token.Pos
		t   token.Token
		lit string
	}
	var toks []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		if t == token.SEMICOLON && lit == "\n" {
			continue
		}
		toks = append(toks, tok{pos, t, lit})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", errs[0])
	}
	str := func(i int) (string, error) {
		if i >= len(toks) || toks[i].t != token.STRING {
			p := token.Position{Filename: path}
			if i < len(toks) {
				p = fset.Position(toks[i].pos)
			}
			return "", fmt.Errorf("%s: want a string", p)
		}
		return strconv.Unquote(toks[i].lit)
	}
	var out []Example
	kind := ""
	seen := map[string]int{} // records with the same text get different seeds
	for i := 0; i < len(toks); {
		t := toks[i]
		if t.t != token.IDENT {
			return nil, fmt.Errorf("%s: want a keyword, got %q", fset.Position(t.pos), t.lit)
		}
		nargs := map[string]int{"rule": 1, "tp": 1, "fp": 1, "many": 2, "one": 2, "tmpl": 2, "fptmpl": 2}[t.lit]
		if nargs == 0 {
			return nil, fmt.Errorf("%s: unknown keyword %q", fset.Position(t.pos), t.lit)
		}
		var args []string
		for k := 1; k <= nargs; k++ {
			a, err := str(i + k)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
		}
		if t.lit == "rule" {
			kind = args[0]
			i += 1 + nargs
			continue
		}
		if kind == "" {
			return nil, fmt.Errorf("%s: record before any rule", fset.Position(t.pos))
		}
		seed := recordSeed(set, kind, strings.Join(args, "\x00"), seen)
		switch t.lit {
		case "tp", "fp":
			out = append(out, Example{Set: set, Kind: kind, TP: t.lit == "tp", Text: args[0], Form: "literal"})
		case "many", "one":
			sec, err := genRegexp(args[1], rand.New(rand.NewSource(seed)))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", fset.Position(t.pos), err)
			}
			if t.lit == "one" {
				out = append(out, Example{Set: set, Kind: kind, TP: true, Secret: sec, Fixed: fixedPrefix(args[1]), Form: "api-token",
					Text: args[0] + `_api_token = "` + sec + `"`})
				break
			}
			for _, f := range formats {
				r := strings.NewReplacer("{i}", args[0], "{s}", sec)
				out = append(out, Example{Set: set, Kind: kind, TP: true, Secret: sec, Fixed: fixedPrefix(args[1]), Form: f.name, Text: r.Replace(f.t)})
			}
		case "tmpl", "fptmpl":
			sec, err := genRegexp(args[1], rand.New(rand.NewSource(seed)))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", fset.Position(t.pos), err)
			}
			e := Example{Set: set, Kind: kind, TP: t.lit == "tmpl", Form: "template", Text: strings.Replace(args[0], "{s}", sec, 1)}
			if e.TP {
				e.Secret, e.Fixed = sec, fixedPrefix(args[1])
			}
			out = append(out, e)
		}
		i += 1 + nargs
	}
	return out, nil
}

// recordSeed depends on the record itself (not its position), so editing
// one record does not change the secrets drawn for the others.
func recordSeed(set, kind, rec string, seen map[string]int) int64 {
	k := set + "\x00" + kind + "\x00" + rec
	seen[k]++
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", k, seen[k])
	return int64(h.Sum64() >> 1)
}

// fixedPrefix is the length of the literal re starts with (0 when re is
// only a literal: then the whole of it is the secret).
func fixedPrefix(re string) int {
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil || p.Op != syntax.OpConcat || len(p.Sub) == 0 {
		return 0
	}
	n := 0
	for _, s := range p.Sub {
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 {
			break
		}
		n += len(string(s.Rune))
	}
	return n
}

// genRegexp draws a string matching re.
func genRegexp(re string, r *rand.Rand) (string, error) {
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var gen func(p *syntax.Regexp)
	gen = func(p *syntax.Regexp) {
		switch p.Op {
		case syntax.OpLiteral:
			b.WriteString(string(p.Rune))
		case syntax.OpCharClass:
			var n int
			for i := 0; i < len(p.Rune); i += 2 {
				n += int(p.Rune[i+1]-p.Rune[i]) + 1
			}
			k := r.Intn(n)
			for i := 0; i < len(p.Rune); i += 2 {
				w := int(p.Rune[i+1]-p.Rune[i]) + 1
				if k < w {
					b.WriteRune(p.Rune[i] + rune(k))
					return
				}
				k -= w
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789"[r.Intn(36)])
		case syntax.OpCapture:
			gen(p.Sub[0])
		case syntax.OpConcat:
			for _, s := range p.Sub {
				gen(s)
			}
		case syntax.OpAlternate:
			gen(p.Sub[r.Intn(len(p.Sub))])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, 1
			switch p.Op {
			case syntax.OpStar:
				lo, hi = 0, 8
			case syntax.OpPlus:
				lo, hi = 1, 8
			case syntax.OpRepeat:
				lo, hi = p.Min, p.Max
				if hi < 0 {
					hi = lo + 8
				}
			}
			n := lo
			if hi > lo {
				n += r.Intn(hi - lo + 1)
			}
			for k := 0; k < n; k++ {
				gen(p.Sub[0])
			}
		}
	}
	gen(p)
	for _, c := range b.String() {
		if c > unicode.MaxASCII {
			return "", fmt.Errorf("%q: generated non-ASCII", re)
		}
	}
	return b.String(), nil
}

// Leaked reports whether a run of secret long enough to matter (a third of
// it, at least 8 bytes), other than its first fixed bytes, survives in out.
func Leaked(secret string, fixed int, out string) bool {
	n := max(8, len(secret)/3)
	if fixed > len(secret)-n {
		fixed = max(0, len(secret)-n) // a whole literal: all of it counts
	}
	if len(secret) < n {
		return strings.Contains(out, secret)
	}
	for i := 0; i+n <= len(secret); i++ {
		if i+n <= fixed {
			continue // only the fixed prefix
		}
		if strings.Contains(out, secret[i:i+n]) {
			return true
		}
	}
	return false
}

// Caught reports whether the redactor dealt with e, given the text it left:
// a generated secret must not survive; a literal record (whose secret span
// is not labelled) must have changed.
func Caught(e Example, out string) bool {
	if e.Secret != "" {
		return !Leaked(e.Secret, e.Fixed, out)
	}
	return out != e.Text
}

// GenRegexp draws a string matching re (ASCII only), for tests.
func GenRegexp(re string, r *rand.Rand) (string, error) { return genRegexp(re, r) }
