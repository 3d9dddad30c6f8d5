package ops_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	gen "github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestFastCloneIsTheFullClone: a plain clone to -o FILE and as a new
// session is written by a pass that does not index the session
// (app.cloneFast, ops.Remapper.Stream). On every session of testdata, the
// corpus when it is there, every damage family of the gate test
// (TestNoOperationEndsInABugOnDamage) and generated sessions with
// thousands of problems, it writes what the full path (app.RunCloneFull)
// writes, file for file (the main transcript, the subagent transcripts
// and their meta files, tool-results/, file-history/), byte for byte once
// each new id is mapped back to the full path's (one bijection over the
// whole session), and prints the same summary, but for
// preexisting_errors, which counts the errors of the lines (each damaged
// line, a file without entries) and not those of the links.
func TestFastCloneIsTheFullClone(t *testing.T) {
	type source struct {
		name string
		data []byte
		from string // the session's path, for its sidecars
		as   string // the id the file is named by ("": the one its entries carry)
		// after changes the session placed at path (its sidecars)
		after func(path string)
	}
	var sources []source
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		if strings.Contains(filepath.ToSlash(p), "/subagents/") {
			continue // a subagent transcript is cloned with its session
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		sources = append(sources, source{name: testcorpus.Name(p), data: b, from: p})
	}
	families := map[string]int{}
	for _, p := range gateSessions(t) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, dmg := range ops.DamageNames() {
			if families[dmg] == 2 {
				continue
			}
			d, err := ops.DamageBy(dmg, p, b)
			require.NoError(t, err)
			if d != nil {
				families[dmg]++
				sources = append(sources, source{name: dmg + " on " + p, data: d, from: p})
			}
		}
	}
	require.Len(t, families, len(ops.DamageNames()), "every damage family is applied")
	for seed := int64(1); seed <= 2; seed++ {
		dir := t.TempDir()
		g, err := gen.GenerateDamaged(gen.Options{Size: 1 << 20, Seed: seed, Dir: dir, Project: "-d"})
		require.NoError(t, err)
		b, err := os.ReadFile(g.Path)
		require.NoError(t, err)
		sources = append(sources, source{name: fmt.Sprintf("generated damaged, seed %d", seed), data: b, from: g.Path})
	}

	// entries that carry session ids other than the file's: a file named
	// by another id; two sessions in one file, the first naming the
	// second's id before its entries carry it; a subagent transcript with
	// an id of its own that the main transcript names
	other := "0ddba11e-0000-4000-8000-00000000000f"
	named := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", filepath.FromSlash(p)))
		require.NoError(t, err)
		return b
	}
	naming := func(b []byte, id string) []byte { // the first entry names id
		k := bytes.IndexByte(b, '{')
		return slices.Concat(b[:k+1], []byte(`"continuedFrom":"`+id+`",`), b[k+1:])
	}
	a, b := named("2.1.328/compact.jsonl"), named("2.0.50/tools.jsonl")
	bID := gjson.GetBytes(b[:bytes.IndexByte(b, '\n')], "sessionId").Str
	require.True(t, chain.IsUUID(bID))
	sources = append(sources,
		source{name: "named by another id", data: named("2.1.328/compact.jsonl"), as: other},
		source{name: "two sessions in one file", data: slices.Concat(naming(a, bID), b)},
		source{name: "a subagent with an id of its own", data: naming(named("2.1.328/shapes/fork-agent.jsonl"), other),
			from: filepath.Join("..", "testdata", "sessions", "2.1.328", "shapes", "fork-agent.jsonl"),
			after: func(path string) {
				subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-*.jsonl"))
				require.NotEmpty(t, subs)
				sb := readFile(t, subs[0])
				m := regexp.MustCompile(`"sessionId":"([0-9a-f-]{36})"`).FindSubmatch(sb)
				require.NotNil(t, m)
				id := string(m[1])
				require.NoError(t, os.WriteFile(subs[0], bytes.ReplaceAll(sb, []byte(`"sessionId":"`+id+`"`), []byte(`"sessionId":"`+other+`"`)), 0o644))
			}})

	compared, withSidecars, damaged, legacy := 0, 0, 0, 0
	for _, src := range sources {
		cfg := t.TempDir()
		path := placeSession(t, cfg, src.from, src.data, src.as)
		if src.after != nil {
			src.after(path)
		}
		env := func() (*app.Env, *bytes.Buffer, *bytes.Buffer) {
			var o, e bytes.Buffer
			return &app.Env{ConfigDir: cfg, JSON: true, Out: &o, Err: &e}, &o, &e
		}
		// -o FILE
		outs := t.TempDir()
		fe, fo, ferr := env()
		errFast := fe.RunClone(path, app.BranchOptions{}, app.Dest{Output: filepath.Join(outs, "fast.jsonl")})
		oe, oo, oerr := env()
		errFull := oe.RunCloneFull(path, app.BranchOptions{}, app.Dest{Output: filepath.Join(outs, "full.jsonl")})
		require.Equal(t, errFull == nil, errFast == nil, "%s: full: %v %s; fast: %v %s", src.name, errFull, oerr, errFast, ferr)
		if errFull != nil {
			require.Equal(t, errFull.Error(), errFast.Error(), src.name)
			continue
		}
		lineErrs := lineErrors(t, path)
		if lineErrs > 0 {
			damaged++
		}
		m := newUnrename()
		sameSummary(t, src.name, oo.Bytes(), fo.Bytes(), lineErrs, "path")
		m.same(t, src.name+" -o", readFile(t, filepath.Join(outs, "full.jsonl")), readFile(t, filepath.Join(outs, "fast.jsonl")))
		m.ids(t, src.name, gjson.GetBytes(oo.Bytes(), "session_id").Str, gjson.GetBytes(fo.Bytes(), "session_id").Str)

		// a new session, with its sidecars
		before := listFiles(t, cfg)
		oe, oo, oerr = env()
		require.NoError(t, oe.RunCloneFull(path, app.BranchOptions{}, app.Dest{}), "%s: %s", src.name, oerr)
		fullID := gjson.GetBytes(oo.Bytes(), "session_id").Str
		full := newFiles(t, cfg, before, fullID)
		fe, fo, ferr = env()
		require.NoError(t, fe.RunClone(path, app.BranchOptions{}, app.Dest{}), "%s: %s", src.name, ferr)
		fastID := gjson.GetBytes(fo.Bytes(), "session_id").Str
		fast := newFiles(t, cfg, before, fastID)
		require.NotEqual(t, fullID, fastID)
		sameSummary(t, src.name, oo.Bytes(), fo.Bytes(), lineErrs, "path", "resume_command")
		require.Equal(t, strings.ReplaceAll(gjson.GetBytes(oo.Bytes(), "path").Str, fullID, "ID"),
			strings.ReplaceAll(gjson.GetBytes(fo.Bytes(), "path").Str, fastID, "ID"), src.name)
		m = newUnrename()
		m.ids(t, src.name, fullID, fastID)
		require.Equal(t, slices.Sorted(maps.Keys(full)), slices.Sorted(maps.Keys(fast)), "%s: the files of the new session", src.name)
		for name, p := range full {
			m.same(t, src.name+": "+name, readFile(t, p), readFile(t, fast[name]))
		}
		if len(full) > 1 {
			withSidecars++
		}
		for name := range full {
			if strings.HasPrefix(filepath.Base(name), "agent-X-") {
				legacy++
			}
		}
		origins := readFile(t, filepath.Join(cfg, "ccsurgeon", "origins.jsonl"))
		require.Contains(t, string(origins), `"session":"`+fastID+`"`, src.name)
		compared++
	}
	t.Logf("%d sessions cloned both ways (%d with sidecars, %d with damaged lines, %d older clients' agent files)", compared, withSidecars, damaged, legacy)
	require.Greater(t, compared, 60)
	require.Greater(t, withSidecars, 3)
	require.Greater(t, damaged, 5)
	require.Greater(t, legacy, 0)
}

