// Package version says which build of darwin-memo is running: its version, the commit it was
// built from and the Go toolchain that built it.
//
// Release builds (the release workflow's binaries and image, and the Dockerfile) set Version and
// Commit with the linker:
//
//	go build -ldflags "-X github.com/darwin-memo/darwin-memo-action/internal/version.Version=v1.2.3 \
//	  -X github.com/darwin-memo/darwin-memo-action/internal/version.Commit=$(git rev-parse HEAD)"
//
// Every other build falls back to what the Go toolchain stamps into the binary
// (runtime/debug.ReadBuildInfo): the module version for `go install ...@v1.2.3`, and the
// pseudo-version and vcs.revision for `go build` in a git checkout.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set with -ldflags -X by release builds; empty otherwise. They must stay uninitialised string
// variables, or the linker's -X silently does nothing.
var (
	// Version is the release version, for example v1.2.3.
	Version string
	// Commit is the full commit hash the release was built from.
	Commit string
)

// Unknown stands for a version or commit that neither the linker nor the build info recorded.
const Unknown = "unknown"

// Info is one build's identity.
type Info struct {
	Version   string // v1.2.3, a pseudo-version, or Unknown
	Commit    string // commit hash (with a -dirty suffix for a modified checkout), or Unknown
	GoVersion string // go1.26.8
	Platform  string // linux/amd64
}

// Get returns the running binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(bi, Version, Commit)
}

// fromBuild combines the linker overrides with the build info (nil when the binary has none).
func fromBuild(bi *debug.BuildInfo, version, commit string) Info {
	info := Info{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		if info.Version == "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Commit == "" {
			var rev, modified string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value
				}
			}
			if rev != "" && modified == "true" {
				rev += "-dirty"
			}
			info.Commit = rev
		}
	}
	if info.Version == "" {
		info.Version = Unknown
	}
	if info.Commit == "" {
		info.Commit = Unknown
	}
	return info
}

// String is the one line that `darwin-memo version` prints and the action logs first:
//
//	darwin-memo v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, go1.26.8, linux/amd64)
func (i Info) String() string {
	return fmt.Sprintf("darwin-memo %s (commit %s, %s, %s)", i.Version, i.Commit, i.GoVersion, i.Platform)
}
