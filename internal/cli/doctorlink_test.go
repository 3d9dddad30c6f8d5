package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorThroughALinkedConfigDir: a config dir that is a link
// (~/.claude kept with the dotfiles) is one config dir. doctor SESSION
// resolves a path to the real file, then asked whether it is filed in a
// project folder by comparing strings with the config dir as named: a
// stranded session named by its path was not found stranded (nor due for
// the client's cleanup), and --fix left it. Every way of naming it finds
// it; the member that broke is named.
func TestDoctorThroughALinkedConfigDir(t *testing.T) {
	for _, named := range []string{"id", "path through the link", "real path"} {
		t.Run(named, func(t *testing.T) {
			root, real, link := linkedConfigDir(t)
			proj := filepath.Join(root, "work", "proj") // exists, filed under another folder
			require.NoError(t, os.MkdirAll(proj, 0o700))
			path, _ := installSessionOf(t, real, "-somewhere-else", proj)
			id := idOf(path)
			arg := map[string]string{"id": id,
				"path through the link": filepath.Join(link, "projects", "-somewhere-else", id+".jsonl"),
				"real path":             path}[named]
			stdout, errs, _ := cliRun(t, "--config-dir", link, "--json", "doctor", arg)
			assert.Contains(t, stdout, `"stranded"`, "a stranded session named by its %s: %s %s", named, stdout, errs)
		})
	}
}
