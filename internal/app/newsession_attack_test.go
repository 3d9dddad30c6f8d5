package app

import (
	"bytes"
	crand "crypto/rand"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// attackFixture is a config dir with a source session that has every kind
// of sidecar a new session copies: a subagent transcript with its meta
// file (new layout, or the 2.0.x layout beside the transcript),
// tool-results/ and file-history/<id>/; and a folder outside the config
// dir that nothing may ever write into.
type attackFixture struct {
	cfg, dir, src, outside string
	legacy                 bool
}

const attackNewID = "11111111-2222-4333-8444-666666666666"

func newAttackFixture(t *testing.T, legacy bool) *attackFixture {
	return newAttackFixtureOn(t, legacy, nil)
}

// newAttackFixtureOn is newAttackFixture with the config dir made first by
// mount (a small file system, say), when not nil.
func newAttackFixtureOn(t *testing.T, legacy bool, mount func(cfg string)) *attackFixture {
	t.Helper()
	root := t.TempDir()
	f := &attackFixture{cfg: filepath.Join(root, "cfg"), outside: filepath.Join(root, "outside"), legacy: legacy,
		src: "aaaaaaaa-2222-4333-8444-555555555555"}
	if mount != nil {
		require.NoError(t, os.MkdirAll(f.cfg, 0o755))
		mount(f.cfg)
	}
	f.dir = filepath.Join(f.cfg, "projects", "-p")
	write := func(p, s string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	write(filepath.Join(f.dir, f.src+".jsonl"), `{"type":"user","sessionId":"`+f.src+`"}`+"\n")
	if legacy {
		write(filepath.Join(f.dir, "agent-abc123.jsonl"), `{"agentId":"abc123"}`+"\n")
		write(filepath.Join(f.dir, "agent-abc123.meta.json"), `{"agentType":"x"}`)
	} else {
		write(filepath.Join(f.dir, f.src, "subagents", "agent-abc123.jsonl"), `{"agentId":"abc123"}`+"\n")
		write(filepath.Join(f.dir, f.src, "subagents", "agent-abc123.meta.json"), `{"agentType":"x"}`)
	}
	write(filepath.Join(f.dir, f.src, "tool-results", "t1.txt"), "tool output one")
	write(filepath.Join(f.dir, f.src, "tool-results", "deep", "t2.txt"), "tool output two")
	write(filepath.Join(f.cfg, "file-history", f.src, "f@v1"), "old version")
	require.NoError(t, os.MkdirAll(f.outside, 0o755))
	return f
}

// plan is the new session writeNewSession is asked for; main and the
// subagent render through the hooks given (nil: the plain bytes).
func (f *attackFixture) plan(mainRender, subRender func(w io.Writer) error) newSession {
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if mainRender == nil {
		mainRender = text(`{"type":"user","sessionId":"` + attackNewID + `"}` + "\n")
	}
	if subRender == nil {
		subRender = text(`{"agentId":"abc123"}` + "\n")
	}
	sub := newSubagent{path: filepath.Join(f.dir, f.src, "subagents", "agent-abc123.jsonl"),
		meta: filepath.Join(f.dir, f.src, "subagents", "agent-abc123.meta.json")}
	if f.legacy {
		sub = newSubagent{path: filepath.Join(f.dir, "agent-abc123.jsonl"), meta: filepath.Join(f.dir, "agent-abc123.meta.json"), legacy: true}
	}
	sub.render = func(string) func(io.Writer) error { return subRender }
	return newSession{
		from: f.src, sidecarDir: filepath.Join(f.dir, f.src), newID: attackNewID, op: "clone",
		projectDir: func() (string, error) { return f.dir, nil },
		main:       func(string) func(io.Writer) error { return mainRender },
		subagents:  []newSubagent{sub},
		changed:    map[string][]byte{},
	}
}

// treeHash maps every node under root to its kind and bytes (a link to
// its target).
func treeHash(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[p] = "link:" + l
		case d.IsDir():
			m[p] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			m[p] = string(h[:])
		}
		return nil
	}))
	return m
}

