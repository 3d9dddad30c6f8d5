package cli

import (
	"os"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoSubagentIsReadThroughALinkedFolder: a session's <id>/ folder or
// its subagents/ made a link to a folder elsewhere is not read through by
// any command, as a subagent transcript that is itself a link is not
// (TestNoSidecarLinkIsReadThrough) and as clone refuses it
// (TestCloneSaysItReadsNoFolderThatIsALink): info read and counted the
// transcripts it found there, and an in-place change read them as the
// session's. A reader names the link as not read; a change in place
// refuses it, nothing written. A member per folder.
func TestNoSubagentIsReadThroughALinkedFolder(t *testing.T) {
	testlink.Need(t)
	for _, member := range []string{"<id>", "subagents"} {
		t.Run(member, func(t *testing.T) {
			cfg, path, id, link, _ := linkedSessionFolder(t, member)

			out, errs, code := cliRun(t, "--config-dir", cfg, "info", id, "--json")
			require.Equal(t, 0, code, errs)
			assert.Contains(t, errs, "not read: "+link+" is a symbolic link", "info names the link it did not read")
			assert.Contains(t, out, `"subagents": {`+"\n"+`    "count": 0`, "info read and counted the subagent transcripts through the link")

			before, err := os.ReadFile(path)
			require.NoError(t, err)
			_, errs, code = cliRun(t, "--config-dir", cfg, "strip-thinking", id)
			assert.Equal(t, 1, code, "an in-place change of a session whose subagents it cannot read: %s", errs)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "refused: nothing written")
		})
	}
}
