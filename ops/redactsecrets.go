package ops

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/tidwall/gjson"
)

// RedactSecrets replaces every secret found in a decoded string value of
// any entry of the session (main transcript and subagents) with a
// placeholder such as [REDACTED:github-pat:3]: the same secret gets the
// same placeholder everywhere, different secrets different numbers.
// Structural values (ids, hashes, timestamps, signatures, model names) are
// never scanned. A thinking block that holds a secret is removed whole: its
// text cannot change without breaking its signature.
type RedactSecrets struct {
	Scanner *redact.Scanner
}

// Redaction is one secret found, for the report. The secret itself is
// never reported; Fingerprint identifies repeats.
type Redaction struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Field       string `json:"field"`
	Rule        string `json:"rule"`
	Placeholder string `json:"placeholder"`
	Fingerprint string `json:"fingerprint"`
	InThinking  bool   `json:"in_thinking,omitempty"`
}

// Name of the operation.
func (RedactSecrets) Name() string { return "redact-secrets" }

// protected returns the assistant entries of an unfinished last tool loop,
// whose thinking the API wants (computed once per transaction).
func (o RedactSecrets) protected(t *Txn) map[int]bool {
	if t.redactProtected == nil {
		t.redactProtected = unfinishedLoop(t.S.Main)
		if t.redactProtected == nil {
			t.redactProtected = map[int]bool{}
		}
	}
	return t.redactProtected
}

// skipKeys are fields whose values are structural, never free text.
var skipKeys = map[string]bool{
	"uuid": true, "parentUuid": true, "logicalParentUuid": true, "leafUuid": true, "sessionId": true,
	"messageId": true, "snapshotMessageId": true, "timestamp": true, "id": true, "tool_use_id": true,
	"signature": true, "model": true, "requestId": true, "requestRef": true, "promptId": true, "hash": true,
	"version": true, "type": true, "role": true, "stop_reason": true, "agentId": true, "toolUseID": true,
	"parentToolUseID": true, "sourceToolAssistantUUID": true, "shapeHash": true, "requestDigest": true,
	"base": true, "slug": true, "userType": true, "entrypoint": true, "subtype": true, "level": true,
	"gitBranch": true, "cwd": true, "backupFileName": true, "media_type": true,
}

// opaqueKeys are structural values made by a machine from other bytes (a
// thinking block's signature, digests): no secret can be written into
// them, and a signature's kilobytes of base64 hold chance anchors, so they
// are not scanned (on a session of subagents and thinking that scan took
// a third more CPU).
var opaqueKeys = map[string]bool{"signature": true, "hash": true, "shapeHash": true, "requestDigest": true}

// machineID reports whether a raw JSON string token is an identifier the
// client or the API made, in its usual shape: a UUID, an RFC 3339
// timestamp, a msg_/req_/toolu_ id. A structural value of another shape is
// scanned (a path, a branch name, a changed id).
func machineID(tok string) bool {
	if len(tok) < 2 {
		return true
	}
	v := tok[1 : len(tok)-1]
	switch {
	case len(v) == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-':
		return chain.IsUUID(v)
	case len(v) >= 20 && len(v) <= 35 && v[4] == '-' && v[7] == '-' && v[10] == 'T':
		for i := 0; i < len(v); i++ {
			if c := v[i]; !(c >= '0' && c <= '9' || strings.IndexByte("-:.TZ+", c) >= 0) {
				return false
			}
		}
		return true
	}
	for _, p := range []string{"msg_", "req_", "toolu_", "srvtoolu_"} {
		if strings.HasPrefix(v, p) {
			for i := len(p); i < len(v); i++ {
				if c := v[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
					return false
				}
			}
			return true
		}
	}
	return false
}

// skipBlockTypes are content blocks holding binary or encrypted data.
var skipBlockTypes = map[string]bool{"image": true, "document": true, "redacted_thinking": true}

// hit is a secret inside one string value of a line.
type hit struct {
	tokStart, tokEnd int // the raw JSON string token in the line
	finds            []redact.Finding
	sums             [][16]byte // of each secret (SHA-256, first 16 bytes)
	nums             []uint32   // the number of each secret's placeholder
	codes            []uint32   // the numbering's code of each secret's rule
	path             string
	thinking         bool // the value is a thinking block's text
	// keep: a structural value (an id, cwd): reported, never replaced
	keep bool
}

type lineHits struct {
	i    int
	hits []hit
	// raw: the line is not a JSON entry (a torn last line, a line nested too
	// deep to parse); finds are byte offsets in the line itself.
	raw   bool
	finds []redact.Finding
}

// numbering gives each distinct secret of a rule its number, in order of
// first appearance. A secret is known by the first 10 bytes of its SHA-256
// and its rule: 16 bytes per distinct secret in an open-addressed table,
// never the secret (a session of a million distinct secrets: 32 MB).
type numbering struct {
	rules   map[string]uint16
	names   []string // of the rules, by code
	perRule []uint32 // numbers given, by rule code
	slots   []numSlot
	used    int
	sink    uint32 // what warm read (kept, so that its loads are not dropped)
}