// placeSession writes data as a session of a config dir, under id ("": the
// id its first entry carries, else a made-up one), with the sidecars of the session at
// from (its folder, and the older clients' agent files beside it).
func placeSession(t *testing.T, cfg, from string, data []byte, id string) string {
	t.Helper()
	proj := filepath.Join(cfg, "projects", "-work-p")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	for _, l := range bytes.Split(data, []byte("\n")) {
		if id != "" {
			break
		}
		if sid := gjson.GetBytes(l, "sessionId").Str; chain.IsUUID(sid) {
			id = sid
		}
	}
	if id == "" {
		id = "d1d1d1d1-0000-4000-8000-000000000001"
	}
	path := filepath.Join(proj, id+".jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	side := strings.TrimSuffix(from, ".jsonl")
	if st, err := os.Stat(side); err == nil && st.IsDir() {
		require.NoError(t, os.CopyFS(filepath.Join(proj, id), os.DirFS(side)))
	}
	// older clients' subagent files lie beside the main transcript (testdata
	// keeps them in the session's folder)
	agents, _ := filepath.Glob(filepath.Join(filepath.Dir(from), "agent-*.jsonl"))
	inFolder, _ := filepath.Glob(filepath.Join(side, "agent-*.jsonl"))
	for _, a := range append(agents, inFolder...) {
		require.NoError(t, os.WriteFile(filepath.Join(proj, filepath.Base(a)), readFile(t, a), 0o644))
	}
	return path
}

// lineErrors counts the validation errors of the session at path that one
// read of its lines finds: what a plain clone reports as preexisting.
func lineErrors(t *testing.T, path string) int {
	s, err := chain.Load(path)
	require.NoError(t, err)
	defer s.Close()
	n := 0
	for _, p := range validate.Session(s).Problems {
		switch p.Code {
		case "invalid-json", "torn-final-line", "empty-file":
			if p.Severity == validate.Error {
				n++
			}
		}
	}
	return n
}

// sameSummary: the two --json summaries agree but for the new ids, the
// fields named, and preexisting_errors (the fast path's is lineErrs, at
// most the full path's).
func sameSummary(t *testing.T, name string, full, fast []byte, lineErrs int, skip ...string) {
	t.Helper()
	var a, b map[string]any
	require.NoError(t, json.Unmarshal(full, &a), "%s", full)
	require.NoError(t, json.Unmarshal(fast, &b), "%s", fast)
	require.EqualValues(t, lineErrs, b["preexisting_errors"], "%s: preexisting_errors", name)
	require.LessOrEqual(t, b["preexisting_errors"].(float64), a["preexisting_errors"].(float64), name)
	for _, k := range append(skip, "session_id", "preexisting_errors") {
		delete(a, k)
		delete(b, k)
	}
	require.Equal(t, a, b, name)
}

// listFiles lists the regular files under dir.
func listFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out[p] = true
		}
		return err
	}))
	return out
}

