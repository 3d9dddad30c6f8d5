package app

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shareFixture is a config dir holding a real session (2.1.x: a subagent
// in <id>/subagents/ and a tool-results/ file; 2.0.x: its agent-*.jsonl
// beside the transcript) and the -o DIR/ share folder to write it into.
type shareFixture struct {
	cfg, proj, id, share string
	agent                string // the subagent transcript's base name
}

func newShareFixture(t *testing.T, version string) *shareFixture {
	t.Helper()
	root := t.TempDir()
	f := &shareFixture{cfg: filepath.Join(root, "cfg"), share: filepath.Join(root, "share")}
	f.proj = filepath.Join(f.cfg, "projects", "-p")
	src := filepath.Join("..", "..", "testdata", "sessions", version, "subagent.jsonl")
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	f.id = string(bytes.SplitN(bytes.SplitN(b, []byte(`"sessionId":"`), 2)[1], []byte(`"`), 2)[0])
	put := func(p string, data []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, data, 0o600))
	}
	put(filepath.Join(f.proj, f.id+".jsonl"), b)
	side := strings.TrimSuffix(src, ".jsonl")
	require.NoError(t, filepath.Walk(side, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(side, p)
		data, _ := os.ReadFile(p)
		if version == "2.0.50" {
			rel = filepath.Base(rel) // 2.0.x: beside the transcript
		} else {
			rel = filepath.Join(f.id, rel)
		}
		if strings.HasSuffix(p, ".jsonl") {
			f.agent = filepath.Base(p)
		}
		put(filepath.Join(f.proj, rel), data)
		return nil
	}))
	if version != "2.0.50" {
		put(filepath.Join(f.proj, f.id, "tool-results", "t1.txt"), []byte("tool output one\n"))
	}
	return f
}

// TestShareFolderNeverRemovesWhatItDidNotMake: the clean-up of a failed
// -o DIR/ removes what the write made there and nothing else. Another
// process's file that appears in the share folder while it is written
// stays, byte for byte: at a 2.0.x subagent's name beside the transcript
// (which fails the write), in the session's folder <id>/ made meanwhile
// (before the write makes it), or in the folders the write made (then
// the write fails: a file appears at the main transcript's name). What the
// write made is gone. A member per place.
func TestShareFolderNeverRemovesWhatItDidNotMake(t *testing.T) {
	for _, member := range []string{"at-a-2.0.x-subagent-name", "sidecar-folder-made-meanwhile", "inside-its-folders"} {
		t.Run(member, func(t *testing.T) {
			version := "2.1.328"
			if member == "at-a-2.0.x-subagent-name" {
				version = "2.0.50"
			}
			f := newShareFixture(t, version)
			require.NoError(t, os.Mkdir(f.share, 0o700))
			theirs := map[string]string{} // planted path -> its bytes
			plant := func(p string) {
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
				body := "another process's file " + p + "\n"
				require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
				theirs[p] = body
			}
			side := filepath.Join(f.share, f.id)
			var once sync.Once
			backup.TestHook = func(step string) {
				path, ok := strings.CutPrefix(step, "dirsync-create:")
				switch member {
				case "at-a-2.0.x-subagent-name":
					if ok && filepath.Base(path) == f.agent {
						once.Do(func() { plant(path) })
					}
				case "sidecar-folder-made-meanwhile":
					// before the write makes <id>/ (or, if it does not,
					// before its first file goes in)
					if step == "dirsync-mkdir:"+side || ok && strings.HasPrefix(path, side+string(filepath.Separator)) {
						once.Do(func() {
							plant(filepath.Join(side, "theirs.txt"))
							plant(filepath.Join(side, "subagents", "theirs.jsonl"))
						})
					}
				case "inside-its-folders":
					if step == "create-before-link" {
						once.Do(func() {
							plant(filepath.Join(f.share, "notes.txt"))
							plant(filepath.Join(side, "theirs.txt"))
							plant(filepath.Join(side, "subagents", "theirs.jsonl"))
							plant(filepath.Join(side, "tool-results", "theirs.txt"))
							plant(filepath.Join(f.share, f.id+".jsonl")) // fails the write
						})
					}
				}
			}
			defer func() { backup.TestHook = nil }()
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			err := env.RunOps(f.id, OpSpec{}, Dest{Output: f.share + string(filepath.Separator)})
			backup.TestHook = nil
			require.NotEmpty(t, theirs, "the fixture planted nothing: no step %q came", member)
			for p, body := range theirs {
				b, rerr := os.ReadFile(p)
				if assert.NoError(t, rerr, "the failed share removed %s, which it did not make (err %v)", p, err) {
					assert.Equal(t, body, string(b), "the failed share changed %s", p)
				}
			}
			require.Error(t, err, "the share went on over another process's file")
			// what the write made is gone: only the planted files (and
			// the folders holding them) are left
			require.NoError(t, filepath.Walk(f.share, func(p string, fi os.FileInfo, err error) error {
				if err != nil || fi.IsDir() {
					return err
				}
				if _, ok := theirs[p]; !ok {
					t.Errorf("the failed share left %s", p)
				}
				return nil
			}))
		})
	}
}

// TestNewSessionNeverRemovesWhatOthersPutInItsFolders: the same promise
// for a new session (clone, fork, --new) in the config dir: files another
// process puts in the folders the new session made (<newid>/,
// <newid>/subagents/, <newid>/tool-results/, file-history/<newid>/) while
// it is written stay when it fails (a file appears at its main
// transcript's name), and what it made goes.
func TestNewSessionNeverRemovesWhatOthersPutInItsFolders(t *testing.T) {
	f := newAttackFixture(t, false)
	side := filepath.Join(f.dir, attackNewID)
	theirs := map[string]bool{}
	var once sync.Once
	backup.TestHook = func(step string) {
		if step != "create-before-link" {
			return
		}
		once.Do(func() {
			for _, p := range []string{
				filepath.Join(side, "theirs.txt"),
				filepath.Join(side, "subagents", "theirs.jsonl"),
				filepath.Join(side, "tool-results", "theirs.txt"),
				filepath.Join(f.cfg, "file-history", attackNewID, "theirs@v1"),
				filepath.Join(f.dir, attackNewID+".jsonl"), // fails the new session
			} {
				require.NoError(t, os.WriteFile(p, []byte("another process's file\n"), 0o600))
				theirs[p] = true
			}
		})
	}
	defer func() { backup.TestHook = nil }()
	env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
	_, err := env.writeNewSession(f.plan(nil, nil))
	backup.TestHook = nil
	require.NotEmpty(t, theirs, "the fixture planted nothing")
	require.Error(t, err)
	for p := range theirs {
		b, rerr := os.ReadFile(p)
		if assert.NoError(t, rerr, "the failed new session removed %s, which it did not make", p) {
			assert.Equal(t, "another process's file\n", string(b))
		}
	}
	for _, root := range []string{side, filepath.Join(f.cfg, "file-history", attackNewID)} {
		require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !theirs[p] {
				t.Errorf("the failed new session left %s", p)
			}
			return err
		}))
	}
}
