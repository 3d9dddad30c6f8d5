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
		if b.Branch < 1 || b.Branch > len(br) {
			return 0, &Error{Msg: fmt.Sprintf("branch %d is out of range: the session has branches 1-%d", b.Branch, len(br)), Hint: "list them with 'ccsurgeon turns SESSION --all'", Code: 2}
		}
		return br[b.Branch-1], nil
	}
	l := g.ActiveLeaf()
	if l < 0 {
		return 0, &Error{Msg: "the session has no conversation to work on", Code: 1}
	}
	return l, nil
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
