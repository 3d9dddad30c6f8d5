package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// What a first-time user met, each pinned from the command line.

// TestRewriteDryRunWithoutOperation: `rewrite S --dry-run` with no
// operation printed a summary and exit 0, and the same line without
// --dry-run was then refused as a usage error (exit 2): the dry run must
// say what the real run says.
func TestRewriteDryRunWithoutOperation(t *testing.T) {
	for _, args := range [][]string{
		{"rewrite", example, "--dry-run"},
		{"rewrite", example, "--diff"},
		{"rewrite", example},
	} {
		out, errs, code := cliRun(t, args...)
		assert.Equal(t, 2, code, "%v\nstdout: %s\nstderr: %s", args, out, errs)
		assert.Empty(t, out, "%v", args)
		assert.Regexp(t, `^ccsurgeon: rewrite without an operation would change nothing\nccsurgeon: hint: add .*--target-tokens N`, errs, "%v", args)
	}
	// a copy is still a copy, previewed or not
	dst := filepath.Join(t.TempDir(), "copy.jsonl")
	_, errs, code := cliRun(t, "rewrite", example, "-o", dst, "--dry-run")
	assert.Equal(t, 0, code, errs)
}