// numSlot is one secret of the table: a and b its key, v its number (0:
// the slot is free).
type numSlot struct {
	a uint64 // bytes 0–7 of the sum
	b uint32 // bytes 8–9 of the sum, then the rule's code
	v uint32
}

// code returns the code of a rule, giving a new rule the next.
func (nb *numbering) code(rule string) uint16 {
	r, ok := nb.rules[rule]
	if !ok {
		if nb.rules == nil {
			nb.rules = map[string]uint16{}
		}
		r = uint16(len(nb.names))
		nb.rules[rule] = r
		nb.names = append(nb.names, rule)
		nb.perRule = append(nb.perRule, 0)
	}
	return r
}

func numKeyOf(code uint16, sum [16]byte) (uint64, uint32) {
	return binary.LittleEndian.Uint64(sum[:8]), uint32(sum[8])<<24 | uint32(sum[9])<<16 | uint32(code)
}

// home is the slot where the search for a key starts.
func home(a uint64, b uint32, mask uint64) uint64 { return (a ^ uint64(b)*0x9e3779b97f4a7c15) & mask }

// find returns the slot of a key: its own, or the free slot it would take.
func (nb *numbering) find(a uint64, b uint32) *numSlot {
	mask := uint64(len(nb.slots) - 1)
	for i := home(a, b, mask); ; i = (i + 1) & mask {
		s := &nb.slots[i]
		if s.v == 0 || s.a == a && s.b == b {
			return s
		}
	}
}

// reserve grows the table so that n more secrets fit in it.
func (nb *numbering) reserve(n int) {
	if 4*(nb.used+n) <= 3*len(nb.slots) {
		return
	}
	size := max(1024, len(nb.slots))
	for 4*(nb.used+n) > 3*size {
		size *= 2
	}
	old := nb.slots
	nb.slots = make([]numSlot, size)
	for _, s := range old {
		if s.v != 0 {
			*nb.find(s.a, s.b) = s
		}
	}
}

// warm loads the slots where the secrets of a line's hits (their rule
// codes in h.codes) start their search, before assign takes them one by
// one: a table of a million secrets is far bigger than the cache, and the
// loads of one pass, independent of each other, wait for memory side by
// side where assign's waited one after another (a miss per secret, most of
// assign's time). It changes no number.
func (nb *numbering) warm(hits []hit) {
	n := 0
	for _, h := range hits {
		if !h.keep {
			n += len(h.finds)
		}
	}
	nb.reserve(n)
	mask := uint64(len(nb.slots) - 1)
	var sink uint32
	for _, h := range hits {
		if h.keep {
			continue
		}
		for k, sum := range h.sums {
			a, b := numKeyOf(uint16(h.codes[k]), sum)
			sink += nb.slots[home(a, b, mask)].v
		}
	}
	nb.sink = sink
}

// assign returns the number of a secret of the rule with that code, giving
// a new one the next.
func (nb *numbering) assign(code uint16, sum [16]byte) uint32 {
	nb.reserve(1)
	a, b := numKeyOf(code, sum)
	s := nb.find(a, b)
	if s.v == 0 {
		nb.perRule[code]++
		*s = numSlot{a, b, nb.perRule[code]}
		nb.used++
	}
	return s.v
}

// assignRule is assign by the rule's name.
func (nb *numbering) assignRule(rule string, sum [16]byte) uint32 {
	return nb.assign(nb.code(rule), sum)
}

// encode writes the hits of a line (numbered: h.nums, h.codes) as varints: per hit
// the string token's offset from the end of the last and length, the
// number of secrets, and per secret its offset from the end of the last in
// the decoded value, length, rule code and number.
func (nb *numbering) encode(hits []hit) []byte {
	n := 0
	for _, h := range hits {
		n += 3 + 4*len(h.finds)
	}
	b := make([]byte, 0, 2*n)
	pos := 0
	for _, h := range hits {
		b = binary.AppendUvarint(b, uint64(h.tokStart-pos))
		b = binary.AppendUvarint(b, uint64(h.tokEnd-h.tokStart))
		b = binary.AppendUvarint(b, uint64(len(h.finds)))
		last := 0
		for k, fd := range h.finds {
			b = binary.AppendUvarint(b, uint64(fd.Start-last))
			b = binary.AppendUvarint(b, uint64(fd.End-fd.Start))
			b = binary.AppendUvarint(b, uint64(h.codes[k]))
			b = binary.AppendUvarint(b, uint64(h.nums[k]))
			last = fd.End
		}
		pos = h.tokEnd
	}
	return b
}

var errLostPlaces = errors.New("internal: redact-secrets lost the places of a line's secrets")

