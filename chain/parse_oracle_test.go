package chain

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"unique"

	"github.com/stretchr/testify/require"
)

// TestOnePassParseAgreesWithTwoPasses checks the one-pass parser against
// the two-pass one it replaced (kept below as the oracle) and against
// encoding/json on every line of testdata and ../shared/corpus and on
// random mutations of them.
func TestOnePassParseAgreesWithTwoPasses(t *testing.T) {
	lines := sessionLines(t)
	require.Greater(t, len(lines), 1000)
	rng := rand.New(rand.NewSource(7))
	check := func(l []byte) {
		var got Entry
		var want plainEntry
		okGot := parseEnvelope(&got, l)
		okWant := oracleParseEnvelope(&want, l)
		require.Equal(t, okWant, okGot, "%.300q", l)
		isObj := json.Valid(l) && strings.HasPrefix(strings.TrimLeft(string(l), " \t\r\n"), "{")
		require.Equal(t, isObj, okGot, "encoding/json: %.300q", l)
		if okGot {
			require.Equal(t, want, withToolIDs(plain(&got), &got, l), "%.300q", l)
		}
	}
	const alphabet = "\"\\{}[],:0a\x01 \x80"
	for _, l := range lines {
		check(l)
		for k := 0; k < 4 && len(l) > 0; k++ {
			m := append([]byte(nil), l...)
			m[rng.Intn(len(m))] = alphabet[rng.Intn(len(alphabet))]
			check(m)
		}
	}
}

