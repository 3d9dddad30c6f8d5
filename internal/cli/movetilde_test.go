package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoveToAPathTheShellLeftAsTyped: the shell expands '~' only at the
// start of a word, so `move ID --to=~/src/new` (or a quoted '~/src/new')
// hands ccsurgeon the two characters "~/", and the session moved to the
// project of "<current folder>/~/src/new", a folder no client runs in (a
// note said it did not exist yet). A --to whose first element starts with
// '~' and is no folder here is refused, nothing changed, with the way to
// write it; one that is a folder here (a folder really named '~') is
// taken as it is. The member that broke is named.
func TestMoveToAPathTheShellLeftAsTyped(t *testing.T) {
	for _, c := range []struct {
		to     string
		folder string // made in the current folder first ("" none)
		ok     bool
	}{
		{"~/src/new", "", false},
		{"~", "", false},
		{"~ana/src/new", "", false},
		{"~/src/new", "~", true},
	} {
		t.Run(c.to+" "+c.folder, func(t *testing.T) {
			cfg := t.TempDir()
			path, b := installSessionOf(t, cfg, "-work-proj", "/work/proj")
			here := t.TempDir()
			t.Chdir(here)
			if c.folder != "" {
				require.NoError(t, os.Mkdir(filepath.Join(here, c.folder), 0o700))
			}
			_, errs, code := cliRun(t, "--config-dir", cfg, "move", idOf(path), "--to="+c.to)
			if c.ok {
				require.Equal(t, 0, code, "--to=%s with a folder %q here: %s", c.to, c.folder, errs)
				return
			}
			require.NotEqual(t, 0, code, "--to=%s moved the session to a project of the current folder", c.to)
			assert.Contains(t, errs, "'~'", "--to=%s", c.to)
			assert.Contains(t, errs, "hint:", "--to=%s", c.to)
			after, err := os.ReadFile(path)
			require.NoError(t, err, "--to=%s", c.to)
			assert.True(t, bytes.Equal(b, after), "--to=%s changed the session", c.to)
		})
	}
}
