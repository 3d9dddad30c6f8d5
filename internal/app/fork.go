package app

import (
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// RunFork writes a new session holding the conversation up to the end of turn n.
func (env *Env) RunFork(session string, n int, b BranchOptions, d Dest) error {
	if d.Output == "" {
		d.New = true
	}
	d.FreshIDs = true
	return env.runWrite(session, d, func(s *chain.Session) (ops.Pipeline, error) {
		leaf, err := b.resolve(s.Main)
		if err != nil {
			return nil, err
		}
		return ops.Pipeline{ops.ForkAtTurn{N: n, Leaf: leaf}}, nil
	})
}
