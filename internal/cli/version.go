package cli

import (
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

// devVersion is the version of a build that records none.
const devVersion = "0.1.0-dev"

// versionString is what 'ccsurgeon --version' prints after "ccsurgeon
// version ": the version, then the commit ("unknown" when neither the
// linker nor the build info gives one) and whether the checkout had
// uncommitted changes.
func versionString(version, commit string, bi *debug.BuildInfo, ok bool) string {
	modified := false
	if ok {
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
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
