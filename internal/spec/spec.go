// Package spec states, once, what every operation must do to the
// conversation the client sends on resume. Each operation has one function
// here from the original's messages (as chain rebuilds them: chain is
// checked against the real clients) and the operation's options to the
// expected messages, or, where the result is a relation rather than one
// value (compress, redact), a check of the result against the original.
// Every test and fuzz target that judges an operation's result calls these.
package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// Block is one content block of a message, projected to what an operation
// must keep or change.
type Block struct {
	Type    string // text, thinking, redacted_thinking, tool_use, tool_result, image, ...
	ID      string // tool_use: id; tool_result: tool_use_id
	Name    string // tool_use: tool name
	Sig     string // thinking: signature
	Text    string // text, thinking text, tool_use input (JSON), tool_result content (flattened)
	IsError bool   // tool_result: is_error
	// Prompt is the turn number (as `turns` numbers them) when the block is
	// the text of a prompt a person typed; 0 otherwise.
	Prompt int
}

// Message is one API message: a role and its blocks.
type Message struct {
	Role   string
	Blocks []Block
	// Turn is the turn the message belongs to: the number of the last
	// prompt at or before it (for messages before the first prompt sent,
	// e.g. a compaction summary, the turn before that prompt).
	Turn int
}

// Conversation is the messages the client sends, oldest first.
type Conversation []Message

// Sent returns the conversation the client sends for the branch ending at
// leaf (chain's rebuild), with prompts numbered as `turns` numbers them.
func Sent(f *chain.File, leaf int) (Conversation, error) {
	g := f.Graph()
	prompts := map[int]int{}
	for _, t := range f.TurnsOf(leaf).List {
		prompts[t.Entry] = t.Index
	}
	var c Conversation
	for _, m := range f.Messages(g.PathTo(leaf)).All() {
		msg := Message{Role: m.Role}
		for _, i := range m.Entries {
			raw, err := f.Raw(i)
			if err != nil {
				return nil, err
			}
			bs := blocksOf(gjson.GetBytes(raw, "message.content"))
			if n := prompts[i]; n > 0 {
				for k := range bs {
					if bs[k].Type == "text" {
						bs[k].Prompt = n
					}
				}
			}
			msg.Blocks = append(msg.Blocks, bs...)
		}
		c = append(c, msg)
	}
	c.number()
	return c, nil
}

// Active is the conversation the client resumes.
func Active(f *chain.File) (Conversation, error) { return Sent(f, f.Graph().ActiveLeaf()) }

// FromAPI builds a conversation from the messages of a request the client
// sent (system messages, which carry attachments, are left out). Prompts
// are recognised by their text (IsTypedPrompt) and numbered from 1: turns
// before a compaction are not in the request, so compare turn numbers only
// for sessions without one.
func FromAPI(msgs []json.RawMessage) Conversation {
	var c Conversation
	defer func() { c.number() }()
	prompts := 0
	for _, raw := range msgs {
		r := gjson.ParseBytes(raw)
		role := r.Get("role").Str
		if role != "user" && role != "assistant" {
			continue
		}
		bs := blocksOf(r.Get("content"))
		for k := range bs {
			if role == "user" && bs[k].Type == "text" && IsTypedPrompt(bs[k].Text) {
				prompts++
				bs[k].Prompt = prompts
			}
		}
		if n := len(c); n > 0 && c[n-1].Role == role {
			c[n-1].Blocks = append(c[n-1].Blocks, bs...) // split by a system message
			continue
		}
		c = append(c, Message{Role: role, Blocks: bs})
	}
	return c
}

func blocksOf(content gjson.Result) []Block {
	if content.Type == gjson.String {
		return []Block{{Type: "text", Text: content.Str}}
	}
	var out []Block
	content.ForEach(func(_, b gjson.Result) bool {
		x := Block{Type: b.Get("type").Str}
		switch x.Type {
		case "text":
			x.Text = b.Get("text").Str
		case "thinking":
			x.Text, x.Sig = b.Get("thinking").Str, b.Get("signature").Str
		case "redacted_thinking":
			x.Text = b.Get("data").Str
		case "tool_use":
			x.ID, x.Name, x.Text = b.Get("id").Str, b.Get("name").Str, b.Get("input").Raw
		case "tool_result":
			x.ID, x.IsError = b.Get("tool_use_id").Str, b.Get("is_error").Bool()
			x.Text = flatten(b.Get("content"))
		default:
			x.Text = b.Raw
		}
		out = append(out, x)
		return true
	})
	return out
}

