package app

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/tidwall/gjson"
)

// TurnJSON is one turn in `turns --json`.
type TurnJSON struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	Prompt    string `json:"prompt"`
	Compacted bool   `json:"compacted"`
	Branch    int    `json:"branch,omitempty"`
	Leaf      string `json:"leaf,omitempty"`
	Active    bool   `json:"active,omitempty"`
}

// TurnsOptions are the options of `turns`.
type TurnsOptions struct {
	Session string
	All     bool
}

// RunTurns lists the numbered turns of the active branch, or of every branch.
func (env *Env) RunTurns(o TurnsOptions) error {
	s, err := env.OpenSession(o.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	f := s.Main
	g := f.Graph()
	type branch struct {
		n      int
		leaf   int
		active bool
	}
	var branches []branch
	active := g.ActiveLeaf()
	if o.All {
		for k, l := range g.Branches() {
			branches = append(branches, branch{n: k + 1, leaf: l, active: l == active})
		}
	} else {
		branches = []branch{{leaf: active, active: true}}
	}
	out := []TurnJSON{}
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
	for _, b := range branches {
		ts := f.TurnsOf(b.leaf)
		if o.All && !env.JSON {
			mark := ""
			if b.active {
				mark = ", active: the client resumes this one"
			}
			leafID := ""
			if b.leaf >= 0 {
				leafID = f.Entries[b.leaf].UUID
			}
			fmt.Fprintf(w, "branch %d (leaf %s%s)\n", b.n, leafID, mark)
		}
		for _, t := range ts.List {
			prompt, err := f.PromptText(t.Entry)
			if err != nil {
				return err
			}
			tj := TurnJSON{Index: t.Index, UUID: t.UUID, Timestamp: t.Timestamp, Prompt: prompt, Compacted: t.Compacted}
			if o.All {
				tj.Branch, tj.Active = b.n, b.active
				tj.Leaf = f.Entries[b.leaf].UUID
			}
			out = append(out, tj)
			if !env.JSON {
				note := ""
				if t.Compacted {
					note = "  (compacted)"
				}
				fmt.Fprintf(w, "%4d\t%s\t%s%s\n", t.Index, shortTime(t.Timestamp), oneLine(prompt, 90), note)
			}
		}
		if o.All && !env.JSON {
			fmt.Fprintln(w)
		}
	}
	if env.JSON {
		return env.printJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(w, "no turns: the session holds no prompt a person typed")
	}
	return w.Flush()
}

func shortTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// ValidateOptions are the options of `validate`.
type ValidateOptions struct{ Sessions []string }

// RunValidate checks each session and prints its problems.
func (env *Env) RunValidate(o ValidateOptions) error {
	if len(o.Sessions) == 0 {
		return UsageErrorf("example: ccsurgeon validate 3f2a9c1e", "validate needs at least one SESSION or FILE")
	}
	all := validate.Report{Problems: []validate.Problem{}}
	for _, arg := range o.Sessions {
		s, err := env.OpenSession(arg)
		if err != nil {
			return err
		}
		r := validate.Session(s)
		s.Close()
		all.Problems = append(all.Problems, r.Problems...)
		if !env.JSON {
			for _, p := range r.Problems {
				fmt.Fprintln(env.Out, p.String())
			}
			status := "valid"
			if !r.Valid() {
				status = fmt.Sprintf("invalid: %d errors", r.Errors())
			}
			fmt.Fprintf(env.Err, "%s: %s, %d warnings\n", s.Path, status, len(r.Problems)-r.Errors())
		}
	}
	if env.JSON {
		if err := env.printJSON(struct {
			Valid    bool               `json:"valid"`
			Problems []validate.Problem `json:"problems"`
		}{all.Valid(), all.Problems}); err != nil {
			return err
		}
	}
	if !all.Valid() {
		return &ExitError{Code: 1}
	}
	return nil
}

// SessionSummary is one row of `ls`.
type SessionSummary struct {
	ID          string    `json:"id"`
	Path        string    `json:"path"`
	Project     string    `json:"project"`
	Modified    time.Time `json:"modified"`
	Size        int64     `json:"size"`
	Turns       int       `json:"turns"`
	FirstPrompt string    `json:"first_prompt"`
	Title       string    `json:"title,omitempty"`
}

// LsOptions are the options of `ls`.
type LsOptions struct {
	Project string // a project path (the cwd) or a folder name under projects/
}

// RunLs lists sessions newest first.
func (env *Env) RunLs(o LsOptions) error {
	paths, err := chain.FindSessions(env.ConfigDir, "")
	if err != nil {
		return err
	}
	if o.Project != "" {
		want := map[string]bool{o.Project: true, chain.ProjectSlug(o.Project): true}
		if abs, err := filepath.Abs(o.Project); err == nil {
			want[chain.ProjectSlug(abs)] = true
		}
		var keep []string
		for _, p := range paths {
			if want[filepath.Base(filepath.Dir(p))] {
				keep = append(keep, p)
			}
		}
		paths = keep
	}
	rows := summarize(paths)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Modified.After(rows[j].Modified) })
	if env.JSON {
		if rows == nil {
			rows = []SessionSummary{}
		}
		return env.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(env.Err, "no sessions under %s\n", chain.ProjectsDir(env.ConfigDir))
		return nil
	}
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tPROJECT\tMODIFIED\tSIZE\tTURNS\tFIRST PROMPT")
	for _, r := range rows {
		title := r.Title
		if title == "" {
			title = r.FirstPrompt
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, r.Project, r.Modified.Local().Format("2006-01-02 15:04"), HumanBytes(r.Size), r.Turns, oneLine(title, 60))
	}
	return w.Flush()
}

func summarize(paths []string) []SessionSummary {
	rows := make([]SessionSummary, len(paths))
	ok := make([]bool, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := summarizeOne(paths[i])
				rows[i], ok[i] = r, err == nil
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []SessionSummary
	for i := range rows {
		if ok[i] {
			out = append(out, rows[i])
		}
	}
	return out
}

// summarizeOne reads the head of a session for its project and first
// prompt, and counts its turns.
func summarizeOne(p string) (SessionSummary, error) {
	st, err := os.Stat(p)
	if err != nil {
		return SessionSummary{}, err
	}
	r := SessionSummary{ID: strings.TrimSuffix(filepath.Base(p), ".jsonl"), Path: p, Modified: st.ModTime(), Size: st.Size(), Project: filepath.Base(filepath.Dir(p))}
	f, err := chain.LoadFile(p)
	if err != nil {
		return r, err
	}
	defer f.Close()
	ts := f.ActiveTurns()
	r.Turns = len(ts.List)
	if len(ts.List) > 0 {
		r.FirstPrompt, _ = f.PromptText(ts.List[0].Entry)
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry {
			continue
		}
		if r.Project == filepath.Base(filepath.Dir(p)) {
			if raw, err := f.Raw(i); err == nil {
				if cwd := gjson.GetBytes(raw, "cwd"); cwd.Type == gjson.String {
					r.Project = cwd.Str
				}
			}
		}
		if e.Type == "summary" || e.Type == "custom-title" {
			if raw, err := f.Raw(i); err == nil {
				if t := gjson.GetBytes(raw, "summary"); t.Str != "" {
					r.Title = t.Str
				} else if t := gjson.GetBytes(raw, "customTitle"); t.Str != "" {
					r.Title = t.Str
				}
			}
		}
	}
	return r, nil
}
