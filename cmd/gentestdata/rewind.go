package main

// The rewind scenario drives the interactive TUI of 2.1.x under tmux (print mode cannot
// /rewind and writes no file-history entries).

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

var rewindRestore = flag.String("rewind-restore", "both",
	`rewind scenario: "both" = Restore code and conversation, "conversation" = Restore conversation only`)

func init() {
	scenarios = append(scenarios, scenario{
		name:    "rewind",
		desc:    "TUI under tmux: Write, Edit, a 3rd turn, /rewind to before turn 2, a new prompt (2 branches, file-history)",
		onlyNew: true,
		run:     func(g *gen) (string, error) { return runRewind(g, false) },
		extra:   exportFileHistory,
	}, scenario{
		name:    "rewind-compact",
		desc:    "the rewind scenario, then /compact and one more turn in the same TUI: a compaction of the branch made after a /rewind",
		onlyNew: true,
		sub:     "shapes",
		run:     func(g *gen) (string, error) { return runRewind(g, true) },
	})
}

const tuiStep = harness.TUIStep

// tuiCaptureDir is where the screens of scenario name are saved when a
// wait fails (emptied first).
func tuiCaptureDir(g *gen, name string) string {
	dir := filepath.Join(os.TempDir(), "ccsurgeon-gen-captures", g.c.Version, name)
	_ = os.RemoveAll(dir)
	return dir
}

func runRewind(g *gen, compact bool) (sid string, err error) {
	restoreOption := map[string]string{"both": "Restore code and conversation", "conversation": "Restore conversation"}[*rewindRestore]
	if restoreOption == "" {
		return "", fmt.Errorf("-rewind-restore: want both or conversation, got %q", *rewindRestore)
	}
	f := filepath.Join(g.env.Cwd, "notes.txt")
	captures := tuiCaptureDir(g, "rewind")
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n(screen captures in %s)", err, captures)
		}
	}()
	tui, err := g.env.StartReady(g.c, captures)
	if err != nil {
		return "", err
	}
	defer tui.Close()
	turn := tui.Turn
	if err := turn("Create notes.txt", "Created notes.txt.",
		harness.Write(f, "first line\n"), harness.Text("Created notes.txt.")); err != nil {
		return "", err
	}
	if err := turn("Append a line to notes.txt", "Appended a line.",
		harness.Edit(f, "first line\n", "first line\nsecond line\n"), harness.Text("Appended a line.")); err != nil {
		return "", err
	}
	if err := turn("Say something", "Branch A final answer.", harness.Text("Branch A final answer.")); err != nil {
		return "", err
	}

	// /rewind: a list of the prompts ("Restore the code and/or conversation to the point
	// before…"), the cursor on "(current)"; pick the 2nd prompt, then the restore mode.
	if err := tui.Type("/rewind"); err != nil {
		return "", err
	}
	if _, err := tui.WaitText(tuiStep, "Restore earlier code"); err != nil {
		return "", err
	}
	if err := tui.Keys("Enter"); err != nil {
		return "", err
	}
	if _, err := tui.WaitText(tuiStep, "Restore the code and/or conversation to the point before", "(current)"); err != nil {
		return "", err
	}
	tui.Snapshot("rewind list")
	if err := tui.Select("Up", "Append a line to notes.txt"); err != nil {
		return "", err
	}
	if err := tui.Keys("Enter"); err != nil {
		return "", err
	}
	if _, err := tui.WaitText(tuiStep, "Restore to the point before you sent this message", "Restore conversation"); err != nil {
		return "", err
	}
	tui.Snapshot("rewind options")
	if err := tui.Select("Down", restoreOption); err != nil {
		return "", err
	}
	if err := tui.Keys("Enter"); err != nil {
		return "", err
	}
	// Back at the input, which is prefilled with the rewound prompt; "Say something" is gone.
	if _, err := tui.WaitStable("rewound", tuiStep, time.Second, func(s string) bool {
		p, ok := harness.InputLine(s)
		return ok && p == "Append a line to notes.txt" && !strings.Contains(s, "Branch A final answer.")
	}); err != nil {
		return "", err
	}
	tui.Snapshot("after rewind")
	if err := tui.Keys("C-u"); err != nil {
		return "", err
	}
	if _, err := tui.WaitFor("empty input", tuiStep, func(s string) bool { p, ok := harness.InputLine(s); return ok && p == "" }); err != nil {
		return "", err
	}
	data, _ := os.ReadFile(f)
	g.log = append(g.log, fmt.Sprintf("rewind (%s): notes.txt after the rewind = %q", restoreOption, data))
	if ids, _ := g.env.SessionIDs(); len(ids) == 1 {
		if b, err := os.ReadFile(g.env.SessionPath(ids[0])); err == nil {
			g.log = append(g.log, fmt.Sprintf("after the rewind, before the next prompt, the file ends with: %s", lastTypes(b, 4)))
		}
	}

	if err := turn("Take the other road", "Branch B answer.", harness.Text("Branch B answer.")); err != nil {
		return "", err
	}
	if compact {
		if err := tui.Compact(); err != nil {
			return "", err
		}
		if err := turn("Carry on", "Carried on after the compaction.", harness.Text("Carried on after the compaction.")); err != nil {
			return "", err
		}
	}
	if err := tui.Exit(); err != nil {
		return "", err
	}

	ids, err := g.env.SessionIDs()
	if err != nil {
		return "", err
	}
	if len(ids) != 1 {
		return "", fmt.Errorf("want 1 session file in %s, got %v", g.env.ProjectDir(), ids)
	}
	b, err := os.ReadFile(g.env.SessionPath(ids[0]))
	if err != nil {
		return "", err
	}
	if err := checkRewind(b); err != nil {
		return "", fmt.Errorf("%s: %w", g.env.SessionPath(ids[0]), err)
	}
	for _, r := range g.env.Mock.Requests() {
		g.log = append(g.log, fmt.Sprintf("request %s %s status=%d messages=%d", r.Kind, r.Path, r.Status, len(r.Messages())))
	}
	return ids[0], nil
}

