package ops

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"

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

// skipBlockTypes are content blocks holding binary or encrypted data.
var skipBlockTypes = map[string]bool{"image": true, "document": true, "redacted_thinking": true}

// hit is a secret inside one string value of a line.
type hit struct {
	tokStart, tokEnd int // the raw JSON string token in the line
	finds            []redact.Finding
	path             string
	thinking         bool // the value is a thinking block's text
}

type lineHits struct {
	f    *chain.File
	i    int
	hits []hit
	// raw: the line is not a JSON entry (a torn last line, a line nested too
	// deep to parse); finds are byte offsets in the line itself.
	raw   bool
	finds []redact.Finding
}

// Apply scans the session and replaces the secrets.
func (o RedactSecrets) Apply(t *Txn) error {
	if o.Scanner == nil {
		return fmt.Errorf("redact-secrets: no scanner")
	}
	var found []lineHits
	for _, f := range t.S.Files() {
		lh, err := o.scanFile(t, f)
		if err != nil {
			return err
		}
		found = append(found, lh...)
	}
	// number the secrets in order of first appearance
	type phKey struct {
		rule string
		sum  [16]byte // of the secret: the map does not keep the secrets
	}
	numbers := map[phKey]string{}
	perRule := map[string]int{}
	placeholder := func(rule, secret string) string {
		sum := sha256.Sum256([]byte(secret))
		k := phKey{rule: rule}
		copy(k.sum[:], sum[:16])
		if p, ok := numbers[k]; ok {
			return p
		}
		perRule[rule]++
		p := "[REDACTED:" + rule + ":" + strconv.Itoa(perRule[rule]) + "]"
		numbers[k] = p
		return p
	}
	for _, lh := range found {
		if lh.raw {
			if err := o.redactRawLine(t, lh, placeholder); err != nil {
				return err
			}
			continue
		}
		raw, err := t.Raw(lh.f, lh.i)
		if err != nil {
			return err
		}
		for _, h := range lh.hits {
			// the decoded value is not kept from the scan (that held a copy of
			// every line with a secret): decode it again
			value := chain.StrValue(string(raw[h.tokStart:h.tokEnd]))
			for _, fd := range h.finds {
				secret := value[fd.Start:fd.End]
				sum := sha256.Sum256([]byte(secret))
				t.Report.Redactions = append(t.Report.Redactions, Redaction{
					File: lh.f.Path, Line: int(lh.f.Entries[lh.i].Line), Field: h.path, Rule: fd.Rule,
					Placeholder: placeholder(fd.Rule, secret), Fingerprint: hex.EncodeToString(sum[:4]), InThinking: h.thinking,
				})
				t.CountOf(CountSecrets, fd.Rule, 1)
			}
		}
		if err := o.rewriteLine(t, lh, placeholder); err != nil {
			return err
		}
	}
	return nil
}

// scanFile finds the lines of f that hold secrets, using every core.
func (o RedactSecrets) scanFile(t *Txn, f *chain.File) ([]lineHits, error) {
	n := len(f.Entries)
	workers := runtime.GOMAXPROCS(0)
	results := make([][]lineHits, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				k := f.Entries[i].Kind
				if k == chain.KindBlank || t.Dropped(f, i) {
					continue
				}
				raw, err := t.Raw(f, i)
				if err != nil {
					errs[w] = err
					return
				}
				if k != chain.KindEntry {
					// not an entry: every byte is still scanned, as text
					if fs := o.Scanner.Scan(string(raw)); len(fs) > 0 {
						results[w] = append(results[w], lineHits{f: f, i: i, raw: true, finds: fs})
					}
					continue
				}
				if hs := o.scanLine(raw); len(hs) > 0 {
					results[w] = append(results[w], lineHits{f: f, i: i, hits: hs})
				}
			}
		}(w, lo, hi)
	}
	wg.Wait()
	var out []lineHits
	for w := range results {
		if errs[w] != nil {
			return nil, errs[w]
		}
		out = append(out, results[w]...)
	}
	return out, nil
}

