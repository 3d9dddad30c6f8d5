package chain

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// TokenKind is a kind of content the client sends on resume. Each kind has
// its own bytes-to-tokens rule, calibrated against the usage the API
// recorded in real sessions (go run ./cmd/tokeneval prints the error).
type TokenKind uint8

// Token kinds.
const (
	TokText       TokenKind = iota // prompts, answers, attachments the client renders
	TokToolInput                   // tool_use blocks: name and input JSON
	TokToolOutput                  // tool_result text
	TokThinking                    // thinking and redacted_thinking blocks
	TokImage                       // images, by their pixel size
	TokDocument                    // documents (PDF), by their size
	TokOther                       // other blocks, message and block framing
	NumTokenKinds
)

var tokenKindNames = [...]string{"text", "tool_input", "tool_output", "thinking", "image", "document", "other"}

func (k TokenKind) String() string { return tokenKindNames[k] }

// Tokens counts estimated tokens by kind.
type Tokens [NumTokenKinds]int

// Total is the sum over kinds.
func (t Tokens) Total() int {
	n := 0
	for _, v := range t {
		n += v
	}
	return n
}

// Add adds u to t.
func (t *Tokens) Add(u Tokens) {
	for k := range t {
		t[k] += u[k]
	}
}

// Sub takes u from t.
func (t *Tokens) Sub(u Tokens) {
	for k := range t {
		t[k] -= u[k]
	}
}

// Calibration is the estimator's free constants: bytes per token of each
// kind's decoded text (a JSON string's escapes decoded; a tool input as the
// compact JSON the client sends), tokens per non-ASCII character, and a
// fixed cost per message and per block for the framing. Every estimate
// ccsurgeon prints is made with DefaultCalibration; cmd/tokeneval passes
// others to ResumeTokensCalibrated to fit and judge them.
type Calibration struct {
	// BytesPerToken by kind (TokImage and TokDocument have rules of
	// their own and do not use it); +Inf counts the kind's text as zero
	BytesPerToken  [NumTokenKinds]float64
	NonASCIITokens float64 // tokens per non-ASCII character
	PerMessage     float64 // a message's framing
	PerBlock       float64 // a block's type and, for tool blocks, its ~30-character id
}

// calibration is the one set of constants of every estimate. Fitted (a
// grid search minimising the mean error of every response's recorded
// input) on the 200 responses of the real sessions in ../shared/corpus,
// mostly Claude Code 1.0.98 subagent conversations full of tool calls;
// measured on the same sessions, so the figures of tokeneval are
// in-sample; tokeneval -heldout judges them on the part of the corpus a
// fit did not see (README, "Measured error"). Images and documents occur
// in none of them, thinking only in a few short 2.1.29 turns: thinking
// counts as text (where the model counts it at all: ThinkingRule), images follow the API's documented rule, and documents
// a rough per-page cost.
var calibration = Calibration{
	BytesPerToken: [NumTokenKinds]float64{
		TokText:       3.6,
		TokToolInput:  3.2,
		TokToolOutput: 2.8,
		TokThinking:   3.6,
		TokOther:      3.0,
	},
	// non-ASCII text costs about a token per character
	NonASCIITokens: 1.0,
	PerMessage:     8,
	PerBlock:       17,
}

// DefaultCalibration returns the constants every estimate ccsurgeon
// prints is made with.
func DefaultCalibration() Calibration { return calibration }

// a PDF page costs about this many tokens; a page is ~50 KB of base64
const (
	docTokensPerPage = 2000
	docBase64PerPage = 50_000
)

// noResponseTokens is the client's "No response requested." message by
// the rules of cal (a message, a text block, 22 characters).
func (cal *Calibration) noResponseTokens() int {
	return int(cal.PerMessage + cal.PerBlock + 22/cal.BytesPerToken[TokText] + 0.5)
}

// DefaultOverhead is the system prompt and tool definitions the client
// sends with every request, in tokens, when a session records no usable
// usage figure to measure it from: the median of the real sessions in
// ../shared/corpus (Claude Code 1.0.98–2.1.38).
const DefaultOverhead = 17000

// counter accumulates fractional tokens by kind.
type counter [NumTokenKinds]float64

func (c *counter) tokens() Tokens {
	var t Tokens
	for k, v := range c {
		t[k] = int(v + 0.5)
	}
	return t
}

// EntryTokens estimates the tokens the client sends for one entry of a
// rebuilt conversation: a message's content, or the rendered text of an
// attachment (2.1.x sends those as system messages). Other entries send
// nothing and count zero.
func EntryTokens(raw []byte) Tokens {
	var c counter
	countEntry(&c, raw, &calibration)
	return c.tokens()
}

