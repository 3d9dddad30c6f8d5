package chain

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/tidwall/gjson"
)

// Session is a session's main transcript with its sidecar files.
type Session struct {
	ID         string // session id: the file name without .jsonl
	Path       string // the main JSONL file
	ProjectDir string // the folder holding it
	Main       *File
	Subagents  []*Subagent
	// Links are the subagent transcripts of the session that are
	// symbolic links (SubagentFile.Link): listed, never read (their bytes
	// are another file's, perhaps outside the config dir). A reader names
	// them as not read; a change in place refuses them.
	Links []string
}

// Subagent is the transcript of a subagent (an Agent/Task call's own
// conversation, or a client-side helper agent such as prompt suggestion).
type Subagent struct {
	File      *File
	AgentID   string
	MetaPath  string // <id>/subagents/agent-<id>.meta.json, "" when absent
	ToolUseID string // the parent's Agent/Task tool_use id, "" when unknown
	Legacy    bool   // an older agent-*.jsonl beside the main file
	// ParentEntry is the main-file entry holding the Agent/Task tool_use,
	// -1 when none is found.
	ParentEntry int
}

// SidecarDir is the folder of the session's sidecar files
// (<project>/<session-id>/: subagents/, tool-results/).
func (s *Session) SidecarDir() string { return filepath.Join(s.ProjectDir, s.ID) }

// Load reads the session whose main transcript is at path, with its
// subagent transcripts. Close releases the files.
func Load(path string) (*Session, error) { return LoadWith(path, nil) }

