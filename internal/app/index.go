package app

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// enterInIndex adds a new session to the project's sessions-index.json,
// which the resume picker of some 2.1.x clients reads. Where the file does
// not exist nothing is written. The new entry copies the original's (first
// prompt, message count, branch) with the new id, path and times.
func enterInIndex(from string, firstPrompt func() (string, bool), dir, newID, newPath string) error {
	idx := filepath.Join(dir, "sessions-index.json")
	b, err := chain.ReadSideFile(idx)
	if err != nil {
		return nil // no index: nothing to keep in step
	}
	if !gjson.ValidBytes(b) || !gjson.GetBytes(b, "entries").IsArray() {
		return nil // not a format we know: leave it alone
	}
	entry := []byte(`{}`)
	gjson.GetBytes(b, "entries").ForEach(func(_, e gjson.Result) bool {
		if e.Get("sessionId").Str == from {
			entry = []byte(e.Raw)
			return false
		}
		return true
	})
	st, err := os.Stat(newPath)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	for _, kv := range []struct {
		k string
		v any
	}{{"sessionId", newID}, {"fullPath", newPath}, {"fileMtime", st.ModTime().UnixMilli()}, {"created", now}, {"modified", now}} {
		if entry, err = sjson.SetBytes(entry, kv.k, kv.v); err != nil {
			return err
		}
	}
	if !gjson.GetBytes(entry, "projectPath").Exists() {
		if op := gjson.GetBytes(b, "originalPath"); op.Type == gjson.String {
			entry, _ = sjson.SetBytes(entry, "projectPath", op.Str)
		}
	}
	if !gjson.GetBytes(entry, "firstPrompt").Exists() {
		if p, ok := firstPrompt(); ok {
			entry, _ = sjson.SetBytes(entry, "firstPrompt", p)
		}
	}
	if !gjson.GetBytes(entry, "isSidechain").Exists() {
		entry, _ = sjson.SetBytes(entry, "isSidechain", false)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, entry, "    ", "  ") == nil {
		entry = pretty.Bytes()
	}
	out, err := sjson.SetRawBytes(b, "entries.-1", entry)
	if err != nil {
		return err
	}
	return backup.WriteFileAtomic(idx, 0o600, func(w io.Writer) error { _, err := w.Write(out); return err })
}

// firstPrompt is the text of the first prompt of f's resumed branch.
func firstPrompt(f *chain.File) (string, bool) {
	if ts := f.ActiveTurns(); len(ts.List) > 0 {
		if p, err := f.PromptText(ts.List[0].Entry); err == nil {
			return p, true
		}
	}
	return "", false
}
