package chain

import (
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
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
	Kind    BlockKind
	ID      string // tool_use: id; tool_result: tool_use_id
	Name    string // tool_use: tool name
	IsError bool   // tool_result: is_error
	Empty   bool   // text block whose text is ""
	Size    int    // bytes of the block's JSON
	Images  int    // image blocks nested inside a tool_result
}

// Entry is one line of a session file with its parsed envelope.
// Raw bytes are not kept here; File.Raw reads them back.
type Entry struct {
	Line     int   // 1-based line number in the file
	Off      int64 // byte offset of the line in the file
	Len      int   // bytes of the line, line terminator excluded
	EOL      uint8 // terminator: 0 none, 1 "\n", 2 "\r\n"
	Kind     Kind
	ParseErr string // why a KindInvalid line is not an entry

	Type              string
	Subtype           string
	UUID              string
	ParentUUID        string
	HasParent         bool // parentUuid is present and not null
	LogicalParentUUID string
	SessionID         string
	Timestamp         string
	AgentID           string
	IsSidechain       bool
	IsMeta            bool
	IsCompactSummary  bool

	Role          string // message.role
	MsgID         string // message.id (assistant API message id)
	HasMessage    bool
	StringContent bool   // message.content is a string
	ContentEmpty  bool   // message.content is "" or []
	TextHead      string // first bytes of a user message's text, for turn detection
	Blocks        []Block

	ToolUseID       string // progress: toolUseID of the call it reports on
	ParentToolUseID string // progress: parentToolUseID
	LeafUUID        string // summary / last-prompt: leafUuid
	MessageID       string // file-history-snapshot: messageId
	ToolUseResult   int    // bytes of toolUseResult
	ToolUseAgent    string // toolUseResult.agentId (links a Task/Agent result to its subagent file)
	MessageBytes    int    // bytes of the message value

	// Compact boundaries of 2.1.x keep a segment of the pre-compaction
	// conversation: the entries from PreservedHead to PreservedTail are sent
	// after the entry PreservedAnchor (the summary).
	PreservedHead, PreservedTail, PreservedAnchor string
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
// the line is not a JSON object.
func parseEnvelope(e *Entry, line []byte) bool {
	if !gjson.ValidBytes(line) {
		return false
	}
	s := b2s(line)
	root := gjson.Parse(s)
	if !root.IsObject() {
		return false
	}
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			e.Type = strings.Clone(v.Str)
		case "subtype":
			e.Subtype = strings.Clone(v.Str)
		case "uuid":
			e.UUID = strings.Clone(v.Str)
		case "parentUuid":
			if v.Type == gjson.String {
				e.ParentUUID = strings.Clone(v.Str)
				e.HasParent = true
			}
		case "logicalParentUuid":
			e.LogicalParentUUID = strings.Clone(v.Str)
		case "sessionId":
			e.SessionID = strings.Clone(v.Str)
		case "timestamp":
			e.Timestamp = strings.Clone(v.Str)
		case "agentId":
			e.AgentID = strings.Clone(v.Str)
		case "isSidechain":
			e.IsSidechain = v.Bool()
		case "isMeta":
			e.IsMeta = v.Bool()
		case "isCompactSummary":
			e.IsCompactSummary = v.Bool()
		case "toolUseID":
			e.ToolUseID = strings.Clone(v.Str)
		case "parentToolUseID":
			e.ParentToolUseID = strings.Clone(v.Str)
		case "leafUuid":
			e.LeafUUID = strings.Clone(v.Str)
		case "messageId":
			e.MessageID = strings.Clone(v.Str)
		case "toolUseResult":
			e.ToolUseResult = len(v.Raw)
			if v.IsObject() {
				if a := v.Get("agentId"); a.Type == gjson.String {
					e.ToolUseAgent = strings.Clone(a.Str)
				}
			}
		case "compactMetadata":
			if seg := v.Get("preservedSegment"); seg.IsObject() {
				e.PreservedHead = strings.Clone(seg.Get("headUuid").Str)
				e.PreservedTail = strings.Clone(seg.Get("tailUuid").Str)
				e.PreservedAnchor = strings.Clone(seg.Get("anchorUuid").Str)
			}
		case "message":
			if v.IsObject() {
				e.HasMessage = true
				e.MessageBytes = len(v.Raw)
				parseMessage(e, v)
			}
		}
		return true
	})
	return true
}

func parseMessage(e *Entry, msg gjson.Result) {
	msg.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			e.Role = strings.Clone(v.Str)
		case "id":
			if v.Type == gjson.String {
				e.MsgID = strings.Clone(v.Str)
			}
		case "content":
			switch {
			case v.Type == gjson.String:
				e.StringContent = true
				e.ContentEmpty = v.Str == ""
				e.TextHead = head(v.Str)
				e.Blocks = append(e.Blocks[:0], Block{Kind: BlockText, Empty: v.Str == "", Size: len(v.Raw)})
			case v.IsArray():
				n := 0
				v.ForEach(func(_, b gjson.Result) bool {
					n++
					blk := parseBlock(b)
					if blk.Kind == BlockText && e.TextHead == "" && !blk.Empty {
						e.TextHead = head(b.Get("text").Str)
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

func parseBlock(b gjson.Result) Block {
	blk := Block{Size: len(b.Raw)}
	if !b.IsObject() {
		return blk
	}
	var text gjson.Result
	hasText := false
	b.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			switch v.Str {
			case "text":
				blk.Kind = BlockText
			case "thinking":
				blk.Kind = BlockThinking
			case "redacted_thinking":
				blk.Kind = BlockRedactedThinking
			case "tool_use", "server_tool_use":
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
				blk.ID = strings.Clone(v.Str)
			}
		case "tool_use_id":
			blk.ID = strings.Clone(v.Str)
		case "name":
			blk.Name = strings.Clone(v.Str)
		case "is_error":
			blk.IsError = v.Bool()
		case "text":
			text, hasText = v, true
		case "content":
			if v.IsArray() {
				v.ForEach(func(_, c gjson.Result) bool {
					if c.Get("type").Str == "image" {
						blk.Images++
					}
					return true
				})
			}
		}
		return true
	})
	if blk.Kind == BlockText {
		blk.Empty = !hasText || text.Str == ""
	}
	return blk
}

func head(s string) string {
	if len(s) > textHeadLen {
		s = s[:textHeadLen]
	}
	return strings.Clone(s)
}
