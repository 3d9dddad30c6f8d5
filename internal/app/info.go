package app

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

// Count is a number of things and their bytes.
type Count struct {
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
}

// InfoReport is what `info` prints.
type InfoReport struct {
	SessionID   string           `json:"session_id"`
	Path        string           `json:"path"`
	Entries     int              `json:"entries"`
	Bytes       int64            `json:"bytes"`
	Turns       int              `json:"turns"`
	ByType      map[string]Count `json:"by_type"`
	ByTool      map[string]Count `json:"by_tool"`
	Thinking    Count            `json:"thinking"`
	Images      int              `json:"images"`
	Subagents   Count            `json:"subagents"`
	Compactions int              `json:"compactions"`
	Branches    int              `json:"branches"`
	// ResumeTokens is the estimated size, in tokens, of the request the
	// client sends when the session is resumed (Resume has the details,
	// TokenSources where the tokens come from and what cuts them).
	ResumeTokens int        `json:"resume_tokens"`
	Resume       ResumeInfo `json:"resume"`
	// RecordedTokens is the figure --pick shows: what the last response
	// of the main conversation was sent plus its output, as its recorded
	// usage says (0: none records usage). A record, not an estimate.
	RecordedTokens int64         `json:"recorded_tokens,omitempty"`
	TokenSources   []TokenSource `json:"token_sources"`
	// Bloat: file bytes the client never sends, and what removes them.
	Bloat    []BloatItem `json:"bloat"`
	Valid    bool        `json:"valid"`
	Errors   int         `json:"errors"`
	Warnings int         `json:"warnings"`
}

// Info computes the report for an open session; ref is how the user named
// it, for the commands the report suggests.
func Info(s *chain.Session, ref string) InfoReport {
	r := InfoReport{SessionID: s.Main.SessionID(), Path: s.Path, ByType: map[string]Count{}, ByTool: map[string]Count{}}
	r.Entries = len(s.Main.Entries)
	r.Bytes = s.Main.Size
	for _, a := range s.Subagents {
		r.Subagents.Count++
		r.Subagents.Bytes += a.File.Size
	}
	turns := s.Main.ActiveTurns()
	// the counts by type and tool and the validation run beside the
	// estimate (one core each while it is on one): they only read the
	// index, once what each file makes on first use (its graph, its
	// active path) is made, and set fields of r the rest does not touch
	for _, f := range s.Files() {
		f.Graph().ActivePath()
	}
	aside := make(chan struct{})
	go func() {
		defer close(aside)
		for _, f := range s.Files() {
			addFileStats(&r, f)
		}
		v := validate.Session(s)
		r.Valid = v.Valid()
		r.Errors = v.Errors()
		r.Warnings = len(v.Problems) - r.Errors
	}()
	r.Turns = len(turns.List)
	r.Resume, r.TokenSources = resumeReport(s, ref)
	r.ResumeTokens = r.Resume.Tokens
	r.RecordedTokens = recordedTokens(s.Main)
	r.Bloat = bloat(s, turns, ref, r.ResumeTokens)
	r.Branches = len(s.Main.Graph().Branches())
	<-aside
	return r
}

func addFileStats(r *InfoReport, f *chain.File) {
	toolName := map[string]string{}
	for i := range f.Entries {
		for _, b := range f.Entries[i].Blocks() {
			if b.Kind == chain.BlockToolUse {
				toolName[b.ID] = b.Name
			}
		}
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		t := e.Type()
		switch {
		case e.Kind == chain.KindInvalid:
			t = "(invalid)"
		case e.Kind == chain.KindBlank:
			t = "(blank)"
		case t == "":
			t = "(no type)"
		case t == "system" && e.Subtype() != "":
			t = "system/" + e.Subtype()
		}
		if !f.Sidechain {
			c := r.ByType[t]
			c.Count++
			c.Bytes += e.TotalBytes()
			r.ByType[t] = c
		}
		if e.Subtype() == "compact_boundary" && !f.Sidechain {
			r.Compactions++
		}
		for k, b := range e.Blocks() {
			switch b.Kind {
			case chain.BlockThinking, chain.BlockRedactedThinking:
				r.Thinking.Count++
				r.Thinking.Bytes += int64(b.Size)
			case chain.BlockImage:
				r.Images++
			case chain.BlockToolUse:
				c := r.ByTool[b.Name]
				c.Count++
				c.Bytes += int64(b.Size)
				r.ByTool[b.Name] = c
			case chain.BlockToolResult:
				r.Images += int(b.Images)
				name := toolName[b.ID]
				if name == "" {
					name = "(unknown)"
				}
				c := r.ByTool[name]
				c.Bytes += int64(b.Size)
				if k == firstResult(e) {
					c.Bytes += int64(e.ToolUseResult)
				}
				r.ByTool[name] = c
			}
		}
	}
}

