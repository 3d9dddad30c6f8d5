package main

import (
	"runtime/debug"
	"strings"
)

// version and commit are set for a release by the linker
// (-ldflags "-X main.version=1.2.3 -X main.commit=abc123", as
// .goreleaser.yaml does). Left empty, they come from the build info that
// 'go install …@v1.2.3' (the module version) and 'go build' in a git
// checkout (vcs.revision, vcs.modified) record.
var (
	version = ""
	commit  = ""
)

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