var legacyName = regexp.MustCompile(`^agent-[0-9a-f]{8}-`)

// newFiles are the files of the new session id: those under cfg that were
// not in before, but ccsurgeon's own bookkeeping, by a name that leaves
// out what differs from run to run (the id, a legacy agent file's random
// prefix).
func newFiles(t *testing.T, cfg string, before map[string]bool, id string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p := range listFiles(t, cfg) {
		rel, err := filepath.Rel(cfg, p)
		require.NoError(t, err)
		if before[p] || strings.HasPrefix(rel, "ccsurgeon"+string(filepath.Separator)) {
			continue
		}
		if !strings.Contains(rel, id) && !legacyName.MatchString(filepath.Base(rel)) {
			continue // the other run's
		}
		if !strings.Contains(rel, id) {
			// a legacy agent file: which run made it is in its entries
			if !bytes.Contains(readFile(t, p), []byte(id)) {
				continue
			}
			rel = filepath.Join(filepath.Dir(rel), legacyName.ReplaceAllString(filepath.Base(rel), "agent-X-"))
		}
		out[strings.ReplaceAll(rel, id, "ID")] = p
	}
	return out
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// unrename maps the ids of one clone to those of another: one bijection
// over every file of a session.
type unrename struct{ toFull, toFast map[string]string }

func newUnrename() *unrename {
	return &unrename{toFull: map[string]string{}, toFast: map[string]string{}}
}

// ids records that the fast clone's id b is the full clone's a.
func (m *unrename) ids(t *testing.T, name, a, b string) {
	t.Helper()
	require.NoError(t, m.match(name, a, b))
}

// match records that the fast clone's id b is the full clone's a, or says
// why it cannot be (one of them is already another's).
func (m *unrename) match(name, a, b string) error {
	if x, ok := m.toFull[b]; ok && x != a {
		return fmt.Errorf("%s: %s is two ids of the full clone", name, b)
	}
	if x, ok := m.toFast[a]; ok && x != b {
		return fmt.Errorf("%s: %s is two ids of the fast clone", name, a)
	}
	m.toFull[b], m.toFast[a] = a, b
	return nil
}

// same requires fast to be full once every quoted uuid where they differ
// is mapped back.
func (m *unrename) same(t *testing.T, name string, full, fast []byte) {
	t.Helper()
	require.NoError(t, m.compare(name, full, fast))
}

// compare is same's check: nil when fast is full once every quoted uuid
// where they differ is mapped back, else where they differ.
func (m *unrename) compare(name string, full, fast []byte) error {
	if len(full) != len(fast) {
		return fmt.Errorf("%s: the sizes differ: %d and %d bytes", name, len(full), len(fast))
	}
	for i := 0; i < len(full); i++ {
		if full[i] == fast[i] {
			continue
		}
		j := i
		for ; j >= max(1, i-35); j-- {
			if j+37 <= len(full) && full[j-1] == '"' && fast[j-1] == '"' && full[j+36] == '"' && fast[j+36] == '"' &&
				chain.IsUUID(full[j:j+36]) && chain.IsUUID(fast[j:j+36]) {
				break
			}
		}
		if j < max(1, i-35) {
			lo, hi := max(0, i-80), min(len(full), i+80)
			return fmt.Errorf("%s: the clones differ at byte %d:\nfull: %q\nfast: %q", name, i, full[lo:hi], fast[lo:hi])
		}
		if err := m.match(name, string(full[j:j+36]), string(fast[j:j+36])); err != nil {
			return err
		}
		i = j + 35
	}
	return nil
}