// countEntry counts entry raw into c and returns the bytes of its message
// content. The entry is walked as raw text (Fields, Elems): nothing is
// decoded or copied, so a pass over a big file allocates nothing per entry.
func countEntry(c *counter, raw []byte, cal *Calibration) int {
	s := b2s(raw)
	var typ, content, rendered string
	seenType, seenMsg, seenRendered := false, false, false
	// one walk of the line: the message is walked for its content, not
	// skipped over first, and the walk stops once the fields that count
	// are read (the two were half of info's token pass on a chain of
	// small entries)
	fieldsTo(s, 0, func(k string, vs int) int {
		ve := -1
		switch {
		case k == "message" && !seenMsg:
			seenMsg = true
			after := -1 // the end of the content
			fieldsTo(s, vs, func(k string, cs int) int {
				ce := skipValue(s, cs)
				if k == "content" {
					content, after = s[cs:ce], ce
					return -1
				}
				return ce
			})
			if after >= 0 {
				ve = skipNested(s, after, 1) // the rest of the message
			} else {
				ve = skipValue(s, vs) // no content, or not an object
			}
		case k == "type" && !seenType:
			ve = skipValue(s, vs)
			seenType, typ = true, strValue(s[vs:ve])
		case k == "rendered" && !seenRendered:
			ve = skipValue(s, vs)
			seenRendered, rendered = true, s[vs:ve]
		default:
			ve = skipValue(s, vs)
		}
		switch {
		case !seenType:
			return ve
		case typ == "user" || typ == "assistant":
			if seenMsg {
				return -1 // later fields count for nothing
			}
		case typ == "attachment":
			if seenRendered {
				return -1
			}
		default:
			return -1 // nothing of the line counts
		}
		return ve
	})
	switch typ {
	case "user", "assistant":
		if content == "" {
			return 0
		}
		c[TokOther] += cal.PerMessage
		countContent(c, content, TokText, cal)
		return len(content)
	case "attachment":
		eachValue(rendered, func(v string) {
			if len(v) > 0 && v[0] == '{' {
				if cs := firstField(v, "content"); len(cs) > 0 && cs[0] == '"' {
					c[TokText] += rawTokens(cs, TokText, cal)
				}
			}
		})
	}
	return 0
}

// eachValue calls fn with every element of an array, or every value of an
// object, or any other value itself (what gjson's ForEach walks).
func eachValue(v string, fn func(string)) {
	if v == "" {
		return
	}
	switch v[0] {
	case '[':
		Elems(v, 0, func(vs, ve int) bool { fn(v[vs:ve]); return true })
	case '{':
		Fields(v, 0, func(_ string, vs, ve int) bool { fn(v[vs:ve]); return true })
	default:
		fn(v)
	}
}

// messageField returns the raw value of field key of the entry line's
// first "message" object, or "" (what gjson's "message.KEY" finds).
func messageField(line, key string) string {
	out := ""
	Fields(line, 0, func(k string, vs, ve int) bool {
		if k != "message" {
			return true
		}
		out = firstField(line[vs:ve], key)
		return false
	})
	return out
}

// firstField returns the raw value of the first field named key of the
// object obj, or "".
func firstField(obj, key string) string {
	out := ""
	Fields(obj, 0, func(k string, vs, ve int) bool {
		if k == key {
			out = obj[vs:ve]
			return false
		}
		return true
	})
	return out
}

// countContent counts a message content (a string or an array of blocks);
// plain text counts as kind text. Each block is read in one pass over its
// fields, and strings are measured on their JSON text, never decoded.
func countContent(c *counter, content string, text TokenKind, cal *Calibration) {
	if content == "" {
		return
	}
	if content[0] == '"' {
		c[text] += rawTokens(content, text, cal)
		return
	}
	eachValue(content, func(b string) {
		var typ, body, name, source string
		if len(b) > 0 && b[0] == '{' {
			Fields(b, 0, func(k string, vs, ve int) bool {
				switch k {
				case "type":
					typ = strValue(b[vs:ve])
				case "text", "thinking", "data", "input", "content":
					body = b[vs:ve]
				case "name":
					name = b[vs:ve]
				case "source":
					source = b[vs:ve]
				}
				return true
			})
		}
		// a block's framing counts with its kind when the API may drop
		// the block whole (an earlier turn's thinking: ThinkingRule)
		if typ == "thinking" || typ == "redacted_thinking" {
			c[TokThinking] += cal.PerBlock
		} else {
			c[TokOther] += cal.PerBlock
		}
		switch typ {
		case "text":
			c[text] += rawTokens(body, text, cal)
		case "thinking":
			c[TokThinking] += rawTokens(body, TokThinking, cal)
		case "redacted_thinking":
			// encrypted: its size in tokens is unknown; count it as base64 text
			c[TokThinking] += float64(len(body)) / cal.BytesPerToken[TokThinking]
		case "tool_use":
			c[TokToolInput] += rawTokens(name, TokToolInput, cal) + rawTokens(body, TokToolInput, cal)
		case "tool_result":
			countContent(c, body, TokToolOutput, cal)
		case "image":
			c[TokImage] += float64(ImageTokens(gjson.Parse(source)))
		case "document":
			n := 0
			if len(source) > 0 && source[0] == '{' {
				n = len(firstField(source, "data"))
			}
			pages := (n + docBase64PerPage - 1) / docBase64PerPage
			if pages == 0 {
				pages = 1
			}
			c[TokDocument] += float64(pages * docTokensPerPage)
		default:
			c[TokOther] += rawTokens(b, TokOther, cal)
		}
	})
}

// TextTokens is the estimate of one JSON string value (its JSON text,
// quotes included) sent as a prompt's text: what it adds to the
// MessageTokens of a user message, without the message's framing.
func TextTokens(raw []byte) int {
	return int(rawTokens(b2s(raw), TokText, &calibration) + 0.5)
}

