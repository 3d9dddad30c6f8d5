package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const testSession = "0b7e5c1a-1111-4222-8333-944455556666"

// testEnv is a fake Claude Code config dir with one session.
type testEnv struct {
	configDir, projectDir string
	main, sidecar         string
}

func newEnv(t *testing.T) testEnv {
	t.Helper()
	cfg := t.TempDir()
	proj := filepath.Join(cfg, "projects", "-home-u-proj")
	e := testEnv{
		configDir:  cfg,
		projectDir: proj,
		main:       filepath.Join(proj, testSession+".jsonl"),
		sidecar:    filepath.Join(proj, testSession, "subagents", "agent-a1.jsonl"),
	}
	writeOld(t, e.main, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
	writeOld(t, e.sidecar, "{\"agent\":1}\n")
	return e
}

// writeOld writes a file (mode 0600) and backdates it past the live guard's
// recent-write window.
func writeOld(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(path, old, old))
}

func snap(t *testing.T, path string) *Snapshot {
	t.Helper()
	s, err := TakeSnapshot(path)
	require.NoError(t, err)
	return s
}

func str(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func perm(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

// requireNoTemps fails if any ccsurgeon temp file is left below root.
func requireNoTemps(t *testing.T, root string) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && isTempName(d.Name()) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

// snapshotTree returns path (relative) -> content of every regular file below
// root, skipping the backups folder.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == "ccsurgeon" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			out[filepath.ToSlash(rel)] = readString(t, p)
		}
		return nil
	}))
	return out
}

func setHook(t *testing.T, f func(step string)) {
	t.Helper()
	// steps come from several goroutines (a backup's and a move's files
	// are written several at a time): f sees one at a time
	var mu sync.Mutex
	TestHook = func(step string) {
		mu.Lock()
		defer mu.Unlock()
		f(step)
	}
	t.Cleanup(func() { TestHook = nil })
}
