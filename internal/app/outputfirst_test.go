package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDestinationRefusedBeforeTheWork: a -o that will be refused (a file
// that exists, without --force; a folder that does not exist; the session
// file itself) is refused before the session is read and the operation
// run, not after minutes of work on a large session. Each member of the
// family says which one broke.
func TestDestinationRefusedBeforeTheWork(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  func(sb *sandbox) string
		want func(t *testing.T, err error)
	}{
		{"an existing file without --force", func(sb *sandbox) string {
			p := filepath.Join(t.TempDir(), "exists.jsonl")
			require.NoError(t, os.WriteFile(p, []byte("keep me\n"), 0o644))
			return p
		}, func(t *testing.T, err error) {
			var e *backup.ExistsError
			assert.True(t, errors.As(err, &e), "want an ExistsError, got %v", err)
		}},
		{"a folder that does not exist", func(sb *sandbox) string {
			return filepath.Join(t.TempDir(), "no", "such", "out.jsonl")
		}, func(t *testing.T, err error) { assert.Error(t, err) }},
		{"the session file itself", func(sb *sandbox) string { return sb.path },
			func(t *testing.T, err error) { assert.ErrorContains(t, err, "under the config dir's projects folder") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t, "multi-turn.jsonl")
			built := false
			err := sb.env.runWrite(sb.id, Dest{Output: tc.out(sb)}, func(s *chain.Session) (ops.Pipeline, error) {
				built = true
				return ops.Pipeline{ops.StripThinking{}}, nil
			})
			require.Error(t, err)
			tc.want(t, err)
			assert.False(t, built, "the session was read and the operation built before the destination was refused")
		})
	}
}

// TestEarlierOutputOfTheSameSessionReplacedWithForce: the early check does
// not know the session's id, so it must not refuse what the late one
// allows: -o --force over an earlier output of the same session.
func TestEarlierOutputOfTheSameSessionReplacedWithForce(t *testing.T) {
	sb := newSandbox(t, "multi-turn.jsonl")
	out := filepath.Join(t.TempDir(), "out.jsonl")
	strip := func(s *chain.Session) (ops.Pipeline, error) { return ops.Pipeline{ops.StripThinking{}}, nil }
	b, err := os.ReadFile(sb.path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, b, 0o600))
	require.NoError(t, sb.env.runWrite(sb.id, Dest{Output: out, Force: true}, strip))
	err = sb.env.runWrite(sb.id, Dest{Output: out}, strip)
	var e *backup.ExistsError
	assert.True(t, errors.As(err, &e), "without --force: want an ExistsError, got %v", err)
}