func firstResult(e *chain.Entry) int {
	for k, b := range e.Blocks() {
		if b.Kind == chain.BlockToolResult {
			return k
		}
	}
	return -1
}

// InfoOptions are the options of `info`.
type InfoOptions struct{ Session string }

// RunInfo prints the report of one session.
func (env *Env) RunInfo(o InfoOptions) error {
	s, err := env.OpenSession(o.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	env.warnLinksNotRead(s)
	pr := env.newProgress() // estimating the tokens of a resume runs compress and strip-thinking unwritten: seconds on a big session
	pr.Phase("analysing", 0)
	r := Info(s, o.Session)
	pr.Done()
	if env.JSON {
		return env.printJSON(r)
	}
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "session\t%s\n", Printable(r.SessionID))
	fmt.Fprintf(w, "path\t%s\n", Printable(r.Path))
	fmt.Fprintf(w, "resume\t~%s tokens (±%.0f%%), %.0f%% of the %s-token context window of %s\n", chain.HumanTokens(r.Resume.Tokens), 100*r.Resume.EstimatorError,
		100*r.Resume.WindowShare, chain.HumanTokens(r.Resume.ContextWindow), orUnknown(r.Resume.Model))
	if r.RecordedTokens > 0 {
		fmt.Fprintf(w, "recorded\t%s tokens at the last response (its usage, as --pick shows it; not an estimate)\n", chain.HumanTokens(int(r.RecordedTokens)))
	}
	fmt.Fprintf(w, "size\t%s in %s\n", HumanBytes(r.Bytes), Plural(r.Entries, "entry", "entries"))
	fmt.Fprintf(w, "turns\t%d\n", r.Turns)
	fmt.Fprintf(w, "branches\t%d\n", r.Branches)
	fmt.Fprintf(w, "compactions\t%d\n", r.Compactions)
	fmt.Fprintf(w, "thinking\t%s, %s", Plural(r.Thinking.Count, "block", "blocks"), HumanBytes(r.Thinking.Bytes))
	if r.Resume.ThinkingDropped > 0 {
		// the API strips it: the count above leaves it out (chain.KeepsAllThinking)
		fmt.Fprintf(w, "; %s keeps only the last turn's: ~%s tokens of earlier turns not counted", r.Resume.Model, chain.HumanTokens(r.Resume.ThinkingDropped))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "images\t%d\n", r.Images)
	fmt.Fprintf(w, "subagents\t%d, %s\n", r.Subagents.Count, HumanBytes(r.Subagents.Bytes))
	status := "valid"
	if !r.Valid {
		status = "INVALID"
	}
	fmt.Fprintf(w, "validation\t%s (%s, %s; see 'ccsurgeon validate')\n", status, Plural(r.Errors, "error", "errors"), Plural(r.Warnings, "warning", "warnings"))
	w.Flush()
	if len(r.TokenSources) > 0 {
		fmt.Fprintln(env.Out, "\nwhat a resume sends, in tokens (estimates; --dry-run gives the figures after):")
		bw := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
		for _, src := range r.TokenSources {
			cut := "(no command cuts it)"
			switch {
			case src.Command != "":
				cut = fmt.Sprintf("saves ~%s: %s", chain.HumanTokens(src.SavesTokens), src.Command)
			case src.CutBy != "":
				cut = src.CutBy
			}
			fmt.Fprintf(bw, "  %s\t~%s\t%s\n", src.What, chain.HumanTokens(src.Tokens), cut)
		}
		bw.Flush()
		if r.Resume.Tokens > r.Resume.ContextWindow*9/10 {
			fmt.Fprintf(env.Out, "  to fit: ccsurgeon compress %s --target-tokens %d --dry-run\n", o.Session, ops.FitTarget(r.Resume.ContextWindow))
		}
	}
	if len(r.Bloat) > 0 {
		fmt.Fprintln(env.Out, "\nin the file but never sent (bytes only):")
		bw := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
		for _, b := range r.Bloat {
			fmt.Fprintf(bw, "  %s\t~%s\t%s\n", b.What, HumanBytes(b.Bytes), b.Command)
		}
		bw.Flush()
	}
	fmt.Fprintln(env.Out, "\nby entry type:")
	printCounts(env, r.ByType, "entry", "entries")
	if len(r.ByTool) > 0 {
		fmt.Fprintln(env.Out, "\nby tool (tool_use input + tool_result + toolUseResult):")
		printCounts(env, r.ByTool, "call", "calls")
	}
	return nil
}

func printCounts(env *Env, m map[string]Count, one, many string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]].Bytes != m[keys[j]].Bytes {
			return m[keys[i]].Bytes > m[keys[j]].Bytes
		}
		return keys[i] < keys[j]
	})
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s\t%s\t%s\t\n", k, Plural(m[k].Count, one, many), HumanBytes(m[k].Bytes))
	}
	w.Flush()
}

