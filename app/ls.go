package app

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// SessionSummary is one row of `ls`.
type SessionSummary struct {
	ID          string    `json:"id"`
	Path        string    `json:"path"`
	Project     string    `json:"project"`
	Modified    time.Time `json:"modified"`
	Size        int64     `json:"size"`
	Turns       *int      `json:"turns,omitempty"` // with --turns only
	FirstPrompt string    `json:"first_prompt"`
	LastPrompt  string    `json:"last_prompt,omitempty"`
	Title       string    `json:"title,omitempty"`
}

// LsOptions are the options of `ls`.
type LsOptions struct {
	Project string // a project path (the cwd) or a folder name under projects/
	Turns   bool   // count turns (reads whole files)
}

// How much of a session `ls` reads: the head holds the working directory
// and the first prompt, the tail the title and the last prompt. A session
// whose first prompt lies deeper than the first window (big attachments
// before it) is read further, up to headMax.
const (
	headWindow = 64 << 10
	headMax    = 1 << 20
	tailWindow = 64 << 10
)

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
	rows := summarize(paths, o.Turns)
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
	if o.Turns {
		fmt.Fprintln(w, "ID\tPROJECT\tMODIFIED\tSIZE\tTURNS\tTITLE OR FIRST PROMPT")
	} else {
		fmt.Fprintln(w, "ID\tPROJECT\tMODIFIED\tSIZE\tTITLE OR FIRST PROMPT")
	}
	for _, r := range rows {
		title := r.Title
		if title == "" {
			title = r.FirstPrompt
		}
		turns := ""
		if r.Turns != nil {
			turns = fmt.Sprintf("%d\t", *r.Turns)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s%s\n", r.ID, r.Project, r.Modified.Local().Format("2006-01-02 15:04"), HumanBytes(r.Size), turns, oneLine(title, 60))
	}
	return w.Flush()
}

func summarize(paths []string, turns bool) []SessionSummary {
	rows := make([]SessionSummary, len(paths))
	ok := make([]bool, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := summarizeOne(paths[i], turns)
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

// summarizeOne describes one session. Without turns it reads the head and
// the tail of the file only, so that listing is as fast for a 1 GB
// session as for a small one; with turns it reads the whole file.
func summarizeOne(p string, turns bool) (SessionSummary, error) {
	fh, err := os.Open(p)
	if err != nil {
		return SessionSummary{}, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return SessionSummary{}, err
	}
	r := SessionSummary{ID: strings.TrimSuffix(filepath.Base(p), ".jsonl"), Path: p, Modified: st.ModTime(), Size: st.Size(), Project: filepath.Base(filepath.Dir(p))}
	if turns || st.Size() <= headWindow+tailWindow {
		f, err := chain.LoadFile(p)
		if err != nil {
			return r, err
		}
		defer f.Close()
		ts := f.ActiveTurns()
		if turns {
			n := len(ts.List)
			r.Turns = &n
		}
		describe(f, &r, true)
		return r, nil
	}
	for n := int64(headWindow); ; n *= 4 {
		head, err := readLines(fh, 0, min(n, st.Size()))
		if err != nil {
			return r, err
		}
		if describe(head, &r, true) || n >= headMax || n >= st.Size() {
			break
		}
	}
	tail, err := readLines(fh, max(0, st.Size()-tailWindow), st.Size())
	if err != nil {
		return r, err
	}
	describe(tail, &r, false)
	return r, nil
}

// readLines indexes the whole lines of fh between from and to: a line cut
// by either end of the window is left out (unless that end is the file's).
func readLines(fh *os.File, from, to int64) (*chain.File, error) {
	start := max(from-1, 0) // one byte before: does the window start a line?
	b := make([]byte, to-start)
	if _, err := fh.ReadAt(b, start); err != nil && err != io.EOF {
		return nil, err
	}
	if from > 0 {
		// b[0] is the byte before the window: a newline there means the
		// window starts with a whole line
		if i := bytes.IndexByte(b, '\n'); i < 0 {
			b = nil
		} else {
			b = b[i+1:]
		}
	}
	if st, err := fh.Stat(); err == nil && to < st.Size() {
		b = b[:bytes.LastIndexByte(b, '\n')+1]
	}
	return chain.LoadBytes(fh.Name(), b)
}

// describe fills in r from f, the whole session or a window of its lines
// (the head first, then the tail): the project (the first cwd), the first
// prompt (the first a person typed, in file order; from the head or the
// whole file only), the title (the last summary or custom-title; 1.0 wrote
// summaries at the top, 2.x appends titles) and the last prompt. It
// reports whether the first prompt is known.
func describe(f *chain.File, r *SessionSummary, head bool) bool {
	if r.FirstPrompt == "" && head {
		if i, ok := f.FirstPrompt(); ok {
			r.FirstPrompt, _ = f.PromptText(i)
		}
	}
	cwdKnown := r.Project != filepath.Base(filepath.Dir(r.Path))
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry {
			continue
		}
		meta := e.Type == "summary" || e.Type == "custom-title" || e.Type == "last-prompt"
		if cwdKnown && !meta {
			continue
		}
		raw, err := f.Raw(i)
		if err != nil {
			continue
		}
		if !cwdKnown {
			if cwd := gjson.GetBytes(raw, "cwd"); cwd.Type == gjson.String && cwd.Str != "" {
				r.Project, cwdKnown = cwd.Str, true
			}
		}
		if !meta {
			continue
		}
		for _, k := range []string{"summary", "customTitle"} {
			if t := gjson.GetBytes(raw, k); t.Type == gjson.String && t.Str != "" {
				r.Title = t.Str
			}
		}
		if t := gjson.GetBytes(raw, "lastPrompt"); t.Type == gjson.String && t.Str != "" {
			r.LastPrompt = t.Str
		}
	}
	return r.FirstPrompt != ""
}
