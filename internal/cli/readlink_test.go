package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloneSaysItReadsNoFolderThatIsALink: a plain clone reads the
// session's subagent transcripts from its folder down, following no
// link. A folder on the way that is a link (the session's <id>/ folder,
// or its subagents/, made a link to a folder elsewhere) is refused with
// words for a read — not those of a write ("never writes or deletes"),
// which the clone does not do there — naming the link and where it
// leads, and a hint that works as printed: the link replaced with a copy
// of the folder it names, the same clone goes through. Nothing of the
// refused clone is left. A member per folder.
func TestCloneSaysItReadsNoFolderThatIsALink(t *testing.T) {
	testlink.Need(t)
	for _, member := range []string{"<id>", "subagents"} {
		t.Run(member, func(t *testing.T) {
			cfg, path, id, link, elsewhere := linkedSessionFolder(t, member)
			before, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))

			out, errs, code := cliRun(t, "--config-dir", cfg, "clone", id)
			require.Equal(t, 1, code, "the clone went through a linked folder: %s%s", out, errs)
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			require.Len(t, lines, 2, "one line and a hint: %q", errs)
			assert.Equal(t, "ccsurgeon: "+link+" is a symlink (to "+elsewhere+"): ccsurgeon reads a session's files only through its own folders, never through a link", lines[0])
			assert.Equal(t, "ccsurgeon: hint: replace the link with a copy of the folder it names ("+elsewhere+"), and run the command again", lines[1])
			after, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
			assert.Equal(t, before, after, "the refused clone left files")

			// the hint, as printed
			require.NoError(t, os.Remove(link))
			require.NoError(t, os.CopyFS(link, os.DirFS(elsewhere)))
			out, errs, code = cliRun(t, "--config-dir", cfg, "clone", id)
			require.Equal(t, 0, code, "the clone after the hint: %s%s", out, errs)
		})
	}
}

// linkedSessionFolder installs a session with a subagent in a new config
// dir and makes its folder member ("<id>" or "subagents") a link to a
// folder elsewhere holding what it held.
func linkedSessionFolder(t *testing.T, member string) (cfg, path, id, link, elsewhere string) {
	t.Helper()
	cfg = filepath.Join(t.TempDir(), "cfg")
	path = installSession(t, cfg, "-work-p", filepath.Join("testdata", "sessions", "2.1.328", "subagent.jsonl"))
	id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	link = filepath.Join(filepath.Dir(path), id)
	if member == "subagents" {
		link = filepath.Join(link, "subagents")
	}
	elsewhere = filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.Rename(link, elsewhere))
	require.NoError(t, os.Symlink(elsewhere, link))
	return cfg, path, id, link, elsewhere
}