// rawTokens estimates the tokens of a JSON value as the client sends it,
// from its JSON text: a string as its decoded text (an escape is one
// character), any other value as compact JSON (whitespace outside strings
// dropped).
func rawTokens(raw string, k TokenKind, cal *Calibration) float64 {
	if raw == "" {
		return 0
	}
	ascii, other := 0, 0
	if raw[0] == '"' {
		end := len(raw) - 1
		for i := 1; i < end; {
			// eight bytes at a time while they are plain ASCII (no
			// backslash): each is one ASCII character (most of a tool
			// output's text, counted byte by byte before)
			if i+8 <= end {
				if w := plainASCII8(raw, i); w {
					ascii += 8
					i += 8
					continue
				}
			}
			ch := raw[i]
			switch {
			case ch == '\\' && i+1 < len(raw) && raw[i+1] == 'u' && i+6 <= len(raw):
				v, err := strconv.ParseUint(raw[i+2:i+6], 16, 32)
				switch {
				case err == nil && v < utf8.RuneSelf:
					ascii++
				case err == nil && v >= 0xDC00 && v <= 0xDFFF: // the second half of a pair
				default:
					other++
				}
				i += 6
			case ch == '\\':
				ascii++
				i += 2
			case ch < utf8.RuneSelf:
				ascii++
				i++
			default:
				if ch >= 0xC0 {
					other++
				}
				i++
			}
		}
	} else {
		in := false
		for i := 0; i < len(raw); i++ {
			ch := raw[i]
			switch {
			case in && ch == '\\':
				ascii += 2
				i++
				continue
			case ch == '"':
				in = !in
			case !in && (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r'):
				continue
			}
			if ch < utf8.RuneSelf {
				ascii++
			} else if ch >= 0xC0 {
				other++
			}
		}
	}
	return float64(ascii)/cal.BytesPerToken[k] + float64(other)*cal.NonASCIITokens
}

// plainASCII8 reports whether the eight bytes at s[i:] are ASCII and none
// is a backslash.
func plainASCII8(s string, i int) bool {
	w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	x := w ^ ('\\' * lo) // a zero byte where w has a backslash
	return (w|(x-lo)&^x)&hi == 0
}

// ImageTokens estimates the tokens of an image block's source by the API's
// rule: width × height / 750, after the API scales the image down to at
// most 1568 pixels on its long edge and about 1.15 megapixels. An image
// whose size cannot be read (a URL, an unknown format) counts as a
// full-size one.
func ImageTokens(source gjson.Result) int {
	const full = 1533              // 1.15 megapixels / 750
	data := source.Get("data").Raw // base64: no escapes to decode
	if len(data) < 2 {
		return int(full)
	}
	data = data[1 : len(data)-1]
	// the header is in the first few KB (JPEG: before the first scan)
	head := data
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	head = head[:len(head)/4*4]
	b, err := base64.StdEncoding.DecodeString(head)
	if err != nil && len(b) == 0 {
		return int(full)
	}
	w, h, ok := imageSize(b)
	if !ok || w <= 0 || h <= 0 {
		return int(full)
	}
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > 1568 {
		fw, fh = fw*1568/long, fh*1568/long
	}
	if px := fw * fh; px > 1.15e6 {
		s := 1.15e6 / px
		fw, fh = fw*math.Sqrt(s), fh*math.Sqrt(s)
	}
	return int(fw*fh/750 + 0.5)
}

// imageSize reads the pixel size from the header of a PNG, GIF, JPEG or
// WebP image.
func imageSize(b []byte) (w, h int, ok bool) {
	switch {
	case len(b) >= 24 && string(b[1:4]) == "PNG":
		return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24])), true
	case len(b) >= 10 && string(b[:3]) == "GIF":
		return int(binary.LittleEndian.Uint16(b[6:8])), int(binary.LittleEndian.Uint16(b[8:10])), true
	case len(b) >= 30 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		switch string(b[12:16]) {
		case "VP8 ":
			return int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff), true
		case "VP8L":
			v := binary.LittleEndian.Uint32(b[21:25])
			return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1, true
		case "VP8X":
			return int(uint32(b[24])|uint32(b[25])<<8|uint32(b[26])<<16) + 1, int(uint32(b[27])|uint32(b[28])<<8|uint32(b[29])<<16) + 1, true
		}
	case len(b) >= 4 && b[0] == 0xFF && b[1] == 0xD8:
		for i := 2; i+9 < len(b); {
			if b[i] != 0xFF {
				i++
				continue
			}
			m := b[i+1]
			if m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7) || m == 0xFF {
				i++
				continue
			}
			n := int(binary.BigEndian.Uint16(b[i+2 : i+4]))
			if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
				return int(binary.BigEndian.Uint16(b[i+7 : i+9])), int(binary.BigEndian.Uint16(b[i+5 : i+7])), true
			}
			i += 2 + n
		}
	}
	return 0, 0, false
}

// Usage is the usage an assistant entry records: the tokens of the
// request that produced it (system prompt and tools included) and of its
// output.
type Usage struct {
	Input  int // input + cache_creation_input + cache_read_input tokens
	Output int
}

// EntryUsage reads the usage an assistant entry records.
func EntryUsage(raw []byte) (Usage, bool) {
	usage := messageField(b2s(raw), "usage")
	if usage == "" || usage[0] != '{' {
		return Usage{}, false
	}
	var n [4]int64
	var seen [4]bool
	Fields(usage, 0, func(k string, vs, ve int) bool {
		j := -1
		switch k {
		case "input_tokens":
			j = 0
		case "cache_creation_input_tokens":
			j = 1
		case "cache_read_input_tokens":
			j = 2
		case "output_tokens":
			j = 3
		}
		if j >= 0 && !seen[j] {
			seen[j], n[j] = true, gjson.Parse(usage[vs:ve]).Int()
		}
		return true
	})
	if seen != [4]bool{true, true, true, true} {
		return Usage{}, false // a usage without all four counts is not read
	}
	return Usage{Input: int(n[0] + n[1] + n[2]), Output: int(n[3])}, true
}

// MinOverhead: Claude Code's system prompt and tool definitions are
// several thousand tokens; a recorded figure that leaves less than this
// for them is not a real API's count (the harness mock writes synthetic
// usage, some test fixtures write zeros) and is not used.
const MinOverhead = 2000

