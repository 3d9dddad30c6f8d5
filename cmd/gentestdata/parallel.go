package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

// Parallel calls that finish out of order (FORMAT.md "Parallel calls finish
// in any order"): the client writes each result as its call finishes, so
// the call that finishes last carries the final answer and the others sit
// on side branches. Calls are Bash commands that sleep for their rank in
// the finishing order, so the order is set by the scenario, not by luck.

// parallelScenario makes one turn of n parallel calls finishing in the
// order given (order[k] = the position, 0-based, of the call that finishes
// k-th), then a second turn so the parallel turn is not the last one.
func parallelScenario(name string, tools []string, order []int) scenario {
	desc := fmt.Sprintf("%d parallel calls (%s) finishing in the order %s, then one more turn", len(tools), strings.Join(tools, ", "), orderString(order))
	return scenario{name: name, desc: desc, run: func(g *gen) (string, error) {
		f := filepath.Join(g.env.Cwd, "data.txt")
		if err := os.WriteFile(f, []byte("alpha\nbeta\n"), 0o644); err != nil {
			return "", err
		}
		rank := make([]int, len(order))
		for k, pos := range order {
			rank[pos] = k
		}
		blocks := []harness.Block{harness.TextBlock("I will run these at once.")}
		for pos, tool := range tools {
			switch tool {
			case "Read":
				// Read cannot be slowed down: scenarios put it first in the finishing order
				blocks = append(blocks, harness.ToolUse("Read", map[string]any{"file_path": f}))
			default:
				// the finishing order is the order of the sleeps (0.6 s apart)
				cmd := fmt.Sprintf("sleep %d.%d && echo call-%d", rank[pos]*6/10, rank[pos]*6%10, pos+1)
				blocks = append(blocks, harness.ToolUse("Bash", map[string]any{"command": cmd, "description": fmt.Sprintf("call %d", pos+1)}))
			}
		}
		sid, err := g.turn("", "Check these at once.", []harness.Reply{harness.Blocks(blocks...), harness.Text("All calls finished.")})
		if err != nil {
			return "", err
		}
		_, err = g.turn(sid, "Anything else?", []harness.Reply{harness.Text("No, that is all.")})
		return sid, err
	}}
}

func orderString(order []int) string {
	s := make([]string, len(order))
	for k, pos := range order {
		s[k] = fmt.Sprint(pos + 1)
	}
	return strings.Join(s, ",")
}

func init() {
	scenarios = append(scenarios,
		// Bash then Read, the Read finishing first: the shape
		parallelScenario("parallel-out-of-order", []string{"Bash", "Read"}, []int{1, 0}),
	)
	// three Bash calls in every finishing order but the in-order one, for
	// the 2.1.x clients (2.0.x chains the results one below the other in
	// any order: no side branch). The reversed order is resumed by the
	// real clients; the others are read in process only (inprocess/).
	for _, o := range [][]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		sc := parallelScenario("parallel3-order-"+strings.ReplaceAll(orderString(o), ",", ""), []string{"Bash", "Bash", "Bash"}, o)
		sc.onlyNew, sc.sub = true, inprocess
		if o[0] == 2 && o[1] == 1 {
			sc.sub = "shapes"
		}
		scenarios = append(scenarios, sc)
	}
}
