package cli

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// version and commit are what package main's were set to by the linker
// for a release (-ldflags "-X main.version=1.2.3 -X main.commit=abc123",
// as .goreleaser.yaml does; main passes them with SetBuild). Left empty,
// they come from the build info that 'go install …@v1.2.3' (the module
// version) and 'go build' in a git checkout (vcs.revision, vcs.modified)
// record.
var (
	version = ""
	commit  = ""
)

// SetBuild records the version and commit the linker gave package main.
func SetBuild(v, c string) { version, commit = v, c }

// untaggedPseudoRe is a pseudo-version of a commit with no tag before it.
var untaggedPseudoRe = regexp.MustCompile(`^v0\.0\.0-[0-9]{14}-[0-9a-f]{12}$`)

// devVersion is the version of a build that records none.
const devVersion = "0.1.0-dev"

// versionString is what 'ccsurgeon --version' prints after "ccsurgeon
// version ": the version, then the commit ("unknown" when neither the
// linker nor the build info gives one) and whether the checkout had
// uncommitted changes.
func versionString(version, commit string, bi *debug.BuildInfo, ok bool) string {
	modified := false
	if ok {
		// 'go build' in a clone (Go 1.24+) records a pseudo-version,
		// v0.0.0-<time>-<commit> when no tag precedes it, "+dirty" with
		// changes: the commit and "modified" say that already
		if v := strings.TrimSuffix(bi.Main.Version, "+dirty"); version == "" && v != "" && v != "(devel)" && !untaggedPseudoRe.MatchString(v) {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					commit = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if version == "" {
		version = devVersion
	}
	version = strings.TrimPrefix(version, "v")
	if commit == "" {
		commit = "unknown"
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if modified {
		commit += ", modified"
	}
	return version + " (commit " + commit + ")"
}

// buildVersion is versionString for this binary.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return versionString(version, commit, bi, ok)
}
