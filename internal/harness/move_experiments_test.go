//go:build experiments

package harness

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExpPickerMoved: which sessions does the picker (`claude --resume` with no id, in
// the TUI) list from the project folder of the cwd, for a session whose files sit in
// that folder but whose entries name another cwd? (internal/harness/FINDINGS.md, "What the resume
// picker needs".) MVEXP_SESSION names a generated session; MVEXP holds the variants:
// "cwd" (every cwd rewritten to the cwd), "sameslug" (cwd = another folder with the same
// slug; "-exists" creates it), "reloc" (a relocated line naming the cwd appended),
// "entry" (entrypoint sdk-cli → cli). MVEXP_OLD=1 drives 2.0.50; MVEXP_NOARGS=1 starts
// the TUI without --resume.
func TestExpPickerMoved(t *testing.T) {
	variant := os.Getenv("MVEXP")
	c := Latest(t)
	if os.Getenv("MVEXP_OLD") != "" {
		c = Old(t)
	}
	e := NewEnv(t)
	src, id := sess(t, c.Version, os.Getenv("MVEXP_SESSION"))
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	old := "/tmp/ccsurgeon-gen/" + c.Sessions + "/" + os.Getenv("MVEXP_SESSION") + "/work/project"
	if strings.Contains(variant, "cwd") {
		data = []byte(strings.ReplaceAll(string(data), `"cwd":"`+old+`"`, `"cwd":"`+e.Cwd+`"`))
	}
	if strings.Contains(variant, "sameslug") {
		// the entries name another folder with the same slug as the cwd
		other := strings.TrimSuffix(e.Cwd, "/project") + "-project"
		data = []byte(strings.ReplaceAll(string(data), `"cwd":"`+old+`"`, `"cwd":"`+other+`"`))
		old = other
		if strings.Contains(variant, "exists") {
			require.NoError(t, os.MkdirAll(other, 0o755))
		}
	}
	if strings.Contains(variant, "reloc") {
		data = append(data, []byte(`{"type":"relocated","sessionId":"`+id+`","relocatedCwd":"`+e.Cwd+`"}`+"\n")...)
	}
	if strings.Contains(variant, "entry") {
		data = []byte(strings.ReplaceAll(string(data), `"entrypoint":"sdk-cli"`, `"entrypoint":"cli"`))
	}
	e.InstallSessionBytes(t, id, data)
	args := []string{"--resume"}
	if os.Getenv("MVEXP_NOARGS") != "" {
		args = nil
	}
	tui, err := e.StartTUI(c, 160, 40, args...)
	require.NoError(t, err)
	defer tui.Close()
	time.Sleep(20 * time.Second)
	t.Logf("alive %v", tui.Alive())
	s := tui.Snapshot("picker")
	t.Logf("variant %q screen:\n%s", variant, s)
	tui.Keys("Escape")
}
