package backup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackupsFollowTheSessionThroughMoves: the backups a session's file
// had in a folder it was moved out of (a redaction's, which holds the
// secrets it took out) are that session's backups in its new folder: they
// are listed with it, purged with it (else `backups --purge` said it
// removed the session's backups and left the secrets on disk), and one
// named for a restore is refused with the move to undo first (restored
// where the session is now, its entries would name the old folder). A
// backup of another copy of the session (the same id put back in the old
// folder after the move) stays that copy's. A member per history; the
// failure names the backups that went the wrong way.
func TestBackupsFollowTheSessionThroughMoves(t *testing.T) {
	const id = "0b7e5c1a-1111-4222-8333-944455556660"
	type step struct {
		name, op string
		dir      string // the folder the backup was taken in
		movedTo  string // a move's: the folder it moved the session to
	}
	members := []struct {
		name   string
		steps  []step // oldest first
		now    string // the session's folder now
		mine   []string
		others []string
	}{
		{"redacted, then moved", []step{
			{"redact", "redact-secrets", "-a", ""},
			{"move", "move", "-a", "-b"},
		}, "-b", []string{"redact", "move"}, nil},
		{"moved twice, a change in each folder", []step{
			{"strip", "strip-thinking", "-a", ""},
			{"move1", "move", "-a", "-b"},
			{"compress", "compress-old-turns", "-b", ""},
			{"move2", "move", "-b", "-c"},
			{"redact", "redact-secrets", "-c", ""},
		}, "-c", []string{"strip", "move1", "compress", "move2", "redact"}, nil},
		{"moved, then a copy put back in the old folder and changed there", []step{
			{"redact", "redact-secrets", "-a", ""},
			{"move", "move", "-a", "-b"},
			{"copy-changed", "strip-thinking", "-a", ""},
		}, "-b", []string{"redact", "move"}, []string{"copy-changed"}},
		// two copies of the session, in -a and -b: -a's moves to -c,
		// then -b's into -a and on to -d; -d's are not -c's (a review
		// found -d claiming them, and its purge removed -c's only undo)
		{"two copies, one moved through the other's old folder", []step{
			{"a-redact", "redact-secrets", "-a", ""},
			{"b-strip", "strip-thinking", "-b", ""},
			{"move-a-c", "move", "-a", "-c"},
			{"move-b-a", "move", "-b", "-a"},
			{"move-a-d", "move", "-a", "-d"},
		}, "-d", []string{"b-strip", "move-b-a", "move-a-d"}, []string{"a-redact", "move-a-c"}},
		// seen from the old folder: the copy put back is the session
		// there; the moved copy's backups are not (its purge removed the
		// moved copy's only undo, found in review)
		{"moved, then a copy put back in the old folder, seen from there", []step{
			{"redact", "redact-secrets", "-a", ""},
			{"move", "move", "-a", "-b"},
			{"copy-changed", "strip-thinking", "-a", ""},
		}, "-a", []string{"copy-changed"}, []string{"redact", "move"}},
		{"moved, and back by another move", []step{
			{"redact", "redact-secrets", "-a", ""},
			{"move", "move", "-a", "-b"},
			{"strip", "strip-thinking", "-b", ""},
			{"back", "move", "-b", "-a"},
		}, "-a", []string{"redact", "move", "strip", "back"}, nil},
		{"moved and moved back", []step{
			{"redact", "redact-secrets", "-a", ""},
			{"move", "move", "-a", "-b"},
			{"undo", "move", "-b", "-a"},
		}, "-a", []string{"redact", "move", "undo"}, nil},
	}
	for _, m := range members {
		t.Run(m.name, func(t *testing.T) {
			cfg := t.TempDir()
			folder := func(slug string) string { return filepath.Join(cfg, "projects", slug) }
			names := map[string]string{} // backup dir name -> step name
			t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
			for k, s := range m.steps {
				p := filepath.Join(folder(s.dir), id+".jsonl")
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
				require.NoError(t, os.WriteFile(p, []byte(`{"step":"`+s.name+`"}`+"\n"), 0o600))
				var rec json.RawMessage
				if s.movedTo != "" {
					to := filepath.Join(folder(s.movedTo), id+".jsonl")
					rec, _ = json.Marshal(map[string]any{"files": []Moved{{From: p, To: to}}})
				}
				items := []item{{FileWrite: FileWrite{Path: p}, target: p, rel: id + ".jsonl"}}
				dir, err := makeBackup(cfg, id, id, s.op, folder(s.dir), t0.Add(time.Duration(k)*time.Hour), items, backupCopy, rec)
				require.NoError(t, err)
				names[filepath.Base(dir)] = s.name
				if s.movedTo != "" {
					require.NoError(t, os.MkdirAll(folder(s.movedTo), 0o700))
					require.NoError(t, os.Rename(p, filepath.Join(folder(s.movedTo), id+".jsonl")))
				}
			}
			stepsOf := func(bs []Backup) []string {
				var out []string
				for _, b := range bs {
					out = append(out, names[b.Name])
				}
				slices.Sort(out)
				return out
			}
			sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
			mine, others, err := ListOf(cfg, id, id, folder(m.now))
			require.NoError(t, err)
			assert.Equal(t, sorted(m.mine), stepsOf(mine), "the session's backups")
			assert.Equal(t, sorted(m.others), stepsOf(others), "another copy's backups")
			if len(mine) > 0 {
				assert.Equal(t, m.mine[0], names[mine[len(mine)-1].Name], "the original is the oldest of the session's")
			}

			// a restore of a backup taken in another folder, not by a
			// move, is refused with the move to undo
			for _, b := range mine {
				if b.Move != nil || sameFolder(b.ProjectDir, folder(m.now)) {
					continue
				}
				_, _, err := Restore(RestoreOptions{ConfigDir: cfg, SessionID: id, ProjectDir: folder(m.now), Which: b.Name, Force: true})
				var ms *MovedSinceError
				require.True(t, errors.As(err, &ms), "restore of %s (taken in %s): %v", names[b.Name], b.ProjectDir, err)
				assert.Equal(t, filepath.Clean(b.ProjectDir), filepath.Clean(ms.From))
				assert.Equal(t, "move", ms.Undo.Op, "the backup to restore first undoes a move")
			}

			removed, err := PurgeOf(cfg, id, id, folder(m.now))
			require.NoError(t, err)
			assert.Len(t, removed, len(m.mine), "purged")
			mine, others, err = ListOf(cfg, id, id, folder(m.now))
			require.NoError(t, err)
			assert.Empty(t, stepsOf(mine), "the session's backups left after a purge")
			assert.Equal(t, sorted(m.others), stepsOf(others), "another copy's backups after the purge")
		})
	}
}

