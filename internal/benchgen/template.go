package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// TemplateNames are the sessions of testdata/sessions/2.1.328 the
// generator repeats. compact.jsonl is left out: a big session is not
// expected to hold one compaction per 150 KB.
var TemplateNames = []string{"tools", "multi-turn", "parallel-tools", "subagent", "secrets", "thinking-tool-loop"}

// slot kinds: byte ranges of a template line rewritten in every copy.
// A new value always has the length of the old one, so slots are
// overwritten in place.
const (
	slotUUID    uint8 = iota // a UUID-shaped string value outside message
	slotTool                 // a toolu_ id (anywhere)
	slotMsg                  // a msg_ id (anywhere)
	slotSession              // the template's session id (anywhere outside message)
	slotAgent                // a subagent id (anywhere in the line)
	slotTime                 // a "timestamp" value outside message
)

type slot struct {
	off  int
	kind uint8
	old  string
}

type tline struct {
	raw      []byte
	slots    []slot
	root     bool   // the first parentUuid:null chain entry of the main file
	bash     bool   // a successful Bash tool_result with toolUseResult.stdout
	read     bool   // a Read tool_result with toolUseResult.file.content
	prompt   bool   // a prompt a person typed: a user entry whose content is a string
	thinking []int  // indices of thinking blocks in message.content
	uuid     string // the entry's uuid (old)
}

type tfile struct {
	name    string // file name (sidecar: agent-<id>.jsonl)
	lines   []*tline
	meta    []byte // sidecar .meta.json
	agentID string
}

type template struct {
	name      string
	sessionID string
	main      *tfile
	subagents []*tfile
	toolRes   []string // tool-results/ sidecar files (paths)
	t0, t1    time.Time
	lastChain string // uuid of the last chain entry in file order
	bulk      bool   // may get bulk (secrets.jsonl keeps its planted outputs)
}

var (
	tplMu    sync.Mutex
	tplCache = map[string][]*template{}
)

// DefaultTemplateDir finds testdata/sessions/2.1.328 of this module: from
// the source location of this package, else by walking up from the
// working directory to go.mod.
func DefaultTemplateDir() (string, error) {
	rel := filepath.Join("testdata", "sessions", "2.1.328")
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Join(filepath.Dir(file), "..", "..", rel)
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return filepath.Clean(d), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(d, rel)
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p, nil
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("cannot find %s: pass the template folder", rel)
}

func loadTemplates(dir string) ([]*template, error) {
	tplMu.Lock()
	defer tplMu.Unlock()
	if t, ok := tplCache[dir]; ok {
		return t, nil
	}
	var out []*template
	for _, name := range TemplateNames {
		t, err := loadTemplate(dir, name)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	tplCache[dir] = out
	return out, nil
}

func readLines(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	for len(b) > 0 {
		i := indexByte(b, '\n')
		if i < 0 {
			lines = append(lines, b)
			break
		}
		if i > 0 {
			lines = append(lines, b[:i])
		}
		b = b[i+1:]
	}
	return lines, nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func loadTemplate(dir, name string) (*template, error) {
	t := &template{name: name, bulk: name != "secrets"}
	lines, err := readLines(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if sid := gjson.GetBytes(l, "sessionId").Str; sid != "" {
			t.sessionID = sid
			break
		}
	}
	if len(t.sessionID) != 36 {
		return nil, fmt.Errorf("%s: no 36-character sessionId", name)
	}
	// sidecars: subagent transcripts and tool-results
	side := filepath.Join(dir, name)
	agents := listdir.Matching(filepath.Join(side, "subagents"), "agent-*.jsonl")
	sort.Strings(agents)
	var agentIDs []string
	for _, p := range agents {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "agent-"), ".jsonl")
		agentIDs = append(agentIDs, id)
	}
	t.toolRes = listdir.Matching(filepath.Join(side, "tool-results"), "*")
	sort.Strings(t.toolRes)

	t.main = &tfile{name: name + ".jsonl"}
	if err := t.scanFile(t.main, lines, agentIDs, true); err != nil {
		return nil, err
	}
	for i, p := range agents {
		al, err := readLines(p)
		if err != nil {
			return nil, err
		}
		f := &tfile{name: filepath.Base(p), agentID: agentIDs[i]}
		if err := t.scanFile(f, al, agentIDs, false); err != nil {
			return nil, err
		}
		if m, err := os.ReadFile(strings.TrimSuffix(p, ".jsonl") + ".meta.json"); err == nil {
			f.meta = m
		}
		t.subagents = append(t.subagents, f)
	}
	return t, nil
}