// ResumeEstimate is the estimated size of the request the client sends
// when the session is resumed.
type ResumeEstimate struct {
	Tokens   Tokens // the conversation's messages, by kind
	Overhead int    // system prompt and tool definitions
	// OverheadMeasured: Overhead comes from the usage the session records
	// (the first response's input minus the estimate of what it was sent);
	// otherwise it is DefaultOverhead.
	OverheadMeasured bool
	Messages         int   // API messages
	Bytes            int64 // bytes of the sent entries' content
	// Model is the model of the path's last response that names one
	// (not "<synthetic>"): the model a resume most likely talks to (the
	// user's current one is unknown here). The thinking rule and the
	// context window follow it.
	Model string
	// Thinking says whose thinking the API counts for Model
	// (KeepsAllThinking); ThinkingDropped is the thinking of earlier
	// turns (blocks and framing) it does not count, left out of Tokens.
	Thinking        ThinkingRule
	ThinkingDropped int
	// measuredBy is 1 + the entry index of the first response on the
	// path that records usage (0: none), the response the overhead is
	// measured by (OverheadOf)
	measuredBy int
	// endsOnPrompt: the last message sent is a prompt, answered on resume
	// by the client's "No response requested." (counted in Tokens)
	endsOnPrompt bool
	// noResponse is that answer's estimate, by the calibration the
	// estimate was made with
	noResponse int
	// own is each sent entry's estimate (read them with Entry and Each),
	// as the API counts it (ThinkingRule applied); dropped, the thinking
	// each entry holds that the rule leaves out; changed, in an estimate
	// made Over another, the entries estimated anew.
	own     perEntry
	dropped map[int]int
	changed map[int]Tokens
	base    *ResumeEstimate
	gone    map[int]bool
}

// perEntry holds the estimates of a path's entries in entry order: each
// entry's index (4 bytes) and its counts by kind, 2 bytes each (a map of a
// million entries' Tokens took about 90 bytes each, rows of int32 counts
// 32: on the chain of a million small entries they were what put info and
// the rescue over half the file); an estimate a row cannot hold (a count
// over 65,535 tokens) is kept in big.
type perEntry struct {
	idx  []int32
	rows []tokenRow
	big  map[int]Tokens
}

type tokenRow [NumTokenKinds]uint16

// add records entry i's estimate (rows are sorted by seal).
func (p *perEntry) add(i int, tk Tokens) {
	var row tokenRow
	for k, v := range tk {
		if v != int(uint16(v)) {
			if p.big == nil {
				p.big = map[int]Tokens{}
			}
			p.big[i] = tk
			return
		}
		row[k] = uint16(v)
	}
	p.idx = append(p.idx, int32(i))
	p.rows = append(p.rows, row)
}

// seal puts the rows in entry order, one per entry, and gives back the
// spare capacity.
func (p *perEntry) seal() {
	if !slices.IsSorted(p.idx) {
		order := make([]int, len(p.idx))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.idx[a], p.idx[b]) })
		idx, rows := make([]int32, len(order)), make([]tokenRow, len(order))
		for k, o := range order {
			idx[k], rows[k] = p.idx[o], p.rows[o]
		}
		p.idx, p.rows = idx, rows
	}
	// one row per entry: the first of each
	w := 0
	for k := range p.idx {
		if k > 0 && p.idx[k] == p.idx[w-1] {
			continue
		}
		p.idx[w], p.rows[w] = p.idx[k], p.rows[k]
		w++
	}
	p.idx, p.rows = slices.Clip(p.idx[:w]), slices.Clip(p.rows[:w])
}

// dropThinking sets entry i's thinking to zero and returns what it was.
func (p *perEntry) dropThinking(i int) int {
	if tk, ok := p.big[i]; ok {
		p.big[i] = ThinkingRule{}.Apply(i, tk)
		return tk[TokThinking]
	}
	k, ok := slices.BinarySearch(p.idx, int32(i))
	if !ok {
		return 0
	}
	d := int(p.rows[k][TokThinking])
	p.rows[k][TokThinking] = 0
	return d
}

func (p *perEntry) get(i int) (Tokens, bool) {
	if tk, ok := p.big[i]; ok {
		return tk, true
	}
	if i != int(int32(i)) {
		return Tokens{}, false
	}
	k, ok := slices.BinarySearch(p.idx, int32(i))
	if !ok {
		return Tokens{}, false
	}
	return p.rows[k].tokens(), true
}

func (r *tokenRow) tokens() (tk Tokens) {
	for k, v := range r {
		tk[k] = int(v)
	}
	return tk
}

func (p *perEntry) each(fn func(i int, tk Tokens)) {
	for k := range p.rows {
		fn(int(p.idx[k]), p.rows[k].tokens())
	}
	for i, tk := range p.big {
		fn(i, tk)
	}
}

// Over returns the estimate r becomes when the entries of changed are
// estimated anew and those of gone are no longer sent; it shares r's
// per-entry estimates instead of copying them.
// changed holds estimates as written: the estimate counts them by r's
// thinking rule, as it does every entry.
func (r ResumeEstimate) Over(changed map[int]Tokens, gone map[int]bool) ResumeEstimate {
	base := r
	out := r
	out.base, out.own, out.changed, out.gone, out.dropped = &base, perEntry{}, make(map[int]Tokens, len(changed)), gone, nil
	rule, moved := r.Thinking.without(gone)
	out.Thinking = rule
	for i := range gone {
		if tk, ok := base.Entry(i); ok {
			out.Tokens.Sub(tk)
			out.ThinkingDropped -= base.droppedAt(i)
		}
	}
	for i, tk := range changed {
		if was, ok := base.Entry(i); ok {
			out.Tokens.Sub(was)
			out.ThinkingDropped -= base.droppedAt(i)
		}
		sent := rule.Apply(i, tk)
		if d := tk[TokThinking] - sent[TokThinking]; d != 0 {
			if out.dropped == nil {
				out.dropped = map[int]int{}
			}
			out.dropped[i] = d
			out.ThinkingDropped += d
		}
		out.changed[i] = sent
		out.Tokens.Add(sent)
	}
	if moved {
		// the turn that is now the last: its thinking counts again
		for _, i32 := range rule.current {
			i := int(i32)
			if _, anew := changed[i]; anew {
				continue
			}
			if d := base.droppedAt(i); d > 0 {
				tk, _ := base.Entry(i)
				tk[TokThinking] += d
				out.changed[i] = tk
				out.Tokens[TokThinking] += d
				out.ThinkingDropped -= d
			}
		}
	}
	return out
}

