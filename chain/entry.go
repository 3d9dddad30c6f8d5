package chain

import (
	"strings"
	"unique"
	"unsafe"
)

// Kind says what a line of a session file is.
type Kind uint8

const (
	// KindEntry is a line holding a JSON object: a transcript entry.
	KindEntry Kind = iota
	// KindBlank is an empty or whitespace-only line.
	KindBlank
	// KindInvalid is a line that is not a JSON object (kept verbatim).
	KindInvalid
)

// BlockKind is the type of one content block of a message.
type BlockKind uint8

// Content block kinds.
const (
	BlockOther BlockKind = iota
	BlockText
	BlockThinking
	BlockRedactedThinking
	BlockToolUse
	BlockToolResult
	BlockImage
	BlockDocument
)

var blockKindNames = [...]string{"other", "text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"}

func (k BlockKind) String() string { return blockKindNames[k] }

// IsThinking reports whether the block is a thinking or redacted_thinking block.
func (k BlockKind) IsThinking() bool { return k == BlockThinking || k == BlockRedactedThinking }

// Block is the envelope of one content block: enough to pair tool calls and
// to size things without decoding the block.
type Block struct {
	ID      string // tool_use: id; tool_result: tool_use_id
	Name    string // tool_use: tool name
	Size    int32  // bytes of the block's JSON
	Images  int32  // image blocks nested inside a tool_result
	Kind    BlockKind
	IsError bool // tool_result: is_error
	Empty   bool // text block whose text is ""
}

// Entry is one line of a session file with its parsed envelope.
// Raw bytes are not kept here; File.Raw reads them back.
type Entry struct {
	Off  int64 // byte offset of the line in the file
	Line int32 // 1-based line number in the file
	Len  int32 // bytes of the line, line terminator excluded (a line is under 2 GB)
	EOL  uint8 // terminator: 0 none, 1 "\n", 2 "\r\n"
	Kind Kind

	HasParent        bool // parentUuid is present and not null
	IsSidechain      bool
	IsMeta           bool
	IsCompactSummary bool
	HasMessage       bool
	StringContent    bool // message.content is a string
	ContentEmpty     bool // message.content is "" or []

	Type       string
	Subtype    string
	UUID       string
	ParentUUID string
	SessionID  string
	Timestamp  string
	Role       string // message.role
	MsgID      string // message.id (assistant API message id)
	TextHead   string // first bytes of a user message's text, for turn detection
	Blocks     []Block

	ToolUseResult int32 // bytes of toolUseResult

	// x holds the fields few entries have; most entries share none.
	x *entryExtra
}

// entryExtra holds the envelope fields that only some entries have, so
// that an index of a million entries does not pay for them on each.
type entryExtra struct {
	parseErr          string
	logicalParentUUID string
	agentID           string
	toolUseID         string
	parentToolUseID   string
	leafUUID          string
	messageID         string
	toolUseAgent      string
	preservedHead     string
	preservedTail     string
	preservedAnchor   string
}

func (e *Entry) extra() *entryExtra {
	if e.x == nil {
		e.x = &entryExtra{}
	}
	return e.x
}

func (e *Entry) get(f func(x *entryExtra) string) string {
	if e.x == nil {
		return ""
	}
	return f(e.x)
}

// ParseErr says why a KindInvalid line is not an entry.
func (e *Entry) ParseErr() string { return e.get(func(x *entryExtra) string { return x.parseErr }) }

// LogicalParentUUID is the last entry before a compaction, on its boundary.
func (e *Entry) LogicalParentUUID() string {
	return e.get(func(x *entryExtra) string { return x.logicalParentUUID })
}

// AgentID names the subagent whose transcript holds the entry.
func (e *Entry) AgentID() string { return e.get(func(x *entryExtra) string { return x.agentID }) }

// ToolUseID is the tool call a progress entry reports on.
func (e *Entry) ToolUseID() string { return e.get(func(x *entryExtra) string { return x.toolUseID }) }

// ParentToolUseID is a progress entry's parentToolUseID.
func (e *Entry) ParentToolUseID() string {
	return e.get(func(x *entryExtra) string { return x.parentToolUseID })
}

// LeafUUID is the leafUuid of a summary or last-prompt entry.
func (e *Entry) LeafUUID() string { return e.get(func(x *entryExtra) string { return x.leafUUID }) }

// MessageID is the messageId of a file-history entry.
func (e *Entry) MessageID() string { return e.get(func(x *entryExtra) string { return x.messageID }) }

