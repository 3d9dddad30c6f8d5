package backup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 27 finding 1, at the writer: a session that was not named by its
// path is written only inside the config dir, whatever link leads out of
// it (a project folder that is a link to a folder elsewhere, here).
func TestWriteSafety1WriterRefusesFilesOutsideTheConfigDir(t *testing.T) {
	testlink.Need(t)
	e := newEnv(t)
	elsewhere := t.TempDir()
	main := filepath.Join(elsewhere, testSession+".jsonl")
	writeOld(t, main, "{\"n\":1}\n")
	link := filepath.Join(e.configDir, "projects", "-home-u-linked")
	require.NoError(t, os.Symlink(elsewhere, link))
	through := filepath.Join(link, testSession+".jsonl")
	plan := Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit", Force: true,
		Files: []FileWrite{{Path: through, Snapshot: snap(t, through), Render: str("new\n")}}}
	_, err := Apply(plan)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside the config dir")
	assert.Equal(t, "{\"n\":1}\n", readString(t, main))
	// named by its path on the command line: the user's choice
	plan.Named = true
	_, err = Apply(plan)
	require.NoError(t, err)
	assert.Equal(t, "new\n", readString(t, main))
}
