package app

import (
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewSessionMarksItsFoldersBeforeTheMainTranscript: the folders of a
// new session (its sidecar folder, file-history/<id>/) are made and
// marked before the main transcript is begun. Their marks are written
// and fsynced one after the other before any sidecar can be written;
// begun beside the main transcript, those fsyncs waited behind its
// writeback (up to 0.47 s in a clone of the damaged shape under load,
// BENCHMARKS.md 2026-11-27 sidecars2) and the sidecars, which end the
// write, started that much later. The first mark is made slow here (as
// a disk busy with the main transcript makes it); the main transcript
// must not have begun meanwhile.
func TestNewSessionMarksItsFoldersBeforeTheMainTranscript(t *testing.T) {
	f := newAttackFixture(t, false)
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	backup.TestHook = func(step string) {
		if step == "new-folder-made" {
			note("folder")
			time.Sleep(50 * time.Millisecond)
		}
	}
	defer func() { backup.TestHook = nil }()
	mainRender := func(w io.Writer) error {
		note("main")
		_, err := io.WriteString(w, `{"type":"user","sessionId":"`+attackNewID+`"}`+"\n")
		return err
	}
	env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
	_, err := env.writeNewSession(f.plan(mainRender, nil))
	backup.TestHook = nil
	require.NoError(t, err)
	assert.Equal(t, []string{"folder", "folder", "main"}, order,
		"the new session's folders (%s, file-history/%s) were not both marked before its main transcript was begun", filepath.Join(f.dir, attackNewID), attackNewID)
}