// ToolUseAgent is toolUseResult.agentId: links a Task/Agent result to its
// subagent transcript.
func (e *Entry) ToolUseAgent() string {
	return e.get(func(x *entryExtra) string { return x.toolUseAgent })
}

// PreservedHead, PreservedTail and PreservedAnchor: compact boundaries of
// 2.1.x keep a segment of the pre-compaction conversation; the entries from
// head to tail are sent after the anchor (the summary).
func (e *Entry) PreservedHead() string {
	return e.get(func(x *entryExtra) string { return x.preservedHead })
}

// PreservedTail: see PreservedHead.
func (e *Entry) PreservedTail() string {
	return e.get(func(x *entryExtra) string { return x.preservedTail })
}

// PreservedAnchor: see PreservedHead.
func (e *Entry) PreservedAnchor() string {
	return e.get(func(x *entryExtra) string { return x.preservedAnchor })
}

// IsChain reports whether the entry takes part in the parentUuid chain.
func (e *Entry) IsChain() bool { return e.Kind == KindEntry && e.UUID != "" }

// IsMessage reports whether the entry is a user or assistant message.
func (e *Entry) IsMessage() bool {
	return e.Kind == KindEntry && (e.Type == "user" || e.Type == "assistant") && e.HasMessage
}

// HasBlock reports whether the entry's content holds a block of kind k.
func (e *Entry) HasBlock(k BlockKind) bool {
	for i := range e.Blocks {
		if e.Blocks[i].Kind == k {
			return true
		}
	}
	return false
}

// ToolUseIDs returns the ids of the entry's tool_use blocks.
func (e *Entry) ToolUseIDs() []string { return e.blockIDs(BlockToolUse) }

// ToolResultIDs returns the tool_use_ids of the entry's tool_result blocks.
func (e *Entry) ToolResultIDs() []string { return e.blockIDs(BlockToolResult) }

func (e *Entry) blockIDs(k BlockKind) []string {
	var ids []string
	for i := range e.Blocks {
		if e.Blocks[i].Kind == k {
			ids = append(ids, e.Blocks[i].ID)
		}
	}
	return ids
}

// IsToolResult reports whether the entry is a user message carrying tool results.
func (e *Entry) IsToolResult() bool {
	return e.Type == "user" && e.HasBlock(BlockToolResult)
}

// TotalBytes is the size of the line including its terminator.
func (e *Entry) TotalBytes() int64 { return int64(e.Len) + int64(e.EOL) }

// b2s views bytes as a string without copying; the string must not outlive b.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

const textHeadLen = 160

// parseEnvelope fills e from the JSON object in line. It reports false when
// the line is not a JSON object (e may then hold some fields: the caller
// resets it). Validation and reading are one pass over the line: the
// fields of the envelope, the message and its blocks are read as the
// validator walks them, and everything else (content text, tool output)
// is validated and skipped, never decoded.
func parseEnvelope(e *Entry, line []byte) bool {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	ctl := hasControl(line)
	str := func(raw string) string { return strings.Clone(strValue(raw)) }
	// values that repeat on every line share one copy
	common := func(raw string) string { return unique.Make(strValue(raw)).Value() }
	end := vFields(line, i, 0, ctl, func(k string, vs int) int {
		switch k {
		case "message":
			if line[vs] == '{' {
				e.HasMessage = true
				return parseMessage(e, line, vs, ctl)
			}
		case "toolUseResult":
			agent := false
			ve := vValue(line, vs, 1, ctl, func(k2 string, vs2 int) int {
				ve2 := vSkip(line, vs2, 2, ctl)
				if k2 == "agentId" && !agent && ve2 >= 0 {
					agent = true
					e.extra().toolUseAgent = str(b2s(line[vs2:ve2]))
				}
				return ve2
			})
			e.ToolUseResult = int32(ve - vs)
			return ve
		case "compactMetadata":
			return vValue(line, vs, 1, ctl, func(k2 string, vs2 int) int {
				if k2 != "preservedSegment" {
					return vSkip(line, vs2, 2, ctl)
				}
				return vValue(line, vs2, 2, ctl, func(k3 string, vs3 int) int {
					ve3 := vSkip(line, vs3, 3, ctl)
					if ve3 < 0 {
						return ve3
					}
					switch v3 := b2s(line[vs3:ve3]); k3 {
					case "headUuid":
						e.extra().preservedHead = str(v3)
					case "tailUuid":
						e.extra().preservedTail = str(v3)
					case "anchorUuid":
						e.extra().preservedAnchor = str(v3)
					}
					return ve3
				})
			})
		}
		ve := vSkip(line, vs, 1, ctl)
		if ve < 0 {
			return ve
		}
		v := b2s(line[vs:ve])
		switch k {
		case "type":
			e.Type = common(v)
		case "subtype":
			e.Subtype = common(v)
		case "uuid":
			e.UUID = str(v)
		case "parentUuid":
			if v[0] == '"' {
				e.ParentUUID = str(v)
				e.HasParent = true
			}
		case "logicalParentUuid":
			e.extra().logicalParentUUID = str(v)
		case "sessionId":
			e.SessionID = common(v)
		case "timestamp":
			e.Timestamp = str(v)
		case "agentId":
			e.extra().agentID = common(v)
		case "isSidechain":
			e.IsSidechain = isTrue(v)
		case "isMeta":
			e.IsMeta = isTrue(v)
		case "isCompactSummary":
			e.IsCompactSummary = isTrue(v)
		case "toolUseID":
			e.extra().toolUseID = str(v)
		case "parentToolUseID":
			e.extra().parentToolUseID = str(v)
		case "leafUuid":
			e.extra().leafUUID = str(v)
		case "messageId":
			e.extra().messageID = str(v)
		}
		return ve
	})
	if end < 0 || skipWS(line, end) != len(line) {
		return false
	}
	if e.Type == "assistant" {
		e.TextHead = "" // only prompts are read by their head
	}
	return true
}