// render appends raw, a line of n bytes whose secrets rec (encode) names,
// to out with each secret replaced by its placeholder. It is safe for
// concurrent use once the numbering is done.
func (nb *numbering) render(out, raw, rec []byte) ([]byte, error) {
	bad := errLostPlaces
	next := func() int {
		v, k := binary.Uvarint(rec)
		if k <= 0 || v > 1<<40 {
			rec = nil
			return -1
		}
		rec = rec[k:]
		return int(v)
	}
	var fbuf [64]redact.Finding // a prompt of the secrets bench holds about 40
	var nbuf [64]uint32
	var ph [80]byte
	pos := 0
	for len(rec) > 0 {
		st := pos + next()
		en := st + next()
		nf := next()
		if nf < 0 || st < pos || en > len(raw) || en-st < 2 {
			return nil, bad
		}
		finds, nums := fbuf[:0], nbuf[:0]
		last := 0
		for k := 0; k < nf; k++ {
			fs := last + next()
			fe := fs + next()
			r, num := next(), next()
			if r < 0 || r >= len(nb.names) || num <= 0 || fs < last {
				return nil, bad
			}
			finds = append(finds, redact.Finding{Start: fs, End: fe, Rule: nb.names[r]})
			nums = append(nums, uint32(num))
			last = fe
		}
		out = append(out, raw[pos:st]...)
		out = replaceInString(out, raw[st:en], finds, func(k int) string {
			return unsafeString(appendPlaceholder(ph[:0], finds[k].Rule, int(nums[k])))
		})
		pos = en
	}
	return append(out, raw[pos:]...), nil
}

// renderCompact is nb.render of raw into a buffer of the class of the
// result's own length. The room render needs is not known before it runs
// (a placeholder may be longer than its secret): it renders into a
// buffer with room for the worst case, which goes back to the pool at
// once, and the result is copied into a buffer of its class when that is
// smaller. The rewritten lines wait for the writer in those buffers (a few
// batches of them per core): on the secrets bench a 9 KB line becomes 5–8
// KB, and a 16 KB buffer each kept the heap at the memory limit, where the
// collector ran every few milliseconds through the write.
func renderCompact(nb *numbering, raw, rec []byte) ([]byte, error) {
	work := lineBuf(len(raw) + 8*len(rec))
	out, err := nb.render(work, raw, rec)
	if err != nil || lineBufRoom(len(out)) >= cap(out) {
		return out, err
	}
	small := append(lineBuf(len(out)), out...)
	putLineBuf(out)
	return small, nil
}

func secretSum(secret string) [16]byte {
	// Sum256 only reads its input: the string's bytes, not a copy
	full := sha256.Sum256(unsafe.Slice(unsafe.StringData(secret), len(secret)))
	var s [16]byte
	copy(s[:], full[:16])
	return s
}

