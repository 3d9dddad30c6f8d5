package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

// TurnJSON is one turn in `turns --json`.
type TurnJSON struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	Prompt    string `json:"prompt"`
	Compacted bool   `json:"compacted"`
	// Interrupted: the person stopped the answer to this prompt
	Interrupted bool   `json:"interrupted"`
	Branch      int    `json:"branch,omitempty"`
	Leaf        string `json:"leaf,omitempty"`
	Active      bool   `json:"active,omitempty"`
}

// TurnsOptions are the options of `turns`.
type TurnsOptions struct {
	Session string
	All     bool
}

// RunTurns lists the numbered turns of the active branch, or of every branch.
func (env *Env) RunTurns(o TurnsOptions) error {
	s, err := env.OpenSession(o.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	f := s.Main
	g := f.Graph()
	type branch struct {
		n      int
		leaf   int
		active bool
	}
	var branches []branch
	active := g.ActiveLeaf()
	if o.All {
		for k, l := range g.Branches() {
			branches = append(branches, branch{n: k + 1, leaf: l, active: l == active})
		}
	} else {
		branches = []branch{{leaf: active, active: true}}
	}
	// Text and JSON go out as they are made, batch by batch (a session of
	// 500,000 turns or of 30,000 long prompts prints as fast as it reads,
	// holding a few batches; tabwriter or one encoding of the whole list
	// would hold it all): the index column is as wide as the largest
	// index, the time column is fixed.
	w := bufio.NewWriterSize(env.Out, 64<<10)
	js := jsonList{w: w}
	shown := 0
	for _, b := range branches {
		ts := f.TurnsOf(b.leaf)
		width := max(4, len(strconv.Itoa(len(ts.List))))
		if o.All && !env.JSON {
			mark := ""
			if b.active {
				mark = ", active: the client resumes this one"
			}
			leafID := ""
			if b.leaf >= 0 {
				leafID = f.Entries[b.leaf].UUID()
			}
			fmt.Fprintf(w, "branch %d (leaf %s%s)\n", b.n, leafID, mark)
		}
		// the prompts are read on every core: a session of many long
		// prompts is mostly their bytes
		entries := make([]int, len(ts.List))
		for k, t := range ts.List {
			entries[k] = t.Entry
		}
		err := eachOnEveryCore(f, entries, func(i int) (string, error) {
			if env.JSON {
				// encoded here, on every core: the prompts are most of
				// the output
				p, err := f.PromptText(i)
				return jsonString(p), err
			}
			return promptLine(f, i, 90)
		}, func(k int, text string) error {
			t := ts.List[k]
			shown++
			if !env.JSON {
				note := ""
				if t.Compacted {
					note = "  (compacted)"
				}
				if t.Interrupted {
					note += "  (interrupted)"
				}
				_, err := fmt.Fprintf(w, "%*d  %s  %s%s\n", width, t.Index, shortTime(f.Entries[t.Entry].Timestamp()), text, note)
				return err
			}
			tj := TurnJSON{Index: t.Index, UUID: f.Entries[t.Entry].UUID(), Timestamp: f.Entries[t.Entry].Timestamp(), Compacted: t.Compacted, Interrupted: t.Interrupted}
			if o.All {
				tj.Branch, tj.Active = b.n, b.active
				tj.Leaf = f.Entries[b.leaf].UUID()
			}
			return js.addRaw(tj.appendJSON(js.buf[:0], text))
		})
		if err != nil {
			return err
		}
		if o.All && !env.JSON {
			fmt.Fprintln(w)
		}
	}
	if env.JSON {
		js.end()
	} else if shown == 0 {
		fmt.Fprintln(w, "no turns: the session holds no prompt a person typed")
	}
	return w.Flush()
}

// jsonList writes a JSON array one element at a time, byte for byte as
// printJSON writes the whole list (two-space indent, no HTML escaping).
type jsonList struct {
	w   *bufio.Writer
	n   int
	buf []byte
}

// addRaw adds an element already encoded as printJSON would inside the
// list (its lines after the first indented by two more spaces).
func (l *jsonList) addRaw(elem []byte) error {
	if l.n == 0 {
		l.w.WriteString("[\n  ")
	} else {
		l.w.WriteString(",\n  ")
	}
	l.n++
	l.buf = elem
	_, err := l.w.Write(elem)
	return err
}

// end closes the array ("[]" when nothing was added).
func (l *jsonList) end() {
	if l.n == 0 {
		l.w.WriteString("[]\n")
		return
	}
	l.w.WriteString("\n]\n")
}

// appendJSON appends t as an element of printJSON's list, with prompt
// already encoded (jsonString): the fields in TurnJSON's order, those
// with omitempty left out when empty.
func (t TurnJSON) appendJSON(b []byte, prompt string) []byte {
	b = append(b, "{\n    \"index\": "...)
	b = strconv.AppendInt(b, int64(t.Index), 10)
	b = append(b, ",\n    \"uuid\": "...)
	b = append(b, jsonString(t.UUID)...)
	b = append(b, ",\n    \"timestamp\": "...)
	b = append(b, jsonString(t.Timestamp)...)
	b = append(b, ",\n    \"prompt\": "...)
	b = append(b, prompt...)
	b = append(b, ",\n    \"compacted\": "...)
	b = strconv.AppendBool(b, t.Compacted)
	b = append(b, ",\n    \"interrupted\": "...)
	b = strconv.AppendBool(b, t.Interrupted)
	if t.Branch != 0 {
		b = append(b, ",\n    \"branch\": "...)
		b = strconv.AppendInt(b, int64(t.Branch), 10)
	}
	if t.Leaf != "" {
		b = append(b, ",\n    \"leaf\": "...)
		b = append(b, jsonString(t.Leaf)...)
	}
	if t.Active {
		b = append(b, ",\n    \"active\": true"...)
	}
	return append(b, "\n  }"...)
}

// jsonString is s encoded as printJSON encodes a string (no HTML escaping).
func jsonString(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\'
	}
	if plain {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// eachOnEveryCore computes fn of each entry of f on every core and hands
// the results to use in order (chain.InOrder), with their position in
// entries: a few batches are held at a time, never all of them.
func eachOnEveryCore(f *chain.File, entries []int, fn func(i int) (string, error), use func(k int, s string) error) error {
	return chain.InOrder(f, len(entries), func(k int) int { return entries[k] }, func(lo, hi int) ([]string, error) {
		r := make([]string, 0, hi-lo)
		for _, i := range entries[lo:hi] {
			s, err := fn(i)
			if err != nil {
				return nil, err
			}
			r = append(r, s)
		}
		return r, nil
	}, func() func(r []string) error {
		k := 0
		return func(r []string) error {
			for _, s := range r {
				if err := use(k, s); err != nil {
					return err
				}
				k++
			}
			return nil
		}
	}())
}

func shortTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// ValidateOptions are the options of `validate`.
type ValidateOptions struct{ Sessions []string }

// validatedFile is one session's line in validate --json: valid or not,
// its counts, or why it could not be read.
type validatedFile struct {
	File     string `json:"file"`
	Valid    bool   `json:"valid"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	Error    string `json:"error,omitempty"`
}

// RunValidate checks each session and prints its problems.
func (env *Env) RunValidate(o ValidateOptions) error {
	if len(o.Sessions) == 0 {
		return UsageErrorf("example: ccsurgeon validate 3f2a9c1e", "validate needs at least one SESSION or FILE")
	}
	all := validate.Report{Problems: []validate.Problem{}}
	valid, invalid := 0, 0
	var firstErr error
	files := []validatedFile{}
	for _, arg := range o.Sessions {
		s, err := env.OpenSession(arg)
		if err != nil {
			if len(o.Sessions) == 1 {
				return err
			}
			// one session that cannot be read does not stop the others
			fmt.Fprintf(env.Err, "ccsurgeon: %s: %v\n", arg, err)
			invalid++
			if firstErr == nil {
				firstErr = err
			}
			files = append(files, validatedFile{File: arg, Error: err.Error()})
			continue
		}
		r := validate.Session(s)
		s.Close()
		all.Problems = append(all.Problems, r.Problems...)
		files = append(files, validatedFile{File: s.Path, Valid: r.Valid(), Errors: r.Errors(), Warnings: len(r.Problems) - r.Errors()})
		if !env.JSON {
			for _, p := range r.Problems {
				fmt.Fprintln(env.Out, p.String())
			}
			status := "valid"
			if !r.Valid() {
				status = "invalid: " + Plural(r.Errors(), "error", "errors")
			}
			fmt.Fprintf(env.Err, "%s: %s, %s\n", s.Path, status, Plural(len(r.Problems)-r.Errors(), "warning", "warnings"))
		}
		if r.Valid() {
			valid++
		} else {
			invalid++
		}
	}
	if len(o.Sessions) > 1 && !env.JSON {
		fmt.Fprintf(env.Err, "%s: %d valid", Plural(len(o.Sessions), "session", "sessions"), valid)
		if invalid > 0 {
			fmt.Fprintf(env.Err, ", %d invalid", invalid)
		}
		fmt.Fprintln(env.Err)
	}
	if env.JSON {
		if err := env.printJSON(struct {
			Valid    bool               `json:"valid"`
			Problems []validate.Problem `json:"problems"`
			Files    []validatedFile    `json:"files"`
		}{all.Valid() && firstErr == nil, all.Problems, files}); err != nil {
			return err
		}
	}
	if !all.Valid() || firstErr != nil {
		return &ExitError{Code: 1}
	}
	return nil
}

// promptHeadBytes is how much of a prompt promptLine decodes first (a
// variable only so that a test can make it tiny).
var promptHeadBytes = 4096

// promptLine is oneLine(PromptText(i), max), decoding only the head of a
// long prompt: when the head already holds more than max runes of words,
// the line is the same as the whole prompt's.
func promptLine(f *chain.File, i, max int) (string, error) {
	head, whole, err := f.PromptHead(i, promptHeadBytes)
	if err != nil {
		return "", err
	}
	if line, cut := oneLineCut(head, max); cut || whole {
		return line, nil
	}
	prompt, err := f.PromptText(i)
	if err != nil {
		return "", err
	}
	return oneLine(prompt, max), nil
}
