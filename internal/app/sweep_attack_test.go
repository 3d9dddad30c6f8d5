package app

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSweepRemovesOnlyWhatANewSessionCouldHaveMade: the list of the files
// a killed 2.0.x-layout new session wrote beside its transcript
// (.<newid>.jsonl.ccsurgeon-files) is read by the sweep every later run
// makes (here: the next clone in that project folder). A stale or
// tampered list names any path; the sweep removes a path only when the
// list names it AND it is what ccsurgeon makes there: a regular file (never
// a link) named agent-<8 hex>-<name>.jsonl or .meta.json, whose entries,
// if any, are the new session's. A member per kind of path the list
// names; the last is ccsurgeon's own leftover, which goes.
func TestSweepRemovesOnlyWhatANewSessionCouldHaveMade(t *testing.T) {
	testlink.Need(t)
	f := newAttackFixture(t, true)
	const killedID = "22222222-3333-4444-8555-666666666666"
	other := "bbbbbbbb-2222-4333-8444-555555555555"
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dead := cmd.Process.Pid
	secret := filepath.Join(f.outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("outside\n"), 0o600))
	keep := map[string]string{ // member -> a path the list names that must stay
		"another session's transcript":        filepath.Join(f.dir, other+".jsonl"),
		"the 2.0.x client's own agent file":   filepath.Join(f.dir, "agent-abc123.jsonl"),
		"its meta file":                       filepath.Join(f.dir, "agent-abc123.meta.json"),
		"a link named as ccsurgeon names":     filepath.Join(f.dir, "agent-1a2b3c4d-link.jsonl"),
		"a file named so, of another session": filepath.Join(f.dir, "agent-5e6f7a8b-abc123.jsonl"),
		"a file named so, not a transcript":   filepath.Join(f.dir, "agent-9c0d1e2f-notes.txt"),
		"the index":                           filepath.Join(f.dir, "sessions-index.json"),
	}
	write := func(p, s string) { require.NoError(t, os.WriteFile(p, []byte(s), 0o600)) }
	write(keep["another session's transcript"], `{"type":"user","sessionId":"`+other+`"}`+"\n")
	write(keep["a file named so, of another session"], `{"type":"user","sessionId":"`+other+`","agentId":"abc123"}`+"\n")
	write(keep["a file named so, not a transcript"], "notes\n")
	write(keep["the index"], `{"version":1,"entries":[]}`)
	require.NoError(t, os.Symlink(secret, keep["a link named as ccsurgeon names"]))
	mine := []string{ // what the killed run made: it goes
		filepath.Join(f.dir, "agent-0a1b2c3d-abc123.jsonl"),
		filepath.Join(f.dir, "agent-0a1b2c3d-abc123.meta.json"),
	}
	write(mine[0], `{"type":"user","sessionId":"`+killedID+`","agentId":"abc123"}`+"\n")
	write(mine[1], `{"agentType":"x"}`)
	before := map[string]string{}
	listed := append([]string{}, mine...)
	for _, p := range keep {
		listed = append(listed, p)
		b, _ := os.ReadFile(p)
		before[p] = string(b)
	}
	list := filepath.Join(f.dir, "."+killedID+".jsonl.ccsurgeon-files")
	write(list, strconv.Itoa(dead)+"\n"+filepath.Join(f.dir, killedID+".jsonl")+"\n"+strings.Join(listed, "\n")+"\n")

	env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
	ns := f.plan(nil, nil)
	ns.firstPrompt = func() (string, bool) { return "", false } // the folder has an index
	_, werr := env.writeNewSession(ns)
	for member, p := range keep {
		fi, err := os.Lstat(p)
		if !assert.NoError(t, err, "%s: the sweep removed %s, which the list named but ccsurgeon never makes", member, p) {
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 && member != "the index" { // the clone enters itself there
			b, _ := os.ReadFile(p)
			assert.Equal(t, before[p], string(b), "%s: %s changed", member, p)
		}
	}
	b, err := os.ReadFile(secret)
	require.NoError(t, err, "the link's target outside the config dir was removed")
	assert.Equal(t, "outside\n", string(b))
	for _, p := range mine {
		_, err := os.Lstat(p)
		assert.True(t, os.IsNotExist(err), "the killed run's own file %s was not swept", p)
	}
	_, err = os.Lstat(list)
	assert.True(t, os.IsNotExist(err), "the list stays after the sweep")
	require.NoError(t, werr, "the clone after the sweep")
}

// TestSweepRemovesOnlyFoldersANewSessionCouldHaveMade: the mark a new
// session puts in each folder it makes (.ccsurgeon-incomplete: its pid and
// its main transcript) is read by the same sweep. A stale or tampered
// mark in a folder the user's session owns (its <id>/ folder of subagent
// transcripts and tool results, its file-history/<id>/ behind /rewind)
// naming a main transcript that is not there must not have that folder
// removed: a folder goes only when it is the one its mark's own new
// session would have made (named after that transcript), and a
// file-history/<id>/ not while <id>.jsonl is a session of any project
// folder (a mark naming the session's own id in another folder). A member
// per folder and mark.
func TestSweepRemovesOnlyFoldersANewSessionCouldHaveMade(t *testing.T) {
	for _, member := range []string{"session-folder", "file-history", "file-history-own-id-elsewhere"} {
		t.Run(member, func(t *testing.T) {
			f := newAttackFixture(t, false)
			cmd := exec.Command("true")
			require.NoError(t, cmd.Run())
			folder := filepath.Join(f.dir, f.src)
			named := filepath.Join(f.dir, "22222222-3333-4444-8555-666666666666.jsonl")
			if strings.HasPrefix(member, "file-history") {
				folder = filepath.Join(f.cfg, "file-history", f.src)
			}
			if member == "file-history-own-id-elsewhere" {
				named = filepath.Join(f.cfg, "projects", "-elsewhere", f.src+".jsonl")
			}
			before := treeHash(t, folder)
			require.NoError(t, os.WriteFile(filepath.Join(folder, ".ccsurgeon-incomplete"),
				[]byte(strconv.Itoa(cmd.Process.Pid)+"\n"+named+"\n"), 0o600))
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			_, werr := env.writeNewSession(f.plan(nil, nil))
			after := map[string]string{}
			if _, err := os.Lstat(folder); err == nil {
				after = treeHash(t, folder)
			}
			for p, h := range before {
				assert.Equal(t, h, after[p], "the sweep removed or changed %s (a mark named a new session that never made it)", p)
			}
			require.NoError(t, werr) // (a mark in file-history/<id>/ is left out of the copy)
		})
	}
}
