// Package ops holds the operations that rewrite a session — clone and its
// branch selection, fork, strip-thinking, drop-tool-calls,
// compress-old-turns and its token target (FitTokens, FitWithin),
// redact-secrets, repair, and the path rewrite of a move (Relocate) — and
// the mechanics they share: pending edits, removing an entry and
// re-linking its children, removing content blocks, remapping UUIDs.
//
// An operation is a value with one method, Apply(*Txn): it reads entries
// through the Txn and records edits in it, and writes no file of a session
// (backup does, from the Txn). The files ops touches itself: redact-secrets
// reads a session's tool-results/ folder, and spills its log of
// redactions to an unnamed temporary file (redactlog.go).
//
// Operations take typed values, never flags, and return facts: typed
// errors (TurnRangeError, BeforeTurnError, OptionError, ErrNoSelector,
// TargetError with what blocks a token target, OverTargetError), reports
// and notes that name no flag, command or exit code; the command layer
// (internal/cli's speak, internal/app) words them. A remedy that is a
// command is a fact too: Fix.KeepOne, a note ending in RepairFirst.
//
// Operations compose in a Pipeline; Txn.Finish re-links the chain once,
// after all of them.
package ops

import (
	"bytes"
	"fmt"
	"math/bits"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Op is one operation on a session.
type Op interface {
	Name() string
	Apply(t *Txn) error
}

// Pipeline applies operations in order to one transaction.
type Pipeline []Op

// Name joins the names of the operations ("strip-thinking+compress").
func (p Pipeline) Name() string {
	n := ""
	for i, op := range p {
		if i > 0 {
			n += "+"
		}
		n += op.Name()
	}
	if n == "" {
		n = "rewrite"
	}
	return n
}

// Apply runs every operation, then re-links the chain.
func (p Pipeline) Apply(t *Txn) error {
	for _, op := range p {
		if err := op.Apply(t); err != nil {
			return err
		}
	}
	return t.Finish()
}

// Txn is the set of pending changes to a session: per-file line edits,
// subagent files to remove, and the report of what was done.
type Txn struct {
	S      *chain.Session
	edits  map[*chain.File]*chain.Edits
	Report Report
	// NewID, when set, is the session id of the result (clone, fork, --new):
	// every identifier of the session is remapped to a fresh one.
	NewID    string
	finished bool
	remapper *Remapper
	// redactProtected caches unfinishedLoop for redact-secrets
	redactProtected map[int]bool
	// RemovedFiles are subagent transcripts the result no longer holds.
	RemovedFiles map[*chain.File]bool
	// Sidecars are files of the session's tool-results/ folder that the
	// result changes (redact-secrets), in path order.
	Sidecars []SidecarEdit
	// before caches the token estimate of the session as read (tokens.go)
	before *chain.ResumeEstimate
	// after is the estimate after the edits the last report of the
	// tokens saw (reportResumeTokens), for CompressOldTurns.ApplyEstimates
	after *chain.ResumeEstimate
	// late makes the bytes of the Late lines of a file (SetLate)
	late map[*chain.File]map[int]LateFunc
	// known holds the token estimate of a line's current bytes when the
	// operation that made them knew it (knownTokens); any later edit of
	// the line forgets it
	known map[*chain.File]map[int]chain.Tokens
	// mapped rewrites every entry line of a file as it is written (MapLines)
	mapped map[*chain.File]*lineMap
}

// lineMap is a rewrite of every entry line of a file (MapLines) and the
// lines it changes, one bit each.
type lineMap struct {
	fn      chain.TransformAt
	changes []uint64
	// keepsIndex: fn changes no field the index reads (chain.IndexedField)
	keepsIndex bool
}

// MapLines makes fn rewrite every entry line of f as the result is written
// (on every core, after every other edit of the line: Raw gives the bytes
// before it), instead of each line's new bytes being held until then: an
// edit of every line of a big session (move's paths) then costs no copy of
// the file in memory. fn gets the line's index (-1: a line an edit adds)
// and a buffer of its own, which it may change and return, and must not
// keep. changed lists the lines fn changes (for Stats
// and Touches). fn must give a line it changes the same bytes whatever
// edit the operations made of the line's other fields; one map per file.
// keepsIndex says that fn changes no field the index reads and keeps each
// line JSON (KeepsIndex).
func (t *Txn) MapLines(f *chain.File, fn chain.TransformAt, changed []int, keepsIndex bool) {
	m := &lineMap{fn: fn, changes: make([]uint64, (len(f.Entries)+63)/64), keepsIndex: keepsIndex}
	for _, i := range changed {
		m.changes[i/64] |= 1 << (i % 64)
	}
	if t.mapped == nil {
		t.mapped = map[*chain.File]*lineMap{}
	}
	t.mapped[f] = m
}

// MapsLines reports whether a MapLines rewrite changes a line of f.
func (t *Txn) MapsLines(f *chain.File) bool {
	if m := t.mapped[f]; m != nil {
		for _, w := range m.changes {
			if w != 0 {
				return true
			}
		}
	}
	return false
}

// mapChanges reports whether the MapLines rewrite of f changes line i.
func (t *Txn) mapChanges(f *chain.File, i int) bool {
	m := t.mapped[f]
	return m != nil && m.changes[i/64]&(1<<(i%64)) != 0
}

// Report says what the operations did, for the user.
type Report struct {
	Notes []string `json:"notes,omitempty"`
	// Counts of things removed or changed, by kind (a key of CountKinds).
	Counts map[string]int `json:"counts,omitempty"`
	// CountDetails breaks some counts down (tool calls by tool name,
	// secrets by rule, fixes by problem code).
	CountDetails map[string]map[string]int `json:"count_details,omitempty"`
	// Redactions lists the secrets redact-secrets replaced.
	Redactions RedactionLog `json:"-"`
	// Tokens: the estimated tokens a resume sends, before and after (set
	// by the operations that shrink what the client sends).
	Tokens *TokenReport `json:"resume_tokens,omitempty"`
	// NotScanned lists the files an operation should have read but did
	// not (redact-secrets: a tool-results file that is a symlink, a FIFO,
	// a device); each is named in a note too. redact --check fails on it.
	NotScanned []string `json:"-"`
	// SecretsByFile: the secrets redact-secrets replaced, by file and
	// rule, so that a result written to one file (-o FILE) counts only
	// what it wrote and names the files that still hold secrets.
	SecretsByFile map[string]map[string]int `json:"-"`
}

// secretIn counts n secrets of a rule replaced in the file at path.
func (t *Txn) secretIn(path, rule string, n int) {
	if t.Report.SecretsByFile == nil {
		t.Report.SecretsByFile = map[string]map[string]int{}
	}
	m := t.Report.SecretsByFile[path]
	if m == nil {
		m = map[string]int{}
		t.Report.SecretsByFile[path] = m
	}
	m[rule] += n
}

// Count adds n to a report counter.
func (t *Txn) Count(what string, n int) {
	if t.Report.Counts == nil {
		t.Report.Counts = map[string]int{}
	}
	t.Report.Counts[what] += n
}

// CountOf adds n to a report counter and to its breakdown under sub.
func (t *Txn) CountOf(what, sub string, n int) {
	t.Count(what, n)
	if t.Report.CountDetails == nil {
		t.Report.CountDetails = map[string]map[string]int{}
	}
	if t.Report.CountDetails[what] == nil {
		t.Report.CountDetails[what] = map[string]int{}
	}
	t.Report.CountDetails[what][sub] += n
}

// Note adds a sentence to the report.
func (t *Txn) Note(format string, args ...any) {
	t.Report.Notes = append(t.Report.Notes, fmt.Sprintf(format, args...))
}

// NewTxn starts a transaction on s.
func NewTxn(s *chain.Session) *Txn {
	return &Txn{S: s, edits: map[*chain.File]*chain.Edits{}, RemovedFiles: map[*chain.File]bool{}}
}

// Edits returns the pending edits of f.
func (t *Txn) Edits(f *chain.File) *chain.Edits {
	e := t.edits[f]
	if e == nil {
		e = chain.NewEdits()
		t.edits[f] = e
	}
	return e
}

// Raw returns the current bytes of entry i of f: edited, or as in the file.
// It is safe to call from several goroutines while no edit is made.
func (t *Txn) Raw(f *chain.File, i int) ([]byte, error) {
	ed := t.edits[f].At(i)
	if ed != nil && ed.Raw != nil {
		return ed.Raw, nil
	}
	if ed != nil && ed.Late {
		raw, err := f.ReadRaw(i, lineBuf(int(f.Entries[i].Len)))
		if err != nil {
			return nil, err
		}
		out, err := t.late[f][i](i, raw)
		if !chain.Overlaps(out, raw) { // the line read is no one's: the next read takes it
			putLineBuf(raw)
		}
		return out, err
	}
	return f.Raw(i)
}

// onlyParent reports whether the bytes t makes of entry i of f are the
// line's own but for its parentUuid (chain.Edit.OnlyParent).
func (t *Txn) onlyParent(f *chain.File, i int) bool {
	ed := t.edits[f].At(i)
	return ed != nil && ed.OnlyParent && ed.Late && ed.Raw == nil && !ed.Drop
}

// edited reports whether entry i of f has bytes of its own in t (set, or
// made late): Raw gives those, not the file's.
func (t *Txn) edited(f *chain.File, i int) bool {
	ed := t.edits[f].At(i)
	return ed != nil && (ed.Raw != nil || ed.Late)
}

// rawBuf is Raw reading a line that is not edited into buf (a pass over
// many lines reuses one buffer). inBuf says whether the bytes are buf's
// (valid until buf is used again): an edited line's bytes are the edit's
// own, and must be neither kept nor used as the next buffer.
func (t *Txn) rawBuf(f *chain.File, i int, buf []byte) (raw []byte, inBuf bool, err error) {
	if t.edited(f, i) {
		raw, err = t.Raw(f, i)
		return raw, false, err
	}
	raw, err = f.ReadRaw(i, buf)
	return raw, err == nil, err
}

// txnBatch reads the lines of one batch of a parallel pass over f
// (chain.InOrder) as the transaction has them: a line an operation edited
// as it left it (Raw), the others from the file, at once when they lie
// together (chain.ReadBatch).
type txnBatch struct {
	t *Txn
	f *chain.File
	b *chain.Batch
}

// batch starts reading the lines of f (in any order).
func (t *Txn) batch(f *chain.File, lines []int) txnBatch {
	return txnBatch{t, f, chain.ReadBatch(f, lines)}
}

// batchRange starts reading lines lo..hi-1 of f.
func (t *Txn) batchRange(f *chain.File, lo, hi int) txnBatch {
	return txnBatch{t, f, f.ReadRange(lo, hi)}
}

// raw is the bytes of line i as the transaction has them. fromFile: they
// are the batch's (the file's own), valid until the next raw or close,
// and may be changed in place; else they are an edit's, not to be
// changed.
func (r txnBatch) raw(i int) (raw []byte, fromFile bool, err error) {
	if r.t.edited(r.f, i) {
		raw, err = r.t.Raw(r.f, i)
		return raw, false, err
	}
	raw, err = r.b.Raw(i)
	return raw, err == nil, err
}

func (r txnBatch) close() { r.b.Close() }

// Set replaces the bytes of entry i of f.
func (t *Txn) Set(f *chain.File, i int, raw []byte) {
	ed := t.Edits(f).Get(i)
	ed.Raw, ed.Late, ed.OnlyParent = raw, false, false
	delete(t.late[f], i)
	delete(t.known[f], i)
}

// LateFunc makes the bytes of line i of a file from its current bytes. It
// must not keep raw (the writer reads the next line into it), but may
// return it or a part of it. Its result belongs to the writer, which
// reuses it once it is written (lineBuf): it must not be shared.
type LateFunc func(i int, raw []byte) ([]byte, error)

// SetLate replaces the bytes of entry i of f with fn of its current bytes
// (Raw), computed when the result is written (on every core) or when an
// operation asks for them (Raw): nothing is held until then. Edits
// compose: fn gets the bytes the earlier operations made, whether they
// were set (then fn runs now) or are themselves made late. fn must not
// depend on the order of the lines it is called on.
func (t *Txn) SetLate(f *chain.File, i int, fn LateFunc) error {
	ed := t.Edits(f).Get(i)
	ed.OnlyParent = false
	delete(t.known[f], i)
	if ed.Raw != nil {
		out, err := fn(i, ed.Raw)
		if err != nil {
			return err
		}
		ed.Raw = out
		return nil
	}
	if t.late == nil {
		t.late = map[*chain.File]map[int]LateFunc{}
	}
	if t.late[f] == nil {
		t.late[f] = map[int]LateFunc{}
	}
	if prev := t.late[f][i]; ed.Late && prev != nil {
		t.late[f][i] = func(i int, raw []byte) ([]byte, error) {
			mid, err := prev(i, raw)
			if err != nil {
				return nil, err
			}
			out, err := fn(i, mid)
			if !chain.Overlaps(mid, raw) && !chain.Overlaps(out, mid) { // made for fn alone
				putLineBuf(mid)
			}
			return out, err
		}
	} else {
		t.late[f][i] = fn
	}
	ed.Late = true
	return nil
}

// Drop removes entry i of f. Its children are re-linked by Finish.
func (t *Txn) Drop(f *chain.File, i int) {
	t.Edits(f).Drop(i)
	delete(t.known[f], i)
}

// Dropped reports whether entry i of f is removed.
func (t *Txn) Dropped(f *chain.File, i int) bool { return t.edits[f].Dropped(i) }

// Changed reports whether entry i of f is edited or removed.
func (t *Txn) Changed(f *chain.File, i int) bool {
	ed := t.edits[f].At(i)
	return ed != nil && (ed.Drop || ed.Raw != nil || ed.Late || len(ed.After) > 0) || t.mapChanges(f, i)
}

// RemoveFile drops a whole subagent transcript from the result.
func (t *Txn) RemoveFile(f *chain.File) { t.RemovedFiles[f] = true }

// Finish re-links every file after the operations' removals and, for a new
// session, remaps every identifier. It runs once.
func (t *Txn) Finish() error {
	if t.finished {
		return nil
	}
	t.finished = true
	for _, f := range t.S.Files() {
		if t.RemovedFiles[f] {
			continue
		}
		if err := t.relink(f); err != nil {
			return err
		}
		if err := t.joinAssistants(f); err != nil {
			return err
		}
	}
	if t.NewID != "" {
		return t.remap()
	}
	return nil
}

// Stats counts what the result holds compared with the input.
type Stats struct {
	EntriesBefore int `json:"entries_before"`
	EntriesAfter  int `json:"entries_after"`
	Removed       int `json:"entries_removed"`
	Changed       int `json:"entries_changed"`
	Added         int `json:"entries_added"`
}

// Stats of the main file.
func (t *Txn) Stats() Stats { return t.statsOf(t.S.Main) }

// LinesAfter is the number of lines file f has in the result.
func (t *Txn) LinesAfter(f *chain.File) int { return t.statsOf(f).EntriesAfter }

func (t *Txn) statsOf(f *chain.File) Stats {
	st := Stats{EntriesBefore: len(f.Entries)}
	for i, ed := range t.edits[f].All() {
		switch {
		case ed.Drop:
			st.Removed++
		case ed.Raw != nil || ed.Late:
			st.Changed++
		case t.mapChanges(f, i):
			st.Changed++ // an edit that keeps the line's bytes: the map changes them
		}
		st.Added += len(ed.After)
	}
	if m := t.mapped[f]; m != nil {
		for w, word := range m.changes {
			for ; word != 0; word &= word - 1 {
				if t.edits[f].At(w*64+bits.TrailingZeros64(word)) == nil {
					st.Changed++
				}
			}
		}
	}
	st.EntriesAfter = st.EntriesBefore - st.Removed + st.Added
	return st
}

// ChangesAnything reports whether the transaction changes any file of the
// session (a transaction that does not is never written).
func (t *Txn) ChangesAnything() bool {
	if len(t.RemovedFiles) > 0 || len(t.Sidecars) > 0 {
		return true
	}
	for _, f := range t.S.Files() {
		if t.Touches(f) {
			return true
		}
	}
	return false
}

// Touches reports whether the result changes a byte of f: an entry
// dropped, made late or added after, or set to bytes other than its own.
func (t *Txn) Touches(f *chain.File) bool {
	if t.MapsLines(f) {
		return true
	}
	for i, ed := range t.edits[f].All() {
		if ed.Drop || ed.Late || len(ed.After) > 0 {
			return true
		}
		if ed.Raw != nil {
			if orig, err := f.Raw(i); err != nil || !bytes.Equal(orig, ed.Raw) {
				return true
			}
		}
	}
	return false
}