// exportFileHistory copies <config>/file-history/<sid>/ to <dir>/<name>-file-history/.
func exportFileHistory(g *gen, sid, dir, name string) error {
	dst := filepath.Join(dir, name+"-file-history")
	_ = os.RemoveAll(dst)
	src := g.env.FileHistoryDir(sid)
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("no file history: %w", err)
	}
	return harness.CopyDir(src, dst)
}

type rwEntry struct {
	Type       string  `json:"type"`
	UUID       string  `json:"uuid"`
	ParentUUID *string `json:"parentUuid"`
	// LogicalParentUUID: a compact_boundary's link to the conversation it summarized
	LogicalParentUUID string          `json:"logicalParentUuid"`
	LeafUUID          string          `json:"leafUuid"`
	Explicit          bool            `json:"explicit"`
	LastPrompt        string          `json:"lastPrompt"`
	Message           json.RawMessage `json:"message"`
}

func parseEntries(data []byte) []rwEntry {
	var out []rwEntry
	for _, l := range strings.Split(string(data), "\n") {
		var e rwEntry
		if json.Unmarshal([]byte(l), &e) == nil && e.Type != "" {
			out = append(out, e)
		}
	}
	return out
}

// lastTypes describes the last n entries of a session file.
func lastTypes(data []byte, n int) string {
	es := parseEntries(data)
	if len(es) > n {
		es = es[len(es)-n:]
	}
	var parts []string
	for _, e := range es {
		d := e.Type
		if e.Type == "last-prompt" {
			d += fmt.Sprintf("(leafUuid=%s explicit=%v)", e.LeafUUID, e.Explicit)
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, ", ")
}

// promptText returns the text of a user entry whose content is a plain string.
func promptText(e rwEntry) string {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	var s string
	if e.Type == "user" && json.Unmarshal(e.Message, &m) == nil && json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	return ""
}

// checkRewind verifies the shape the scenario must produce: the old prompt "Append a
// line..." and the new prompt "Take the other road" are children of the same parent, the
// old branch still holds "Say something", a last-prompt with explicit=true and the nil
// UUID was written, and the last last-prompt points into the new branch.
func checkRewind(data []byte) error {
	es := parseEntries(data)
	byUUID := map[string]rwEntry{}
	prompts := map[string]rwEntry{}
	var lastLP *rwEntry
	explicit := false
	for i, e := range es {
		if e.UUID != "" {
			byUUID[e.UUID] = e
		}
		if p := promptText(e); p != "" {
			prompts[p] = e
		}
		if e.Type == "last-prompt" {
			lastLP = &es[i]
			if e.Explicit && e.LeafUUID == "00000000-0000-0000-0000-000000000000" {
				explicit = true
			}
		}
	}
	a, okA := prompts["Append a line to notes.txt"]
	b, okB := prompts["Take the other road"]
	_, okS := prompts["Say something"]
	switch {
	case !okA || !okB || !okS:
		return fmt.Errorf("missing prompts (append=%v other-road=%v say=%v)", okA, okB, okS)
	case a.ParentUUID == nil || b.ParentUUID == nil || *a.ParentUUID != *b.ParentUUID:
		return fmt.Errorf("the two branches do not share a parent")
	case !explicit:
		return fmt.Errorf("no last-prompt with explicit=true and the nil UUID")
	case lastLP == nil:
		return fmt.Errorf("no last-prompt entry")
	}
	// The last last-prompt's leaf must descend from the new prompt.
	for u := lastLP.LeafUUID; u != ""; {
		if u == b.UUID {
			return nil
		}
		e, ok := byUUID[u]
		if !ok {
			break
		}
		if e.ParentUUID == nil {
			u = e.LogicalParentUUID // across a compaction
			continue
		}
		u = *e.ParentUUID
	}
	return fmt.Errorf("the last last-prompt (leafUuid %s) is not in the new branch", lastLP.LeafUUID)
}
