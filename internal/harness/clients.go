// Package harness drives the real Claude Code clients against a mock Messages API, so
// that tests can check what a client rebuilds from a session file on --resume.
package harness

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientsTxt is the one place the pinned versions live: the newest client
// first, then the old one. .ci/run reads the same file.
//
//go:embed clients.txt
var clientsTxt string

// shapeClientsTxt names the clients that write a shape the pinned ones do
// not, one "NAME VERSION" a line; tests make that shape at test time with
// ShapeClient(t, NAME), and .ci/run installs the same versions.
//
//go:embed shape-clients.txt
var shapeClientsTxt string

// ShapeClient returns the client that writes the shape called name in
// internal/harness/shape-clients.txt, installing it on first use.
func ShapeClient(t testing.TB, name string) Client {
	t.Helper()
	for _, line := range strings.Split(shapeClientsTxt, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			return ClientByVersion(t, f[1])
		}
	}
	t.Fatalf("harness: no client for the shape %q in shape-clients.txt", name)
	return Client{}
}

// Pinned client versions (internal/harness/clients.txt). CCSURGEON_CLIENT, when set,
// replaces the pin of its line (a 2.0.x or 1.x version the old one, any
// other the newest): scripts/compat.sh runs the real-client tests against
// any version that way.
var (
	LatestVersion = pinned(0)
	OldVersion    = pinned(1)
)

func pinned(k int) string {
	if v := os.Getenv("CCSURGEON_CLIENT"); v != "" && (k == 1) == (Client{Version: v}).IsOld() {
		return v
	}
	return strings.Fields(clientsTxt)[k]
}

// Client is one installed Claude Code client.
type Client struct {
	Version string
	// Argv is the command prefix that starts the client (binary, or node + cli.js).
	Argv []string
	// Sessions is the folder of testdata/sessions holding the sessions a
	// client of this line made: the version's own, else the newest of the
	// same minor line (2.1.330 resumes those of 2.1.328).
	Sessions string
}

// SessionsFolder returns the testdata/sessions folder for a client version.
func SessionsFolder(version string) string {
	root, err := RepoRoot()
	if err != nil {
		return version
	}
	dir := filepath.Join(root, "testdata", "sessions")
	if fi, err := os.Stat(filepath.Join(dir, version)); err == nil && fi.IsDir() {
		return version
	}
	line := version
	if k := strings.LastIndex(version, "."); k >= 0 {
		line = version[:k+1]
	}
	best := version
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), line) && (best == version || patch(e.Name()) > patch(best)) {
			best = e.Name()
		}
	}
	return best
}

func patch(v string) int {
	n, _ := strconv.Atoi(v[strings.LastIndex(v, ".")+1:])
	return n
}

// String returns the version.
func (c Client) String() string { return c.Version }

// IsOld reports whether the client is a 2.0.x client (Task tool instead of Agent...).
func (c Client) IsOld() bool {
	return strings.HasPrefix(c.Version, "1.") || strings.HasPrefix(c.Version, "2.0.")
}

// Command returns an exec.Cmd running the client with args.
func (c Client) Command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(append([]string(nil), c.Argv[1:]...), args...)
	return exec.CommandContext(ctx, c.Argv[0], argv...)
}

// RepoRoot returns the directory holding go.mod, walking up from the
// working directory (a test runs in its package's folder). The one home
// of that walk: internal/testcorpus resolves the corpus from it too.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// ClientsDir returns where clients are installed: $CCSURGEON_CLIENTS_DIR, else
// <repo root>/.clients.
func ClientsDir() (string, error) {
	if d := os.Getenv("CCSURGEON_CLIENTS_DIR"); d != "" {
		return filepath.Abs(d)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".clients"), nil
}

// Clients returns both pinned clients (latest first), installing them if needed.
func Clients(t testing.TB) []Client {
	t.Helper()
	return []Client{Latest(t), Old(t)}
}