// parseMessage reads the message object at line[at] into e and returns
// the index after it (-1: not valid JSON).
func parseMessage(e *Entry, line []byte, at int, ctl bool) int {
	return vFields(line, at, 1, ctl, func(k string, vs int) int {
		if k == "content" && line[vs] == '[' {
			n := 0
			ve := vElems(line, vs, 2, ctl, func(bs int) int {
				n++
				blk, textRaw, be := parseBlock(line, bs, ctl)
				if be < 0 {
					return be
				}
				if blk.Kind == BlockText && e.TextHead == "" && !blk.Empty {
					e.TextHead = strings.Clone(strHead(textRaw, textHeadLen))
				}
				e.Blocks = append(e.Blocks, blk)
				return be
			})
			e.ContentEmpty = n == 0
			return ve
		}
		ve := vSkip(line, vs, 2, ctl)
		if ve < 0 {
			return ve
		}
		v := b2s(line[vs:ve])
		switch k {
		case "role":
			e.Role = unique.Make(strValue(v)).Value()
		case "id":
			e.MsgID = strings.Clone(strValue(v))
		case "content":
			if v[0] == '"' {
				e.StringContent = true
				e.ContentEmpty = v == `""`
				e.TextHead = strings.Clone(strHead(v, textHeadLen))
				e.Blocks = append(e.Blocks[:0], Block{Kind: BlockText, Empty: v == `""`, Size: int32(len(v))})
			}
		}
		return ve
	})
}

// parseBlock reads the envelope of the content block at line[at]; for a
// text block it also returns the raw text token. end is the index after
// the block (-1: not valid JSON).
func parseBlock(line []byte, at int, ctl bool) (blk Block, textRaw string, end int) {
	if line[at] != '{' {
		end = vSkip(line, at, 3, ctl)
		return Block{Size: int32(end - at)}, "", end
	}
	hasText := false
	end = vFields(line, at, 3, ctl, func(k string, vs int) int {
		if k == "content" && line[vs] == '[' {
			return vElems(line, vs, 4, ctl, func(cs int) int {
				seen := false // the first "type" of a nested block counts
				return vValue(line, cs, 5, ctl, func(k2 string, vs2 int) int {
					ve2 := vSkip(line, vs2, 6, ctl)
					if k2 == "type" && !seen && ve2 >= 0 {
						seen = true
						if strValue(b2s(line[vs2:ve2])) == "image" {
							blk.Images++
						}
					}
					return ve2
				})
			})
		}
		ve := vSkip(line, vs, 4, ctl)
		if ve < 0 {
			return ve
		}
		v := b2s(line[vs:ve])
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
		}
		return ve
	})
	if end < 0 {
		return blk, "", end
	}
	blk.Size = int32(end - at)
	if blk.Kind == BlockText {
		blk.Empty = !hasText || textRaw == `""`
	}
	return blk, textRaw, end
}