func flatten(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var sb strings.Builder
	c.ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str == "text" {
			sb.WriteString(b.Get("text").Str)
		} else {
			sb.WriteString(b.Raw)
		}
		sb.WriteByte('\n')
		return true
	})
	return sb.String()
}

// number sets each message's turn from the prompts it holds.
func (c Conversation) number() {
	turn := -1
	for k := range c {
		for _, b := range c[k].Blocks {
			if b.Prompt > 0 {
				turn = b.Prompt
			}
		}
		if turn < 0 {
			// before the first prompt sent: the turn before it
			turn = 0
			for _, m := range c[k:] {
				if p := m.firstPrompt(); p > 0 {
					turn = p - 1
					break
				}
			}
			for j := 0; j < k; j++ {
				c[j].Turn = turn
			}
		}
		c[k].Turn = turn
	}
}

func (m Message) firstPrompt() int {
	for _, b := range m.Blocks {
		if b.Prompt > 0 {
			return b.Prompt
		}
	}
	return 0
}

func (m Message) hasType(t string) bool {
	return slices.ContainsFunc(m.Blocks, func(b Block) bool { return b.Type == t })
}

// clone copies the conversation so that a spec never edits its input.
func (c Conversation) clone() Conversation {
	out := make(Conversation, len(c))
	for k, m := range c {
		out[k] = Message{Role: m.Role, Turn: m.Turn, Blocks: slices.Clone(m.Blocks)}
	}
	return out
}

