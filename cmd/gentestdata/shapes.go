package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

// More shapes the client writes, for the spec tests (in shapes/, so that
// the tests which resume every session of a version stay fast).

func init() {
	shape := func(sc scenario) scenario { sc.sub = "shapes"; return sc }
	scenarios = append(scenarios,
		shape(scenario{name: "tool-errors", desc: "one turn of failing calls: Bash exiting 1, Read of a missing file, Edit whose old_string is not there; then the answer and a 2nd turn", run: func(g *gen) (string, error) {
			f := filepath.Join(g.env.Cwd, "present.txt")
			if err := os.WriteFile(f, []byte("present\n"), 0o644); err != nil {
				return "", err
			}
			sid, err := g.turn("", "Try some things that fail.", []harness.Reply{
				harness.Bash("echo failing >&2; exit 1"),
				harness.Read(filepath.Join(g.env.Cwd, "missing.txt")),
				harness.Read(f),
				harness.Edit(f, "not in the file", "x"),
				harness.Text("Three of the calls failed."),
			})
			if err != nil {
				return "", err
			}
			_, err = g.turn(sid, "Thanks.", []harness.Reply{harness.Text("You are welcome.")})
			return sid, err
		}}),
		shape(scenario{name: "subagent-parallel", desc: "an Agent/Task call whose subagent makes 2 parallel calls finishing out of order (Bash sleeping 0.6 s, then Read)", run: func(g *gen) (string, error) {
			f := filepath.Join(g.env.Cwd, "data.txt")
			if err := os.WriteFile(f, []byte("alpha\n"), 0o644); err != nil {
				return "", err
			}
			g.env.Mock.EnqueueSubagent(harness.Blocks(
				harness.ToolUse("Bash", map[string]any{"command": "sleep 0.6 && echo slow", "description": "slow"}),
				harness.ToolUse("Read", map[string]any{"file_path": f}),
			), harness.Text("Subagent report: slow and alpha."))
			sid, err := g.turn("", "Delegate two checks to a subagent.", []harness.Reply{
				harness.Blocks(harness.ToolUse(agentTool(g.c), map[string]any{
					"description": "Run checks", "prompt": "Run both checks at once and report.", "subagent_type": "general-purpose",
					"run_in_background": false})),
				harness.Text("The subagent reported back."),
			})
			if err != nil {
				return "", err
			}
			if n := g.env.Mock.Pending(harness.KindSubagent); n > 0 {
				return "", fmt.Errorf("subagent replies unused: %d", n)
			}
			return sid, nil
		}}),
		shape(scenario{name: "empty-thinking", onlyNew: true, desc: "two turns whose answers start with a thinking block of empty text and a signature (as newer models write them), the second inside a tool loop", run: func(g *gen) (string, error) {
			sid, err := g.turn("", "Plan it.", []harness.Reply{harness.Blocks(harness.ThinkingBlock(""), harness.TextBlock("Planned."))})
			if err != nil {
				return "", err
			}
			_, err = g.turn(sid, "Run it.", []harness.Reply{
				harness.Blocks(harness.ThinkingBlock(""), harness.ToolUse("Bash", map[string]any{"command": "echo ran", "description": "run"})),
				harness.Text("Ran it."),
			})
			return sid, err
		}}),
		shape(scenario{name: "subagents-at-once", desc: "two Agent/Task calls in one message: two subagents run at once, each answering with text", run: func(g *gen) (string, error) {
			g.env.Mock.EnqueueSubagent(harness.Text("Report one."), harness.Text("Report two."))
			agent := func(d string) harness.Block {
				return harness.ToolUse(agentTool(g.c), map[string]any{"description": d, "prompt": d + ": say what you found.", "subagent_type": "general-purpose", "run_in_background": false})
			}
			sid, err := g.turn("", "Ask two subagents at once.", []harness.Reply{
				harness.Blocks(harness.TextBlock("Starting two subagents."), agent("First look"), agent("Second look")),
				harness.Text("Both subagents reported."),
			})
			if err != nil {
				return "", err
			}
			if n := g.env.Mock.Pending(harness.KindSubagent); n > 0 {
				return "", fmt.Errorf("subagent replies unused: %d", n)
			}
			return sid, nil
		}}),
	)
}