// droppedAt is the thinking of entry i the estimate leaves out.
func (r ResumeEstimate) droppedAt(i int) int {
	if d, ok := r.dropped[i]; ok {
		return d
	}
	if _, anew := r.changed[i]; anew || r.base == nil || r.gone[i] {
		return 0
	}
	return r.base.droppedAt(i)
}

// Recounted is r (an estimate made Over another, of the same file f and
// path p) with what ResumeTokens reads of the path as a whole made again
// as it reads it on the file the edits make; Over only adds and removes
// entries' estimates. Two things are of the whole path:
//   - the end: a conversation whose last message sent is now a prompt (a
//     loop cut short whose tool calls were dropped) is answered on resume
//     by the client's "No response requested.", and no longer when its
//     answer is what ends it;
//   - the system prompt and tools, measured by the first response on p
//     the client still sends that records usage (read through raw: the
//     edited bytes), less the estimate of what is sent before it
//     (OverheadOf): a cut before that response moves the measure (an
//     image or a secret of the first prompt), and so does its removal
//     (strip-thinking of a thinking-only entry, drop-tool-calls of the
//     first call), the next response then measuring it.
//
// The model is the last response's that names one, read again (the edits
// may remove it); the thinking rule stays the one r was made with (Over
// finds the last turn again when an edit removes it).
//
// Only the entries up to that response and back from the end to the last
// message are read; an estimate whose path records no usage has no
// measure to move.
func (r ResumeEstimate) Recounted(f *File, p Path, raw RawFunc) ResumeEstimate {
	ends := false
	for k := len(p.Entries) - 1; k >= 0; k-- {
		i := p.Entries[k]
		if _, sent := r.Entry(i); sent && f.Entries[i].IsMessage() {
			ends = f.Entries[i].Role() == "user" && !f.Entries[i].IsToolResult()
			break
		}
	}
	if ends != r.endsOnPrompt {
		r.endsOnPrompt = ends
		if ends {
			r.Tokens[TokOther] += r.noResponse
			r.Messages++
		} else {
			r.Tokens[TokOther] -= r.noResponse
			r.Messages--
		}
	}
	if r.measuredBy == 0 {
		return r
	}
	var before Tokens
	var u Usage
	found := false
	for _, i := range p.Entries {
		tk, sent := r.Entry(i)
		if !sent {
			continue
		}
		if f.Entries[i].Type() == "assistant" {
			b, ok := raw(i)
			if ok && !IsSyntheticError(b) {
				if u, found = EntryUsage(b); found {
					r.measuredBy = i + 1
					break
				}
			}
		}
		before.Add(tk)
	}
	if !found {
		r.measuredBy = 0
	}
	var sent []int32
	for k := len(p.Entries) - 1; k >= 0 && len(sent) < lastModelReads; k-- {
		if i := p.Entries[k]; f.Entries[i].Type() == "assistant" {
			if _, ok := r.Entry(i); ok {
				sent = append(sent, int32(i))
			}
		}
	}
	slices.Reverse(sent)
	if m := f.lastModel(sent, raw, nil); m != "" {
		r.Model = m
	}
	r.Overhead, r.OverheadMeasured = OverheadOf(u, found, before.Total())
	return r
}

// Entry returns the estimate of entry i and whether the client sends it.
func (r ResumeEstimate) Entry(i int) (Tokens, bool) {
	if tk, ok := r.changed[i]; ok {
		return tk, true
	}
	if tk, ok := r.own.get(i); ok {
		return tk, true
	}
	if r.base == nil || r.gone[i] {
		return Tokens{}, false
	}
	return r.base.Entry(i)
}

// Each calls fn with every entry the client sends and its estimate, in no
// particular order.
func (r ResumeEstimate) Each(fn func(i int, tk Tokens)) {
	if r.base != nil {
		r.base.Each(func(i int, tk Tokens) {
			if _, anew := r.changed[i]; !anew && !r.gone[i] {
				fn(i, tk)
			}
		})
	}
	r.own.each(fn)
	for i, tk := range r.changed {
		fn(i, tk)
	}
}

// Total is the estimated tokens the client sends on resume.
func (r ResumeEstimate) Total() int { return r.Tokens.Total() + r.Overhead }

// RawFunc returns the current bytes of entry i, or ok=false when entry i
// is gone (an operation removed it).
type RawFunc func(i int) (raw []byte, ok bool)

// ResumeTokens estimates what the client sends on resume of the file
// as it is.
func (f *File) ResumeTokens() ResumeEstimate {
	return f.ResumeTokensWith(f.Graph().ActivePath(), nil)
}

// ResumeTokensWith estimates what the client sends for path p, reading
// each entry through raw (an operation's edited bytes, say), or from the
// file when raw is nil. raw is called from several goroutines: the entries
// are read and counted on every core, and the results folded in the order
// of the path.
func (f *File) ResumeTokensWith(p Path, raw RawFunc) ResumeEstimate {
	return f.resumeTokens(p, raw, nil, &calibration, nil)
}

// ResumeTokensCalibrated is ResumeTokensWith made with the constants cal
// instead of DefaultCalibration: what cmd/tokeneval fits and judges.
func (f *File) ResumeTokensCalibrated(p Path, raw RawFunc, cal Calibration) ResumeEstimate {
	return f.resumeTokens(p, raw, nil, &cal, nil)
}

