package app

import (
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// RewriteOptions are the options of `rewrite`: the operations to compose.
type RewriteOptions struct {
	Session string
	Dest    Dest
	Ops     []ops.Op // in the documented order
}

// RunRewrite applies the selected operations in one pass: one validation,
// one backup, one write. With no operation the result is byte-identical.
func (env *Env) RunRewrite(o RewriteOptions) error {
	return env.runWrite(o.Session, o.Dest, func(s *chain.Session) (ops.Pipeline, error) {
		return ops.Pipeline(o.Ops), nil
	})
}
