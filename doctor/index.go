package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// checkIndex compares a project folder's sessions-index.json (written by
// 2.1.12–2.1.29) with the sessions of the folder. The picker of those
// versions treats it as a cache (cli.js of 2.1.29): it lists the union of
// the index's ids and the folder's files, skips an id whose file is gone
// and reads a file that the index misses (or that is newer than its
// entry) itself. So neither finding costs the user anything: they are
// named, not fixed (NeedsAttention false), and removing an entry would
// drop what the client wrote (its summary) for no gain. 2.0.50, 2.1.38 and
// 2.1.332 do not read the file at all.
func checkIndex(dir string) []Finding {
	idx := filepath.Join(dir, "sessions-index.json")
	b, err := chain.ReadSideFile(idx)
	if err != nil {
		return nil
	}
	var doc struct {
		Version int `json:"version"`
		Entries []struct {
			SessionID string `json:"sessionId"`
			FullPath  string `json:"fullPath"`
		} `json:"entries"`
	}
	if json.Unmarshal(b, &doc) != nil || doc.Version != 1 {
		return nil // not a form the client reads either
	}
	var out []Finding
	indexed := map[string]bool{}
	for _, e := range doc.Entries {
		indexed[e.SessionID] = true
		p := e.FullPath
		if p == "" {
			p = filepath.Join(dir, e.SessionID+".jsonl")
		}
		if _, err := os.Stat(p); err != nil {
			out = append(out, Finding{Kind: IndexMissingFile, SessionID: e.SessionID, Path: p, Index: idx, Fix: Fix{Kind: FixNone}})
		}
	}
	for _, p := range chain.SessionsIn(dir) {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		if !indexed[id] {
			out = append(out, Finding{Kind: IndexMissingSession, SessionID: id, Path: p, Index: idx, Fix: Fix{Kind: FixNone}})
		}
	}
	return out
}

// clientProjects lists the project paths the client has been started in:
// the keys of "projects" in its global config (.claude.json in the config
// dir, or beside it for the default ~/.claude) and the "project" of each
// prompt in history.jsonl.
func clientProjects(configDir string) []string {
	var out []string
	for _, p := range []string{filepath.Join(configDir, ".claude.json"), filepath.Join(filepath.Dir(configDir), ".claude.json")} {
		b, err := chain.ReadSideFile(p)
		if err != nil {
			continue
		}
		var cfg struct {
			Projects map[string]json.RawMessage `json:"projects"`
		}
		if json.Unmarshal(b, &cfg) == nil {
			for k := range cfg.Projects {
				out = append(out, k)
			}
		}
	}
	// history.jsonl grows with every prompt: read a line at a time
	if fh, _, err := chain.OpenSideFile(filepath.Join(configDir, "history.jsonl")); err == nil {
		defer fh.Close()
		_ = chain.EachLine(fh, chain.MaxSideFile, func(line []byte) {
			var h struct {
				Project string `json:"project"`
			}
			if json.Unmarshal(line, &h) == nil && h.Project != "" {
				out = append(out, h.Project)
			}
		})
	}
	return out
}

// maxCandidates is how many guesses a ProjectGone finding names.
const maxCandidates = 5

// candidates guesses where a project whose folder is gone went: existing
// folders the client knows (known) with the same name (moved) or in the
// same parent folder (renamed), sorted.
func candidates(gone string, known []string) []string {
	seen := map[string]bool{}
	var out []string
	base, parent := filepath.Base(gone), filepath.Dir(gone)
	for _, k := range known {
		k = filepath.Clean(k)
		if seen[k] || k == gone {
			continue
		}
		seen[k] = true
		if !strings.EqualFold(filepath.Base(k), base) && filepath.Dir(k) != parent {
			continue
		}
		if st, err := os.Stat(k); err == nil && st.IsDir() {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if len(out) > maxCandidates {
		out = out[:maxCandidates]
	}
	return out
}
