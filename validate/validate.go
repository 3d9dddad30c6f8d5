// Package validate answers one question about a session: would the real
// client resume this file and send a request the API accepts, without
// losing history? Problems that make the API reject the resumed
// conversation or make the client drop history are errors; the rest are
// warnings.
package validate

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Severity of a problem.
type Severity string

// Severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// The codes of what Claude Code 2.0.x does not send of a file that the
// client that wrote it and the newest resume whole (warnings; repair
// fixes both, doctor lists them as old_client).
const (
	// ProgressParent (a Problem.Code): an entry of the branch hangs below a progress
	// entry, which 2.0.x does not read: it resumes from there on.
	ProgressParent = "progress-parent"
	// SideBranchCalls (a Problem.Code): results of parallel calls hang on side
	// branches, below their own call: 2.0.x drops those calls.
	SideBranchCalls = "side-branch-calls"
)

// SidecarLink (a Problem.Code, a warning): a subagent transcript of the
// session is a symbolic link (chain.Session.Links); it was not read, and
// a change of the session in place refuses it.
const SidecarLink = "sidecar-link"

// Problem is one finding, located by file and 1-based line.
type Problem struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
}

// OldClientOnly reports whether the problem is one only Claude Code 2.0.x
// meets (ProgressParent, SideBranchCalls): the client that wrote the file
// and the newest resume it whole.
func (p Problem) OldClientOnly() bool {
	return p.Code == ProgressParent || p.Code == SideBranchCalls
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Severity, p.Message)
}

// Report is the outcome of checking a session.
type Report struct {
	Problems []Problem `json:"problems"`
}

// Valid reports whether the report holds no error.
func (r Report) Valid() bool { return r.Errors() == 0 }

// Errors counts the problems of severity error.
func (r Report) Errors() int {
	n := 0
	for _, p := range r.Problems {
		if p.Severity == Error {
			n++
		}
	}
	return n
}

// ErrorCounts counts errors by code.
func (r Report) ErrorCounts() map[string]int {
	m := map[string]int{}
	for _, p := range r.Problems {
		if p.Severity == Error {
			m[p.Code]++
		}
	}
	return m
}

// Introduced returns the errors of after that before does not explain: for
// each code, the errors beyond the count before had. Line numbers and
// identifiers change under an operation, so counts are what is compared.
func Introduced(before, after Report) []Problem {
	budget := before.ErrorCounts()
	var out []Problem
	for _, p := range after.Problems {
		if p.Severity != Error {
			continue
		}
		if budget[p.Code] > 0 {
			budget[p.Code]--
			continue
		}
		out = append(out, p)
	}
	return out
}

// Session checks the main transcript and every subagent transcript.
func Session(s *chain.Session) Report {
	var r Report
	r.Problems = append(r.Problems, File(s.Main, s.ID)...)
	for _, a := range s.Subagents {
		r.Problems = append(r.Problems, File(a.File, "")...)
	}
	for _, l := range s.Links {
		what := "a subagent transcript"
		if !strings.HasSuffix(l, ".jsonl") {
			what = "the session's folder of subagent transcripts" // <id>/ or subagents/ (chain.SubagentFiles)
		}
		r.Problems = append(r.Problems, Problem{File: l, Severity: Warning, Code: SidecarLink,
			Message: what + " that is a symbolic link: not read (a session's files are read only as regular files of its own folders, never through a link)"})
	}
	sortProblems(r.Problems)
	return r
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		return ps[i].Line < ps[j].Line
	})
}

type checker struct {
	f   *chain.File
	g   *chain.Graph
	out []Problem
	// side: the file is a subagent transcript (loaded as one, or every
	// entry of it is a sidechain entry)
	side bool
}

