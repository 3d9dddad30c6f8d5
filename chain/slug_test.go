package chain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProjectSlugIsTheClients: the folder of a working directory is the
// one Claude Code 2.1.x computes (its code, read in the 2.1.332 binary):
//
//	function w(e){return e.replace(/[^a-zA-Z0-9]/g,"-")}
//	function J$(e){let n=w(e);if(n.length<=200)return n;return`${n.slice(0,200)}-${me(e)}`}
//	function me(e){return Math.abs(Nle(e)).toString(36)}
//	function Nle(n){let t=0;for(let r=0;r<n.length;r++)t=(t<<5)-t+n.charCodeAt(r)|0;return t}
//
// The regexp has no u flag: a character outside the BMP is two UTF-16
// code units, so two dashes (review finding: move of a project to a path
// with an emoji put its sessions in a folder the client never reads).
// The expected values are node's output for these paths.
func TestProjectSlugIsTheClients(t *testing.T) {
	long := "/home/user/" + strings.Repeat("very-long-folder-name/", 10) + "project"
	for _, tc := range []struct{ cwd, want string }{
		{"/home/a/my.app", "-home-a-my-app"},
		{"/tmp/rv/proj/new ü 📁", "-tmp-rv-proj-new-----"},
		{long, "-home-user-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-fol-yxvjy8"},
		{"/x/" + strings.Repeat("é", 250), "-x-" + strings.Repeat("-", 197) + "-9cs5s6"},
		{"/x/" + strings.Repeat("😀", 120), "-x-" + strings.Repeat("-", 197) + "-rq304y"},
	} {
		assert.Equal(t, tc.want, ProjectSlug(tc.cwd), "%q", tc.cwd)
	}
	// exactly 200 characters: no hash
	p200 := "/" + strings.Repeat("a", 199)
	assert.Equal(t, "-"+strings.Repeat("a", 199), ProjectSlug(p200))
}
