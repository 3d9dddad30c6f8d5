package app

import (
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/validate"
)

// ValidateOptions are the options of `validate`.
type ValidateOptions struct{ Sessions []string }

// validatedFile is one session's line in validate --json: valid or not,
// its counts, or why it could not be read.
// ValidateJSON is what `validate --json` prints.
type ValidateJSON struct {
	Valid    bool               `json:"valid"`
	Problems []validate.Problem `json:"problems"`
	Files    []validatedFile    `json:"files"`
}

type validatedFile struct {
	File     string `json:"file"`
	Valid    bool   `json:"valid"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	Error    string `json:"error,omitempty"`
}

// RunValidate checks each session and prints its problems.
func (env *Env) RunValidate(o ValidateOptions) error {
	if len(o.Sessions) == 0 {
		return UsageErrorf("example: ccsurgeon validate 3f2a9c1e", "validate needs at least one SESSION or FILE")
	}
	all := validate.Report{Problems: []validate.Problem{}}
	valid, invalid := 0, 0
	var firstErr error
	files := []validatedFile{}
	for _, arg := range o.Sessions {
		s, err := env.OpenSession(arg)
		if err != nil {
			if len(o.Sessions) == 1 {
				return err
			}
			// one session that cannot be read does not stop the others
			env.Sayf("%s: %v", arg, err)
			invalid++
			if firstErr == nil {
				firstErr = err
			}
			files = append(files, validatedFile{File: arg, Error: err.Error()})
			continue
		}
		r := validate.Session(s)
		s.Close()
		all.Problems = append(all.Problems, r.Problems...)
		files = append(files, validatedFile{File: s.Path, Valid: r.Valid(), Errors: r.Errors(), Warnings: len(r.Problems) - r.Errors()})
		if !env.JSON {
			for _, p := range r.Problems {
				fmt.Fprintln(env.Out, p.String())
			}
			status := "valid"
			if !r.Valid() {
				status = "invalid: " + Plural(r.Errors(), "error", "errors")
			}
			fmt.Fprintf(env.Err, "%s: %s, %s\n", s.Path, status, Plural(len(r.Problems)-r.Errors(), "warning", "warnings"))
		}
		if r.Valid() {
			valid++
		} else {
			invalid++
		}
	}
	if len(o.Sessions) > 1 && !env.JSON {
		fmt.Fprintf(env.Err, "%s: %d valid", Plural(len(o.Sessions), "session", "sessions"), valid)
		if invalid > 0 {
			fmt.Fprintf(env.Err, ", %d invalid", invalid)
		}
		fmt.Fprintln(env.Err)
	}
	if env.JSON {
		if err := env.printJSON(ValidateJSON{all.Valid() && firstErr == nil, all.Problems, files}); err != nil {
			return err
		}
	}
	if !all.Valid() || firstErr != nil {
		return &Error{Code: 1}
	}
	return nil
}

// promptHeadBytes is how much of a prompt promptLine decodes first (a
// variable only so that a test can make it tiny).
var promptHeadBytes = 4096