// scanLine returns the string values of one line that hold secrets. The
// line is walked as raw JSON; a string is decoded and scanned only when
// its raw token passes the scanner's prefilter.
func (o RedactSecrets) scanLine(raw []byte) []hit {
	line := string(raw)
	var hits []hit
	var walk func(vs, ve int, path string, thinkingText bool)
	walk = func(vs, ve int, path string, thinkingText bool) {
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
			if skipBlockTypes[typ] {
				return
			}
			chain.Fields(line, vs, func(k string, a, b int) bool {
				if !skipKeys[k] {
					walk(a, b, join(path, k), typ == "thinking" && k == "thinking")
				}
				return true
			})
		case '[':
			n := 0
			chain.Elems(line, vs, func(a, b int) bool {
				walk(a, b, join(path, strconv.Itoa(n)), false)
				n++
				return true
			})
		case '"':
			tok := line[vs:ve]
			if len(tok) < 10 || !o.Scanner.MayHold(tok) {
				return
			}
			v := chain.StrValue(tok)
			if fs := o.Scanner.Scan(v); len(fs) > 0 {
				hits = append(hits, hit{tokStart: vs, tokEnd: ve, finds: fs, path: path, thinking: thinkingText})
			}
		}
	}
	i := 0
	for i < len(line) && line[i] != '{' {
		i++
	}
	if i < len(line) {
		walk(i, len(line), "", false)
	}
	return hits
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// rewriteLine removes thinking blocks that hold secrets and replaces the
// secrets in every other string of the line.
func (o RedactSecrets) rewriteLine(t *Txn, lh lineHits, placeholder func(rule, secret string) string) error {
	f, i := lh.f, lh.i
	thinking := false
	for _, h := range lh.hits {
		thinking = thinking || h.thinking
	}
	if thinking {
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
	}
	raw, err := t.Raw(f, i)
	if err != nil {
		return err
	}
	hits := lh.hits
	if thinking { // offsets moved: scan the line again
		hits = o.scanLine(raw)
	}
	// one forward pass over the line, the hits in order
	sort.Slice(hits, func(a, b int) bool { return hits[a].tokStart < hits[b].tokStart })
	out := make([]byte, 0, len(raw)+64)
	pos := 0
	for _, h := range hits {
		if h.thinking || h.tokStart < pos {
			continue
		}
		value := chain.StrValue(string(raw[h.tokStart:h.tokEnd]))
		sb := make([]byte, 0, len(value))
		last := 0
		for _, fd := range h.finds {
			sb = append(sb, value[last:fd.Start]...)
			sb = append(sb, placeholder(fd.Rule, value[fd.Start:fd.End])...)
			last = fd.End
		}
		sb = append(sb, value[last:]...)
		out = append(out, raw[pos:h.tokStart]...)
		out = append(out, EncodeString(string(sb))...)
		pos = h.tokEnd
	}
	out = append(out, raw[pos:]...)
	t.Set(f, i, out)
	return nil
}

// redactRawLine replaces the secrets of a line that is not a JSON entry in
// place, where that cannot change the line's structure: the secret lies
// inside one JSON string (or the unterminated string a torn line ends in)
// and does not cut an escape sequence in two. A secret that cannot be
// replaced safely is still reported (so --check fails) and named in a note.
func (o RedactSecrets) redactRawLine(t *Txn, lh lineHits, placeholder func(rule, secret string) string) error {
	f, i := lh.f, lh.i
	raw, err := t.Raw(f, i)
	if err != nil {
		return err
	}
	line := int(f.Entries[i].Line)
	str, cont := rawStrings(raw)
	out := make([]byte, 0, len(raw)+64)
	pos, left := 0, 0
	for _, fd := range lh.finds {
		secret := string(raw[fd.Start:fd.End])
		sum := sha256.Sum256([]byte(secret))
		r := Redaction{File: f.Path, Line: line, Field: "(line is not JSON: scanned as text)", Rule: fd.Rule, Fingerprint: hex.EncodeToString(sum[:4])}
		safe := str[fd.Start] != 0 && str[fd.Start] == str[fd.End-1] && !cont[fd.Start] && (fd.End == len(raw) || !cont[fd.End])
		if safe {
			r.Placeholder = placeholder(fd.Rule, secret)
			out = append(out, raw[pos:fd.Start]...)
			out = append(out, r.Placeholder...)
			pos = fd.End
			t.CountOf(CountSecrets, fd.Rule, 1)
		} else {
			left++
			t.CountOf(CountSecretsLeft, fd.Rule, 1)
		}
		t.Report.Redactions = append(t.Report.Redactions, r)
	}
	if left > 0 {
		t.Note("line %d of %s is not a JSON entry and holds %s that cannot be replaced without changing its structure: they are still in the output; remove or repair the line (ccsurgeon repair) first", line, f.Path, chain.Plural(left, "secret", "secrets"))
	}
	if pos > 0 {
		out = append(out, raw[pos:]...)
		t.Set(f, i, out)
		t.Count(CountRawLinesRedacted, 1)
	}
	return nil
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
