package app

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ccsurgeon/ccsurgeon/chain"
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
	// IdenticalTo: the first branch that sends the same messages as this one
	IdenticalTo int `json:"identical_to,omitempty"`
	// SharedTurns and DivergesAt (branches but the active one): how many of
	// this branch's turns are the active branch's too, and the first entry
	// of this branch that is not on it
	SharedTurns *int   `json:"shared_turns,omitempty"`
	DivergesAt  string `json:"diverges_at,omitempty"`
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
	var branches []branchInfo
	var hidden []int
	active := g.ActiveLeaf()
	if o.All {
		branches, hidden = realBranches(f, active)
	} else {
		branches = []branchInfo{{leaf: active, active: true}}
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
		ts := b.turns
		if !o.All {
			ts = f.TurnsOf(b.leaf)
		}
		width := max(4, len(strconv.Itoa(len(ts.List))))
		if o.All && !env.JSON {
			fmt.Fprintf(w, "branch %d (leaf %s%s)\n", b.n, f.Entries[b.leaf].UUID(), b.describe(f))
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
				tj.IdenticalTo = b.identicalTo
				if !b.active && b.divergesAt >= 0 {
					tj.SharedTurns, tj.DivergesAt = &b.shared, f.Entries[b.divergesAt].UUID()
				}
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
	} else if shown == 0 && active < 0 && hasChainEntries(f) {
		msg, hint := noBranchWords(f)
		fmt.Fprintf(w, "no turns: %s\n%s\n", msg, hint)
	} else if shown == 0 {
		fmt.Fprintln(w, "no turns: the session holds no prompt a person typed")
	}
	if len(hidden) > 0 && !env.JSON {
		var ns []string
		for _, n := range hidden {
			ns = append(ns, strconv.Itoa(n))
		}
		fmt.Fprintf(w, "not shown: %s %s, with no turn on %s (such as the entry a continued session carries over from the session before)\n",
			map[bool]string{true: "branch", false: "branches"}[len(ns) == 1], strings.Join(ns, ", "), map[bool]string{true: "it", false: "them"}[len(ns) == 1])
	}
	return w.Flush()
}

// branchInfo is one branch 'turns --all' shows: its number (as --branch
// takes it), leaf and turns, the first branch with the same messages, and
// where it leaves the active branch.
type branchInfo struct {
	n, leaf     int
	active      bool
	turns       chain.Turns
	identicalTo int // 0: none before it
	shared      int // turns on the active branch too
	divergesAt  int // the first entry not on the active branch (-1: none)
}

// describe is what the branch's heading says after its leaf.
func (b branchInfo) describe(f *chain.File) string {
	if b.active {
		return ", active: the client resumes this one"
	}
	var parts []string
	if b.identicalTo > 0 {
		parts = append(parts, fmt.Sprintf("identical to branch %d (the same messages)", b.identicalTo))
	}
	if b.divergesAt >= 0 {
		where := fmt.Sprintf("in turn %d", b.shared)
		if b.shared == 0 || slices.ContainsFunc(b.turns.List, func(t chain.Turn) bool { return t.Entry == b.divergesAt }) {
			where = fmt.Sprintf("after turn %d", b.shared)
		}
		parts = append(parts, fmt.Sprintf("leaves the active branch %s, at entry %s", where, f.Entries[b.divergesAt].UUID()))
	} else {
		parts = append(parts, "shares no entry with the active branch")
	}
	return "; " + strings.Join(parts, "; ")
}

// realBranches are the branches of f that hold a turn (and the active one
// whatever it holds), numbered as --branch takes them, with what makes
// each one differ; hidden are the numbers of those left out.
func realBranches(f *chain.File, active int) (shown []branchInfo, hidden []int) {
	g := f.Graph()
	onActive := make([]bool, len(f.Entries))
	if active >= 0 {
		anc, _ := g.Ancestors(active)
		for _, i := range anc {
			onActive[i] = true
		}
	}
	sigs := map[[32]byte]int{}
	for k, l := range g.Branches() {
		b := branchInfo{n: k + 1, leaf: l, active: l == active, turns: f.TurnsOf(l), divergesAt: -1}
		if len(b.turns.List) == 0 && !b.active {
			hidden = append(hidden, b.n)
			continue
		}
		sig := messagesSignature(f, g.PathTo(l))
		if first, ok := sigs[sig]; ok {
			b.identicalTo = first
		} else {
			sigs[sig] = b.n
		}
		if !b.active {
			anc, _ := g.Ancestors(l)
			for _, i := range anc {
				if !onActive[i] {
					b.divergesAt = i
					break
				}
			}
			if b.divergesAt >= 0 && b.divergesAt == anc[0] {
				b.divergesAt = -1 // nothing shared: a root of its own
			}
			for _, t := range b.turns.List {
				if onActive[t.Entry] {
					b.shared++
				}
			}
		}
		shown = append(shown, b)
	}
	return shown, hidden
}

// messagesSignature digests the messages a resume of path sends: role and
// content of every entry, not ids or times.
func messagesSignature(f *chain.File, p chain.Path) [32]byte {
	h := sha256.New()
	for _, m := range f.Messages(p).All() {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		for _, i := range m.Entries {
			raw, err := f.Raw(i)
			if err != nil {
				continue
			}
			h.Write([]byte(gjson.GetBytes(raw, "message.content").Raw))
			h.Write([]byte{0})
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
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
	if t.IdenticalTo != 0 {
		b = append(b, ",\n    \"identical_to\": "...)
		b = strconv.AppendInt(b, int64(t.IdenticalTo), 10)
	}
	if t.SharedTurns != nil {
		b = append(b, ",\n    \"shared_turns\": "...)
		b = strconv.AppendInt(b, int64(*t.SharedTurns), 10)
	}
	if t.DivergesAt != "" {
		b = append(b, ",\n    \"diverges_at\": "...)
		b = append(b, jsonString(t.DivergesAt)...)
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
