//go:build experiments

package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExpStartCost resumes multi-turn with each client N times in one env per
// variant of CCSURGEON_EXP_ENV (variants split by ';', KEY=V pairs by ',')
// and prints the mean CPU of a run and whether the messages equal the
// plain run's. CCSURGEON_EXP_STRACE=dir writes an execve trace per client.
func TestExpStartCost(t *testing.T) {
	variants := append([]string{""}, strings.Split(os.Getenv("CCSURGEON_EXP_ENV"), ";")...)
	n := 4
	for _, c := range Clients(t) {
		root, _ := RepoRoot()
		src := filepath.Join(root, "testdata", "sessions", SessionsFolder(c.Version), "multi-turn.jsonl")
		var base ResumeResult
		for vi, v := range variants {
			if vi > 0 && v == "" {
				continue
			}
			e := NewEnv(t)
			if v != "" {
				e.ExtraEnv = strings.Split(v, ",")
			}
			id := e.InstallSession(t, src)
			e.Fresh = true
			var cpu float64
			var r ResumeResult
			for i := 0; i < n; i++ {
				r = e.Resume(t, c, id)
				if !r.OK() {
					t.Fatalf("%s %q: %s", c.Version, v, r)
				}
				_, _, cpuS := lastRun(t)
				cpu += cpuS
			}
			same := "base"
			if vi == 0 {
				base = r
			} else {
				ok := t.Run("same", func(t *testing.T) { AssertSameConversation(t, NewNormalizer(e), base, r) })
				same = fmt.Sprint(ok)
			}
			fmt.Printf("EXP %s %-60q cpu/run %.2f same=%s\n", c.Version, v, cpu/float64(n), same)
		}
		if d := os.Getenv("CCSURGEON_EXP_STRACE"); d != "" {
			e := NewEnv(t)
			id := e.InstallSession(t, src)
			sc := Client{Version: c.Version, Argv: append([]string{"strace", "-f", "-qq", "-c", "-e", "trace=all", "-o", filepath.Join(d, c.Version+".trace")}, c.Argv...)}
			e.Resume(t, sc, id)
		}
	}
}

// lastRun reads the last line of the run log.
func lastRun(t *testing.T) (string, float64, float64) {
	b, err := os.ReadFile(os.Getenv("CCSURGEON_RUN_LOG"))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := strings.Split(ls[len(ls)-1], "\t")
	var w, c float64
	fmt.Sscan(f[1], &w)
	fmt.Sscan(f[2], &c)
	return f[0], w, c
}

// TestExpCPUAtMainRequest: how much of a resume's CPU is spent before the
// client sends the main request (the resume's oracle) and how much after.
func TestExpCPUAtMainRequest(t *testing.T) {
	pollEvery = 2 * time.Millisecond
	for _, c := range Clients(t) {
		root, _ := RepoRoot()
		src := filepath.Join(root, "testdata", "sessions", SessionsFolder(c.Version), "multi-turn.jsonl")
		e := NewEnv(t)
		id := e.InstallSession(t, src)
		var atReq, total float64
		n := 5
		for i := 0; i < n; i++ {
			before := len(e.Mock.RequestsOf(KindMain))
			var at time.Duration
			_, err := e.exec(c, RunTimeout, func(pid int) bool {
				if at == 0 && len(e.Mock.RequestsOf(KindMain)) > before {
					at, _ = processCPU(pid)
				}
				return false
			}, []string{"-p", ResumePrompt, "--output-format", "json", "--dangerously-skip-permissions", "--resume", id})
			if err != nil {
				t.Fatal(err)
			}
			_, _, cpu := lastRun(t)
			atReq += at.Seconds()
			total += cpu
		}
		fmt.Printf("EXP %s cpu at main request %.2f of %.2f per run\n", c.Version, atReq/float64(n), total/float64(n))
	}
}

// TestExpNodeFlags: 2.0.50's CPU per resume with node flags added
// (CCSURGEON_EXP_FLAGS, variants split by ';', flags by ','), the first
// run of each variant (it makes the code cache) left out.
func TestExpNodeFlags(t *testing.T) {
	c := Old(t)
	root, _ := RepoRoot()
	src := filepath.Join(root, "testdata", "sessions", SessionsFolder(c.Version), "multi-turn.jsonl")
	var base ResumeResult
	for vi, v := range append([]string{""}, strings.Split(os.Getenv("CCSURGEON_EXP_FLAGS"), ";")...) {
		cv := c
		if v != "" {
			cv.Argv = append(append([]string{c.Argv[0]}, strings.Split(v, ",")...), c.Argv[1:]...)
		}
		e := NewEnv(t)
		id := e.InstallSession(t, src)
		e.Fresh = true
		n := 5
		var cpu float64
		var r ResumeResult
		for i := 0; i < n; i++ {
			r = e.Resume(t, cv, id)
			if !r.OK() {
				t.Fatalf("%q: %s", v, r)
			}
			_, _, s := lastRun(t)
			if i > 0 {
				cpu += s
			}
		}
		same := "base"
		if vi == 0 {
			base = r
		} else {
			same = fmt.Sprint(t.Run("same", func(t *testing.T) { AssertSameConversation(t, NewNormalizer(e), base, r) }))
		}
		fmt.Printf("EXP %s %-40q cpu/run %.2f same=%s argv=%q\n", c.Version, v, cpu/float64(n-1), same, cv.Argv)
	}
}