// checkNothingLost is the promise after a failed new session: every node
// that was there is there, byte-identical; nothing was written outside
// the config dir; no main transcript of the new session exists (the client
// would list it); and what the attempt left (if anything) is swept by the
// next run, leaving the tree as it was, but for the planted nodes (and the
// folders holding them).
func (f *attackFixture) checkNothingLost(t *testing.T, before, outsideBefore map[string]string, planted ...string) {
	t.Helper()
	after := treeHash(t, filepath.Dir(f.cfg))
	for p, h := range before {
		require.Equal(t, h, after[p], "%s was changed or removed by the failed new session", p)
	}
	require.Equal(t, outsideBefore, treeHash(t, f.outside), "the failed new session wrote outside the config dir")
	_, err := os.Lstat(filepath.Join(f.dir, attackNewID+".jsonl"))
	require.True(t, os.IsNotExist(err), "a failed new session left its main transcript: the client lists it")
	backup.SweepProject(f.cfg, f.dir)
	swept := treeHash(t, filepath.Dir(f.cfg))
	for p := range swept {
		if _, ok := before[p]; ok || strings.HasPrefix(p, f.outside) {
			continue
		}
		isPlanted := false
		for _, pl := range planted {
			// a planted node, what is in it, and the folders that hold
			// it: the clean-up removes nothing it did not make, and a
			// folder only once empty
			if p == pl || strings.HasPrefix(p, pl+string(os.PathSeparator)) || strings.HasPrefix(pl, p+string(os.PathSeparator)) {
				isPlanted = true
			}
		}
		if !isPlanted {
			t.Errorf("left behind after the next run's sweep: %s", p)
		}
	}
}

func enospc(path string) error {
	return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
}

