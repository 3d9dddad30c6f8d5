package chain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASessionIdIsFoundWithoutListingItsFolder: a batch of ids (xargs
// from ls --json) located each one by reading every project folder's
// names, so n ids in a folder of n sessions read n² names (validate of
// 4,000 ids: 20 s of CPU), and a batch naming a session twice located
// each id twice. A full id is looked up as its file in each project
// folder; what it finds is what the listing found: one file, or none
// (the listing then says why), or several (ambiguous).
func TestASessionIdIsFoundWithoutListingItsFolder(t *testing.T) {
	if FoldsCase(HostOS) {
		t.Skip("not run: where the file system folds case the listing gives the name as stored")
	}
	cfg := t.TempDir()
	id := func(i int) string { return fmt.Sprintf("%08d-0000-0000-0000-000000000000", i+1) }
	put := func(folder, sid string) string {
		dir := filepath.Join(cfg, "projects", folder)
		require.NoError(t, os.MkdirAll(dir, 0o700))
		p := filepath.Join(dir, sid+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte(`{"type":"user","sessionId":"`+sid+`","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`+"\n"), 0o600))
		return p
	}
	var paths []string
	for i := 0; i < 5; i++ {
		paths = append(paths, put("-work-p", id(i)))
	}
	put("-work-q", id(4)) // the same id in two folders
	for _, c := range []struct {
		name      string
		arg       string
		want      string // "" : an AmbiguousError
		listsNone bool
	}{
		{"a full id", id(2), paths[2], true},
		{"a prefix", id(3)[:8], paths[3], false},
		{"a full id in two folders", id(4), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := folderListings.Load()
			p, err := Locate(cfg, c.arg)
			if c.want == "" {
				var amb *AmbiguousError
				require.True(t, errors.As(err, &amb), "%s: %v", c.name, err)
			} else {
				require.NoError(t, err, c.name)
				assert.Equal(t, c.want, p, c.name)
			}
			if c.listsNone {
				assert.Equal(t, int64(0), folderListings.Load()-before, "%s: project folders listed", c.name)
			}
		})
	}
}
