package chain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The config dir on each OS: $CLAUDE_CONFIG_DIR everywhere, else
// ~/.claude, ~ being %USERPROFILE% on Windows (the client's
// `process.env.CLAUDE_CONFIG_DIR ?? join(homedir(), ".claude")`, node's
// homedir() reading USERPROFILE there) and $HOME elsewhere.
func TestConfigDirForEachOS(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		goos string
		env  func(string) string
		want string
	}{
		{"linux", env("HOME", "/home/me", "USERPROFILE", `C:\nope`), "/home/me/.claude"},
		{"darwin", env("HOME", "/Users/me/"), "/Users/me/.claude"},
		{"windows", env("HOME", "/c/msys/home", "USERPROFILE", `C:\Users\me`), `C:\Users\me\.claude`},
		{"windows", env("USERPROFILE", `C:\Users\me\`), `C:\Users\me\.claude`},
		{"windows", env("USERPROFILE", `C:\Users\me`, "CLAUDE_CONFIG_DIR", `D:\cc`), `D:\cc`},
		{"darwin", env("HOME", "/Users/me", "CLAUDE_CONFIG_DIR", "/Volumes/x/cc"), "/Volumes/x/cc"},
		{"linux", env(), ".claude"},
	} {
		assert.Equal(t, tc.want, ConfigDirFor(tc.goos, tc.env), tc.goos)
	}
}

// A project folder on each OS: the client's slug of the working directory
// in that OS's own form (the expected names are node's output of the
// client's functions quoted in TestProjectSlugIsTheClients, for these
// Windows paths), the existing folder of another case where the file
// system folds case (APFS, NTFS), and never on Linux.
func TestProjectFolderNameForEachOS(t *testing.T) {
	long := `C:\Users\me\` + strings.Repeat(`Very Long Folder Name\`, 10) + "proj"
	for cwd, want := range map[string]string{
		`C:\Users\me\proj`:           "C--Users-me-proj",
		`C:\Users\Me\My Project (2)`: "C--Users-Me-My-Project--2-",
		`\\server\share\proj`:        "--server-share-proj",
		`D:\work\ünï`:                "D--work--n-",
		long:                         "C--Users-me-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Folder-Name-Very-Long-Fo-7d2u76",
		"/Users/me/Proj":             "-Users-me-Proj",
	} {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			assert.Equal(t, want, ProjectFolderName(goos, cwd, nil), "%s %q", goos, cwd)
		}
	}
	existing := []string{"-Users-me-proj", "C--Users-me-proj", "-home-a-x"}
	for _, tc := range []struct{ goos, cwd, want string }{
		{"darwin", "/Users/me/Proj", "-Users-me-proj"},      // found with another case: the same folder
		{"windows", `c:\users\ME\PROJ`, "C--Users-me-proj"}, // the drive letter's case too
		{"linux", "/Users/me/Proj", "-Users-me-Proj"},       // ext4: another folder
		{"darwin", "/home/a/x", "-home-a-x"},
		{"darwin", "/Users/me/other", "-Users-me-other"},
	} {
		assert.Equal(t, tc.want, ProjectFolderName(tc.goos, tc.cwd, existing), "%s %q", tc.goos, tc.cwd)
	}
	// an exact match wins over one of another case
	assert.Equal(t, "-a-B", ProjectFolderName("darwin", "/a/B", []string{"-a-b", "-a-B"}))
}

// Two names that differ only by case are one target where the file system
// folds case, two on Linux; a session id prefix in capitals finds the file
// there.
func TestSameNameForEachOS(t *testing.T) {
	for goos, fold := range map[string]bool{"linux": false, "darwin": true, "windows": true} {
		assert.Equal(t, fold, SameName(goos, "-Users-me-Proj", "-users-me-proj"), goos)
		assert.True(t, SameName(goos, "x", "x"), goos)
		assert.False(t, SameName(goos, "-a-b", "-a-c"), goos)
		assert.Equal(t, fold, HasPrefixFor(goos, "3f2a9c1e-aaaa.jsonl", "3F2A"), goos)
		assert.True(t, HasPrefixFor(goos, "3f2a9c1e-aaaa.jsonl", "3f2a"), goos)
		assert.False(t, HasPrefixFor(goos, "3f", "3f2a"), goos)
	}
}

func TestHasDrive(t *testing.T) {
	for p, want := range map[string]bool{`C:\Users`: true, `d:/x`: true, `C:`: false, `C:x`: false, `1:\x`: false, `/C:\x`: false, `\\server\x`: false, `ab`: false} {
		if got := HasDrive(p); got != want {
			t.Errorf("HasDrive(%q) = %v, want %v", p, got, want)
		}
	}
}
