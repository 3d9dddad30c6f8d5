// Command ccsurgeon performs surgery on Claude Code session transcripts:
// clone, fork, shrink and redact sessions without breaking them.
//
// The command layer is internal/cli; main only starts it.
package main

import (
	"os"

	"github.com/ccsurgeon/ccsurgeon/internal/cli"
)

// version and commit are set for a release by the linker
// (-ldflags "-X main.version=1.2.3 -X main.commit=abc123", as
// .goreleaser.yaml does).
var version, commit string

func main() {
	cli.SetBuild(version, commit)
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
