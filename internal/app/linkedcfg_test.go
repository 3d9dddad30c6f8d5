package app

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/require"
)

// TestNewSessionInAConfigDirThatIsALink: a config dir that is itself a
// link the user made (~/.claude kept with their dotfiles; on macOS any
// folder below /var or /tmp) is the user's, followed as it is; a session
// named by its path is resolved to its real path, which is then not
// below the config dir as the user spelled it. A new session made from it
// (clone, clone's full path, fork, strip-thinking --new) must be made all
// the same, in the session's own project folder, with its folders: the
// folders ccsurgeon makes from the config dir down (never through a link
// below it) are reached through the config dir's real path too. A member
// per command and per way the session is named (its path through the
// link, its id).
func TestNewSessionInAConfigDirThatIsALink(t *testing.T) {
	testlink.Need(t)
	for _, cmd := range []string{"clone", "clone (its full path)", "fork-at-turn"} {
		for _, named := range []string{"path", "id"} {
			t.Run(cmd+"/"+named, func(t *testing.T) {
				e := newMoveEnv(t, "subagent", "old")
				link := filepath.Join(e.root, "cfg-link")
				require.NoError(t, os.Symlink(e.cfg, link))
				dir := filepath.Join(link, "projects", chain.ProjectSlug(e.old))
				session := e.id
				if named == "path" {
					session = filepath.Join(dir, e.id+".jsonl")
				}
				env := &Env{ConfigDir: link, Out: io.Discard, Err: io.Discard, Quiet: true}
				var err error
				switch cmd {
				case "clone":
					err = env.RunClone(session, BranchOptions{}, Dest{})
				case "fork-at-turn":
					err = env.RunFork(session, 1, BranchOptions{}, Dest{})
				default:
					err = env.RunCloneFull(session, BranchOptions{}, Dest{})
				}
				require.NoError(t, err)
				ents, err := os.ReadDir(filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old)))
				require.NoError(t, err)
				n := 0
				for _, d := range ents {
					if chain.IsUUID(d.Name()) && d.IsDir() && d.Name() != e.id {
						n++
						require.FileExists(t, filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), d.Name()+".jsonl"))
						require.DirExists(t, filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), d.Name(), "subagents"))
					}
				}
				require.Equal(t, 1, n, "one new session with its folder")
			})
		}
	}
}