func (c *checker) add(i int, sev Severity, code, format string, args ...any) {
	line := 0
	if i >= 0 {
		line = int(c.f.Entries[i].Line)
	}
	c.out = append(c.out, Problem{File: c.f.Path, Line: line, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// File checks one transcript. sessionID, when not empty, is the id the
// entries should carry.
func File(f *chain.File, sessionID string) []Problem {
	c := &checker{f: f, g: f.Graph(), side: f.Sidechain || onlySidechain(f)}
	c.lines()
	if sessionID == "" && !c.side {
		sessionID = strings.TrimSuffix(filepath.Base(f.Path), ".jsonl")
	}
	if sessionID != "" && !chain.IsUUID(sessionID) {
		// a copy under a name that is no session id (export.jsonl): the
		// entries should agree with each other
		sessionID = f.RecordedSessionID()
	}
	c.references(sessionID)
	c.activeBranch()
	sortProblems(c.out)
	return c.out
}

func (c *checker) lines() {
	f := c.f
	if len(f.Entries) == 0 {
		c.add(-1, Error, "empty-file", "the file holds no entries: the client cannot resume it")
		return
	}
	if f.BOM {
		c.add(0, Warning, "bom", "the file starts with a UTF-8 byte order mark")
	}
	last := len(f.Entries) - 1
	anyEntry := false
	for i := range f.Entries {
		e := &f.Entries[i]
		switch e.Kind {
		case chain.KindEntry:
			anyEntry = true
		case chain.KindBlank:
			c.add(i, Warning, "blank-line", "blank line")
		case chain.KindInvalid:
			if i == last && e.EOL == 0 {
				c.add(i, Error, "torn-final-line", "the last line is cut short (not valid JSON, no newline): --resume fails on it")
			} else {
				c.add(i, Error, "invalid-json", "%s", e.ParseErr())
			}
		}
	}
	if !anyEntry {
		c.add(-1, Error, "empty-file", "the file holds no entries: the client cannot resume it")
	}
}

func (c *checker) references(sessionID string) {
	f, g := c.f, c.g
	if len(g.Dups) > 0 {
		first := map[string]int{}
		for j := range f.Entries {
			if id := f.Entries[j].UUID(); id != "" && f.Entries[j].Kind == chain.KindEntry {
				if _, ok := first[id]; !ok {
					first[id] = j
				}
			}
		}
		for _, i := range g.Dups {
			c.add(i, Error, "duplicate-uuid", "uuid %s is already used on line %d", f.Entries[i].UUID(), f.Entries[first[f.Entries[i].UUID()]].Line)
		}
	}
	firstConv := firstConversational(f, c.side)
	for _, i := range g.Dangling {
		e := &f.Entries[i]
		switch {
		case e.ParentUUID() == e.UUID():
			c.add(i, Error, "self-parent", "entry %s names itself as parent", e.UUID())
		case c.side:
			// a subagent transcript starts from entries of the main
			// session, and the client never resumes it with the session
			c.add(i, Warning, "outside-parent", "parentUuid %s names no entry of this subagent transcript (it names the main session's, or one gone): nothing is resumed from here", e.ParentUUID())
		case i <= firstConv:
			// nothing of this file stands above it: a session continued
			// from another file names that file's last entry
			c.add(i, Warning, "outside-parent", "parentUuid %s names no entry of this file (a session continued from another): nothing in this file is above it, so nothing is lost", e.ParentUUID())
		default:
			c.add(i, Error, "dangling-parent", "parentUuid %s resolves to no entry: the client drops the history above line %d", e.ParentUUID(), e.Line)
		}
	}
	for _, i := range g.Cycles() {
		if e := &f.Entries[i]; e.ParentUUID() == e.UUID() {
			c.add(i, Error, "self-parent", "entry %s names itself as parent: older clients hang on it", e.UUID())
			continue
		}
		c.add(i, Error, "parent-cycle", "parentUuid links form a cycle through %s: older clients hang on it", f.Entries[i].UUID())
	}
	roots := 0
	var mixed []int
	var prevTS time.Time
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry {
			continue
		}
		if e.LogicalParentUUID() != "" {
			if _, ok := g.Lookup(e.LogicalParentUUID()); !ok {
				// the client resumes from the boundary all the same
				c.add(i, Warning, "dangling-reference", "logicalParentUuid %s resolves to no entry: the turns before this compaction are not linked to it (the client resumes from it as usual)", e.LogicalParentUUID())
			}
		}
		if e.LeafUUID() != "" && e.Type() != "summary" && e.LeafUUID() != nilUUID {
			if _, ok := g.Lookup(e.LeafUUID()); !ok {
				// 2.1.x then resumes the branch last in the file, 2.0.x the newest
				c.add(i, Warning, "dangling-reference", "leafUuid %s resolves to no entry: the client resumes the last branch of the file instead", e.LeafUUID())
			}
		}
		if e.Type() == "file-history-snapshot" && e.MessageID() != "" {
			if _, ok := g.Lookup(e.MessageID()); !ok {
				c.add(i, Warning, "dangling-snapshot", "file-history-snapshot messageId %s resolves to no entry", e.MessageID())
			}
		}
		if e.IsChain() && !e.HasParent() && !(e.Type() == "system" && e.Subtype() == "compact_boundary") {
			roots++
		}
		if ts, ok := e.Time(); ok && e.IsChain() {
			if !prevTS.IsZero() && ts.Before(prevTS.Add(-time.Minute)) {
				c.add(i, Warning, "time-backwards", "timestamp %s is more than a minute earlier than the entry before it", e.Timestamp())
			}
			prevTS = ts
		}
		if sessionID != "" && e.SessionID() != "" && e.SessionID() != sessionID {
			mixed = append(mixed, i)
		}
	}
	if roots > 1 {
		c.add(-1, Warning, "several-roots", "%d entries start a chain (parentUuid null) outside compactions", roots)
	}
	if len(mixed) > 0 {
		c.add(mixed[0], Warning, "mixed-session-id", "%d entries carry a sessionId other than %s (first: %s)", len(mixed), sessionID, f.Entries[mixed[0]].SessionID())
	}
}

const nilUUID = "00000000-0000-0000-0000-000000000000"

// onlySidechain reports whether every chain entry of f is a sidechain
// entry: a subagent transcript named on its own.
func onlySidechain(f *chain.File) bool {
	n := 0
	for i := range f.Entries {
		if e := &f.Entries[i]; e.IsChain() {
			if !e.IsSidechain() {
				return false
			}
			n++
		}
	}
	return n > 0
}

// firstConversational returns the index of the file's first conversation
// entry (user, assistant, system, attachment) of the file's own chain, or
// len(f.Entries) when it has none.
func firstConversational(f *chain.File, side bool) int {
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.IsChain() && e.IsSidechain() == side {
			switch e.Type() {
			case "user", "assistant", "system", "attachment":
				return i
			}
		}
	}
	return len(f.Entries)
}

func (c *checker) activeBranch() {
	f, g := c.f, c.g
	leaf := g.ActiveLeaf()
	if leaf < 0 {
		return
	}
	path := g.ActivePath()
	msgs := f.Messages(path)
	for k := 1; k < msgs.Len(); k++ {
		if m, prev := msgs.At(k), msgs.At(k-1); m.Role == "assistant" && prev.Role == "assistant" {
			c.add(m.Entries[0], Error, "consecutive-assistant", "two assistant messages in a row (message %s after %s): the API rejects the resumed conversation", f.Entries[m.Entries[0]].MsgID(), f.Entries[prev.Entries[0]].MsgID())
		}
	}
	// the tool calls each message leaves unpaired, one problem per id (at
	// the last entry of the message that holds it)
	unpaired := f.UnpairedTools(msgs)
	callsOf := map[int][]chain.UnpairedTool{}
	for _, u := range unpaired {
		if u.Result {
			continue
		}
		calls := callsOf[u.Message]
		if i := slices.IndexFunc(calls, func(o chain.UnpairedTool) bool { return o.ID == u.ID }); i >= 0 {
			calls = slices.Delete(calls, i, i+1)
		}
		callsOf[u.Message] = append(calls, u)
	}
	for k, m := range msgs.All() {
		isLast := k == msgs.Len()-1
		for _, i := range m.Entries {
			e := &f.Entries[i]
			if e.ContentEmpty() && !(isLast && m.Role == "assistant") {
				c.add(i, Error, "empty-content", "%s message has empty content: the API rejects it", m.Role)
			}
			for _, b := range e.Blocks() {
				if b.Kind == chain.BlockText && b.Empty && !e.StringContent() {
					c.add(i, Error, "empty-text-block", "text content block is empty: the API rejects it")
				}
			}
		}
		for _, u := range callsOf[k] {
			switch {
			case u.Open:
				c.add(u.Entry, Warning, "unfinished-tool-call", "tool_use %s has no result yet: the session ends inside a tool call", u.ID)
			case u.Results == 0:
				c.add(u.Entry, Error, "tool-use-without-result", "tool_use %s has no tool_result in the next message: the API rejects the resumed conversation", u.ID)
			default:
				c.add(u.Entry, Error, "duplicate-tool-result", "tool_use %s has %d tool_results", u.ID, u.Results)
			}
		}
	}
	for _, u := range unpaired {
		if u.Result {
			c.add(u.Entry, Error, "tool-result-without-use", "tool_result for %s has no tool_use in the message before it: the API rejects it", u.ID)
		}
	}
	c.resultsBesideCalls(leaf, unpaired)
	if !c.side { // a subagent transcript is never resumed
		c.oldClients(leaf)
	}
}

// oldClients reports what Claude Code 2.0.x (2.0.50 measured) does not
// send of a branch that the client that wrote it and the newest resume
// whole: warnings, since the session is sound for those; repair makes
// every client send the same.
func (c *checker) oldClients(leaf int) {
	m := c.f.OldClientMisses(leaf)
	if n := len(m.BelowProgress); n > 0 {
		j := m.BelowProgress[0] // nearest the leaf: where 2.0.x stops
		refused := ""
		if c.f.Entries[j].Type() == "assistant" {
			refused = ", and the API refuses the request (first message must use the \"user\" role)"
		}
		others := ""
		if n > 1 {
			others = fmt.Sprintf(" (%d entries of the branch hang below a progress entry)", n)
		}
		c.add(j, Warning, ProgressParent, "parentUuid names a progress entry, which Claude Code 2.0.x does not read: it resumes from line %d on, the history above it is lost%s; 2.1.x resumes it whole%s", c.f.Entries[j].Line, refused, others)
	}
	if n := len(m.SideParts); n > 0 {
		c.add(m.SideParts[0], Warning, SideBranchCalls, "%s of parallel tool calls hang on side branches, below their own call: Claude Code 2.0.x sends only the calls whose result is above the last entry and drops the others with their results; 2.1.x sends them all", chain.Plural(n, "entry", "entries"))
	}
}

// resultsBesideCalls reports the tool results of the branch from the root
// to leaf whose call is not above them on it: the newest client sends the
// call with its message (a part of the message on a side branch, found by
// its id), but clients before 2.1 send the entries above the leaf only
// (2.0.50 walks the parents up from the leaf), the result without its
// call, and the API rejects it. Results the newest client already leaves
// unpaired (unpaired) are reported as tool-result-without-use.
func (c *checker) resultsBesideCalls(leaf int, unpaired []chain.UnpairedTool) {
	type result struct {
		entry int
		id    string
	}
	reported := map[result]bool{}
	for _, u := range unpaired {
		if u.Result {
			reported[result{u.Entry, u.ID}] = true
		}
	}
	for _, b := range c.f.ResultsBesideCalls(leaf) {
		for _, id := range b.IDs {
			if !reported[result{b.Entry, id}] {
				c.add(b.Entry, Error, "result-beside-call", "tool_result for %s is on the branch but its tool_use is not above it (it hangs on a side branch): Claude Code before 2.1 sends the result without its call and the API rejects it", id)
			}
		}
	}
}