// scanFile records the slots of every line and, for the main file, the
// tool results and thinking blocks that can take bulk.
func (t *template) scanFile(f *tfile, lines [][]byte, agentIDs []string, isMain bool) error {
	toolNames := map[string]string{}
	rootSeen := false
	for _, raw := range lines {
		l := &tline{raw: raw}
		s := unsafe.String(unsafe.SliceData(raw), len(raw))
		if !gjson.Valid(s) {
			return fmt.Errorf("%s: a line is not valid JSON", f.name)
		}
		root := gjson.Parse(s)
		l.slots = append(l.slots, substrSlots(s, t.sessionID, slotSession)...)
		for _, a := range agentIDs {
			l.slots = append(l.slots, substrSlots(s, a, slotAgent)...)
		}
		walk(s, root, "", false, 0, t.sessionID, &l.slots)
		l.slots = dedupe(l.slots)

		l.uuid = root.Get("uuid").Str
		if ts := root.Get("timestamp").Str; ts != "" {
			if tm, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				if t.t0.IsZero() || tm.Before(t.t0) {
					t.t0 = tm
				}
				if tm.After(t.t1) {
					t.t1 = tm
				}
			}
		}
		if isMain && l.uuid != "" {
			t.lastChain = l.uuid
			p := root.Get("parentUuid")
			if !rootSeen && (!p.Exists() || p.Type == gjson.Null) && root.Get("subtype").Str != "compact_boundary" {
				l.root, rootSeen = true, true
			}
		}
		if isMain {
			content := root.Get("message.content")
			if root.Get("type").Str == "user" && content.Type == gjson.String && !root.Get("isMeta").Bool() && !strings.HasPrefix(content.Str, "<") {
				l.prompt = true
			}
			if content.IsArray() {
				idx := 0
				content.ForEach(func(_, b gjson.Result) bool {
					switch b.Get("type").Str {
					case "tool_use":
						toolNames[b.Get("id").Str] = b.Get("name").Str
					case "thinking":
						if root.Get("type").Str == "assistant" {
							l.thinking = append(l.thinking, idx)
						}
					}
					idx++
					return true
				})
				first := content.Get("0")
				tur := root.Get("toolUseResult")
				if idx == 1 && first.Get("type").Str == "tool_result" && first.Get("content").Type == gjson.String && !first.Get("is_error").Bool() {
					switch toolNames[first.Get("tool_use_id").Str] {
					case "Bash":
						l.bash = tur.Get("stdout").Type == gjson.String
					case "Read":
						l.read = tur.Get("type").Str == "text" && tur.Get("file.content").Type == gjson.String
					}
				}
			}
		}
		f.lines = append(f.lines, l)
	}
	if isMain && !rootSeen {
		return fmt.Errorf("%s: no root entry", f.name)
	}
	return nil
}

func substrSlots(s, sub string, kind uint8) []slot {
	var out []slot
	for from := 0; ; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return out
		}
		out = append(out, slot{off: from + i, kind: kind, old: sub})
		from += i + len(sub)
	}
}

// walk records the id and timestamp slots of the value v of line s.
func walk(s string, v gjson.Result, key string, inMsg bool, depth int, sessionID string, out *[]slot) {
	switch {
	case v.IsObject():
		v.ForEach(func(k, c gjson.Result) bool {
			walk(s, c, k.Str, inMsg || (depth == 0 && k.Str == "message"), depth+1, sessionID, out)
			return true
		})
	case v.IsArray():
		v.ForEach(func(_, c gjson.Result) bool {
			walk(s, c, key, inMsg, depth+1, sessionID, out)
			return true
		})
	case v.Type == gjson.String:
		str := v.Str
		if len(v.Raw) != len(str)+2 { // escaped: not an id
			return
		}
		off := int(uintptr(unsafe.Pointer(unsafe.StringData(v.Raw)))-uintptr(unsafe.Pointer(unsafe.StringData(s)))) + 1
		if off <= 0 || off+len(str) > len(s) || s[off:off+len(str)] != str {
			return
		}
		switch {
		case strings.HasPrefix(str, "toolu_") && isIDTail(str[6:]):
			*out = append(*out, slot{off: off, kind: slotTool, old: str})
		case strings.HasPrefix(str, "msg_") && isIDTail(str[4:]):
			*out = append(*out, slot{off: off, kind: slotMsg, old: str})
		case inMsg:
		case str == sessionID:
			// covered by the session substring slots
		case isUUID(str):
			*out = append(*out, slot{off: off, kind: slotUUID, old: str})
		case key == "timestamp" && len(str) == 24:
			if _, err := time.Parse(time.RFC3339Nano, str); err == nil {
				*out = append(*out, slot{off: off, kind: slotTime, old: str})
			}
		}
	}
}

func isIDTail(s string) bool {
	if len(s) < 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// isUUID: an id as the client writes it (chain.IsUUID, lowercase only).
func isUUID(s string) bool { return chain.IsUUID(s) && strings.ToLower(s) == s }

// dedupe sorts slots by offset and drops any that overlaps an earlier one.
func dedupe(ss []slot) []slot {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].off < ss[j].off })
	out := ss[:0]
	end := -1
	for _, x := range ss {
		if x.off < end {
			continue
		}
		out = append(out, x)
		end = x.off + len(x.old)
	}
	return out
}
