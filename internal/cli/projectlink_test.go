package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProjectFolderNamedThroughALinkedConfigDir: --project takes a
// project folder by its path (what 'ls ~/.claude/projects' shows). Where
// the config dir is a link (~/.claude kept with the dotfiles), the
// folder's real path (what 'pwd -P' or a tab completion through the
// dotfiles gives) was compared as a string with the config dir as named:
// "no sessions of project". Each of the folder's paths names it, for each
// command that takes --project; the member that broke is named.
func TestProjectFolderNamedThroughALinkedConfigDir(t *testing.T) {
	_, real, link := linkedConfigDir(t)
	path, _ := installSessionOf(t, real, "-work-proj", "/work/proj")
	id := idOf(path)
	for _, named := range []string{"path through the link", "real path"} {
		folder := map[string]string{"path through the link": filepath.Join(link, "projects", "-work-proj"),
			"real path": filepath.Dir(path)}[named]
		for _, cmd := range []string{"ls", "info", "validate"} {
			t.Run(cmd+" "+named, func(t *testing.T) {
				stdout, errs, code := cliRun(t, "--config-dir", link, cmd, "--project", folder)
				require.Equal(t, 0, code, "%s --project <the folder's %s>: %s", cmd, named, errs)
				assert.Contains(t, stdout+errs, id[:8], "%s --project <the folder's %s>", cmd, named)
			})
		}
	}
}
