package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// RepairResult is what `repair --json` prints: the fixes, then the usual
// write result.
type RepairResult struct {
	Fixes []ops.Fix `json:"fixes"`
	WriteResult
}

// errProblemsLeft is behind the error of a repair that leaves problems it
// has no safe fix for (repairLeft): doctor --fix takes it for a repair
// that did what it could.
var errProblemsLeft = errors.New("problems left that repair has no safe fix for")

// errNothingToFix stops the write path when a session needs no repair.
var errNothingToFix = errors.New("nothing to fix")

// repairOnce is repair stopping the write path (before any backup, copy
// or gate) when it fixes nothing: the session is read and repaired once
// (repair ran twice, once to learn whether it would change anything).
// A repair to -o DIR/ goes on: the session is written into the folder
// with its files, as every command writes one (copyUnchanged writes a
// file).
type repairOnce struct {
	*ops.Repair
	toFolder bool
}

func (r repairOnce) Apply(t *ops.Txn) error {
	if err := r.Repair.Apply(t); err != nil {
		return err
	}
	if r.Changes() == 0 && !r.toFolder {
		return errNothingToFix
	}
	return nil
}

// RunRepair fixes what can be fixed safely in a session (see ops.Repair)
// and writes the result through the validation gate to the destination,
// in place with a backup by default. A session with nothing to fix is
// left alone. The exit status is 1 when problems stay that repair has no
// safe fix for (each listed with the reason), whether or not it fixed
// others, 0 when the session is sound.
func (env *Env) RunRepair(session string, d Dest) error {
	var path, id, shown string // shown: the session's id as --json names it (chain.File.SessionID)
	rep := &ops.Repair{}
	var buf bytes.Buffer
	inner := *env
	inner.Out, inner.stdout = &buf, env.Out
	err := inner.runWrite(session, d, func(s *chain.Session) (ops.Pipeline, error) {
		path, id, shown = s.Path, s.ID, s.Main.SessionID()
		return ops.Pipeline{repairOnce{rep, d.Output != "" && isFolderDest(d.Output)}}, nil
	})
	fixes := fixWords(rep.Fixes)
	if errors.Is(err, errNothingToFix) {
		if len(fixes) == 0 && d.Output != "" && !d.DryRun {
			return env.copyUnchanged(shown, path, d) // -o always writes its output
		}
		return env.summaryTo(d).printNothingToFix(id, shown, path, fixes)
	}
	if err != nil {
		return err // 'repair --dry-run' lists what would be fixed
	}
	// errors that stay after the fixes: exit 1, as with nothing to fix
	left := env.repairLeft(id, path, fixes, d.DryRun)
	if d.Output == "-" { // the result went to stdout: the fixes go to stderr
		if !env.Quiet {
			w := bufio.NewWriterSize(env.Err, 64<<10)
			for _, fx := range fixes {
				fmt.Fprintf(w, "%s\n", fx)
			}
			_ = w.Flush() // (as before: a stderr that fails does not keep the result from stdout)
		}
		if _, err := RawOut(env.Out).Write(buf.Bytes()); err != nil {
			return err
		}
		return left
	}
	if env.JSON && !d.Diff {
		out := RepairResult{Fixes: fixes}
		if err := json.Unmarshal(buf.Bytes(), &out.WriteResult); err != nil {
			return fmt.Errorf("repair: reading the write result: %w", err)
		}
		if out.Fixes == nil {
			out.Fixes = []ops.Fix{}
		}
		if err := env.printJSON(out); err != nil {
			return err
		}
		return left
	}
	if !env.JSON {
		// one line each: "line N: what", in writes of many lines (one
		// write a fix was 19,000 system calls on a damaged session)
		w := bufio.NewWriterSize(env.Out, 64<<10)
		for _, fx := range fixes {
			fmt.Fprintf(w, "%s\n", fx)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if _, err := env.Out.Write(buf.Bytes()); err != nil {
		return err
	}
	return left
}

// repairLeft is the error of a repair that leaves problems it has no safe
// fix for (nil when none is left): exit 1, said on stderr with the
// command that shows each with what it costs, whatever stdout holds.
func (env *Env) repairLeft(id, path string, fixes []ops.Fix, dryRun bool) error {
	left, fixed := 0, 0
	for _, fx := range fixes {
		if fx.Fixed {
			fixed++
		} else {
			left++
		}
	}
	if left == 0 {
		return nil
	}
	msg := Plural(left, "problem", "problems") + " left that repair has no safe fix for"
	switch {
	case fixed == 0:
		msg += "; nothing was written"
	case dryRun:
		msg += " (" + Plural(fixed, "other", "others") + " would be fixed)"
	default:
		msg += " (" + Plural(fixed, "other", "others") + " fixed)"
	}
	// the command layer runs 'ccsurgeon' as this run's (its --config-dir)
	return &Error{Msg: msg, Hint: "see each with what it costs: 'ccsurgeon validate " + env.sessionArg(id, path) + "'", Code: 1, Err: errProblemsLeft}
}

func (env *Env) printNothingToFix(id, shown, path string, found []ops.Fix) error {
	// problems left: exit 1, as validate does on them
	left := env.repairLeft(id, path, found, false)
	if env.JSON {
		if found == nil {
			found = []ops.Fix{}
		}
		// as every command that finds nothing to change reports it
		if err := env.printJSON(struct {
			SessionID       string    `json:"session_id"`
			Path            string    `json:"path"`
			NothingToChange bool      `json:"nothing_to_change"`
			Fixes           []ops.Fix `json:"fixes"`
			Changed         bool      `json:"changed"`
		}{shown, path, true, found, false}); err != nil {
			return err
		}
		return left
	}
	for _, fx := range found {
		fmt.Fprintf(env.Out, "%s\n", fx)
	}
	if len(found) > 0 {
		fmt.Fprintf(env.Out, "repair has no safe fix for the %s above in %s; nothing was written\n", Plural(len(found), "problem", "problems"), path)
		return left
	}
	fmt.Fprintf(env.Out, "nothing to repair in %s; nothing was written\n", path)
	return nil
}

// copyUnchanged writes the session at path, which repair leaves as it is,
// to -o: an identical copy, so that 'repair X -o fixed.jsonl' gives a file
// whatever it found.
func (env *Env) copyUnchanged(id, path string, d Dest) error {
	render := func(w io.Writer) error {
		f, err := chain.OpenShared(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
	report := func(w io.Writer, where string) error {
		if env.JSON {
			e := *env
			e.Out = w
			return e.printJSON(struct {
				SessionID       string    `json:"session_id"`
				Path            string    `json:"path"`
				NothingToChange bool      `json:"nothing_to_change"`
				Fixes           []ops.Fix `json:"fixes"`
				Changed         bool      `json:"changed"`
			}{id, d.Output, true, []ops.Fix{}, false})
		}
		_, err := fmt.Fprintf(w, "repair: no change; wrote an identical copy to %s\n", where)
		return err
	}
	if d.Output == "-" {
		if err := render(RawOut(env.Out)); err != nil {
			return err
		}
		return report(env.Err, "stdout")
	}
	if st, err := os.Stat(filepath.Dir(d.Output)); err != nil || !st.IsDir() {
		return noFolderError(d.Output, filepath.Dir(d.Output))
	}
	if ost, err := os.Stat(d.Output); err == nil {
		if sst, err := os.Stat(path); err == nil && os.SameFile(ost, sst) {
			return UsageErrorf("leave out -o to change the session in place (with a backup)", "-o names a file of the session itself: %s", path)
		}
	}
	if err := backup.WriteTo(d.Output, d.Force, render); err != nil {
		return err
	}
	return report(env.Out, d.Output)
}

// fixWords are repair's fixes as the user reads them: one left because
// the user keeps one of two answers says with which commands.
func fixWords(fixes []ops.Fix) []ops.Fix {
	for i := range fixes {
		if fixes[i].KeepOne {
			fixes[i].Message += "; keep the one you want with 'fork-at-turn' or 'clone --branch'"
		}
	}
	return fixes
}