// Latest returns the newest pinned client.
func Latest(t testing.TB) Client {
	t.Helper()
	c, err := EnsureClient(LatestVersion)
	if err != nil {
		t.Fatalf("harness: client %s unavailable: %v", LatestVersion, err)
	}
	return c
}

// Old returns the old pinned client (2.0.x).
func Old(t testing.TB) Client {
	t.Helper()
	c, err := EnsureClient(OldVersion)
	if err != nil {
		t.Fatalf("harness: client %s unavailable: %v", OldVersion, err)
	}
	return c
}

func locate(dir, version string) (Client, bool) {
	native := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
	if fi, err := os.Stat(native); err == nil && fi.Mode()&0o111 != 0 {
		return Client{Version: version, Argv: []string{native}, Sessions: SessionsFolder(version)}, true
	}
	cli := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "cli.js")
	if _, err := os.Stat(cli); err == nil {
		node, err := exec.LookPath("node")
		if err != nil {
			return Client{}, false
		}
		argv := []string{node, cli}
		if loader, ok := codeCacheLoader(dir); ok {
			argv = []string{node, "--experimental-vm-modules", "--disable-warning=ExperimentalWarning", loader, cli}
		}
		return Client{Version: version, Argv: argv, Sessions: SessionsFolder(version)}, true
	}
	return Client{}, false
}

// codeCacheJS starts a client that is one ES module (cli.js) with V8's
// code cache, saved in the client's install folder on first use: parsing
// the 11 MB of 2.0.50 took 0.5 s of CPU of the 3 s of every resume.
//
//go:embed codecache.mjs
var codeCacheJS []byte

// codeCacheLoader writes codecache.mjs into a client's install folder
// and returns its path; false when CCSURGEON_NO_CODE_CACHE is set (to run
// cli.js directly and compare) or the folder is read-only.
func codeCacheLoader(dir string) (string, bool) {
	if os.Getenv("CCSURGEON_NO_CODE_CACHE") != "" {
		return "", false
	}
	p := filepath.Join(dir, "ccsurgeon-codecache.mjs")
	if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, codeCacheJS) {
		return p, true
	}
	tmp := fmt.Sprintf("%s.%d", p, os.Getpid())
	if os.WriteFile(tmp, codeCacheJS, 0o644) != nil || os.Rename(tmp, p) != nil {
		_ = os.Remove(tmp)
		return "", false
	}
	return p, true
}

// EnsureClient returns the client of a version, installing it with npm under the
// clients directory if it is missing. Installs are serialized across processes with
// flock on <clients dir>/.lock.
func EnsureClient(version string) (Client, error) {
	base, err := ClientsDir()
	if err != nil {
		return Client{}, err
	}
	dir := filepath.Join(base, version)
	if c, ok := locate(dir, version); ok {
		return c, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return Client{}, err
	}
	lock, err := os.OpenFile(filepath.Join(base, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return Client{}, err
	}
	defer lock.Close()
	if err := lockWait(lock); err != nil {
		return Client{}, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer unlock(lock)
	if c, ok := locate(dir, version); ok { // installed by another process meanwhile
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Client{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir,
		"@anthropic-ai/claude-code@"+version, "--no-audit", "--no-fund")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Client{}, fmt.Errorf("npm install @anthropic-ai/claude-code@%s into %s failed: %v\n%s", version, dir, err, out)
	}
	if c, ok := locate(dir, version); ok {
		return c, nil
	}
	return Client{}, fmt.Errorf("npm install of %s in %s succeeded but no client binary was found (expected native claude-code-linux-x64/claude or claude-code/cli.js)\n%s", version, dir, out)
}

// ClientByVersion returns an installed (or freshly installed) client of a pinned version.
func ClientByVersion(t testing.TB, version string) Client {
	t.Helper()
	c, err := EnsureClient(version)
	if err != nil {
		t.Fatalf("harness: client %s unavailable: %v", version, err)
	}
	return c
}
