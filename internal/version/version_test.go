package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name             string
		bi               *debug.BuildInfo
		version, commit  string
		wantVer, wantRev string
	}{
		{"linker overrides win", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-2026-abc"}, Settings: vcs("true")},
			"v1.2.3", "fedcba", "v1.2.3", "fedcba"},
		{"go install module@version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"", "", "v1.2.3", Unknown},
		{"go build in a clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.4-0.20260101000000-0123456789ab"}, Settings: vcs("false")},
			"", "", "v1.2.4-0.20260101000000-0123456789ab", rev},
		{"go build in a modified checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")},
			"", "", Unknown, rev + "-dirty"},
		{"no build info", nil, "", "", Unknown, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuild(tt.bi, tt.version, tt.commit)
			if got.Version != tt.wantVer || got.Commit != tt.wantRev {
				t.Errorf("fromBuild = version %q commit %q, want %q %q", got.Version, got.Commit, tt.wantVer, tt.wantRev)
			}
			if got.GoVersion == "" || got.Platform != runtime.GOOS+"/"+runtime.GOARCH {
				t.Errorf("fromBuild = go %q platform %q", got.GoVersion, got.Platform)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567-dirty", GoVersion: "go1.26.8", Platform: "linux/arm64"}
	if got, want := i.String(), "darwin-memo v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567-dirty, go1.26.8, linux/arm64)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// The test binary itself has build info; Get must never return empty fields.
func TestGet(t *testing.T) {
	i := Get()
	if i.Version == "" || i.Commit == "" || !strings.HasPrefix(i.GoVersion, "go") {
		t.Errorf("Get() = %+v", i)
	}
}

// The release workflow, .ci/release-binaries.sh and the Dockerfile set the version with
// -ldflags -X; -X silently does nothing when the path is wrong or the variable is initialised,
// so build a tiny program the way they do and run it.
func TestLinkerOverride(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "printversion")
	pkg := reflect.TypeOf(Info{}).PkgPath()
	ldflags := "-X " + pkg + ".Version=v9.8.7 -X " + pkg + ".Commit=abcdef0123"
	build := exec.Command(goBin, "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./testdata/printversion")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "darwin-memo v9.8.7 (commit abcdef0123, "; !strings.HasPrefix(string(out), want) {
		t.Errorf("built with %s it prints %q, want prefix %q", ldflags, out, want)
	}
}