// HumanBytes formats a byte count with a binary-free decimal unit.
func HumanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func oneLine(s string, max int) string {
	line, _ := oneLineCut(s, max)
	return line
}

// oneLineCut is oneLine, saying whether the words went past max runes
// (the line then ends in "…").
func oneLineCut(s string, max int) (string, bool) {
	// the words are joined only until there are more than max runes: a
	// prompt of megabytes costs what its first line does
	var b strings.Builder
	n := 0
	for w := range strings.FieldsSeq(s) {
		w = Printable(w) // a word holds no space, but may hold an escape or a bell
		if b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += utf8.RuneCountInString(w)
		if n > max {
			break
		}
	}
	s = b.String()
	if n > max {
		return string([]rune(s)[:max-1]) + "…", true
	}
	return s, false
}

// BloatItem is a big source of bytes and the command that would cut it.
type BloatItem struct {
	What    string `json:"what"`
	Bytes   int64  `json:"bytes"` // about what the command would save
	Command string `json:"command"`
}

// bloat names the bytes of the file that the client never sends and the
// command that removes them: bookkeeping entries (compress removes them
// from every turn) and the toolUseResult copies of old tool output
// (compress drops them where it shortens). Estimates from the envelope.
// tokens is the resume's estimate: as a target, it drops what the client
// does not send (bookkeeping, failed retries) and cuts nothing it sends.
func bloat(s *chain.Session, turns chain.Turns, id string, tokens int) []BloatItem {
	f := s.Main
	var book, copies int64
	nBook := 0
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry {
			continue
		}
		kind := e.Type()
		if kind == "system" {
			kind += "/" + e.Subtype()
		}
		if ops.Bookkeeping[kind] {
			book += e.TotalBytes()
			nBook++
		}
	}
	cut := ops.CompressCut(f, turns, ops.DefaultKeepTurns, ops.DefaultKeepExchanges)
	for _, i := range turns.History[:cut] {
		copies += int64(f.Entries[i].ToolUseResult)
	}
	var out []BloatItem
	add := func(what string, n int64, cmd string) {
		if n >= 1024 {
			out = append(out, BloatItem{What: what, Bytes: n, Command: cmd})
		}
	}
	add(fmt.Sprintf("bookkeeping (%s: progress, api-request, …)", Plural(nBook, "entry", "entries")), book, "ccsurgeon compress "+id)
	// what the resumed branch does not reach: sidechains written into the
	// main file (1.0.x subagents), other branches, compacted history
	sent := make([]bool, len(f.Entries))
	for _, i := range f.Graph().ActivePath().Entries {
		sent[i] = true
	}
	var off int64
	for i := range f.Entries {
		if e := &f.Entries[i]; e.IsMessage() && !sent[i] {
			off += e.TotalBytes()
		}
	}
	add("messages off the resumed branch (sidechains, other branches, before a compaction)", off, "(history: no command removes it)")
	add("toolUseResult copies of old tool output", copies, "ccsurgeon compress "+id)
	// the errors failed retries wrote ("Prompt is too long"): small
	// assistant entries of one text block, never sent
	var errBytes int64
	nErr := 0
	var small []int // read on every core: a chain of small turns has hundreds of thousands
	for i := range f.Entries {
		e := &f.Entries[i]
		// only the lines the index marked are read (most are none)
		if e.Type() == "assistant" && e.MayBeSyntheticError() && e.Len <= 4096 && len(e.Blocks()) == 1 && e.Blocks()[0].Kind == chain.BlockText {
			small = append(small, i)
		}
	}
	_ = chain.InOrder(f, len(small), func(k int) int { return small[k] }, func(lo, hi int) ([]int, error) {
		var errs []int
		lines := chain.ReadBatch(f, small[lo:hi])
		defer lines.Close()
		for _, i := range small[lo:hi] {
			if b, err := lines.Raw(i); err == nil {
				if chain.IsSyntheticError(b) {
					errs = append(errs, i)
				}
			}
		}
		return errs, nil
	}, func(errs []int) error {
		for _, i := range errs {
			errBytes += f.Entries[i].TotalBytes()
			nErr++
		}
		return nil
	})
	if nErr > 0 {
		out = append(out, BloatItem{What: fmt.Sprintf("failed-retry error entries (%d)", nErr), Bytes: errBytes,
			Command: fmt.Sprintf("ccsurgeon compress %s --target-tokens %d", id, max(tokens, 1))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Bytes > out[j].Bytes })
	return out
}

func orUnknown(model string) string {
	if model == "" {
		return "an unknown model"
	}
	return model
}
