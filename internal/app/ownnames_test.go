package app

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewSessionCopiesNoBookkeepingName: a name ccsurgeon makes for its
// own bookkeeping (a new session's mark .ccsurgeon-incomplete and list
// .<id>.jsonl.ccsurgeon-files, a temp file .<name>.ccsurgeon-tmp-*, a
// move's temp .<name>.ccsurgeon-move-*) planted in a session's
// file-history/<id>/ or tool-results/ — by an accident or an attacker — is
// not the session's content: a clone as a new session (and a share folder
// -o DIR/) leaves it out with a warning naming it, copies the rest, and
// the new session carries no such name. A member per name, place and
// writer.
func TestNewSessionCopiesNoBookkeepingName(t *testing.T) {
	names := map[string]func(id string) string{
		"mark":      func(string) string { return ".ccsurgeon-incomplete" },
		"list":      func(id string) string { return "." + id + ".jsonl.ccsurgeon-files" },
		"temp":      func(string) string { return ".a@v1.ccsurgeon-tmp-123456" },
		"move-temp": func(string) string { return ".a@v1.ccsurgeon-move-0123456789ab" },
	}
	for _, name := range []string{"mark", "list", "temp", "move-temp"} {
		for _, place := range []string{"file-history", "tool-results"} {
			for _, writer := range []string{"clone", "share-folder"} {
				if writer == "share-folder" && place == "file-history" {
					continue // a share folder has no file-history
				}
				t.Run(name+"/"+place+"/"+writer, func(t *testing.T) {
					e := newMoveEnv(t, "tools", "old")
					dir := filepath.Join(e.cfg, "file-history", e.id)
					if place == "tool-results" {
						dir = filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), e.id, "tool-results")
					}
					require.NoError(t, os.MkdirAll(dir, 0o700))
					require.NoError(t, os.WriteFile(filepath.Join(dir, "a@v1"), []byte("the user's file\n"), 0o600))
					planted := filepath.Join(dir, names[name](e.id))
					// not a mark ccsurgeon wrote (the sweep leaves it where it is)
					require.NoError(t, os.WriteFile(planted, []byte("planted\n"), 0o600))
					var errb bytes.Buffer
					env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true, JSON: true}
					d := Dest{New: true}
					share := filepath.Join(e.root, "share")
					if writer == "share-folder" {
						d = Dest{Output: share + string(filepath.Separator)}
					}
					var out bytes.Buffer
					env.Out = &out
					err := env.RunClone(e.id, BranchOptions{}, d)
					require.NoError(t, err, "the clone failed on a planted %s: %s", names[name](e.id), errb.String())
					assert.Contains(t, errb.String(), "not copied: "+planted, "no warning names the file left out")
					assert.FileExists(t, planted, "the session's own folder keeps what was planted there")
					roots := []string{e.cfg}
					if writer == "share-folder" {
						roots = []string{share}
					}
					copied := false
					for _, root := range roots {
						for p, s := range tree(t, root) {
							if filepath.Join(root, p) == planted {
								continue
							}
							if strings.Contains(filepath.Base(p), ".ccsurgeon-") && !strings.Contains(p, "ccsurgeon"+string(filepath.Separator)) {
								t.Errorf("the new session carries %s", filepath.Join(root, p))
							}
							if s == "the user's file\n" && filepath.Join(root, p) != filepath.Join(dir, "a@v1") {
								copied = true
							}
						}
					}
					assert.True(t, copied, "the folder's other file was not copied")
				})
			}
		}
	}
}