// Apply scans the session and replaces the secrets. The scan numbers the
// secrets and writes the report as it goes (on every core, in the order of
// the lines); the lines are rewritten as the result is written (SetLate),
// so neither the report nor the changed lines are held in memory.
func (o RedactSecrets) Apply(t *Txn) error {
	if o.Scanner == nil {
		return fmt.Errorf("redact-secrets: no scanner")
	}
	nb := &numbering{}
	log := &t.Report.Redactions
	var ruleLog []uint32 // the log's index of each rule code's name
	var perRule []int    // secrets found, by rule code
	files := t.S.Files()
	// The subagent transcripts (hundreds of small files in a long session:
	// each one batch, so scanned one after another they kept one core
	// busy) are scanned alongside the main transcript; their secrets are
	// numbered after its, in file order, as before. Nothing is edited
	// until every scan is done: the scans read the transaction's edits.
	pre := make([][]lineHits, len(files))
	preErr := make([]error, len(files))
	var scans sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k, f := range files {
		if f == t.S.Main {
			continue
		}
		scans.Add(1)
		go func() {
			defer scans.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			preErr[k] = o.scanFile(t, f, func(lh lineHits) error {
				pre[k] = append(pre[k], lh)
				return nil
			})
		}()
	}
	scanned := func(k int, f *chain.File, use func(lineHits) error) error {
		if f == t.S.Main {
			err := o.scanFile(t, f, use)
			scans.Wait()
			return err
		}
		scans.Wait()
		if preErr[k] != nil {
			return preErr[k]
		}
		for _, lh := range pre[k] {
			if err := use(lh); err != nil {
				return err
			}
		}
		pre[k] = nil
		return nil
	}
	defer scans.Wait()
	for k, f := range files {
		// the scan's workers read the edits: they change once it is done
		var lateLines []int
		// what each late line's rewrite needs: a few bytes per secret
		// (offsets, rule, number), so that it is not scanned twice
		recs := map[int][]byte{}
		var thinkingLines []lineHits
		type rawEdit struct {
			i   int
			out []byte
		}
		var rawEdits []rawEdit
		fileLog := log.str(f.Path)
		var inFile []int // secrets replaced in f, by rule code
		err := scanned(k, f, func(lh lineHits) error {
			if lh.raw {
				out, err := o.redactRawLine(t, f, lh, nb)
				if out != nil {
					rawEdits = append(rawEdits, rawEdit{lh.i, out})
				}
				return err
			}
			thinking := false
			line := int(f.Entries[lh.i].Line)
			kept := 0
			nf := 0
			for hk := range lh.hits {
				nf += len(lh.hits[hk].finds)
			}
			nc := make([]uint32, 2*nf) // the numbers and codes of the line's secrets
			for hk := range lh.hits {
				h := &lh.hits[hk]
				h.nums, h.codes, nc = nc[:len(h.finds):len(h.finds)], nc[len(h.finds):2*len(h.finds):2*len(h.finds)], nc[2*len(h.finds):]
				if !h.keep {
					for k, fd := range h.finds {
						h.codes[k] = uint32(nb.code(fd.Rule))
					}
				}
			}
			nb.warm(lh.hits)
			for hk := range lh.hits {
				h := &lh.hits[hk]
				thinking = thinking || h.thinking
				field := log.str(h.path)
				for k, fd := range h.finds {
					if h.keep {
						// reported with no placeholder: --check fails
						log.addIdx(fileLog, field, log.str(fd.Rule), line, 0, h.sums[k], false)
						t.CountOf(CountSecretsLeft, fd.Rule, 1)
						t.Note("line %d of %s holds a secret in %s, a field the client reads as it is (an id, a path): it cannot be replaced and is still in the output; remove the line before sharing", line, f.Path, h.path)
						continue
					}
					c := uint16(h.codes[k])
					for int(c) >= len(ruleLog) {
						ruleLog = append(ruleLog, log.str(nb.names[len(ruleLog)]))
						perRule = append(perRule, 0)
					}
					h.nums[k] = nb.assign(c, h.sums[k])
					log.addIdx(fileLog, field, ruleLog[c], line, h.nums[k], h.sums[k], h.thinking)
					perRule[c]++
					for int(c) >= len(inFile) {
						inFile = append(inFile, 0)
					}
					inFile[c]++
				}
				if h.keep {
					kept++
				}
			}
			if kept > 0 {
				lh.hits = dropKept(lh.hits)
				if len(lh.hits) == 0 {
					return nil
				}
			}
			if thinking {
				thinkingLines = append(thinkingLines, lh)
			} else {
				lateLines = append(lateLines, lh.i)
				recs[lh.i] = nb.encode(lh.hits)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for c, n := range inFile {
			if n > 0 {
				t.secretIn(f.Path, nb.names[c], n)
			}
		}
		for _, re := range rawEdits {
			t.Set(f, re.i, re.out)
		}
		for _, lh := range thinkingLines {
			if err := o.rewriteThinking(t, f, lh, nb); err != nil {
				return err
			}
		}
		late := func(i int, raw []byte) ([]byte, error) {
			return renderCompact(nb, raw, recs[i])
		}
		for _, i := range lateLines {
			// a line an earlier operation set is redacted now: a failure
			// there must stop the operation, not leave the line as it was
			if err := t.SetLate(f, i, late); err != nil {
				return err
			}
		}
	}
	for c, n := range perRule {
		if n > 0 {
			t.CountOf(CountSecrets, nb.names[c], n)
		}
	}
	// after the transcripts: a secret they share with a tool output keeps
	// the number it has there
	if err := o.redactToolResults(t, nb); err != nil {
		return err
	}
	// every secret has its number: the lines rewritten as the result is
	// written need only the rules' names, not the table of the secrets
	// (16 bytes and more per distinct secret, 32 MB for the 1.5 million of
	// the 300 MB secrets bench), which the collector would otherwise mark
	// again and again while the output is written and indexed
	nb.slots = nil
	return t.Report.Redactions.Err()
}

// SidecarEdit is a file of the session's tool-results/ folder (where Claude
// Code 2.1.x keeps a large tool output whole, the transcript holding a
// preview) with the secrets it held replaced.
type SidecarEdit struct {
	Path string
	// Size and ModTime: the file when it was read (a write refuses to
	// replace it if they changed)
	Size    int64
	ModTime time.Time
	Data    []byte // the new content
	Secrets int    // secrets replaced
}

// ToolResultsDir is the folder of a session's large tool outputs.
func ToolResultsDir(s *chain.Session) string { return filepath.Join(s.SidecarDir(), "tool-results") }

// redactToolResults scans every regular file of the session's tool-results/
// folder as text, with the numbering of the transcripts, and sets the
// files that change as t.Sidecars. A file holding a NUL byte is binary: a
// placeholder of another length could break it, so its secrets are
// reported (--check fails) and named in a note, never replaced.
func (o RedactSecrets) redactToolResults(t *Txn, nb *numbering) error {
	dir := ToolResultsDir(t.S)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	list, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", dir, err)
	}
	for _, d := range list {
		if !d.Type().IsRegular() {
			// a FIFO or a device would block, a symlink is not the
			// session's own file: not read, but named
			p := filepath.Join(dir, d.Name())
			t.Note("%s is not a regular file: it was not scanned for secrets", p)
			t.Report.NotScanned = append(t.Report.NotScanned, p)
			continue
		}
		if err := o.redactToolResult(t, nb, filepath.Join(dir, d.Name())); err != nil {
			return err
		}
	}
	return nil
}

// redactToolResult is redactToolResults on the file p.
func (o RedactSecrets) redactToolResult(t *Txn, nb *numbering, p string) error {
	// a regular file only, without waiting on a pipe: the listing saw a
	// file, and the name may lead elsewhere now
	fh, st, err := chain.OpenSideFile(p)
	if err != nil {
		var ce *chain.Error
		if errors.As(err, &ce) {
			t.Note("%s is not a regular file: it was not scanned for secrets", p)
			t.Report.NotScanned = append(t.Report.NotScanned, p)
			return nil
		}
		return err
	}
	data, err := io.ReadAll(fh)
	fh.Close()
	if err != nil {
		return err
	}
	finds := o.Scanner.Scan(unsafeString(data))
	if len(finds) == 0 {
		return nil
	}
	binary := bytes.IndexByte(data, 0) >= 0
	// in text that is not UTF-8 (Latin-1, Shift JIS) a secret is replaced
	// only when it and the byte before it are ASCII: it cannot then be
	// part of a character of two bytes
	plain := binary || utf8.Valid(data)
	field := "(tool-results file: scanned as text)"
	if binary {
		field = "(tool-results file: binary, scanned as bytes)"
	}
	line, lineAt := 1, 0
	lineOf := func(fd redact.Finding) int {
		line += bytes.Count(data[lineAt:fd.Start], []byte{'\n'})
		lineAt = fd.Start
		return line
	}
	out, left := replaceText(t, nb, data, finds, p, field, lineOf, func(fd redact.Finding) bool {
		return !binary && (plain || isASCII(data[max(fd.Start-1, 0):fd.End]))
	})
	switch {
	case binary:
		t.Note("%s is a binary file and holds %s that cannot be replaced without changing it: remove it before sharing the session", p, chain.Plural(left, "secret", "secrets"))
	case left > 0:
		t.Note("%s is not UTF-8 text and holds %s that cannot be replaced safely: they are still there; remove the file before sharing the session", p, chain.Plural(left, "secret", "secrets"))
	}
	if out != nil {
		t.Count(CountSidecarsRedacted, 1)
		t.Sidecars = append(t.Sidecars, SidecarEdit{Path: p, Size: st.Size(), ModTime: st.ModTime(), Data: out, Secrets: len(finds) - left})
	}
	return nil
}

// replaceText replaces the secrets of raw text (finds: byte offsets in
// raw, in order) that safe allows with their placeholders, numbered by
// nb; every secret is counted and reported, in file at field and the line
// lineOf gives (placeholder number 0: left in place). It returns the new
// text (nil: nothing replaced) and how many secrets were left.
func replaceText(t *Txn, nb *numbering, raw []byte, finds []redact.Finding, file, field string, lineOf func(redact.Finding) int, safe func(redact.Finding) bool) (out []byte, left int) {
	pos := 0
	for _, fd := range finds {
		sum := secretSum(string(raw[fd.Start:fd.End]))
		var num uint32
		if fd.Start >= pos && safe(fd) {
			if out == nil {
				out = make([]byte, 0, len(raw)+64)
			}
			num = nb.assignRule(fd.Rule, sum)
			out = append(out, raw[pos:fd.Start]...)
			out = append(out, placeholderOf(fd.Rule, int(num))...)
			pos = fd.End
			t.CountOf(CountSecrets, fd.Rule, 1)
			t.secretIn(file, fd.Rule, 1)
		} else {
			left++
			t.CountOf(CountSecretsLeft, fd.Rule, 1)
		}
		t.Report.Redactions.add(file, field, fd.Rule, lineOf(fd), num, sum, false)
	}
	if out != nil {
		out = append(out, raw[pos:]...)
	}
	return out, left
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// scanFile finds the lines of f that hold secrets, using every core, and
// hands them to use in order.
func (o RedactSecrets) scanFile(t *Txn, f *chain.File, use func(lineHits) error) error {
	work := func(lo, hi int) ([]lineHits, error) {
		var out []lineHits
		var dec []byte             // values are read into one buffer: nothing found keeps their bytes
		clean := map[string]bool{} // structural values and keys found clean (they repeat: cwd, model, field names)
		lines := t.batchRange(f, lo, hi)
		defer lines.close()
		for i := lo; i < hi; i++ {
			k := f.Entries[i].Kind
			if k == chain.KindBlank || t.Dropped(f, i) {
				continue
			}
			raw, _, err := lines.raw(i)
			if err != nil {
				return nil, err
			}
			if k != chain.KindEntry {
				// not an entry: every byte is still scanned, as text
				if fs := o.Scanner.Scan(unsafeString(raw)); len(fs) > 0 {
					out = append(out, lineHits{i: i, raw: true, finds: fs})
				}
				continue
			}
			if hs := o.scanLineBuf(raw, true, &dec, clean); len(hs) > 0 {
				out = append(out, lineHits{i: i, hits: hs})
			}
		}
		return out, nil
	}
	return inOrder(f, work, func(lhs []lineHits) error {
		for _, lh := range lhs {
			if err := use(lh); err != nil {
				return err
			}
		}
		return nil
	})
}

// scanLine returns the string values of one line that hold secrets. The
// line is walked as raw JSON; a string is decoded and scanned only when
// its raw token passes the scanner's prefilter. Nothing returned refers to
// the bytes of raw (the caller may read the next line into them).
func (o RedactSecrets) scanLine(raw []byte, sums bool) []hit {
	var dec []byte
	return o.scanLineBuf(raw, sums, &dec, nil)
}

// scanLineBuf is scanLine decoding the values into *dec (a pass over many
// lines reuses one buffer). clean (may be nil) remembers the keys and
// structural values found to hold nothing, so that a value repeated on
// every line (a cwd, a field name) is scanned once.
func (o RedactSecrets) scanLineBuf(raw []byte, sums bool, dec *[]byte, clean map[string]bool) []hit {
	line := unsafeString(raw)
	var hits []hit
	appendDec := func(chunk string) { *dec = append(*dec, chunk...) }
	// the path of the value being walked, made into a string only for a
	// value that holds a secret: keys, or array indexes (key == "")
	type seg struct {
		key string
		idx int
	}
	var stack []seg
	pathOf := func() string {
		path := ""
		for _, sg := range stack {
			if sg.key == "" && sg.idx >= 0 {
				path = join(path, strconv.Itoa(sg.idx))
			} else {
				path = join(path, sg.key)
			}
		}
		return strings.Clone(path)
	}
	// str scans the string token line[ts:te] as the client decodes it
	// (suffix: added to its path; keep: reported, never replaced)
	str := func(ts, te int, suffix string, thinkingText, keep bool) {
		tok := line[ts:te]
		if len(tok) < 10 {
			return
		}
		memo := clean != nil && (keep || suffix != "") && len(tok) <= 256
		if memo && clean[tok] {
			return
		}
		n := len(hits)
		if memo {
			defer func() {
				if len(hits) == n && len(clean) < 4096 {
					clean[strings.Clone(tok)] = true
				}
			}()
		}
		v := tok[1 : len(tok)-1] // the value, when it has no escapes
		// A value with escapes is decoded and scanned, with no test of the
		// raw token first: the prefilter (MayHold) on it ran up to the
		// first anchor, and Scan ran it again over the decoded value, so a
		// value holding an anchor (every prompt of the secrets bench) was
		// passed over twice; decoding one without is a copy.
		if strings.IndexByte(v, '\\') >= 0 {
			*dec = (*dec)[:0]
			chain.EachDecoded(v, appendDec)
			v = unsafeString(*dec)
		}
		if fs := o.Scanner.Scan(v); len(fs) > 0 {
			h := hit{tokStart: ts, tokEnd: te, finds: fs, path: pathOf() + suffix, thinking: thinkingText, keep: keep}
			if sums {
				h.sums = make([][16]byte, len(fs))
				for k, fd := range fs {
					h.sums[k] = secretSum(v[fd.Start:fd.End])
				}
			}
			hits = append(hits, h)
		}
	}
	var walk func(vs, ve int, thinkingText bool)
	walk = func(vs, ve int, thinkingText bool) {
		switch line[vs] {
		case '{':
			typ := ""
			chain.Fields(line, vs, func(k string, a, b int) bool {
				if k == "type" {
					typ = chain.StrValue(line[a:b])
					return false
				}
				return true
			})
			if skipBlockTypes[typ] && !(typ == "document" && textSource(line, vs)) {
				return // binary or encrypted: a document is scanned when its source is text
			}
			chain.Fields(line, vs, func(k string, a, b int) bool {
				stack = append(stack, seg{k, -1})
				if ks, ke := keyToken(line, a); ks >= 0 && ke-ks >= 10 {
					// a key is text too ({"ghp_…": 1})
					str(ks, ke, " (key)", false, false)
				}
				switch {
				case !skipKeys[k]:
					walk(a, b, typ == "thinking" && k == "thinking")
				case line[a] == '"' && !opaqueKeys[k] && !machineID(line[a:b]):
					// a structural value (an id, a path the client
					// reads): a placeholder cannot go there, but a
					// secret in it is reported (--check fails)
					str(a, b, "", false, true)
				}
				stack = stack[:len(stack)-1]
				return true
			})
		case '[':
			n := 0
			chain.Elems(line, vs, func(a, b int) bool {
				stack = append(stack, seg{"", n})
				walk(a, b, false)
				stack = stack[:len(stack)-1]
				n++
				return true
			})
		case '"':
			str(vs, ve, "", thinkingText, false)
		}
	}
	i := 0
	for i < len(line) && line[i] != '{' {
		i++
	}
	if i < len(line) {
		walk(i, len(line), false)
	}
	return hits
}

// textSource reports whether the block object at vs has a source of type
// "text" (a document block of plain text, not base64 data).
func textSource(line string, vs int) bool {
	text := false
	chain.Fields(line, vs, func(k string, a, b int) bool {
		if k != "source" || line[a] != '{' {
			return true
		}
		chain.Fields(line, a, func(k2 string, a2, b2 int) bool {
			if k2 == "type" {
				text = chain.StrValue(line[a2:b2]) == "text"
				return false
			}
			return true
		})
		return false
	})
	return text
}

// dropKept returns the hits that are replaced (not keep).
func dropKept(hits []hit) []hit {
	out := hits[:0:0]
	for _, h := range hits {
		if !h.keep {
			out = append(out, h)
		}
	}
	return out
}

// keyToken returns the key's string token of the member whose value
// starts at vs (-1 if the bytes before it are not `"key" :`).
func keyToken(line string, vs int) (int, int) {
	i := vs - 1
	for i >= 0 && isJSONSpace(line[i]) {
		i--
	}
	if i < 0 || line[i] != ':' {
		return -1, -1
	}
	i--
	for i >= 0 && isJSONSpace(line[i]) {
		i--
	}
	if i < 1 || line[i] != '"' {
		return -1, -1
	}
	ke := i + 1
	for j := i - 1; j >= 0; j-- {
		if line[j] != '"' {
			continue
		}
		b := 0
		for p := j - 1; p >= 0 && line[p] == '\\'; p-- {
			b++
		}
		if b%2 == 0 {
			return j, ke
		}
	}
	return -1, -1
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// unsafeString is the bytes of b as a string, without a copy: b must not
// change while the string (or a part of it) is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// rewriteThinking removes the thinking blocks of a line that hold secrets
// and replaces the secrets in every other string of the line, at once.
func (o RedactSecrets) rewriteThinking(t *Txn, f *chain.File, lh lineHits, nb *numbering) error {
	i := lh.i
	if f == t.S.Main && o.protected(t)[i] {
		t.Note("a secret was in the thinking of the last, unfinished tool-use turn (line %d): that block is removed, so the API may ask for it when the session is resumed", f.Entries[i].Line)
	}
	n, err := t.RemoveBlocks(f, i, func(b gjson.Result) bool {
		return b.Get("type").Str == "thinking" && len(o.Scanner.Scan(b.Get("thinking").Str)) > 0
	})
	if err != nil {
		return err
	}
	t.Count(CountSecretThinking, n)
	if t.Dropped(f, i) {
		return nil
	}
	raw, err := t.Raw(f, i)
	if err != nil {
		return err
	}
	// offsets moved: scan the line again
	t.Set(f, i, o.replaceHits(raw, o.scanLine(raw, true), func(h *hit, k int) string {
		return placeholderOf(h.finds[k].Rule, int(nb.assignRule(h.finds[k].Rule, h.sums[k])))
	}))
	return nil
}

// replaceHits replaces the secrets of the hits of a line (scanLine with
// sums) with their placeholders, in one forward pass; hits in thinking
// blocks are left alone.
func (o RedactSecrets) replaceHits(raw []byte, hits []hit, placeholder func(h *hit, k int) string) []byte {
	sort.Slice(hits, func(a, b int) bool { return hits[a].tokStart < hits[b].tokStart })
	out := make([]byte, 0, len(raw)+64)
	pos := 0
	for hk := range hits {
		h := &hits[hk]
		if h.thinking || h.keep || h.tokStart < pos {
			continue
		}
		out = append(out, raw[pos:h.tokStart]...)
		out = replaceInString(out, raw[h.tokStart:h.tokEnd], h.finds, func(k int) string { return placeholder(h, k) })
		pos = h.tokEnd
	}
	return append(out, raw[pos:]...)
}

// replaceInString appends the JSON string token tok with the parts finds
// name (offsets in its decoded text, in order, not overlapping) replaced by
// placeholder(k), encoded as EncodeString encodes. What is not a secret is
// copied as the line had it (replaceByRawOffsets, or the walk where a find
// cuts an escaped character).
func replaceInString(out, tok []byte, finds []redact.Finding, placeholder func(k int) string) []byte {
	if b, ok := replaceByRawOffsets(out, tok, finds, placeholder); ok {
		return b
	}
	return replaceInStringWalk(out, tok, finds, placeholder)
}

// replaceByRawOffsets is replaceInString by the raw offsets of the finds:
// the decoded offsets are carried from escape to escape (found by
// IndexByte, a decoded run between them is its raw bytes), and the raw
// bytes between two secrets are copied whole. On a prompt of 8 KB with a
// secret every 200 bytes and a newline every 80, the chunk walk called a
// function per line and per escape. ok false (nothing appended): a find
// starts or ends inside the bytes of one escaped character (a \u escape of
// a character of several bytes), or the finds are not in order.
func replaceByRawOffsets(out, tok []byte, finds []redact.Finding, placeholder func(k int) string) ([]byte, bool) {
	if len(tok) < 2 {
		return out, false
	}
	inner := unsafe.String(unsafe.SliceData(tok[1:]), len(tok)-2)
	r, d := 0, 0 // a raw offset in inner and the decoded offset there
	// to moves r and d to the decoded offset target: false if it lies
	// inside an escaped character or past the end
	to := func(target int) bool {
		for d < target {
			j := strings.IndexByte(inner[r:], '\\')
			if j < 0 || j >= target-d {
				if r+target-d > len(inner) {
					return false
				}
				r, d = r+target-d, target
				return true
			}
			r, d = r+j, d+j
			l, dl := chain.EscapeLen(inner[r:]), 1
			if l >= 2 && inner[r+1] == 'u' { // its character's UTF-8 bytes (U+FFFD for a broken \u)
				dl = 0
				chain.EachDecoded(inner[r:r+l], func(c string) { dl += len(c) })
			}
			if d+dl > target {
				return false
			}
			r, d = r+l, d+dl
		}
		return d == target
	}
	base := len(out)
	out = append(out, '"')
	pos := 0 // raw bytes of inner written
	for k, fd := range finds {
		if fd.Start < d || fd.End <= fd.Start || !to(fd.Start) {
			return out[:base], false
		}
		out = append(out, inner[pos:r]...)
		out = appendEscaped(out, placeholder(k))
		if !to(fd.End) {
			return out[:base], false
		}
		pos = r
	}
	out = append(out, inner[pos:]...)
	return append(out, '"'), true
}

// replaceInStringWalk is replaceInString walking the string decoded chunk
// by chunk (chain.EachDecoded): it is neither decoded whole nor copied.
func replaceInStringWalk(out, tok []byte, finds []redact.Finding, placeholder func(k int) string) []byte {
	inner := unsafe.String(unsafe.SliceData(tok[1:]), len(tok)-2)
	out = append(out, '"')
	d, k, put := 0, 0, false // decoded offset, next find, its placeholder written
	pos := 0                 // where the chunk's raw bytes start in inner
	chain.EachDecoded(inner, func(c string) {
		// What is not a secret is written as the line had it: a run
		// without escapes is its own raw bytes, an escape sequence is
		// copied whole (decoded and escaped again, \/ or \u003c became
		// another spelling, and a lone surrogate U+FFFD).
		raw, escape := c, pos < len(inner) && inner[pos] == '\\'
		if escape {
			raw = inner[pos : pos+chain.EscapeLen(inner[pos:])]
		}
		pos += len(raw)
		whole := true
		for len(c) > 0 {
			if k < len(finds) && d >= finds[k].Start {
				if !put {
					out, put = appendEscaped(out, placeholder(k)), true
				}
				n := min(len(c), finds[k].End-d)
				c, d, whole = c[n:], d+n, false
				if d >= finds[k].End {
					k, put = k+1, false
				}
				continue
			}
			n := len(c)
			if k < len(finds) {
				n = min(n, finds[k].Start-d)
			}
			switch {
			case !escape:
				out = append(out, c[:n]...)
			case whole && n == len(c):
				out = append(out, raw...)
			default: // a secret starts or ends inside one escaped character
				out = appendEscaped(out, c[:n])
			}
			c, d, whole = c[n:], d+n, false
		}
	})
	for ; k < len(finds); k++ { // finds that end the string
		if !put {
			out = appendEscaped(out, placeholder(k))
		}
		put = false
	}
	return append(out, '"')
}

// RepairFirst ends the note on a line that is not a JSON entry and holds
// secrets that cannot be replaced: the remedy is the repair operation,
// whose command the command layer names after "repair the line".
const RepairFirst = "remove or repair the line first"

// redactRawLine returns a line that is not a JSON entry with its secrets
// replaced in place (nil: nothing replaced), where that cannot change the
// line's structure: the secret lies
// inside one JSON string (or the unterminated string a torn line ends in)
// and does not cut an escape sequence in two. A secret that cannot be
// replaced safely is still reported (so --check fails) and named in a note.
func (o RedactSecrets) redactRawLine(t *Txn, f *chain.File, lh lineHits, nb *numbering) ([]byte, error) {
	i := lh.i
	raw, err := t.Raw(f, i)
	if err != nil {
		return nil, err
	}
	line := int(f.Entries[i].Line)
	str, cont := rawStrings(raw)
	out, left := replaceText(t, nb, raw, lh.finds, f.Path, "(line is not JSON: scanned as text)", func(redact.Finding) int { return line }, func(fd redact.Finding) bool {
		return str[fd.Start] != 0 && str[fd.Start] == str[fd.End-1] && !cont[fd.Start] && (fd.End == len(raw) || !cont[fd.End])
	})
	if left > 0 {
		t.Note("line %d of %s is not a JSON entry and holds %s that cannot be replaced without changing its structure: they are still in the output; %s", line, f.Path, chain.Plural(left, "secret", "secrets"), RepairFirst)
	}
	if out != nil {
		t.Count(CountRawLinesRedacted, 1)
	}
	return out, nil
}

// rawStrings marks, for each byte of a line of JSON (complete or not),
// the 1-based number of the string it is inside (0: outside any string,
// or a quote) and whether it continues an escape sequence (\n: the n).
func rawStrings(raw []byte) (str []int32, cont []bool) {
	str = make([]int32, len(raw))
	cont = make([]bool, len(raw))
	var n int32
	in := false
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if !in {
			if c == '"' {
				in = true
				n++
			}
			continue
		}
		if c == '"' {
			in = false
			continue
		}
		str[k] = n
		if c == '\\' && k+1 < len(raw) {
			m := 1
			if raw[k+1] == 'u' {
				m = 5
			}
			for j := 1; j <= m && k+j < len(raw); j++ {
				str[k+j] = n
				cont[k+j] = true
			}
			k += m
		}
	}
	return str, cont
}