// TestPruneKeepsTheMoveThatLinksOlderBackups: pruning keeps a move's
// backup while an older backup of the session is kept, for the move is
// what makes the backups taken before it (in the folder the session left)
// the session's: pruned, they were listed and purged with no session, and a
// redaction's backup kept its secrets after the purge (found in review).
func TestPruneKeepsTheMoveThatLinksOlderBackups(t *testing.T) {
	steps := []pruneStep{{"redact-secrets", "-a", ""}, {"strip-thinking", "-a", ""}, {"move", "-a", "-b"}}
	for range 4 {
		steps = append(steps, pruneStep{"strip-thinking", "-b", ""})
	}
	cfg, folder, id := backupHistory(t, steps)
	_, err := prune(sessionBackupRoot(cfg, id), id, folder("-b"), 3, 0)
	require.NoError(t, err)
	mine, others, err := ListOf(cfg, id, id, folder("-b"))
	require.NoError(t, err)
	assert.Empty(t, others, "every backup left is the session's")
	var ops []string
	for _, b := range mine {
		ops = append(ops, b.Op)
	}
	assert.Contains(t, ops, "move", "the move's backup is kept")
	assert.Equal(t, "redact-secrets", mine[len(mine)-1].Op, "the original, taken before the move")
	_, err = PurgeOf(cfg, id, id, folder("-b"))
	require.NoError(t, err)
	all, err := List(cfg, id)
	require.NoError(t, err)
	assert.Empty(t, all, "nothing left after the purge")
}

// TestPruneDropsAMoveNothingDependsOn: a move's backup is kept only for
// the backups taken before it in another folder; moved away and back, the
// backups before the moves were taken in the folder the session is in
// now, and the moves' backups are pruned as any other (kept, every move
// kept the session's bytes past the budget for good: found in review).
func TestPruneDropsAMoveNothingDependsOn(t *testing.T) {
	steps := []pruneStep{{"redact-secrets", "-a", ""}, {"move", "-a", "-b"}, {"move", "-b", "-a"}}
	for range 4 {
		steps = append(steps, pruneStep{"strip-thinking", "-a", ""})
	}
	cfg, folder, id := backupHistory(t, steps)
	_, err := prune(sessionBackupRoot(cfg, id), id, folder("-a"), 3, 0)
	require.NoError(t, err)
	mine, others, err := ListOf(cfg, id, id, folder("-a"))
	require.NoError(t, err)
	assert.Empty(t, others)
	var ops []string
	for _, b := range mine {
		ops = append(ops, b.Op)
	}
	assert.Equal(t, []string{"strip-thinking", "strip-thinking", "strip-thinking", "redact-secrets"}, ops, "the 3 last made and the original")
}

// pruneStep is a backup of a history: its operation, the folder it is
// taken in, and for a move the folder the session goes to.
type pruneStep struct{ op, dir, movedTo string }

// backupHistory makes the backups of steps (an hour apart) of one session
// in a new config dir, moving its file as each move says.
func backupHistory(t *testing.T, steps []pruneStep) (cfg string, folder func(string) string, id string) {
	id = "0b7e5c1a-1111-4222-8333-944455556660"
	cfg = t.TempDir()
	folder = func(slug string) string { return filepath.Join(cfg, "projects", slug) }
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for k, s := range steps {
		p := filepath.Join(folder(s.dir), id+".jsonl")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o600))
		var rec json.RawMessage
		if s.movedTo != "" {
			rec, _ = json.Marshal(map[string]any{"files": []Moved{{From: p, To: filepath.Join(folder(s.movedTo), id+".jsonl")}}})
		}
		_, err := makeBackup(cfg, id, id, s.op, folder(s.dir), t0.Add(time.Duration(k)*time.Hour), []item{{FileWrite: FileWrite{Path: p}, target: p, rel: id + ".jsonl"}}, backupCopy, rec)
		require.NoError(t, err)
		if s.movedTo != "" {
			require.NoError(t, os.MkdirAll(folder(s.movedTo), 0o700))
			require.NoError(t, os.Rename(p, filepath.Join(folder(s.movedTo), id+".jsonl")))
		}
	}
	return cfg, folder, id
}
