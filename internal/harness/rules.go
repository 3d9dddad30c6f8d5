package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Rule names an API rule the mock enforces.
type Rule string

// Rules enforced by CheckRequest, with the real API's error messages.
const (
	RuleNoMessages        Rule = "no-messages"         // messages: at least one message is required
	RuleFirstNotUser      Rule = "first-not-user"      // first message must use the "user" role
	RuleAlternation       Rule = "alternation"         // roles must alternate
	RuleEmptyContent      Rule = "empty-content"       // non-empty content except optional final assistant message
	RuleEmptyText         Rule = "empty-text"          // text content blocks must be non-empty
	RuleMissingToolResult Rule = "missing-tool-result" // tool_use without tool_result immediately after
	RuleOrphanToolResult  Rule = "orphan-tool-result"  // tool_result without tool_use in previous message
	RuleDuplicateToolUse  Rule = "duplicate-tool-use"  // tool_use ids must be unique
	RuleThinkingSignature Rule = "thinking-signature"  // edited/unknown signed thinking block
	RuleBadRole           Rule = "bad-role"            // role other than user/assistant
	RuleMalformed         Rule = "malformed"           // body or message could not be decoded
	RuleToolResultInAsst  Rule = "tool-result-in-asst" // tool_result block in an assistant message
	RuleToolUseInUser     Rule = "tool-use-in-user"    // tool_use block in a user message
)

// Violation is one API-rule violation found in a request.
type Violation struct {
	Rule    Rule
	Index   int    // message index (-1 if not applicable)
	Message string // the error message the real API would return
}

func (v Violation) String() string { return fmt.Sprintf("%s: %s", v.Rule, v.Message) }

// SignatureChecker reports whether signature sig was issued for thinking text.
type SignatureChecker func(sig, thinking string) bool

type ruleMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type ruleBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Content   json.RawMessage `json:"content"`
}

// CheckRequest validates a Messages API request body against the rules the real API
// enforces on the conversation. checkSig may be nil (no signature check).
func CheckRequest(body []byte, checkSig SignatureChecker) []Violation {
	var req struct {
		Messages []ruleMsg `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return []Violation{{Rule: RuleMalformed, Index: -1, Message: "invalid JSON body: " + err.Error()}}
	}
	return checkMessages(req.Messages, checkSig)
}

func decodeBlocks(c json.RawMessage) (blocks []ruleBlock, isString bool, str string, err error) {
	c = json.RawMessage(strings.TrimSpace(string(c)))
	if len(c) == 0 || string(c) == "null" {
		return nil, false, "", nil
	}
	if c[0] == '"' {
		err = json.Unmarshal(c, &str)
		return nil, true, str, err
	}
	err = json.Unmarshal(c, &blocks)
	return blocks, false, "", err
}

// checkMessages validates decoded messages (see CheckRequest).
func checkMessages(msgs []ruleMsg, checkSig SignatureChecker) []Violation {
	var vs []Violation
	add := func(r Rule, i int, format string, args ...any) {
		vs = append(vs, Violation{Rule: r, Index: i, Message: fmt.Sprintf(format, args...)})
	}
	if len(msgs) == 0 {
		add(RuleNoMessages, -1, "messages: at least one message is required")
		return vs
	}
	// Role "system" messages (sent inline by 2.1.x clients, accepted by the API of its
	// time) are transparent for the role rules.
	prevRole := ""
	for i, m := range msgs {
		if m.Role == "system" {
			continue
		}
		if prevRole == "" && m.Role != "user" {
			add(RuleFirstNotUser, i, "messages: first message must use the \"user\" role")
		}
		if prevRole != "" && prevRole == m.Role {
			add(RuleAlternation, i, "messages: roles must alternate between \"user\" and \"assistant\", but found multiple %q roles in a row", m.Role)
		}
		prevRole = m.Role
	}
	decoded := make([][]ruleBlock, len(msgs))
	seenToolUse := map[string]bool{}
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" && m.Role != "system" {
			add(RuleBadRole, i, "messages.%d.role: Input should be 'user', 'assistant' or 'system'", i)
		}
		blocks, isStr, str, err := decodeBlocks(m.Content)
		if err != nil {
			add(RuleMalformed, i, "messages.%d.content: %v", i, err)
			continue
		}
		decoded[i] = blocks
		last := i == len(msgs)-1
		empty := (isStr && str == "") || (!isStr && len(blocks) == 0)
		// Empty inline "system" messages are sent by 2.1.328 after a compaction (attachment
		// entries that render to nothing) and accepted: only user/assistant are checked.
		if empty && m.Role != "system" && !(last && m.Role == "assistant") {
			add(RuleEmptyContent, i, "messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		if isStr && str != "" && strings.TrimSpace(str) == "" && !(last && m.Role == "assistant") {
			add(RuleEmptyText, i, "messages: text content blocks must contain non-whitespace text")
		}
		for j, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					add(RuleEmptyText, i, "messages.%d.content.%d.text: text content blocks must be non-empty", i, j)
				} else if strings.TrimSpace(*b.Text) == "" && !(last && m.Role == "assistant") {
					add(RuleEmptyText, i, "messages: text content blocks must contain non-whitespace text")
				}
			case "tool_use", "server_tool_use":
				if m.Role != "assistant" {
					add(RuleToolUseInUser, i, "messages.%d.content.%d: tool_use blocks can only be in assistant messages", i, j)
				}
				if seenToolUse[b.ID] {
					add(RuleDuplicateToolUse, i, "messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				seenToolUse[b.ID] = true
			case "tool_result":
				if m.Role != "user" {
					add(RuleToolResultInAsst, i, "messages.%d.content.%d: tool_result blocks can only be in user messages", i, j)
				}
			case "thinking":
				if checkSig != nil && !checkSig(b.Signature, b.Thinking) {
					add(RuleThinkingSignature, i, "messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
			}
		}
	}
	// tool_use <-> tool_result pairing between consecutive messages.
	for i, m := range msgs {
		if m.Role == "assistant" {
			var ids []string
			for _, b := range decoded[i] {
				if b.Type == "tool_use" {
					ids = append(ids, b.ID)
				}
			}
			if len(ids) == 0 {
				continue
			}
			have := map[string]bool{}
			if n := nextNonSystem(msgs, i, 1); n >= 0 && msgs[n].Role == "user" {
				for _, b := range decoded[n] {
					if b.Type == "tool_result" {
						have[b.ToolUseID] = true
					}
				}
			}
			var missing []string
			for _, id := range ids {
				if !have[id] {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				add(RuleMissingToolResult, i, "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
			}
		}
		if m.Role == "user" {
			prev := map[string]bool{}
			if p := nextNonSystem(msgs, i, -1); p >= 0 && msgs[p].Role == "assistant" {
				for _, b := range decoded[p] {
					if b.Type == "tool_use" {
						prev[b.ID] = true
					}
				}
			}
			var orphan []string
			for _, b := range decoded[i] {
				if b.Type == "tool_result" && !prev[b.ToolUseID] {
					orphan = append(orphan, b.ToolUseID)
				}
			}
			if len(orphan) > 0 {
				add(RuleOrphanToolResult, i, "messages.%d.content.0: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, strings.Join(orphan, ", "))
			}
		}
	}
	sort.SliceStable(vs, func(a, b int) bool { return vs[a].Index < vs[b].Index })
	return vs
}

func nextNonSystem(msgs []ruleMsg, i, dir int) int {
	for j := i + dir; j >= 0 && j < len(msgs); j += dir {
		if msgs[j].Role != "system" {
			return j
		}
	}
	return -1
}