// ResumeTokensVisit is ResumeTokensWith(p, nil) handing each line it
// reads from the file to visit, on the pass's workers (concurrently, in
// no order; the bytes are valid during the call only): a pass that needs
// some of the same lines (compress-old-turns' cut) reads them with the
// estimate instead of reading most of the file's blocks once more.
func (f *File) ResumeTokensVisit(p Path, visit func(i int, raw []byte)) ResumeEstimate {
	return f.resumeTokens(p, nil, nil, &calibration, visit)
}

// resumeTokens is ResumeTokensWith; with counts, each line's count is
// taken from it instead of read and counted (WrittenResumeTokens, whose
// counts are made with the default calibration); visit (may be nil) is
// ResumeTokensVisit's.
func (f *File) resumeTokens(p Path, raw RawFunc, counts *lineCounts, cal *Calibration, visit func(i int, raw []byte)) ResumeEstimate {
	var r ResumeEstimate
	var firstUsage Usage
	var before Tokens // estimate of what was sent before the first usage
	found := false
	lastRole := ""
	endsOnPrompt := false
	// the entries the client sends: messages and (2.1.x) attachments
	// (counted first, then made once: grown by doubling, with its
	// copies, it was 16 bytes an entry at the estimate's peak)
	isSent := func(e *Entry) bool { return e.Kind == KindEntry && (e.IsMessage() || e.Type() == "attachment") }
	nsent := 0
	for _, i := range p.Entries {
		if isSent(&f.Entries[i]) {
			nsent++
		}
	}
	sent := make([]int32, 0, nsent)
	for _, i := range p.Entries {
		if isSent(&f.Entries[i]) {
			sent = append(sent, int32(i))
		}
	}
	type counted struct {
		i        int
		skip     bool // gone, or an error the client wrote and never sends
		tokens   Tokens
		bytes    int
		usage    Usage
		hasUsage bool
		model    string
	}
	// Only the first usage of the path is used (with the model of its
	// response): each batch reads it until it finds one, and not past the
	// first one any batch has found (they were a third of the pass's time
	// on a session of many small turns). The last model is read after.
	var usageAt atomic.Int64
	usageAt.Store(math.MaxInt64)
	lower := func(v *atomic.Int64, k int) {
		for {
			if old := v.Load(); int64(k) >= old || v.CompareAndSwap(old, int64(k)) {
				return
			}
		}
	}
	work := func(lo, hi int) ([]counted, error) {
		out := make([]counted, 0, hi-lo)
		if counts != nil {
			for _, i32 := range sent[lo:hi] {
				i := int(i32)
				e := &f.Entries[i]
				lc := counts.at(i)
				c := counted{i: i, bytes: int(lc.bytes)}
				if e.Type() == "assistant" && e.MayBeSyntheticError() && lc.synthetic {
					c.skip = true
					out = append(out, c)
					continue
				}
				for k, n := range lc.tokens {
					c.tokens[k] = int(n)
				}
				if e.Type() == "assistant" {
					c.usage, c.hasUsage, c.model = lc.usage, lc.hasUsage, lc.model
				}
				out = append(out, c)
			}
			return out, nil
		}
		var lb *Batch // the file's lines of the batch, read at once when they lie together
		if raw == nil {
			lb = ReadBatch(f, sent[lo:hi])
			defer lb.Close()
		}
		for k, i32 := range sent[lo:hi] {
			i := int(i32)
			e := &f.Entries[i]
			c := counted{i: i}
			var b []byte
			ok := true
			// an edited line (raw) is read for the mark; the file's own
			// lines were marked by the index (MayBeSyntheticError)
			maybe := raw != nil || e.MayBeSyntheticError()
			if raw != nil {
				b, ok = raw(i)
			} else {
				var err error
				b, err = lb.Raw(i)
				ok = err == nil
				if ok && visit != nil {
					visit(i, b)
				}
			}
			if !ok || (e.Type() == "assistant" && maybe && IsSyntheticError(b)) {
				c.skip = true
				out = append(out, c)
				continue
			}
			if e.Type() == "assistant" {
				pos := lo + k
				if int64(pos) < usageAt.Load() {
					if c.usage, c.hasUsage = EntryUsage(b); c.hasUsage {
						lower(&usageAt, pos)
						c.model = strings.Clone(gjson.Get(b2s(b), "message.model").Str)
					}
				}
			}
			var n counter
			c.bytes = countEntry(&n, b, cal)
			c.tokens = n.tokens()
			out = append(out, c)
		}
		return out, nil
	}
	// one row per entry sent, made once (grown by doubling, the rows of
	// half a million entries held half as much again, and their copies)
	r.own.idx = make([]int32, 0, len(sent))
	r.own.rows = make([]tokenRow, 0, len(sent))
	// the thinking of the entries before the last turn the fold has seen
	// open, and since (what the first response that records usage was
	// sent, by its model's rule)
	thinkDone, thinkCur := 0, 0
	firstModel := ""     // the model of the first response that records usage
	var thinking []int32 // the entries holding thinking
	_ = InOrder(f, len(sent), func(k int) int { return int(sent[k]) }, work, func(cs []counted) error {
		for _, c := range cs {
			if c.skip {
				continue
			}
			e := &f.Entries[c.i]
			if opensTurn(e) {
				thinkDone, thinkCur = thinkDone+thinkCur, 0
			}
			if e.Type() == "assistant" && !found && c.hasUsage {
				firstUsage, found, firstModel = c.usage, true, c.model
				before = r.Tokens
				r.measuredBy = c.i + 1
				if !KeepsAllThinking(c.model) {
					before[TokThinking] -= thinkDone
				}
			}
			if c.tokens[TokThinking] > 0 {
				thinkCur += c.tokens[TokThinking]
				thinking = append(thinking, int32(c.i))
			}
			r.Bytes += int64(c.bytes)
			r.own.add(c.i, c.tokens)
			r.Tokens.Add(c.tokens)
			if e.IsMessage() {
				role := e.Role()
				if role != lastRole {
					r.Messages++
				}
				lastRole = role
				endsOnPrompt = role == "user" && !e.IsToolResult()
			}
		}
		return nil
	})
	r.own.seal()
	if r.Model = f.lastModel(sent, raw, counts); r.Model == "" && firstModel != "<synthetic>" {
		r.Model = firstModel
	}
	r.Thinking = f.thinkingRule(p, r.Model)
	if !r.Thinking.KeepAll {
		for _, i32 := range thinking {
			i := int(i32)
			if r.Thinking.Counts(i) {
				continue
			}
			d := r.own.dropThinking(i)
			if d == 0 {
				continue
			}
			if r.dropped == nil {
				r.dropped = map[int]int{}
			}
			r.dropped[i] += d
			r.ThinkingDropped += d
			r.Tokens[TokThinking] -= d
		}
	}
	r.endsOnPrompt, r.noResponse = endsOnPrompt, cal.noResponseTokens()
	if endsOnPrompt {
		// a conversation ending on a prompt (its answer never came: a
		// failed retry, an interrupted run) is resumed with the client's
		// own answer to it, "No response requested." (seen with 2.1.328
		// in ops.TestTargetTokensBudgets)
		r.Tokens[TokOther] += cal.noResponseTokens()
		r.Messages++
	}
	r.Overhead, r.OverheadMeasured = OverheadOf(firstUsage, found, before.Total())
	return r
}

