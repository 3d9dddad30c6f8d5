package main

// The interactive shapes of issue 28 (harness.TUIShapes: /branch, /rewind to
// before /clear, /cd, both kinds of /fork), played under tmux by the newest
// client; the recipes are shared with the tests that make them at test time.

import (
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

func init() {
	for _, s := range harness.TUIShapes {
		scenarios = append(scenarios, scenario{
			name:    s.Name,
			desc:    "TUI under tmux: " + s.Desc,
			onlyNew: true,
			sub:     "shapes",
			run: func(g *gen) (string, error) {
				return g.env.MakeTUIShape(g.c, s, tuiCaptureDir(g, s.Name))
			},
			extra: func(g *gen, sid, dir, name string) error {
				if s.Others == nil {
					return nil
				}
				others, err := s.Others(g.env, sid)
				if err != nil {
					return err
				}
				for suffix, id := range others {
					if err := export(g.env, id, name+"-"+suffix, dir); err != nil {
						return err
					}
				}
				return nil
			},
		})
	}
}
