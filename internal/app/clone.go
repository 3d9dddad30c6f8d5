package app

import (
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// BranchOptions choose a branch: a leaf uuid, or a branch number as listed
// by `turns --all`. Zero values mean the branch the client resumes.
type BranchOptions struct {
	Leaf   string
	Branch int
}

// resolve returns the leaf entry of the chosen branch.
func (b BranchOptions) resolve(f *chain.File) (int, error) {
	g := f.Graph()
	switch {
	case b.Leaf != "" && b.Branch != 0:
		return 0, UsageErrorf("give one of them", "--leaf and --branch cannot be used together")
	case b.Leaf != "":
		i, ok := g.Lookup(b.Leaf)
		if !ok {
			return 0, &Error{Msg: fmt.Sprintf("no entry with uuid %s in %s", b.Leaf, f.Path), Hint: "list branches and their leaves with 'ccsurgeon turns SESSION --all'", Code: 2}
		}
		return i, nil
	case b.Branch != 0:
		br := g.Branches()
		if len(br) == 0 && hasChainEntries(f) {
			return 0, noBranchError(f)
		}
		if b.Branch < 1 || b.Branch > len(br) {
			return 0, &Error{Msg: fmt.Sprintf("branch %d is out of range: the session has branches 1-%d", b.Branch, len(br)), Hint: "list them with 'ccsurgeon turns SESSION --all'", Code: 2}
		}
		return br[b.Branch-1], nil
	}
	l := g.ActiveLeaf()
	if l < 0 && hasChainEntries(f) {
		return 0, noBranchError(f)
	}
	if l < 0 {
		return 0, &Error{Msg: "the session has no conversation to work on", Code: 1}
	}
	return l, nil
}

// hasChainEntries says whether f holds an entry of the conversation's
// graph (one with a uuid), not only bookkeeping.
func hasChainEntries(f *chain.File) bool {
	for i := range f.Entries {
		if f.Entries[i].UUID() != "" {
			return true
		}
	}
	return false
}

// noBranchWords says that a file with conversation entries has no branch
// to resume (a parent cycle leaves no entry without a child) and what to
// run to see why and mend it.
func noBranchWords(f *chain.File) (msg, hint string) {
	p := ShellQuote(f.Path)
	return "no branch to resume: the file's entries leave no last message the client would resume from (a parent cycle does that)",
		fmt.Sprintf("see what is wrong with 'ccsurgeon validate %s'; if it names a parent cycle, 'ccsurgeon repair %s' breaks it", p, p)
}

func noBranchError(f *chain.File) error {
	msg, hint := noBranchWords(f)
	return &Error{Msg: msg, Hint: hint, Code: 1}
}

// RunClone writes the session as a new session with fresh identifiers.
func (env *Env) RunClone(session string, b BranchOptions, d Dest) error {
	if d.Output == "" {
		d.New = true
	}
	d.FreshIDs = true
	if b.Leaf == "" && b.Branch == 0 {
		if done, err := env.cloneFast(session, d); done {
			return err
		}
	}
	return env.runCloneFull(session, b, d)
}

// RunCloneFull is RunClone by the full path (load, index, pipeline, gate)
// on every destination: what a plain clone to -o FILE or as a new session
// skips (cloneFast). TestFastCloneIsTheFullClone holds the one to the other.
func (env *Env) RunCloneFull(session string, b BranchOptions, d Dest) error {
	if d.Output == "" {
		d.New = true
	}
	d.FreshIDs = true
	return env.runCloneFull(session, b, d)
}

func (env *Env) runCloneFull(session string, b BranchOptions, d Dest) error {
	return env.runWrite(session, d, func(s *chain.Session) (ops.Pipeline, error) {
		if b.Leaf == "" && b.Branch == 0 {
			return ops.Pipeline{ops.Clone{}}, nil
		}
		leaf, err := b.resolve(s.Main)
		if err != nil {
			return nil, err
		}
		return ops.Pipeline{ops.Clone{}, ops.SelectBranch{Leaf: leaf}}, nil
	})
}