// TestNewSessionFailureAtEachStepLosesNothing: a new session that fails at
// any step (no space while a sidecar or the transcript is written: the
// path of every render error, a sidecar source gone when it is opened
// among them) changes or removes
// no byte it did not create, leaves no main transcript, and what it left
// is swept by the next run. A member per step and layout.
func TestNewSessionFailureAtEachStepLosesNothing(t *testing.T) {
	type member struct {
		name   string
		legacy bool
		// arrange sets the failure up; it returns the renders to use
		arrange func(t *testing.T, f *attackFixture) (mainR, subR func(io.Writer) error)
	}
	failing := func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"half":`); err != nil {
			return err
		}
		return enospc("x")
	}
	var members []member
	for _, legacy := range []bool{false, true} {
		layout := map[bool]string{false: "subagents-folder", true: "legacy-agent-files"}[legacy]
		members = append(members,
			member{"enospc-in-subagent/" + layout, legacy, func(*testing.T, *attackFixture) (func(io.Writer) error, func(io.Writer) error) {
				return nil, failing
			}},
			member{"enospc-in-main/" + layout, legacy, func(*testing.T, *attackFixture) (func(io.Writer) error, func(io.Writer) error) {
				return failing, nil
			}},
		)
	}
	for _, m := range members {
		t.Run(m.name, func(t *testing.T) {
			f := newAttackFixture(t, m.legacy)
			mainR, subR := m.arrange(t, f)
			before, outside := treeHash(t, filepath.Dir(f.cfg)), treeHash(t, f.outside)
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			_, err := env.writeNewSession(f.plan(mainR, subR))
			require.Error(t, err)
			f.checkNothingLost(t, before, outside)
		})
	}
}

// TestNewSessionLegacyAgentNameCollision: the 2.0.x layout names a new
// session's subagent transcripts agent-<8 random hex>-<old name> beside
// the main transcript. When that name (or its meta file's) is a file
// that is already there, the user's file is never changed nor removed,
// by the attempt's clean-up or by the next run's sweep.
func TestNewSessionLegacyAgentNameCollision(t *testing.T) {
	defer uuid.SetRand(nil)
	// the first name drawn is known (then random ones, as ever)
	seed := bytes.Repeat([]byte{0x5a, 0x17, 0xc3, 0x09}, 4)
	uuid.SetRand(bytes.NewReader(seed))
	prefix := uuid.NewString()[:8]
	for _, member := range []string{"transcript", "meta"} {
		t.Run(member, func(t *testing.T) {
			f := newAttackFixture(t, true)
			theirs := filepath.Join(f.dir, "agent-"+prefix+"-abc123.jsonl")
			if member == "meta" {
				theirs = filepath.Join(f.dir, "agent-"+prefix+"-abc123.meta.json")
			}
			require.NoError(t, os.WriteFile(theirs, []byte("the user's bytes\n"), 0o600))
			before, outside := treeHash(t, filepath.Dir(f.cfg)), treeHash(t, f.outside)
			uuid.SetRand(io.MultiReader(bytes.NewReader(seed), crand.Reader))
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			_, err := env.writeNewSession(f.plan(nil, nil))
			if err == nil {
				// written under another name: the user's file is as it was
				b, rerr := os.ReadFile(theirs)
				require.NoError(t, rerr, "the user's %s was removed", theirs)
				require.Equal(t, "the user's bytes\n", string(b))
				return
			}
			f.checkNothingLost(t, before, outside)
		})
	}
}

// TestNewSessionSymlinkPlantedAfterTheCheck: a symlink put in place of a
// folder of the new session after writeNewSession checked its paths (the
// new session's sidecar folder's subagents/ or tool-results/, or
// file-history/<newid>) never leads a write out of the config dir. The
// link is planted at the first marker the writer makes (the step after
// the check); a member per folder.
func TestNewSessionSymlinkPlantedAfterTheCheck(t *testing.T) {
	testlink.Need(t)
	for _, member := range []string{"subagents", "tool-results", "file-history"} {
		t.Run(member, func(t *testing.T) {
			f := newAttackFixture(t, false)
			if member != "tool-results" {
				// one copy less, so that the planted folder is the one met
				require.NoError(t, os.RemoveAll(filepath.Join(f.dir, f.src, "tool-results")))
			}
			link := map[string]string{
				"subagents":    filepath.Join(f.dir, attackNewID, "subagents"),
				"tool-results": filepath.Join(f.dir, attackNewID, "tool-results"),
				"file-history": filepath.Join(f.cfg, "file-history", attackNewID),
			}[member]
			before, outside := treeHash(t, filepath.Dir(f.cfg)), treeHash(t, f.outside)
			var once sync.Once
			backup.TestHook = func(step string) {
				if step == "atomic-temp-written" {
					once.Do(func() {
						_ = os.Symlink(f.outside, link)
					})
				}
			}
			defer func() { backup.TestHook = nil }()
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			_, err := env.writeNewSession(f.plan(nil, nil))
			backup.TestHook = nil
			require.Equal(t, outside, treeHash(t, f.outside), "a planted link led the new session's files out of the config dir (err %v)", err)
			if err != nil {
				f.checkNothingLost(t, before, outside, link)
			}
		})
	}
}

// TestNewSessionTwoClonesAtOnce: two new sessions made from the same
// session at the same time (two processes' worth: each its own id) both
// succeed whole, and the source is byte-identical.
func TestNewSessionTwoClonesAtOnce(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(map[bool]string{false: "subagents-folder", true: "legacy-agent-files"}[legacy], func(t *testing.T) {
			f := newAttackFixture(t, legacy)
			before := treeHash(t, filepath.Dir(f.cfg))
			ids := []string{"11111111-2222-4333-8444-000000000001", "11111111-2222-4333-8444-000000000002"}
			errs := make([]error, len(ids))
			var wg sync.WaitGroup
			for k, id := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ns := f.plan(nil, nil)
					ns.newID = id
					env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
					_, errs[k] = env.writeNewSession(ns)
				}()
			}
			wg.Wait()
			after := treeHash(t, filepath.Dir(f.cfg))
			for p, h := range before {
				require.Equal(t, h, after[p], "%s changed", p)
			}
			for k, id := range ids {
				require.NoError(t, errs[k], id)
				_, err := os.Stat(filepath.Join(f.dir, id+".jsonl"))
				require.NoError(t, err)
				for _, p := range []string{filepath.Join(f.dir, id, "tool-results", "t1.txt"), filepath.Join(f.cfg, "file-history", id, "f@v1")} {
					_, err := os.Stat(p)
					require.NoError(t, err, "%s missing", p)
				}
			}
			// no marker is left behind
			for p := range after {
				require.False(t, strings.Contains(filepath.Base(p), ".ccsurgeon-"), "left: %s", p)
			}
		})
	}
}

func (f *attackFixture) dropSubagent(t *testing.T) {
	require.NoError(t, os.RemoveAll(filepath.Join(f.dir, f.src, "subagents")))
}
func (f *attackFixture) dropToolResults(t *testing.T) {
	require.NoError(t, os.RemoveAll(filepath.Join(f.dir, f.src, "tool-results")))
}
func (f *attackFixture) dropFileHistory(t *testing.T) {
	require.NoError(t, os.RemoveAll(filepath.Join(f.cfg, "file-history", f.src)))
}

// TestNewSessionNeverRemovesWhatAppearedMeanwhile: a file someone puts, while
// the new session is being written, at a path the new session was about
// to take (its main transcript, a 2.0.x agent meta file beside it) fails
// the new session, and the clean-up leaves that file as it was. The file
// appears as the path's neighbour is rendered; a member per path.
func TestNewSessionNeverRemovesWhatAppearedMeanwhile(t *testing.T) {
	for _, member := range []string{"main-transcript", "legacy-agent-meta"} {
		t.Run(member, func(t *testing.T) {
			f := newAttackFixture(t, member == "legacy-agent-meta")
			f.dropToolResults(t)
			f.dropFileHistory(t)
			var theirs string
			plant := func(p string) {
				theirs = p
				require.NoError(t, os.WriteFile(p, []byte("the user's bytes\n"), 0o600))
			}
			ns := f.plan(nil, nil)
			if member == "main-transcript" {
				ns.main = func(dst string) func(io.Writer) error {
					return func(w io.Writer) error {
						plant(dst)
						_, err := io.WriteString(w, "{}\n")
						return err
					}
				}
			} else {
				ns.subagents[0].render = func(dst string) func(io.Writer) error {
					return func(w io.Writer) error {
						plant(strings.TrimSuffix(dst, ".jsonl") + ".meta.json")
						_, err := io.WriteString(w, "{}\n")
						return err
					}
				}
			}
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			_, err := env.writeNewSession(ns)
			require.Error(t, err, "the new session went over %s", theirs)
			b, rerr := os.ReadFile(theirs)
			require.NoError(t, rerr, "the clean-up removed %s, which it did not make", theirs)
			require.Equal(t, "the user's bytes\n", string(b))
		})
	}
}

// TestNewSessionFoldersAreDurableBeforeTheLink: the main transcript is
// linked only once every file of the new session is durable under its
// name — which takes the entry of each folder the session made in its
// parent folder fsynced too (else a power loss can keep the main
// transcript and lose <id>/subagents/ or file-history/<id>/ whole). Each
// member is a folder whose parent must be fsynced after the batch is
// written and before the link.
func TestNewSessionFoldersAreDurableBeforeTheLink(t *testing.T) {
	f := newAttackFixture(t, false)
	sidecar := filepath.Join(f.dir, attackNewID)
	var mu sync.Mutex
	var synced map[string]bool // the folders fsynced after the batch, before the link
	atLink := map[string]bool{}
	backup.TestHook = func(step string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case step == "new-after-sidecars":
			synced = map[string]bool{}
		case strings.HasPrefix(step, "dir-synced:") && synced != nil:
			synced[strings.TrimPrefix(step, "dir-synced:")] = true
		case step == "create-before-link" && synced != nil:
			for d := range synced {
				atLink[d] = true
			}
		}
	}
	defer func() { backup.TestHook = nil }()
	env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
	_, err := env.writeNewSession(f.plan(nil, nil))
	backup.TestHook = nil
	require.NoError(t, err)
	for _, folder := range []string{
		filepath.Join(sidecar, "subagents"),
		filepath.Join(sidecar, "tool-results"),
		filepath.Join(sidecar, "tool-results", "deep"),
		filepath.Join(f.cfg, "file-history", attackNewID),
	} {
		t.Run(strings.TrimPrefix(folder, filepath.Dir(f.cfg)), func(t *testing.T) {
			require.True(t, atLink[filepath.Dir(folder)], "the main transcript was linked before %s's entry in %s was fsynced", filepath.Base(folder), filepath.Dir(folder))
		})
	}
}
