package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
)

// sessionIdentity finds the id and project folder of SESSION for backups
// and restore. The session file may be gone (restore brings it back), so a
// full id that matches no file is accepted as it is.
func (env *Env) sessionIdentity(arg string) (id, projectDir string, err error) {
	p, err := chain.Locate(env.ConfigDir, arg)
	if err == nil {
		return strings.TrimSuffix(filepath.Base(p), ".jsonl"), filepath.Dir(p), nil
	}
	if len(arg) == 36 && !strings.ContainsAny(arg, `/\.`) {
		return arg, "", nil
	}
	return "", "", err
}

// BackupJSON is one row of `backups --json`.
type BackupJSON struct {
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	Time      time.Time `json:"time"`
	Operation string    `json:"operation"`
	Size      int64     `json:"size"`
	Files     []string  `json:"files"`
}

// RunBackups lists the backups of a session, newest first.
func (env *Env) RunBackups(session string) error {
	id, _, err := env.sessionIdentity(session)
	if err != nil {
		return err
	}
	list, err := backup.List(env.ConfigDir, id)
	if err != nil {
		return err
	}
	rows := []BackupJSON{}
	for _, b := range list {
		r := BackupJSON{Name: b.Name, Path: b.Dir, Time: b.Time, Operation: b.Op, Size: b.Size()}
		for _, f := range b.Files {
			r.Files = append(r.Files, f.Rel)
		}
		rows = append(rows, r)
	}
	if env.JSON {
		return env.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(env.Err, "no backups of %s under %s\n", id, filepath.Join(env.ConfigDir, "ccsurgeon", "backups"))
		return nil
	}
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "BACKUP\tTIME\tOPERATION\tSIZE\tFILES")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\n", r.Name, r.Time.Local().Format("2006-01-02 15:04:05"), r.Operation, HumanBytes(r.Size), len(r.Files))
	}
	return w.Flush()
}

// RunRestore puts a backup back (default: the newest), after backing up
// the current state so that the restore can be undone too.
func (env *Env) RunRestore(session, which string, force bool) error {
	id, projectDir, err := env.sessionIdentity(session)
	if err != nil {
		return err
	}
	b, err := backup.Find(env.ConfigDir, id, which)
	if err != nil {
		return err
	}
	if b.Move != nil {
		return env.undoMove(b, force) // files go back to their old folder
	}
	res, err := backup.Restore(env.ConfigDir, id, projectDir, b.Name, force)
	if err != nil {
		return err
	}
	if env.JSON {
		var bk *string
		if res.BackupDir != "" {
			bk = &res.BackupDir
		}
		return env.printJSON(struct {
			SessionID string   `json:"session_id"`
			Restored  string   `json:"restored"`
			Backup    *string  `json:"backup"`
			Written   []string `json:"written"`
			Removed   []string `json:"removed"`
		}{id, b.Name, bk, res.Written, res.Removed})
	}
	fmt.Fprintf(env.Out, "restored %s from %s (%s)\n", id, b.Name, b.Op)
	for _, p := range res.Written {
		fmt.Fprintf(env.Out, "  wrote %s\n", p)
	}
	for _, p := range res.Removed {
		fmt.Fprintf(env.Out, "  removed %s\n", p)
	}
	if res.BackupDir != "" {
		fmt.Fprintf(env.Out, "the state before the restore is in %s (undo with 'ccsurgeon restore %s')\n", res.BackupDir, id)
	}
	return nil
}

// DiffOptions are the options of `diff`.
type DiffOptions struct {
	A, B        string
	IgnoreUUIDs bool
}

// RunDiff prints a unified line diff of two sessions or files; exit 1 when
// they differ, like diff(1).
func (env *Env) RunDiff(o DiffOptions) error {
	read := func(arg string) ([]byte, string, string, error) {
		p, err := chain.Locate(env.ConfigDir, arg)
		if err != nil {
			return nil, "", "", err
		}
		b, err := os.ReadFile(p)
		return b, p, strings.TrimSuffix(filepath.Base(p), ".jsonl"), err
	}
	a, pa, ida, err := read(o.A)
	if err != nil {
		return err
	}
	b, pb, idb, err := read(o.B)
	if err != nil {
		return err
	}
	opts := backup.DiffOptions{NameA: pa, NameB: pb, IgnoreUUIDs: o.IgnoreUUIDs, SessionA: ida, SessionB: idb}
	if o.IgnoreUUIDs && ida != idb {
		// a clone keeps its original's id where content quotes it (a
		// tool-results path, say): either id is "the session" in both files
		a = bytes.ReplaceAll(a, []byte(idb), []byte(ida))
		b = bytes.ReplaceAll(b, []byte(ida), []byte(idb))
	}
	st := backup.DiffSummary(a, b, opts)
	if env.JSON {
		if err := env.printJSON(struct {
			Identical bool `json:"identical"`
			Removed   int  `json:"removed"`
			Added     int  `json:"added"`
			Changed   int  `json:"changed"`
		}{st.Empty(), st.Removed, st.Added, st.Changed}); err != nil {
			return err
		}
	} else {
		fmt.Fprint(env.Out, backup.Diff(a, b, opts))
	}
	if !st.Empty() {
		return &ExitError{Code: 1}
	}
	return nil
}
