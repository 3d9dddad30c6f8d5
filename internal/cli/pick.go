package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// pickFlag is --pick: choose the session from a list.
func pickFlag() cli.Flag {
	return &cli.BoolFlag{Name: "pick", Usage: "choose one of this folder's project's sessions with the arrow keys (off a terminal: by number, read from stdin)"}
}

// confirmNewest stands between a change in place and the session a
// command with no SESSION falls back to: on a terminal it names the
// session and asks (y/N); elsewhere it refuses, with the command that
// names the session as the hint.
func confirmNewest(env *app.Env, cmd *cli.Command, path string) error {
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	modified := ""
	if fi, err := os.Stat(path); err == nil {
		modified = "modified " + app.Ago(time.Since(fi.ModTime()))
	}
	if title := app.SessionTitle(path); title != "" {
		modified += ", " + strconv.Quote(title)
	}
	if modified != "" {
		modified = " (" + strings.TrimPrefix(modified, ", ") + ")"
	}
	hint := commandNaming(env, cmd, id, path)
	if !env.Interactive() {
		return usageError{err: fmt.Errorf("%s with no SESSION would change %s, the newest session of this folder's project%s: name it", cmd.Name, id, modified), hint: hint}
	}
	fmt.Fprintf(env.Err, "ccsurgeon: %s will change %s in place, the newest session of this folder's project%s\nccsurgeon: go on? [y/N] ", cmd.Name, id, modified)
	answer, _ := bufio.NewReader(env.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
		return nil
	}
	return &app.Error{Msg: "nothing was changed", Hint: hint, Code: 1}
}