// lastModelReads bounds lastModel's walk back: a file whose entries name
// no model (a generated chain of a million entries) is not read twice.
const lastModelReads = 256

// lastModel is the model of the last assistant entry of sent that names
// one, "<synthetic>" not counted (the client's own "No response
// requested.", say), among the last lastModelReads, or "" when none does;
// entries are read from counts, raw or the file, as resumeTokens reads
// them.
func (f *File) lastModel(sent []int32, raw RawFunc, counts *lineCounts) string {
	var buf []byte
	reads := 0
	for k := len(sent) - 1; k >= 0 && reads < lastModelReads; k-- {
		i := int(sent[k])
		if f.Entries[i].Type() != "assistant" {
			continue
		}
		reads++
		var m string
		switch {
		case counts != nil:
			m = counts.at(i).model
		case raw != nil:
			b, ok := raw(i)
			if !ok {
				continue
			}
			m = gjson.Get(b2s(b), "message.model").Str
		default:
			b, err := f.ReadRaw(i, buf)
			if err != nil {
				continue
			}
			buf = b
			m = gjson.Get(b2s(b), "message.model").Str
		}
		if m != "" && m != "<synthetic>" {
			return strings.Clone(m)
		}
	}
	return ""
}

// OverheadOf is the system prompt and tools the estimate counts (and
// whether measured): the input the first response that records usage
// (u, when found) was sent, less the estimate of the messages sent before
// it (before); DefaultOverhead when no response records usage or what
// that leaves is too small to be an API's count. An operation that cuts
// the messages before the first usage, or removes that response, moves
// the measure: ops.FitTokens keeps its running count by this rule.
func OverheadOf(u Usage, found bool, before int) (overhead int, measured bool) {
	if found {
		if o := u.Input - before; o >= MinOverhead {
			return o, true
		}
	}
	return DefaultOverhead, false
}

// WrittenResumeTokens is the estimate ResumeTokens makes of the file
// write writes (LoadWritten(name, lines, write).ResumeTokens()), made
// without keeping its bytes: each line is counted as it passes (what the
// estimate reads of it: its tokens, whether it is a synthetic error, the
// usage and model an assistant line records), and the estimate is made of
// those counts once the index says which lines are sent. Holding the
// written result was most of a rescue's memory when it keeps most of the
// session (a damaged session under its target: 0.86x the file). write is
// called again, the bytes kept, in the case the counts cannot be matched
// to the index's lines.
func WrittenResumeTokens(name string, lines int, write func(io.Writer) error) (ResumeEstimate, error) {
	lc := &lineCounts{}
	iw := NewIndexWriter(name, lc, lines)
	err := write(iw)
	f, cerr := iw.Close()
	if err != nil {
		return ResumeEstimate{}, err
	}
	if cerr != nil {
		return ResumeEstimate{}, cerr
	}
	if lc.matches(f) {
		return f.resumeTokens(f.Graph().ActivePath(), nil, lc, &calibration, nil), nil
	}
	g, err := LoadWritten(name, lines, write)
	if err != nil {
		return ResumeEstimate{}, err
	}
	return g.ResumeTokens(), nil
}

// lineCount is what the estimate reads of one line.
type lineCount struct {
	off       int64
	len       int32
	bytes     int32
	tokens    [NumTokenKinds]int32
	synthetic bool
	hasUsage  bool
	usage     Usage
	model     string
}

// lineCounts counts the lines written to it (whole lines, as an
// IndexWriter passes them on), each block on two cores.
type lineCounts struct {
	lines  []lineCount
	off    int64
	models map[string]string // one copy of each model name
}