// LoadWith is Load reporting the bytes read to progress (may be nil).
func LoadWith(path string, progress func(n int64)) (*Session, error) {
	main, err := LoadFileWith(path, progress)
	if err != nil {
		return nil, err
	}
	s := &Session{
		ID:         strings.TrimSuffix(filepath.Base(path), ".jsonl"),
		Path:       path,
		ProjectDir: filepath.Dir(path),
		Main:       main,
	}
	if err := s.loadSubagents(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes every file of the session.
func (s *Session) Close() {
	if s.Main != nil {
		s.Main.Close()
	}
	for _, a := range s.Subagents {
		a.File.Close()
	}
}

// Files returns the main file and every subagent file.
func (s *Session) Files() []*File {
	out := []*File{s.Main}
	for _, a := range s.Subagents {
		out = append(out, a.File)
	}
	return out
}

func (s *Session) loadSubagents() error {
	for _, sf := range SubagentFiles(s.Path) {
		if sf.Link {
			s.Links = append(s.Links, sf.Path)
			continue
		}
		a, err := s.loadSubagent(sf.Path, sf.Legacy)
		if err != nil {
			return err
		}
		if sf.MetaPath != "" {
			a.MetaPath = sf.MetaPath
			var m struct {
				ToolUseID string `json:"toolUseId"`
			}
			if json.Unmarshal(sf.meta, &m) == nil {
				a.ToolUseID = m.ToolUseID
			}
		}
		s.Subagents = append(s.Subagents, a)
	}
	s.linkSubagents()
	return nil
}

// SubagentFile is a subagent transcript of a session, found but not read.
type SubagentFile struct {
	Path     string
	MetaPath string // its meta.json, "" when absent
	Legacy   bool   // an older agent-*.jsonl beside the main file
	// Link: the name is a symbolic link (os.Lstat), whatever it points
	// to. It is listed so that a change refuses it and a reader names it,
	// and never read through.
	Link bool
	meta []byte
}

// SubagentFiles finds the subagent transcripts of the session whose main
// transcript is at path, in the order Load reads them: the one rule of
// which files are a session's subagents.
func SubagentFiles(path string) []SubagentFile {
	id, dir := strings.TrimSuffix(filepath.Base(path), ".jsonl"), filepath.Dir(path)
	var out []SubagentFile
	// 2.1.x: <session>/subagents/agent-*.jsonl with meta files; a folder
	// on the way that is a link is listed as one, never looked through
	var matches []string
	if link := linkedFolder(filepath.Join(dir, id), filepath.Join(dir, id, "subagents")); link != "" {
		out = append(out, SubagentFile{Path: link, Link: true})
	} else {
		matches = listdir.Matching(filepath.Join(dir, id, "subagents"), "agent-*.jsonl")
	}
	matches, links := regularOrLink(matches)
	sort.Strings(matches)
	for _, p := range matches {
		sf := SubagentFile{Path: p, Link: links[p]}
		if sf.Link {
			out = append(out, sf) // its meta file is not read either
			continue
		}
		meta := strings.TrimSuffix(p, ".jsonl") + ".meta.json"
		if b, err := ReadSideFile(meta); err == nil {
			sf.MetaPath, sf.meta = meta, b
		}
		out = append(out, sf)
	}
	// older clients: agent-*.jsonl beside the main file, carrying our sessionId
	if id != "" && !strings.HasPrefix(id, "agent-") {
		for _, p := range legacyAgentFiles(dir) {
			st, err := os.Lstat(p)
			if err != nil || st.Mode()&os.ModeSymlink == 0 && !st.Mode().IsRegular() {
				continue
			}
			if st.Mode()&os.ModeSymlink != 0 {
				// whose it is cannot be known without reading through
				// it: listed as this session's, so that nothing of the
				// session changes while it is there
				out = append(out, SubagentFile{Path: p, Legacy: true, Link: true})
				continue
			}
			if legacyOwnerIs(p, st, id) {
				out = append(out, SubagentFile{Path: p, Legacy: true})
			}
		}
	}
	return out
}

func (s *Session) loadSubagent(p string, legacy bool) (*Subagent, error) {
	f, err := LoadFile(p)
	if err != nil {
		return nil, err
	}
	f.Sidechain = true
	a := &Subagent{File: f, Legacy: legacy, ParentEntry: -1}
	a.AgentID = strings.TrimPrefix(strings.TrimSuffix(filepath.Base(p), ".jsonl"), "agent-")
	for i := range f.Entries {
		if id := f.Entries[i].AgentID(); id != "" {
			a.AgentID = id
			break
		}
	}
	return a, nil
}

// linkSubagents finds the main-file entry of each subagent's Agent/Task call.
func (s *Session) linkSubagents() {
	if len(s.Subagents) == 0 {
		// nothing to link: the maps of every tool call of the main
		// transcript were made for nothing (18 ms on the main goroutine
		// after the load of a session of 45,000 tool calls)
		return
	}
	toolUse := map[string]int{}    // tool_use id -> entry
	byAgent := map[string]string{} // agentId -> tool_use id, from toolUseResult
	for i := range s.Main.Entries {
		e := &s.Main.Entries[i]
		for _, b := range e.Blocks() {
			if b.Kind == BlockToolUse {
				toolUse[b.ID] = i
			}
		}
		if e.ToolUseAgent() != "" {
			if ids := e.ToolResultIDs(); len(ids) > 0 {
				byAgent[e.ToolUseAgent()] = ids[0]
			}
		}
	}
	for _, a := range s.Subagents {
		if a.ToolUseID == "" {
			a.ToolUseID = byAgent[a.AgentID]
		}
		if i, ok := toolUse[a.ToolUseID]; ok && a.ToolUseID != "" {
			a.ParentEntry = i
		}
	}
}

// regularOrLink keeps the paths that are regular files or symbolic links
// (os.Lstat: a link is never followed), and says which are links: a FIFO
// or a device among the sidecars would block whoever reads it, a link's
// bytes are another file's.
// linkedFolder returns the first of dirs that is a symbolic link, "" when
// none is.
func linkedFolder(dirs ...string) string {
	for _, d := range dirs {
		if st, err := os.Lstat(d); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return d
		}
	}
	return ""
}

func regularOrLink(paths []string) (out []string, links map[string]bool) {
	out = paths[:0]
	for _, p := range paths {
		st, err := os.Lstat(p)
		switch {
		case err != nil:
		case st.Mode()&os.ModeSymlink != 0:
			if links == nil {
				links = map[string]bool{}
			}
			links[p] = true
			out = append(out, p)
		case st.Mode().IsRegular():
			out = append(out, p)
		}
	}
	return out, links
}

// SessionIDIs reports whether the first entry of the file at p (a regular
// file) that has a sessionId names id: a copy of session id, not another
// session's transcript.
func SessionIDIs(p, id string) bool { return firstSessionIDIs(p, id) }

// IsSubagentTranscript reports whether the first entry of the file at p
// (a regular file) that has a sessionId is a subagent's (isSidechain or
// an agentId): a subagent transcript, or a copy of one, carries the
// sessionId of its session but is not its main transcript.
func IsSubagentTranscript(p string) bool {
	fh, err := openShared(p)
	if err != nil {
		return false
	}
	defer fh.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(fh, buf)
	for _, line := range bytes.Split(buf[:n], []byte("\n")) {
		if !gjson.ValidBytes(line) {
			continue
		}
		r := gjson.GetManyBytes(line, "sessionId", "isSidechain", "agentId")
		if !r[0].Exists() {
			continue
		}
		return r[1].Bool() || r[2].String() != ""
	}
	return false
}

// legacyHeads remembers, per legacy agent file (agent-*.jsonl beside the
// sessions, 2.0.x), the session ids its head names: whose each one is can
// only be read in it, and SubagentFiles asks for every session, so a batch
// over a project of 300 sessions and 1,500 agent files opened 450,000
// files. An entry stands while the file is the same (inode, size,
// modification time); a file modified in the last seconds is not
// remembered (git's racy-clean rule: a change within the clock's
// resolution would not show in its time).
var legacyHeads sync.Map // path -> legacyHead

type legacyHead struct {
	fi  os.FileInfo
	ids []string
}

// sameAsRemembered reports whether st (a Stat or Lstat now) is the file
// or folder was (when remembered): the same inode, size and modification
// time. A folder's time changes with every name added, removed or renamed.
func sameAsRemembered(was, st os.FileInfo) bool {
	return os.SameFile(was, st) && was.Size() == st.Size() && was.ModTime().Equal(st.ModTime())
}

// settled reports whether what st describes may be remembered: not
// modified in the last seconds (git's racy-clean rule: a change within the
// clock's resolution would not show in its time).
func settled(st os.FileInfo) bool { return time.Since(st.ModTime()) > 3*time.Second }

// legacyLists remembers, per project folder, its legacy agent files
// (agent-*.jsonl, 2.0.x): SubagentFiles asks for every session, and
// listing the whole folder each time made a batch over a project of n
// sessions read n folders of n names (info --all on 4,000 sessions: 9.1 s
// of CPU, 0.75 s on 1,000). An entry stands while the folder is the same
// (inode, modification time: adding, removing or renaming a name changes
// it); a folder modified in the last seconds is not remembered (git's
// racy-clean rule, as legacyHeads).
var legacyLists sync.Map // folder -> legacyList

type legacyList struct {
	fi    os.FileInfo
	paths []string
}

// legacyListings counts the project folders listed for legacy agent files (tests).
var legacyListings atomic.Int64

// legacyAgentFiles is the sorted paths of the agent-*.jsonl files in the
// folder dir, remembered (legacyLists).
func legacyAgentFiles(dir string) []string {
	st, err := os.Stat(dir)
	if err == nil {
		if v, ok := legacyLists.Load(dir); ok {
			l := v.(legacyList)
			if sameAsRemembered(l.fi, st) {
				return l.paths
			}
		}
	}
	legacyListings.Add(1)
	paths := listdir.Matching(dir, "agent-*.jsonl") // sorted
	if err == nil && settled(st) {
		legacyLists.Store(dir, legacyList{st, paths})
	}
	return paths
}

// headReads counts the heads legacyOwnerIs read (tests).
var headReads atomic.Int64

// legacyOwnerIs is firstSessionIDIs(p, id) for a legacy agent file, a
// regular file whose Lstat is st, remembered (legacyHeads).
func legacyOwnerIs(p string, st os.FileInfo, id string) bool {
	if strings.ContainsAny(id, `"\\`) {
		return firstSessionIDIs(p, id)
	}
	if v, ok := legacyHeads.Load(p); ok {
		h := v.(legacyHead)
		if sameAsRemembered(h.fi, st) {
			return slices.Contains(h.ids, id)
		}
	}
	fh, err := openShared(p)
	if err != nil {
		return false
	}
	defer fh.Close()
	headReads.Add(1)
	buf := make([]byte, 64<<10)
	n, _ := fh.Read(buf)
	// the ids that firstSessionIDIs's test would find: each "sessionId":"
	// followed by a value and its closing quote
	var ids []string
	const key = `"sessionId":"`
	for rest := string(buf[:n]); ; {
		k := strings.Index(rest, key)
		if k < 0 {
			break
		}
		rest = rest[k+len(key):]
		e := strings.IndexByte(rest, '"')
		if e < 0 {
			break
		}
		if v := rest[:e]; !slices.Contains(ids, v) {
			ids = append(ids, strings.Clone(v))
		}
	}
	if settled(st) {
		legacyHeads.Store(p, legacyHead{st, ids})
	}
	return slices.Contains(ids, id)
}

// firstSessionIDIs reports whether the first entry of the file at p with a
// sessionId names id.
func firstSessionIDIs(p, id string) bool {
	fh, err := openShared(p)
	if err != nil {
		return false
	}
	defer fh.Close()
	buf := make([]byte, 64<<10)
	n, _ := fh.Read(buf)
	return strings.Contains(string(buf[:n]), `"sessionId":"`+id+`"`)
}

// SessionID is the id of the session f is the transcript of, as the
// client knows it: the file's name when that is a session id (the client
// names each transcript by its id), else (a copy named otherwise, such as
// orig.jsonl) the sessionId its entries record (RecordedSessionID), else
// the file's name.
func (f *File) SessionID() string {
	stem := strings.TrimSuffix(filepath.Base(f.Path), ".jsonl")
	if IsUUID(stem) {
		return stem
	}
	if id := f.RecordedSessionID(); id != "" {
		return id
	}
	return stem
}

// RecordedSessionID is the sessionId of the first entry of f that has
// one ("" when none has).
func (f *File) RecordedSessionID() string {
	for i := range f.Entries {
		if id := f.Entries[i].SessionID(); id != "" {
			return id
		}
	}
	return ""
}