// tidy drops messages left without blocks and merges neighbours of one
// role, as the client does with what a removal leaves.
func (c Conversation) tidy() Conversation {
	var out Conversation
	for _, m := range c {
		if len(m.Blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Blocks = append(out[n-1].Blocks, m.Blocks...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// Clone: a copy sends the original's messages.
func Clone(c Conversation) Conversation { return c.clone() }

// Repair: on a session the client already resumes whole, repair changes
// nothing the client sends. On a damaged file, c is what the newest client
// rebuilds from it, and repair makes it a request the API accepts: two
// messages of one role in a row become one (an answer whose prompt is
// lost is made part of the answer before it). The real-client tests state
// which c.
func Repair(c Conversation) Conversation { return c.clone().tidy() }

// Fork at turn n: the first n turns as they happened, every parallel call
// included, whatever turn n holds: a complete answer, an answer the person
// interrupted, or the calls of a turn the session ends inside (they ran:
// the files on disk are as they left them, and the conversation says so).
// c is the conversation that holds turn n (for a turn before a
// compaction, the one the client sent before it); a fork at the last turn
// is therefore the whole of c, as a clone is.
//
// The client merges the user entries between two answers into one message:
// the blocks of turn n's end (tool results, the interruption marker) and
// those that preface the next prompt (a local command's records, IDE
// context) with the prompt itself. The first belong to turn n, the others
// to the turn of the prompt they precede.
func Fork(c Conversation, n int) Conversation {
	var out Conversation
	for _, m := range c.clone() {
		if m.Turn <= n {
			out = append(out, m)
			continue
		}
		if m.Role != "user" {
			break
		}
		// the message's blocks of turns up to n: each block is of the turn
		// of the last prompt before it, but for one that prefaces a later
		// prompt of the message
		cur := 0
		if len(out) > 0 {
			cur = out[len(out)-1].Turn
		}
		k := 0
		for ; k < len(m.Blocks); k++ {
			b := m.Blocks[k]
			turn := cur
			if b.Prompt > 0 {
				cur, turn = b.Prompt, b.Prompt
			} else if next := nextPrompt(m, k); next > 0 && !endsTurn(b) {
				turn = next
			}
			if turn > n {
				break
			}
		}
		if k > 0 {
			m.Blocks, m.Turn = m.Blocks[:k], n
			out = append(out, m)
		}
		break
	}
	return out
}

// nextPrompt is the number of the first prompt block of m after block k,
// or 0.
func nextPrompt(m Message, k int) int {
	for _, b := range m.Blocks[k+1:] {
		if b.Prompt > 0 {
			return b.Prompt
		}
	}
	return 0
}

// endsTurn reports whether a user block ends the turn before it: a tool
// result, or the marker of an interruption.
func endsTurn(b Block) bool {
	return b.Type == "tool_result" || (b.Type == "text" && strings.HasPrefix(strings.TrimLeft(b.Text, " \t\r\n"), chain.InterruptedPrefix))
}

// StripThinking: the original minus its thinking blocks (of the turns
// before beforeTurn when it is > 0). The thinking of a last turn that ends
// inside a tool loop stays: the API wants that turn to start with it.
func StripThinking(c Conversation, beforeTurn int) Conversation {
	out := c.clone()
	open := c.unfinishedFrom()
	for k := range out {
		if k >= open || (beforeTurn > 0 && out[k].Turn >= beforeTurn) || out[k].Role != "assistant" {
			continue
		}
		out[k].Blocks = slices.DeleteFunc(out[k].Blocks, func(b Block) bool {
			return b.Type == "thinking" || b.Type == "redacted_thinking"
		})
	}
	return out.tidy()
}

// unfinishedFrom returns where the last turn's messages start when the
// conversation ends inside a tool loop (a call or a result last), else
// len(c).
func (c Conversation) unfinishedFrom() int {
	n := len(c)
	if n == 0 {
		return 0
	}
	last := c[n-1]
	if !(last.Role == "assistant" && last.hasType("tool_use")) && !(last.Role == "user" && last.hasType("tool_result")) {
		return n
	}
	k := n - 1
	for ; k >= 0; k-- {
		if c[k].Role == "user" && !c[k].hasType("tool_result") {
			break
		}
	}
	return k + 1
}

// DropToolCalls: the original minus exactly the calls drop selects (given
// the call's tool_use block and the turn it is in) and their results,
// everything else in order. An assistant message left with nothing but
// thinking goes too: a thinking block that leads to nothing is no answer.
func DropToolCalls(c Conversation, drop func(use Block, turn int) bool) Conversation {
	out := c.clone()
	ids := map[string]bool{}
	for _, m := range c {
		for _, b := range m.Blocks {
			if b.Type == "tool_use" && drop(b, m.Turn) {
				ids[b.ID] = true
			}
		}
	}
	for k := range out {
		before := len(out[k].Blocks)
		out[k].Blocks = slices.DeleteFunc(out[k].Blocks, func(b Block) bool {
			return (b.Type == "tool_use" || b.Type == "tool_result") && ids[b.ID]
		})
		if out[k].Role == "assistant" && len(out[k].Blocks) < before && !slices.ContainsFunc(out[k].Blocks, func(b Block) bool {
			return b.Type != "thinking" && b.Type != "redacted_thinking"
		}) {
			out[k].Blocks = nil
		}
	}
	return out.tidy()
}

// CheckCompress: the last keep turns are identical; older messages are the
// same messages in the same order, each block the same or only shortened
// (an image or a document may become a short text placeholder). turns is the number of
// the conversation's last turn.
func CheckCompress(orig, got Conversation, keep, turns int) error {
	if len(orig) != len(got) {
		return fmt.Errorf("compress changed the number of messages: %d, want %d\n%s", len(got), len(orig), Diff(orig, got))
	}
	for k := range orig {
		o, g := orig[k], got[k]
		if o.Role != g.Role || len(o.Blocks) != len(g.Blocks) {
			return fmt.Errorf("message %d: compress changed its role or blocks\n%s", k, Diff(orig, got))
		}
		recent := o.Turn > turns-keep
		for j := range o.Blocks {
			ob, gb := o.Blocks[j], g.Blocks[j]
			if recent || ob.Type == "thinking" || ob.Type == "redacted_thinking" {
				if ob != gb {
					return fmt.Errorf("message %d block %d (turn %d, kept as is): changed\n%s", k, j, o.Turn, Diff(orig, got))
				}
				continue
			}
			placeholder := (ob.Type == "image" || ob.Type == "document") && gb.Type == "text"
			sameKind := ob.Type == gb.Type || placeholder
			// an image's or document's placeholder in a prompt is text of that prompt
			samePrompt := ob.Prompt == gb.Prompt || placeholder
			if !sameKind || ob.ID != gb.ID || ob.Name != gb.Name || ob.Sig != gb.Sig || ob.IsError != gb.IsError || !samePrompt {
				return fmt.Errorf("message %d block %d (turn %d): compress changed what the block is\n%s", k, j, o.Turn, Diff(orig, got))
			}
			if gb.Text != ob.Text && len(gb.Text) >= len(ob.Text) {
				return fmt.Errorf("message %d block %d (turn %d): compress changed a block without shortening it: %s -> %s", k, j, o.Turn, clip(ob.Text), clip(gb.Text))
			}
		}
	}
	return nil
}

// RedactMarker starts every replacement redact-secrets writes.
const RedactMarker = "[REDACTED:"

// CheckRedact: the same messages and blocks in the same order, every text
// that changed now holding a redaction marker, thinking untouched or gone
// whole (a signed block cannot be edited).
func CheckRedact(orig, got Conversation) error {
	strip := func(c Conversation) Conversation { return StripThinking(c, 0) }
	o, g := orig, got
	if len(orig) != len(got) || blockCount(orig) != blockCount(got) {
		o, g = strip(orig), strip(got)
	}
	if len(o) != len(g) {
		return fmt.Errorf("redact changed the number of messages: %d, want %d\n%s", len(g), len(o), Diff(o, g))
	}
	for k := range o {
		if o[k].Role != g[k].Role || len(o[k].Blocks) != len(g[k].Blocks) {
			return fmt.Errorf("message %d: redact changed its role or blocks\n%s", k, Diff(o, g))
		}
		for j := range o[k].Blocks {
			ob, gb := o[k].Blocks[j], g[k].Blocks[j]
			if ob.Type != gb.Type || ob.ID != gb.ID || ob.Sig != gb.Sig || ob.IsError != gb.IsError {
				return fmt.Errorf("message %d block %d: redact changed what the block is\n%s", k, j, Diff(o, g))
			}
			if ob.Text != gb.Text && (!strings.Contains(gb.Text, RedactMarker) || ob.Type == "thinking") {
				return fmt.Errorf("message %d block %d: text changed with no redaction marker\n%s", k, j, Diff(o, g))
			}
		}
	}
	return nil
}

func blockCount(c Conversation) int {
	n := 0
	for _, m := range c {
		n += len(m.Blocks)
	}
	return n
}

// Equal reports the first difference between the expected and the actual
// conversation, or nil.
func Equal(want, got Conversation) error {
	if len(want) == len(got) {
		same := true
		for k := range want {
			if want[k].Role != got[k].Role || !slices.Equal(want[k].Blocks, got[k].Blocks) {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	return fmt.Errorf("messages differ from the specification\n%s", Diff(want, got))
}

// Diff shows two conversations side by side as one line per message.
func Diff(want, got Conversation) string {
	var sb strings.Builder
	n := max(len(want), len(got))
	for k := 0; k < n; k++ {
		w, g := "-", "-"
		if k < len(want) {
			w = want[k].String()
		}
		if k < len(got) {
			g = got[k].String()
		}
		mark := "  "
		if w != g {
			mark = "! "
		}
		fmt.Fprintf(&sb, "%s%d want %s\n%s%d got  %s\n", mark, k, w, mark, k, g)
	}
	return sb.String()
}

// String is a one-line summary of a message.
func (m Message) String() string {
	var parts []string
	for _, b := range m.Blocks {
		parts = append(parts, b.String())
	}
	return fmt.Sprintf("%s(t%d): %s", m.Role, m.Turn, strings.Join(parts, " "))
}

// String is a short form of a block.
func (b Block) String() string {
	short := func(s string) string {
		if len(s) > 24 {
			return fmt.Sprintf("%q…(%d)", s[:24], len(s))
		}
		return fmt.Sprintf("%q", s)
	}
	switch b.Type {
	case "tool_use":
		return "use(" + b.Name + " " + b.ID + ")"
	case "tool_result":
		return "result(" + b.ID + ")"
	case "thinking":
		return "thinking(" + short(b.Text) + ")"
	case "text":
		if b.Prompt > 0 {
			return fmt.Sprintf("prompt%d(%s)", b.Prompt, short(b.Text))
		}
		return "text(" + short(b.Text) + ")"
	}
	return b.Type
}

// Key projects a conversation onto what the client and chain must agree
// on: roles and, in order, tool_use and tool_result ids, thinking
// signatures, images, assistant text verbatim and prompt texts. Text the
// client adds on its own (system reminders, command caveats) is left out.
func (c Conversation) Key() []string {
	var out []string
	for _, m := range c {
		var sb strings.Builder
		sb.WriteString(m.Role + ":")
		for _, b := range m.Blocks {
			switch b.Type {
			case "tool_use":
				fmt.Fprintf(&sb, " use(%s)", b.ID)
			case "tool_result":
				fmt.Fprintf(&sb, " result(%s)", b.ID)
			case "thinking":
				fmt.Fprintf(&sb, " thinking(%s)", b.Sig)
			case "redacted_thinking":
				sb.WriteString(" redacted_thinking")
			case "image":
				sb.WriteString(" image")
			case "text":
				if m.Role == "assistant" {
					fmt.Fprintf(&sb, " text(%q)", b.Text)
				} else if IsTypedPrompt(b.Text) {
					fmt.Fprintf(&sb, " prompt(%q)", strings.TrimSpace(b.Text))
				}
			}
		}
		if n := len(out); n > 0 && strings.HasPrefix(out[n-1], m.Role+":") {
			out[n-1] += strings.TrimPrefix(sb.String(), m.Role+":")
			continue
		}
		out = append(out, sb.String())
	}
	return out
}

// IsTypedPrompt tells a prompt a person typed from text the client wrote.
func IsTypedPrompt(t string) bool {
	t = strings.TrimSpace(t)
	return t != "" && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "This session is being continued") &&
		!strings.HasPrefix(t, "[Request interrupted") && !strings.HasPrefix(t, "Caveat:") &&
		!strings.HasPrefix(t, "Stop hook feedback:") && !strings.HasPrefix(t, "[Image: source:") &&
		// 2.1.332's note after /fork (an isMeta user entry it sends with the next prompt)
		!strings.HasPrefix(t, "The fork runs as its own separate session")
}

func clip(s string) string {
	if len(s) > 160 {
		return fmt.Sprintf("%q…(%d bytes)", s[:160], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// FitNote starts the note --target-tokens leaves where it removed whole
// turns.
const FitNote = "[ccsurgeon removed turn"

// CheckFit: what compress --target-tokens keeps is what its cuts say.
// Every block of the result but the note is a block of the original, in
// the same order, the same or only shortened (a thinking block may go
// whole, an image may become a placeholder); a turn is either kept, every
// tool call of it still there, or one of removed, none of its tool calls
// left and its number named by the note; the last message is identical
// and the last prompt is there as it was.
func CheckFit(orig, got Conversation, removed []int) error {
	if len(orig) == 0 {
		return nil
	}
	gone := map[int]bool{}
	for _, n := range removed {
		gone[n] = true
	}
	if len(removed) > 0 {
		// what comes before the first prompt (a compaction's summary,
		// numbered 0 where the prompts are numbered from what is sent)
		// goes with the first removed turn
		gone[0] = true
	}
	if len(got) == 0 {
		return fmt.Errorf("the result sends nothing")
	}
	// (prompts numbered afresh: removed turns renumber the result's)
	unnumbered := func(m Message) Conversation {
		m = Message{Role: m.Role, Blocks: slices.DeleteFunc(slices.Clone(m.Blocks), func(b Block) bool { return b.Type == "text" && strings.HasPrefix(b.Text, FitNote) })}
		for k := range m.Blocks {
			m.Blocks[k].Prompt = 0
		}
		return Conversation{m}
	}
	if err := Equal(unnumbered(orig[len(orig)-1]), unnumbered(got[len(got)-1])); err != nil {
		return fmt.Errorf("the last message changed: %v", err)
	}
	lastPrompt := orig.lastPrompt()
	note := ""
	type ref struct{ m, b int }
	var gb []ref
	for k, m := range got {
		for j, b := range m.Blocks {
			if b.Type == "text" && (strings.HasPrefix(b.Text, FitNote) || strings.HasPrefix(b.Text, "[ccsurgeon removed turns")) {
				note += b.Text
				continue
			}
			gb = append(gb, ref{k, j})
		}
	}
	tools := map[string]bool{}
	for _, r := range gb {
		if b := got[r.m].Blocks[r.b]; b.Type == "tool_use" {
			tools[b.ID] = true
		}
	}
	// every kept block matches a block of the original that may stand for
	// it, walking both from the end: what is kept is the later part, so a
	// block repeated in a removed turn (the same prompt) is not taken for
	// the kept one
	g := len(gb) - 1
	for k := len(orig) - 1; k >= 0; k-- {
		m := orig[k]
		for j := len(m.Blocks) - 1; j >= 0; j-- {
			ob := m.Blocks[j]
			if ob.Type == "tool_use" && gone[m.Turn] == tools[ob.ID] {
				if gone[m.Turn] {
					return fmt.Errorf("turn %d is said removed but its tool call %s (%s) is still sent", m.Turn, ob.ID, ob.Name)
				}
				return fmt.Errorf("message %d block %d (turn %d): the tool call %s (%s) is gone, and the turn is not said removed", k, j, m.Turn, ob.ID, ob.Name)
			}
			if g < 0 {
				if gone[m.Turn] || ob.Type == "thinking" || ob.Type == "redacted_thinking" {
					continue
				}
				return fmt.Errorf("message %d block %d (turn %d, kept): missing from the result\n%s", k, j, m.Turn, Diff(orig, got))
			}
			b := got[gb[g].m].Blocks[gb[g].b]
			placeholder := (ob.Type == "image" || ob.Type == "document") && b.Type == "text" && strings.HasPrefix(b.Text, "["+ob.Type+" removed")
			same := (ob.Type == b.Type || placeholder) && ob.ID == b.ID && ob.Name == b.Name && ob.Sig == b.Sig && ob.IsError == b.IsError &&
				(b.Text == ob.Text || (len(b.Text) < len(ob.Text) && ob.Type != "thinking" && ob.Type != "redacted_thinking" && ob.Type != "text") || placeholder)
			switch {
			case same && gone[m.Turn] && (b.Text != ob.Text || b.Type != ob.Type || m.Turn != removed[0] && m.Turn != 0):
				// of the removed turns only the first may keep blocks as
				// they were (what comes before the first response that
				// records usage: the system prompt is measured by it);
				// what matches is an earlier block
			case same:
				if ob.Prompt > 0 && ob.Prompt == lastPrompt && b.Text != ob.Text {
					return fmt.Errorf("the last prompt (turn %d) changed", ob.Prompt)
				}
				g--
			case gone[m.Turn] || ob.Type == "thinking" || ob.Type == "redacted_thinking":
				// removed with its turn, or thinking removed whole
			default:
				return fmt.Errorf("message %d block %d (turn %d, kept): not in the result where expected, found %s instead\n%s", k, j, m.Turn, b, Diff(orig, got))
			}
		}
	}
	if g >= 0 {
		r := gb[g]
		return fmt.Errorf("message %d block %d of the result is no block of the original: %s", r.m, r.b, got[r.m].Blocks[r.b])
	}
	for _, n := range removed {
		if n > 0 && !strings.Contains(note, fmt.Sprintf("turn %d", n)) && !noteRange(note, n) {
			return fmt.Errorf("turn %d was removed but the note does not name it: %q", n, clip(note))
		}
	}
	return nil
}

// noteRange reports whether note names turn n in a range "turns A–B".
func noteRange(note string, n int) bool {
	var a, b int
	for i := strings.Index(note, "turns "); i >= 0; {
		if _, err := fmt.Sscanf(note[i:], "turns %d–%d", &a, &b); err == nil && a <= n && n <= b {
			return true
		}
		j := strings.Index(note[i+1:], "turns ")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// lastPrompt is the number of the conversation's last typed prompt.
func (c Conversation) lastPrompt() int {
	n := 0
	for _, m := range c {
		for _, b := range m.Blocks {
			n = max(n, b.Prompt)
		}
	}
	return n
}
