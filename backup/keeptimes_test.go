//go:build linux || darwin

package backup

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApplyKeepsTimes (issue 27, finding 9): the file a change in place
// leaves has the modification and access times the original had when it
// was read, so an old session does not become the newest one; a new file
// gets the time of its making.
func TestApplyKeepsTimes(t *testing.T) {
	e := newEnv(t)
	m0 := time.Now().Add(-72 * time.Hour).Round(time.Microsecond)
	a0 := time.Now().Add(-48 * time.Hour).Round(time.Microsecond)
	require.NoError(t, os.Chtimes(e.main, a0, m0))
	s := snap(t, e.main)
	newFile := e.projectDir + "/" + testSession + "/tool-results/new.txt"
	_, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "test", Files: []FileWrite{
		{Path: e.main, Snapshot: s, Render: str("{\"n\":1}\n")},
		{Path: newFile, Render: str("x")},
	}})
	require.NoError(t, err)
	fi, err := os.Stat(e.main)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(m0), "mtime %s, want %s", fi.ModTime(), m0)
	assert.True(t, FileATime(fi).Equal(a0), "atime %s, want %s", FileATime(fi), a0)
	fi, err = os.Stat(newFile)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), fi.ModTime(), time.Minute, "a new file")
}
