// Package harness drives the real Claude Code clients against a mock Messages API, so
// that tests can check what a client rebuilds from a session file on --resume.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Pinned client versions.
const (
	LatestVersion = "2.1.328"
	OldVersion    = "2.0.50"
)

// Client is one installed Claude Code client.
type Client struct {
	Version string
	// Argv is the command prefix that starts the client (binary, or node + cli.js).
	Argv []string
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

// RepoRoot returns the directory holding go.mod, walking up from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
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

// Latest returns the 2.1.328 client.
func Latest(t testing.TB) Client {
	t.Helper()
	c, err := EnsureClient(LatestVersion)
	if err != nil {
		t.Fatalf("harness: client %s unavailable: %v", LatestVersion, err)
	}
	return c
}

// Old returns the 2.0.50 client.
func Old(t testing.TB) Client {
	t.Helper()
	c, err := EnsureClient(OldVersion)
	if err != nil {
		t.Fatalf("harness: client %s unavailable: %v", OldVersion, err)
	}
	return c
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

func locate(dir, version string) (Client, bool) {
	native := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
	if fi, err := os.Stat(native); err == nil && fi.Mode()&0o111 != 0 {
		return Client{Version: version, Argv: []string{native}}, true
	}
	cli := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "cli.js")
	if _, err := os.Stat(cli); err == nil {
		node, err := exec.LookPath("node")
		if err != nil {
			return Client{}, false
		}
		return Client{Version: version, Argv: []string{node, cli}}, true
	}
	return Client{}, false
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
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return Client{}, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
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
