// Package app holds what each ccsurgeon command does, a file per command
// (or per family: write.go is the one write path every rewriting command
// takes), behind the command tree internal/cli builds: every command reads
// its options from a struct and writes to the Env's writers, so tests call
// it in-process. It is part of the command layer: its errors are *Error
// (a message, a hint that may name flags and commands, the exit code),
// and where only the command knows the words of a domain fact (the flag
// that kept the recent turns of a --target-tokens refusal, a repair note's
// command) it words it here; every other domain error goes up as the
// domain returned it, for internal/cli's speak to word.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// Env is what every command gets: where sessions live, how to print.
type Env struct {
	ConfigDir string
	JSON      bool // machine-readable output on stdout
	Quiet     bool // no progress on stderr
	Out       io.Writer
	Err       io.Writer
	In        io.Reader
	// Command is the command being run (strip-thinking, repair, …): the
	// lock of a session it changes names it to another ccsurgeon
	Command string
	// Listed: the session at hand was found by listing the config dir (a
	// batch, --pick, the default session), not named by the user, so its
	// files are written only inside the config dir (backup.Plan.Named)
	Listed bool
	// stdout is the command's standard output where Out is a buffer of
	// the command's own (repair gathers its report there)
	stdout io.Writer
	// scanners: the redact scanners this run built, shared by the copies
	// of the Env a batch makes (nil: built each time; see NewEnv)
	scanners *scannerCache
	// sweeps: the project folders this run has swept for what killed
	// runs left (shared by the copies a batch makes; nil: each session
	// sweeps its folder)
	sweeps *backup.Sweeps
}

// NewEnv is the Env of one run of ccsurgeon: what it builds once for every
// session of a batch (the redact scanner) is shared by the copies a batch
// makes of it.
func NewEnv(in io.Reader, out, err io.Writer) *Env {
	return &Env{In: in, Out: out, Err: err, scanners: &scannerCache{}, sweeps: backup.NewSweeps()}
}

// Error is the command layer's one error: the message the user reads
// (none when the command has already printed what went wrong, e.g.
// validation problems), a hint that may name flags and commands, and the
// exit code (0 means 1). The domain packages return facts and typed
// errors; internal/app and internal/cli (speak) word them as an *Error.
type Error struct {
	Msg  string
	Hint string
	Code int
	Err  error // the domain error it words (may be nil)
}

func (e *Error) Error() string { return e.Msg }

// HintText returns the hint line to print after the message, if any.
func (e *Error) HintText() string { return e.Hint }

// ExitCode is the process exit code (never 0).
func (e *Error) ExitCode() int {
	if e.Code == 0 {
		return 1
	}
	return e.Code
}

// Unwrap returns the domain error, so errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Err }

// Reword returns the message of err with the words of inner, an error of
// its chain, in place of inner's own: what wraps inner says the same.
func Reword(err, inner error, words string) string {
	return strings.Replace(err.Error(), inner.Error(), words, 1)
}

// Errorf returns a user-facing error with exit code 1. When an argument
// is an error (words around it: "diff: %v"), the result wraps it: its
// hint and exit code, or the words the command layer gives it, stay the
// inner error's, under the message made here.
func Errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	for _, a := range args {
		if inner, ok := a.(error); ok && inner != nil {
			return &contextError{msg: msg, err: inner}
		}
	}
	return &Error{Msg: msg, Code: 1}
}

// contextError is a message made around an error (Errorf): no hint or
// exit code of its own, so that the inner error's are found through it.
type contextError struct {
	msg string
	err error
}

func (e *contextError) Error() string { return e.msg }
func (e *contextError) Unwrap() error { return e.err }

// noFolderError says that the folder -o names its file in (or the
// folder of -o DIR/), dir, is not a folder that exists: a
// backup.CannotWriteError (which speak words).
func noFolderError(output, dir string) error {
	if err := backup.FolderError(output, dir); err != nil {
		return err
	}
	return &backup.CannotWriteError{Path: output, Dir: dir, Block: backup.NoFolder}
}

// UsageErrorf returns a user-facing error with exit code 2 and a hint.
func UsageErrorf(hint, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Hint: hint, Code: 2}
}

