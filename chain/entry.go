package chain

import (
	"slices"
	"strings"
	"time"
	"unique"
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
//
// An index of a million entries must fit in a fraction of the file, so
// the envelope is held compactly and read through methods: uuids in
// binary (ID), type, subtype, role and session id as codes into tables
// shared by every file, the timestamp as milliseconds. A value that does
// not have the usual form (a uuid in capitals, a timestamp with another
// precision) is kept as its string, in the entry's extra fields.
type Entry struct {
	Off  int64 // byte offset of the line in the file
	Line int32 // 1-based line number in the file
	Len  int32 // bytes of the line, line terminator excluded (a line is under 2 GB)

	ToolUseResult int32 // bytes of toolUseResult

	session uint16 // code into the sessions table (0: absent)
	// codes into the name tables (0: absent): a byte each, as these
	// tables hold a handful of names (more go to the extra fields)
	typ, subtype, role uint8

	EOL  uint8 // terminator: 0 none, 1 "\n", 2 "\r\n"
	Kind Kind

	bits  uint8 // the envelope's booleans (the bit* bits; HasParent ...)
	flags uint8 // which of uuid, parent, ts hold a value (the flag* bits)
	strn  uint8 // the length of the string at strp
	// nblk is the number of content blocks, at blk (manyBlocks: in x)
	nblk uint16

	ts     int64 // timestamp: milliseconds since 1970 (flagTS)
	uuid   ID    // flagUUID
	parent ID    // flagParent
	// strp is message.id for an entry with flagMsgID, else the text head
	// (the first bytes of a user message's text, for turn detection), of
	// strn bytes: a pointer and a byte, where a string header took 16
	// bytes of every entry (a longer one is in the extra fields)
	strp *byte
	// blk is the first of the entry's content blocks: the blocks of the
	// entries of one indexed stretch of the file are one array (a slice
	// here took 24 bytes of every entry and an allocation of its own)
	blk *Block

	// x holds the fields few entries have; most entries share none.
	x *entryExtra
}

// The booleans of the envelope, one bit each of Entry.bits (seven bool
// fields took seven bytes of every entry).
const (
	bitHasParent = 1 << iota
	bitIsSidechain
	bitIsMeta
	bitIsCompactSummary
	bitHasMessage
	bitStringContent
	bitContentEmpty
	// the line has a top-level toolUseID or parentToolUseID field (a
	// progress entry's): their values are read from the line when asked
	// for (File.ToolIDs), not held by every entry of the index
	bitToolIDs
)

func (e *Entry) bit(b uint8) bool { return e.bits&b != 0 }

func (e *Entry) setBit(b uint8, on bool) {
	if on {
		e.bits |= b
	} else {
		e.bits &^= b
	}
}

// HasParent reports whether parentUuid is present and not null.
func (e *Entry) HasParent() bool { return e.bit(bitHasParent) }

// IsSidechain is the entry's isSidechain.
func (e *Entry) IsSidechain() bool { return e.bit(bitIsSidechain) }

// IsMeta is the entry's isMeta.
func (e *Entry) IsMeta() bool { return e.bit(bitIsMeta) }

// IsCompactSummary is the entry's isCompactSummary.
func (e *Entry) IsCompactSummary() bool { return e.bit(bitIsCompactSummary) }

// HasMessage reports whether the entry has a message object.
func (e *Entry) HasMessage() bool { return e.bit(bitHasMessage) }

// StringContent reports whether message.content is a string.
func (e *Entry) StringContent() bool { return e.bit(bitStringContent) }

// ContentEmpty reports whether message.content is "" or [].
func (e *Entry) ContentEmpty() bool { return e.bit(bitContentEmpty) }

// str is the string at strp ("" when none).
func (e *Entry) str() string {
	if e.strn == 0 {
		return ""
	}
	return unsafe.String(e.strp, int(e.strn))
}

// setStr points strp at s, which must stay unchanged (a copy or an
// interned string); false when s is too long for strn.
func (e *Entry) setStr(s string) bool {
	if len(s) > 255 {
		return false
	}
	e.strp, e.strn = unsafe.StringData(s), uint8(len(s))
	if len(s) == 0 {
		e.strp = nil
	}
	return true
}

const (
	flagUUID      = 1 << iota // uuid holds the uuid
	flagParent                // parent holds the parentUuid
	flagTS                    // ts holds the timestamp
	flagMsgID                 // str is message.id
	flagStrID                 // the uuid is x.uuid (not in canonical form)
	flagStrParent             // the parentUuid is x.parent
	flagByClient              // a user message the client wrote on its own (ByClient)
	flagAPIError              // the first isApiErrorMessage field is true (MayBeSyntheticError)
)

// entryExtra holds the envelope fields that only some entries have, so
// that an index of a million entries does not pay for them on each.
// entryExtra holds the fields few entries have, as a short list of
// (field, value) pairs: an entry with one or two of them (a progress
// entry's tool ids) costs a few dozen bytes, not a struct of every field.
type entryExtra struct {
	f      []xValue
	blocks []Block // the content blocks of an entry with manyBlocks of them or more
}

// manyBlocks is the count of content blocks from which they are held in
// the entry's extra fields.
const manyBlocks = 1<<16 - 1

// Blocks returns the envelopes of the message's content blocks.
func (e *Entry) Blocks() []Block {
	switch {
	case e.nblk == 0:
		return nil
	case e.nblk == manyBlocks:
		return e.x.blocks
	}
	return unsafe.Slice(e.blk, e.nblk)
}

type xValue struct {
	k xField
	v string
}

// xField names a field of entryExtra.
type xField uint8

const (
	xParseErr xField = iota
	xLogicalParentUUID
	xAgentID
	xLeafUUID
	xMessageID
	xToolUseAgent
	xPreservedHead
	xPreservedTail
	xPreservedAnchor
	xUuid
	xParent
	xTimestamp
	xTyp
	xSubtype
	xRole
	xSession
	xMsgID
	xTextHead // a text head too long for strn (not a message id: those are xMsgID)
)

// get returns extra field k ("" when absent).
func (e *Entry) get(k xField) string {
	if e.x == nil {
		return ""
	}
	for _, x := range e.x.f {
		if x.k == k {
			return x.v
		}
	}
	return ""
}

// setX sets extra field k; "" removes it.
func (e *Entry) setX(k xField, v string) {
	if e.x == nil {
		if v == "" {
			return
		}
		e.x = &entryExtra{f: make([]xValue, 0, 1)}
	}
	for i := range e.x.f {
		if e.x.f[i].k == k {
			if v == "" {
				e.x.f = append(e.x.f[:i], e.x.f[i+1:]...)
			} else {
				e.x.f[i].v = v
			}
			return
		}
	}
	if v != "" {
		e.x.f = append(e.x.f, xValue{k, v})
	}
}

// Type is the entry's type ("user", "assistant", "system", ...).
func (e *Entry) Type() string {
	if e.typ == nameInX8 {
		return e.get(xTyp)
	}
	return types.name(uint16(e.typ))
}

// Subtype is the entry's subtype (system entries).
func (e *Entry) Subtype() string {
	if e.subtype == nameInX8 {
		return e.get(xSubtype)
	}
	return subtypes.name(uint16(e.subtype))
}

// Role is message.role.
func (e *Entry) Role() string {
	if e.role == nameInX8 {
		return e.get(xRole)
	}
	return roles.name(uint16(e.role))
}

// SessionID is the entry's sessionId.
func (e *Entry) SessionID() string {
	if e.session == nameInX {
		return e.get(xSession)
	}
	return sessions.name(e.session)
}

// UUID is the entry's uuid ("" when it has none).
func (e *Entry) UUID() string {
	switch {
	case e.flags&flagUUID != 0:
		return e.uuid.String()
	case e.flags&flagStrID != 0:
		return e.get(xUuid)
	}
	return ""
}

// ParentUUID is the entry's parentUuid ("" when null or absent).
func (e *Entry) ParentUUID() string {
	switch {
	case e.flags&flagParent != 0:
		return e.parent.String()
	case e.flags&flagStrParent != 0:
		return e.get(xParent)
	}
	return ""
}

// Timestamp is the entry's timestamp as written.
func (e *Entry) Timestamp() string {
	if e.flags&flagTS != 0 {
		return formatMillis(e.ts)
	}
	return e.get(xTimestamp)
}

// Time is the timestamp as a time, and whether it is one (RFC 3339): the
// same as parsing Timestamp, without making the string of every entry
// (validate reads the time of each: on 500,000 entries, 16 MB of strings
// made and parsed again).
func (e *Entry) Time() (time.Time, bool) {
	if e.flags&flagTS != 0 {
		return time.UnixMilli(e.ts).UTC(), true
	}
	ts, err := time.Parse(time.RFC3339Nano, e.get(xTimestamp))
	return ts, err == nil
}

// MsgID is message.id (the API message id of an assistant entry).
func (e *Entry) MsgID() string {
	if e.flags&flagMsgID != 0 {
		return e.str()
	}
	return e.get(xMsgID)
}

// TextHead is the first bytes of a user message's text, for turn detection.
func (e *Entry) TextHead() string {
	if e.flags&flagMsgID != 0 {
		return ""
	}
	if e.strn == 0 && e.x != nil {
		return e.get(xTextHead)
	}
	return e.str()
}

// key is how the graph finds an entry by uuid: the binary id, or for a
// uuid not in canonical form its string.
type key struct {
	id  ID
	str string
}

func (e *Entry) uuidKey() (key, bool) {
	switch {
	case e.flags&flagUUID != 0:
		return key{id: e.uuid}, true
	case e.flags&flagStrID != 0:
		return key{str: e.get(xUuid)}, true
	}
	return key{}, false
}

func (e *Entry) parentKey() (key, bool) {
	switch {
	case e.flags&flagParent != 0:
		return key{id: e.parent}, true
	case e.flags&flagStrParent != 0:
		return key{str: e.get(xParent)}, true
	}
	return key{}, false
}

// keyOf is the key of a uuid string.
func keyOf(s string) key {
	if id, ok := parseID(s); ok {
		return key{id: id}
	}
	return key{str: s}
}

func (e *Entry) setUUID(s string) {
	e.flags &^= flagUUID | flagStrID
	if e.x != nil {
		e.setX(xUuid, "")
	}
	if id, ok := parseID(s); ok {
		e.uuid, e.flags = id, e.flags|flagUUID
	} else if s != "" {
		e.setX(xUuid, strings.Clone(s))
		e.flags |= flagStrID
	}
}

func (e *Entry) setParent(s string) {
	e.flags &^= flagParent | flagStrParent
	if e.x != nil {
		e.setX(xParent, "")
	}
	if id, ok := parseID(s); ok {
		e.parent, e.flags = id, e.flags|flagParent
	} else if s != "" {
		e.setX(xParent, strings.Clone(s))
		e.flags |= flagStrParent
	}
}

// reparent gives a copy of an entry the parentUuid parent ("": null), as
// parsing its line with that value would (the extra fields are copied
// first: the entry's were its original's). A parent that is no uuid goes
// last among the extra fields, where parsing puts it in the line's order:
// they are looked up by name, never by place.
func (e *Entry) reparent(parent string) {
	if e.x != nil {
		x := *e.x
		x.f = slices.Clone(x.f)
		e.x = &x
	}
	e.setParent("")
	e.parent = ID{}
	e.setBit(bitHasParent, false)
	if parent != "" {
		e.setParent(parent)
		e.setBit(bitHasParent, true)
	}
	if e.x != nil && len(e.x.f) == 0 && e.x.blocks == nil {
		e.x = nil // as the loader leaves an entry without extra fields
	}
}

func (e *Entry) setTimestamp(s string) {
	e.flags &^= flagTS
	if e.x != nil {
		e.setX(xTimestamp, "")
	}
	if ms, ok := parseMillis(s); ok {
		e.ts, e.flags = ms, e.flags|flagTS
	} else if s != "" {
		e.setX(xTimestamp, strings.Clone(s))
	}
}

// msgState gathers message.id and the text head while a line is parsed
// (they share one field of the entry: an assistant entry has no text head).
type msgState struct {
	msgID, textHead string // views into the line
	// blocks gathers the content blocks: those of this line are
	// (*blocks)[base:]
	blocks *[]Block
	base   int
}

// store puts the gathered values into e, copied out of the line.
func (st *msgState) store(e *Entry) {
	switch n := len(*st.blocks) - st.base; {
	case n >= manyBlocks:
		if e.x == nil {
			e.x = &entryExtra{}
		}
		e.x.blocks = append([]Block(nil), (*st.blocks)[st.base:]...)
		*st.blocks = (*st.blocks)[:st.base]
		e.nblk = manyBlocks
	default:
		e.nblk = uint16(n)
	}
	e.flags &^= flagMsgID
	e.strp, e.strn = nil, 0
	e.setX(xTextHead, "")
	switch {
	case st.msgID != "" && st.textHead == "":
		if id := strings.Clone(st.msgID); e.setStr(id) {
			e.flags |= flagMsgID
		} else {
			e.setX(xMsgID, id)
		}
	case st.textHead != "":
		// prompts repeat (the same command, the same reminder): one copy
		if head := unique.Make(st.textHead).Value(); !e.setStr(head) {
			e.setX(xTextHead, head)
		}
		if st.msgID != "" {
			e.setX(xMsgID, strings.Clone(st.msgID))
		}
	}
}

// ParseErr says why a KindInvalid line is not an entry.
func (e *Entry) ParseErr() string { return e.get(xParseErr) }

// LogicalParentUUID is the last entry before a compaction, on its boundary.
func (e *Entry) LogicalParentUUID() string {
	return e.get(xLogicalParentUUID)
}

// AgentID names the subagent whose transcript holds the entry.
func (e *Entry) AgentID() string { return e.get(xAgentID) }

// HasToolIDs reports whether the entry has a top-level toolUseID or
// parentToolUseID field (a progress entry): File.ToolIDs reads them.
func (e *Entry) HasToolIDs() bool { return e.bit(bitToolIDs) }

// LeafUUID is the leafUuid of a summary or last-prompt entry.
func (e *Entry) LeafUUID() string { return e.get(xLeafUUID) }

// MessageID is the messageId of a file-history entry.
func (e *Entry) MessageID() string { return e.get(xMessageID) }

// ToolUseAgent is toolUseResult.agentId: links a Task/Agent result to its
// subagent transcript.
func (e *Entry) ToolUseAgent() string {
	return e.get(xToolUseAgent)
}

// PreservedHead, PreservedTail and PreservedAnchor: compact boundaries of
// 2.1.x keep a segment of the pre-compaction conversation; the entries from
// head to tail are sent after the anchor (the summary).
func (e *Entry) PreservedHead() string {
	return e.get(xPreservedHead)
}

// PreservedTail: see PreservedHead.
func (e *Entry) PreservedTail() string {
	return e.get(xPreservedTail)
}

// PreservedAnchor: see PreservedHead.
func (e *Entry) PreservedAnchor() string {
	return e.get(xPreservedAnchor)
}

// ByClient reports whether the entry is a message the client wrote on its
// own and sent as the user (2.1.x marks it: origin.kind other than
// "human", such as "task-notification" when a background task ends, or
// promptSource "system").
func (e *Entry) ByClient() bool { return e.flags&flagByClient != 0 }

// IsChain reports whether the entry takes part in the parentUuid chain.
func (e *Entry) IsChain() bool { return e.Kind == KindEntry && e.flags&(flagUUID|flagStrID) != 0 }

// MayBeSyntheticError reports whether the entry's line may be an error
// the client wrote in place of a response (IsSyntheticError): when it is
// false, IsSyntheticError of the line is false, and the line need not be
// read to know it. (Its first isApiErrorMessage field is true: the line
// still has to say it in those very bytes, IsSyntheticError decides.)
func (e *Entry) MayBeSyntheticError() bool { return e.flags&flagAPIError != 0 }

// IsMessage reports whether the entry is a user or assistant message.
func (e *Entry) IsMessage() bool {
	return e.Kind == KindEntry && (e.Type() == "user" || e.Type() == "assistant") && e.HasMessage()
}

// HasBlock reports whether the entry's content holds a block of kind k.
func (e *Entry) HasBlock(k BlockKind) bool {
	for _, b := range e.Blocks() {
		if b.Kind == k {
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
	for _, b := range e.Blocks() {
		if b.Kind == k {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

// IsToolResult reports whether the entry is a user message carrying tool results.
func (e *Entry) IsToolResult() bool {
	return e.Type() == "user" && e.HasBlock(BlockToolResult)
}

// TotalBytes is the size of the line including its terminator.
func (e *Entry) TotalBytes() int64 { return int64(e.Len) + int64(e.EOL) }

// b2s views bytes as a string without copying; the string must not outlive b.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

const textHeadLen = 160

// indexedFields are the top-level fields of an entry that parseEnvelopeTo
// reads (IndexedField).
var indexedFields = map[string]bool{
	"message": true, "toolUseResult": true, "compactMetadata": true, "type": true, "subtype": true,
	"uuid": true, "parentUuid": true, "logicalParentUuid": true, "sessionId": true, "timestamp": true,
	"agentId": true, "isSidechain": true, "isMeta": true, "isCompactSummary": true, "toolUseID": true,
	"parentToolUseID": true, "leafUuid": true, "messageId": true, "isApiErrorMessage": true,
}

// IndexedField reports whether the index reads the top-level field k of
// an entry (k as it is written between the quotes): a line whose other
// fields change, and stays JSON, has the same Entry but for its offset and
// length (TestIndexedFieldsAreAllTheIndexReads holds the list to the
// parser). A key written with an escape is taken as read.
func IndexedField(k string) bool { return indexedFields[k] || strings.IndexByte(k, '\\') >= 0 }

// parseEnvelopeTo fills e from the JSON object in line. It reports false when
// the line is not a JSON object (e may then hold some fields: the caller
// resets it). Validation and reading are one pass over the line: the
// fields of the envelope, the message and its blocks are read as the
// validator walks them, and everything else (content text, tool output)
// is validated and skipped, never decoded.
//
// The entry's content blocks are appended to *blocks and counted in
// e.nblk; the caller points e.blk at them where they come to stay (an
// entry with manyBlocks or more holds them in its extra fields instead).
func parseEnvelopeTo(e *Entry, line []byte, blocks *[]Block) bool {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	var mb [maskStack]uint64
	m, pooled := lineMasks(line, &mb)
	if pooled != nil {
		defer maskPool.Put(pooled)
	}
	str := func(raw string) string { return strings.Clone(strValue(raw)) }
	// values that repeat on every line share one copy
	common := func(raw string) string { return unique.Make(strValue(raw)).Value() }
	setName := func(t *nameTable, code *uint8, field xField, raw string) {
		v := strValue(raw)
		*code = uint8(t.code(v))
		if *code == nameInX8 {
			e.setX(field, strings.Clone(v))
		} else {
			e.setX(field, "")
		}
	}
	st := msgState{blocks: blocks, base: len(*blocks)}
	seenAPIError := false
	end := vFields(line, m, i, 0, func(k string, vs int) int {
		switch k {
		case "message":
			if line[vs] == '{' {
				e.setBit(bitHasMessage, true)
				return parseMessage(e, &st, line, m, vs)
			}
		case "toolUseResult":
			agent := false
			ve := vValue(line, m, vs, 1, func(k2 string, vs2 int) int {
				ve2 := vSkip(line, m, vs2, 2)
				if k2 == "agentId" && !agent && ve2 >= 0 {
					agent = true
					e.setX(xToolUseAgent, str(b2s(line[vs2:ve2])))
				}
				return ve2
			})
			e.ToolUseResult = int32(ve - vs)
			return ve
		case "compactMetadata":
			return vValue(line, m, vs, 1, func(k2 string, vs2 int) int {
				if k2 != "preservedSegment" {
					return vSkip(line, m, vs2, 2)
				}
				return vValue(line, m, vs2, 2, func(k3 string, vs3 int) int {
					ve3 := vSkip(line, m, vs3, 3)
					if ve3 < 0 {
						return ve3
					}
					switch v3 := b2s(line[vs3:ve3]); k3 {
					case "headUuid":
						e.setX(xPreservedHead, str(v3))
					case "tailUuid":
						e.setX(xPreservedTail, str(v3))
					case "anchorUuid":
						e.setX(xPreservedAnchor, str(v3))
					}
					return ve3
				})
			})
		}
		ve := vSkip(line, m, vs, 1)
		if ve < 0 {
			return ve
		}
		v := b2s(line[vs:ve])
		switch k {
		case "type":
			setName(types, &e.typ, xTyp, v)
		case "subtype":
			setName(subtypes, &e.subtype, xSubtype, v)
		case "uuid":
			e.setUUID(strValue(v))
		case "parentUuid":
			if v[0] == '"' {
				e.setParent(strValue(v))
				e.setBit(bitHasParent, true)
			}
		case "logicalParentUuid":
			e.setX(xLogicalParentUUID, str(v))
		case "sessionId":
			v := strValue(v)
			if e.session = sessions.code(v); e.session == nameInX {
				e.setX(xSession, strings.Clone(v))
			} else {
				e.setX(xSession, "")
			}
		case "timestamp":
			e.setTimestamp(strValue(v))
		case "agentId":
			e.setX(xAgentID, common(v))
		case "isSidechain":
			e.setBit(bitIsSidechain, isTrue(v))
		case "isMeta":
			e.setBit(bitIsMeta, isTrue(v))
		case "isCompactSummary":
			e.setBit(bitIsCompactSummary, isTrue(v))
		case "toolUseID", "parentToolUseID":
			// read from the line when asked for (File.ToolIDs): on a
			// session of many tool calls, every progress entry held two
			// strings and a list of extra fields, a fifth of the heap
			// the collector walked
			e.setBit(bitToolIDs, true)
		case "leafUuid":
			e.setX(xLeafUUID, str(v))
		case "messageId":
			e.setX(xMessageID, str(v))
		case "isApiErrorMessage":
			// the first one, read as IsSyntheticError reads it
			if !seenAPIError {
				seenAPIError = true
				if gjson.Parse(v).Bool() {
					e.flags |= flagAPIError
				}
			}
		case "promptSource":
			if strValue(v) == "system" {
				e.flags |= flagByClient
			}
		case "origin":
			if v[0] == '{' {
				if kind := firstField(v, "kind"); kind != "" && strValue(kind) != "human" {
					e.flags |= flagByClient
				}
			}
		}
		return ve
	})
	if end < 0 || skipWS(line, end) != len(line) {
		return false
	}
	if e.Type() == "assistant" {
		st.textHead = "" // only prompts are read by their head
	}
	st.store(e)
	return true
}

// parseMessage reads the message object at line[at] into e and returns
// the index after it (-1: not valid JSON).
func parseMessage(e *Entry, st *msgState, line []byte, m []uint64, at int) int {
	return vFields(line, m, at, 1, func(k string, vs int) int {
		if k == "content" && line[vs] == '[' {
			n := 0
			ve := vElems(line, m, vs, 2, func(bs int) int {
				n++
				blk, textRaw, be := parseBlock(line, m, bs)
				if be < 0 {
					return be
				}
				if blk.Kind == BlockText && st.textHead == "" && !blk.Empty {
					st.textHead = strHead(textRaw, textHeadLen)
				}
				*st.blocks = append(*st.blocks, blk)
				return be
			})
			e.setBit(bitContentEmpty, n == 0)
			return ve
		}
		ve := vSkip(line, m, vs, 2)
		if ve < 0 {
			return ve
		}
		v := b2s(line[vs:ve])
		switch k {
		case "role":
			v := strValue(v)
			if e.role = uint8(roles.code(v)); e.role == nameInX8 {
				e.setX(xRole, strings.Clone(v))
			} else if e.x != nil {
				e.setX(xRole, "")
			}
		case "id":
			st.msgID = strValue(v)
		case "content":
			if v[0] == '"' {
				e.setBit(bitStringContent, true)
				e.setBit(bitContentEmpty, v == `""`)
				st.textHead = strHead(v, textHeadLen)
				*st.blocks = append((*st.blocks)[:st.base], Block{Kind: BlockText, Empty: v == `""`, Size: int32(len(v))})
			}
		}
		return ve
	})
}

// parseBlock reads the envelope of the content block at line[at]; for a
// text block it also returns the raw text token. end is the index after
// the block (-1: not valid JSON).
func parseBlock(line []byte, m []uint64, at int) (blk Block, textRaw string, end int) {
	if line[at] != '{' {
		end = vSkip(line, m, at, 3)
		return Block{Size: int32(end - at)}, "", end
	}
	hasText := false
	end = vFields(line, m, at, 3, func(k string, vs int) int {
		if k == "content" && line[vs] == '[' {
			return vElems(line, m, vs, 4, func(cs int) int {
				seen := false // the first "type" of a nested block counts
				return vValue(line, m, cs, 5, func(k2 string, vs2 int) int {
					ve2 := vSkip(line, m, vs2, 6)
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
		ve := vSkip(line, m, vs, 4)
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