func FuzzOnePassParse(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image"}]}]}}`,
		`{"compactMetadata":{"preservedSegment":{"headUuid":"a"}},"toolUseResult":{"agentId":"x"}}`, `{"message":{"content":"hi"}}`,
		`{"type":"user","origin":{"kind":"task-notification","producer":"x"},"promptSource":"system"}`, `{"type":"user","origin":{"kind":"human"},"promptSource":"typed"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, l []byte) {
		var got Entry
		var want plainEntry
		okGot, okWant := parseEnvelope(&got, l), oracleParseEnvelope(&want, l)
		if okGot != okWant {
			t.Fatalf("one pass %v, two passes %v: %q", okGot, okWant, l)
		}
		if okGot {
			require.Equal(t, want, withToolIDs(plain(&got), &got, l))
		}
	})
}

// plainEntry is an entry as the index held it before it was made compact:
// every field a plain value. The oracle fills one; plain reads one from
// an Entry through its methods, so the compact forms are checked too.
type plainEntry struct {
	HasParent, IsSidechain, IsMeta, IsCompactSummary, HasMessage, StringContent, ContentEmpty, ByClient bool

	Type, Subtype, UUID, ParentUUID, SessionID, Timestamp, Role, MsgID, TextHead string
	Blocks                                                                       []Block
	ToolUseResult                                                                int32

	LogicalParentUUID, AgentID, ToolUseID, ParentToolUseID, LeafUUID, MessageID, ToolUseAgent string
	PreservedHead, PreservedTail, PreservedAnchor                                             string
}

func plain(e *Entry) plainEntry {
	return plainEntry{HasParent: e.HasParent(), IsSidechain: e.IsSidechain(), IsMeta: e.IsMeta(), IsCompactSummary: e.IsCompactSummary(),
		HasMessage: e.HasMessage(), StringContent: e.StringContent(), ContentEmpty: e.ContentEmpty(), ByClient: e.ByClient(),
		Type: e.Type(), Subtype: e.Subtype(), UUID: e.UUID(), ParentUUID: e.ParentUUID(), SessionID: e.SessionID(),
		Timestamp: e.Timestamp(), Role: e.Role(), MsgID: e.MsgID(), TextHead: e.TextHead(), Blocks: e.Blocks(), ToolUseResult: e.ToolUseResult,
		LogicalParentUUID: e.LogicalParentUUID(), AgentID: e.AgentID(),
		LeafUUID: e.LeafUUID(), MessageID: e.MessageID(), ToolUseAgent: e.ToolUseAgent(),
		PreservedHead: e.PreservedHead(), PreservedTail: e.PreservedTail(), PreservedAnchor: e.PreservedAnchor()}
}

// withToolIDs is p with the tool ids of e's line, which the index does not
// hold: read from the line (lineToolIDs, what File.ToolIDs reads) when e
// says it has them, so a line whose ids the bit misses shows here.
func withToolIDs(p plainEntry, e *Entry, line []byte) plainEntry {
	if e.HasToolIDs() {
		p.ToolUseID, p.ParentToolUseID = lineToolIDs(line)
	}
	return p
}

// oracleParseEnvelope is the loader's envelope parser as it was before
// validation and reading became one pass (validJSON, then a walk of the
// valid line). It fills e from the JSON object in line. It reports false when
// the line is not a JSON object. Only the envelope's fields are decoded:
// message content and tool output are skipped over, not read.
func oracleParseEnvelope(e *plainEntry, line []byte) bool {
	if !validJSON(line) {
		return false
	}
	s := b2s(line)
	if s[skipSpace(s, 0)] != '{' {
		return false
	}
	str := func(raw string) string { return strings.Clone(strValue(raw)) }
	// values that repeat on every line share one copy
	common := func(raw string) string { return unique.Make(strValue(raw)).Value() }
	eachField(s, func(k, v string) bool {
		switch k {
		case "type":
			e.Type = common(v)
		case "subtype":
			e.Subtype = common(v)
		case "uuid":
			e.UUID = str(v)
		case "parentUuid":
			if v != "" && v[0] == '"' {
				e.ParentUUID = str(v)
				e.HasParent = true
			}
		case "logicalParentUuid":
			e.LogicalParentUUID = str(v)
		case "sessionId":
			e.SessionID = common(v)
		case "timestamp":
			e.Timestamp = str(v)
		case "agentId":
			e.AgentID = common(v)
		case "isSidechain":
			e.IsSidechain = isTrue(v)
		case "isMeta":
			e.IsMeta = isTrue(v)
		case "isCompactSummary":
			e.IsCompactSummary = isTrue(v)
		case "toolUseID":
			e.ToolUseID = str(v)
		case "parentToolUseID":
			e.ParentToolUseID = str(v)
		case "leafUuid":
			e.LeafUUID = str(v)
		case "messageId":
			e.MessageID = str(v)
		case "promptSource":
			if strValue(v) == "system" {
				e.ByClient = true
			}
		case "origin":
			if v[0] == '{' {
				eachField(v, func(k2, v2 string) bool {
					if k2 == "kind" {
						e.ByClient = e.ByClient || strValue(v2) != "human"
						return false
					}
					return true
				})
			}
		case "toolUseResult":
			e.ToolUseResult = int32(len(v))
			if v[0] == '{' {
				eachField(v, func(k2, v2 string) bool {
					if k2 == "agentId" {
						e.ToolUseAgent = str(v2)
						return false
					}
					return true
				})
			}
		case "compactMetadata":
			eachField(v, func(k2, v2 string) bool {
				if k2 == "preservedSegment" {
					eachField(v2, func(k3, v3 string) bool {
						switch k3 {
						case "headUuid":
							e.PreservedHead = str(v3)
						case "tailUuid":
							e.PreservedTail = str(v3)
						case "anchorUuid":
							e.PreservedAnchor = str(v3)
						}
						return true
					})
				}
				return true
			})
		case "message":
			if v[0] == '{' {
				e.HasMessage = true
				oracleParseMessage(e, v)
			}
		}
		return true
	})
	if e.Type == "assistant" {
		e.TextHead = "" // only prompts are read by their head
	}
	return true
}

func oracleParseMessage(e *plainEntry, msg string) {
	eachField(msg, func(k, v string) bool {
		switch k {
		case "role":
			e.Role = unique.Make(strValue(v)).Value()
		case "id":
			e.MsgID = strings.Clone(strValue(v))
		case "content":
			switch v[0] {
			case '"':
				e.StringContent = true
				e.ContentEmpty = v == `""`
				e.TextHead = strings.Clone(strHead(v, textHeadLen))
				e.Blocks = append(e.Blocks[:0], Block{Kind: BlockText, Empty: v == `""`, Size: int32(len(v))})
			case '[':
				n := 0
				eachElem(v, func(b string) bool {
					n++
					blk, textRaw := oracleParseBlock(b)
					if blk.Kind == BlockText && e.TextHead == "" && !blk.Empty {
						e.TextHead = strings.Clone(strHead(textRaw, textHeadLen))
					}
					e.Blocks = append(e.Blocks, blk)
					return true
				})
				e.ContentEmpty = n == 0
			}
		}
		return true
	})
}

// parseBlock reads the envelope of one content block; for a text block it
// also returns the raw text token.
func oracleParseBlock(b string) (Block, string) {
	blk := Block{Size: int32(len(b))}
	if b[0] != '{' {
		return blk, ""
	}
	textRaw, hasText := "", false
	eachField(b, func(k, v string) bool {
		switch k {
		case "type":
			switch strValue(v) {
			case "text":
				blk.Kind = BlockText
			case "thinking":
				blk.Kind = BlockThinking
			case "redacted_thinking":
				blk.Kind = BlockRedactedThinking
			case "tool_use": // not server_tool_use: the API runs those and pairs their results within the message
				blk.Kind = BlockToolUse
			case "tool_result":
				blk.Kind = BlockToolResult
			case "image":
				blk.Kind = BlockImage
			case "document":
				blk.Kind = BlockDocument
			}
		case "id":
			if blk.ID == "" {
				blk.ID = strings.Clone(strValue(v))
			}
		case "tool_use_id":
			blk.ID = strings.Clone(strValue(v))
		case "name":
			blk.Name = unique.Make(strValue(v)).Value()
		case "is_error":
			blk.IsError = isTrue(v)
		case "text":
			textRaw, hasText = v, true
		case "content":
			if v[0] == '[' {
				eachElem(v, func(c string) bool {
					if c[0] == '{' {
						eachField(c, func(k2, v2 string) bool {
							if k2 == "type" {
								if strValue(v2) == "image" {
									blk.Images++
								}
								return false
							}
							return true
						})
					}
					return true
				})
			}
		}
		return true
	})
	if blk.Kind == BlockText {
		blk.Empty = !hasText || textRaw == `""`
	}
	return blk, textRaw
}