// OpenSession locates and loads SESSION.
func (env *Env) OpenSession(arg string) (*chain.Session, error) {
	p, err := chain.Locate(env.ConfigDir, arg)
	if err != nil {
		return nil, err
	}
	pr := env.newProgress()
	if st, err := os.Stat(p); err == nil {
		pr.Phase("reading", st.Size())
	}
	s, err := chain.LoadWith(p, pr.Add)
	pr.Done()
	if err != nil {
		if os.IsPermission(err) {
			return nil, &Error{Msg: fmt.Sprintf("cannot read %s: permission denied", p), Code: 1}
		}
		return nil, err
	}
	return s, nil
}

func (env *Env) printJSON(v any) error { return PrintJSON(env.Out, v) }

// PrintJSON writes v as every --json output is written: indented by two
// spaces, one value a line, with <, > and & as they are.
// A list or map that holds nothing prints as [] or {}, never null: a
// script's `jq '.fixed[]'` lists nothing rather than failing.
func PrintJSON(w io.Writer, v any) error {
	v = emptyNotNull(v)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Plural is "1 entry", "2 entries": n with the word in the right number.
func Plural(n int, one, many string) string { return chain.Plural(n, one, many) }

// ParseSize reads the SIZE of a flag (e.g. --larger-than 20KB). A number
// without a unit is refused unless it is 0: "20" is more likely a slip
// for 20KB than a wish for 20 bytes.
func ParseSize(flag, s string) (int64, error) {
	n, err := ops.ParseSize(s)
	if errors.Is(err, ops.ErrSizeTooLarge) {
		return 0, UsageErrorf(fmt.Sprintf("example: %s 20KB", flag), "%s %q: too large", flag, s)
	}
	if err != nil {
		return 0, UsageErrorf(fmt.Sprintf("example: %s 20KB", flag), "%s %q: want a number with a unit (B, KB, MB, GB)", flag, s)
	}
	t := strings.TrimSpace(s)
	if t != "" && strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }) < 0 && n != 0 {
		return 0, UsageErrorf(fmt.Sprintf("give the unit: %s %sKB (or %sB for bytes)", flag, t, t), "%s %q: %s bytes? say %sB or %sKB", flag, s, t, t, t)
	}
	return n, nil
}

// Self is how a command of ccsurgeon that ccsurgeon prints (a hint, an
// undo line) starts: "ccsurgeon", with --config-dir DIR when the config
// dir is not the one a plain 'ccsurgeon' in the same shell would use.
func (env *Env) Self() string {
	if env.ConfigDir == "" {
		return "ccsurgeon"
	}
	if def, err := filepath.Abs(chain.DefaultConfigDir()); err == nil && def == env.ConfigDir {
		return "ccsurgeon"
	}
	return "ccsurgeon --config-dir " + ShellQuote(env.ConfigDir)
}

// emptyNotNull returns v with every nil slice (but bytes, such as
// json.RawMessage, whose nil is null) and nil map of an exported field
// printed without omitempty made empty, through structs, pointers and
// slices: v itself when it holds none, else a copy (pointers and slices
// it reaches are changed in place: an empty list for a nil one).
func emptyNotNull(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	if cp.Kind() == reflect.Slice && cp.IsNil() && cp.Type().Elem().Kind() != reflect.Uint8 {
		cp.Set(reflect.MakeSlice(cp.Type(), 0, 0))
	}
	fillEmpty(cp)
	return cp.Interface()
}

func fillEmpty(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() != reflect.Pointer {
				cp := reflect.New(e.Type()).Elem()
				cp.Set(e)
				fillEmpty(cp)
				if v.CanSet() {
					v.Set(cp)
				}
				return
			}
			fillEmpty(e)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := 0; i < v.Len(); i++ {
			fillEmpty(v.Index(i))
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			fv := v.Field(i)
			if !fv.CanSet() {
				continue
			}
			omit := strings.Contains(f.Tag.Get("json"), ",omitempty")
			switch {
			case fv.Kind() == reflect.Slice && fv.IsNil() && !omit && f.Type.Elem().Kind() != reflect.Uint8:
				fv.Set(reflect.MakeSlice(f.Type, 0, 0))
			case fv.Kind() == reflect.Map && fv.IsNil() && !omit:
				fv.Set(reflect.MakeMap(f.Type))
			default:
				fillEmpty(fv)
			}
		}
	}
}