func (c *lineCounts) Write(p []byte) (int, error) {
	n := len(p)
	// the block's lines, split in two halves counted at once
	var starts []int
	for at := 0; at < len(p); {
		starts = append(starts, at)
		k := bytes.IndexByte(p[at:], '\n')
		if k < 0 {
			break
		}
		at += k + 1
	}
	out := make([]lineCount, len(starts))
	count := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			end := len(p)
			if k+1 < len(starts) {
				end = starts[k+1] - 1 // its newline
			} else if end > starts[k] && p[end-1] == '\n' {
				end--
			}
			line := p[starts[k]:end]
			lc := &out[k]
			lc.off, lc.len = c.off+int64(starts[k]), int32(len(line))
			var cn counter
			lc.bytes = int32(countEntry(&cn, line, &calibration))
			for j, v := range cn.tokens() {
				lc.tokens[j] = int32(v)
			}
			lc.synthetic = IsSyntheticError(line)
			if bytes.Contains(line, []byte(`"assistant"`)) { // (every assistant line: the fold reads only those)
				lc.usage, lc.hasUsage = EntryUsage(line)
				lc.model = gjson.Get(b2s(line), "message.model").Str
			}
		}
	}
	half := len(starts) / 2
	done := make(chan struct{})
	go func() { count(half, len(starts)); close(done) }()
	count(0, half)
	<-done
	if c.models == nil {
		c.models = map[string]string{}
	}
	for k := range out {
		if m := out[k].model; m != "" {
			if kept, ok := c.models[m]; ok {
				out[k].model = kept
			} else {
				kept = strings.Clone(m)
				c.models[kept], out[k].model = kept, kept
			}
		}
	}
	c.lines = append(c.lines, out...)
	c.off += int64(n)
	return n, nil
}

// matches reports whether the lines counted are f's entries, one for one.
func (c *lineCounts) matches(f *File) bool {
	if len(c.lines) != len(f.Entries) {
		return false
	}
	for i := range f.Entries {
		if e := &f.Entries[i]; e.Off != c.lines[i].off || e.Len != c.lines[i].len {
			return false
		}
	}
	return true
}

func (c *lineCounts) at(i int) *lineCount { return &c.lines[i] }

// IsSyntheticError reports whether the assistant entry raw is an error
// the client wrote in place of a response (isApiErrorMessage: "Prompt is
// too long" after a failed retry, say). The client does not send them on
// resume (seen with 2.1.328 in ops.TestTargetTokensBudgets).
func IsSyntheticError(raw []byte) bool {
	if !bytes.Contains(raw, []byte("isApiErrorMessage")) {
		return false
	}
	return gjson.Parse(firstField(b2s(raw), "isApiErrorMessage")).Bool()
}

// ContextWindow is the context window of a model, in tokens, from its
// name: 1M for the [1m] variants, 200k otherwise (every Claude model
// Claude Code uses has at least that).
func ContextWindow(model string) int {
	if strings.Contains(strings.ToLower(model), "[1m]") || strings.HasSuffix(model, "-1m") {
		return 1_000_000
	}
	return 200_000
}

// UsagePoint is one assistant response of a path with the usage it
// recorded and the estimate of what was sent for it.
type UsagePoint struct {
	Usage Usage
	// Before is the estimated tokens of the messages sent before the
	// response (overhead excluded); Through adds the response itself.
	Before, Through int
}

// RecordedUsage lists the responses of path p that record usage, oldest
// first, next to the estimate of the conversation up to each: the ground
// truth the estimator is measured against. One response written as several
// entries (one per content block) counts once, with its largest output.
// Each response's estimate counts thinking by the rule of the model that
// served it (KeepsAllThinking): a model that keeps only the last turn's
// was not sent the thinking of the turns before its own.
func (f *File) RecordedUsage(p Path, est ResumeEstimate) []UsagePoint {
	var out []UsagePoint
	sum := 0
	// the thinking before the last turn opened so far, and since
	done, cur := 0, 0
	keepAll := true // the rule of the last response listed
	lastID := ""
	for _, i := range p.Entries {
		e := &f.Entries[i]
		t, sent := est.Entry(i)
		if !sent {
			continue
		}
		t[TokThinking] += est.droppedAt(i) // as written: each point applies its own rule
		if opensTurn(e) {
			done, cur = done+cur, 0
		}
		drop := func() int {
			if keepAll {
				return 0
			}
			return done
		}
		if e.Type() == "assistant" {
			b, _ := f.Raw(i)
			u, hasU := EntryUsage(b)
			if e.MsgID() == "" || e.MsgID() != lastID {
				if hasU {
					keepAll = KeepsAllThinking(gjson.GetBytes(b, "message.model").Str)
					out = append(out, UsagePoint{Usage: u, Before: sum - drop()})
				}
			} else if n := len(out); n > 0 && hasU && u.Output > out[n-1].Usage.Output {
				out[n-1].Usage.Output = u.Output
			}
			lastID = e.MsgID()
		}
		sum += t.Total()
		cur += t[TokThinking]
		if n := len(out); n > 0 && e.Type() == "assistant" {
			out[n-1].Through = sum - drop()
		}
	}
	return out
}

// MessageTokens estimates an API message as a request carries it
// ({"role", "content"}): what a client sent, measured by the same rules.
func MessageTokens(raw []byte) Tokens {
	cal := &calibration
	var c counter
	c[TokOther] += cal.PerMessage
	content := gjson.GetBytes(raw, "content")
	if gjson.GetBytes(raw, "role").Str == "system" {
		// 2.1.x's inline system messages: the rendered attachments
		if content.Type == gjson.String {
			c[TokText] += rawTokens(content.Raw, TokText, cal)
		} else {
			content.ForEach(func(_, b gjson.Result) bool {
				c[TokText] += rawTokens(b.Get("text").Raw, TokText, cal)
				return true
			})
		}
		return c.tokens()
	}
	countContent(&c, content.Raw, TokText, cal)
	return c.tokens()
}

// EstimatorError is the error to state beside an estimate: the largest
// error go run ./cmd/tokeneval measured on the last response of the
// real conversations of ../shared/corpus, rounded up (8.1% with the
// overhead measured from the session's own usage; 17.7% on main
// conversations with DefaultOverhead, whose system prompt varies with the
// client version and setup).
func EstimatorError(overheadMeasured bool) float64 {
	if overheadMeasured {
		return 0.10
	}
	return 0.20
}
