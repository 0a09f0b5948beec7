package releasecheck

import (
	"regexp"
	"strings"
	"testing"
)

// The windows and darwin builds run in CI on GitHub (ci.yml) and in .ci/run, so a unix-only
// call (syscall.Flock) fails a pull request, not a release.
func TestCrossBuildsInCI(t *testing.T) {
	var ciYML []string
	for _, j := range loadWorkflow(t, ".github/workflows/ci.yml").Jobs {
		for _, s := range j.Steps {
			ciYML = append(ciYML, s.Run)
		}
	}
	files := map[string]string{".github/workflows/ci.yml": strings.Join(ciYML, "\n"), ".ci/run": readFile(t, ".ci/run")}
	for file, text := range files {
		for _, goos := range []string{"windows", "darwin"} {
			if !regexp.MustCompile(`(?m)^\s*(CGO_ENABLED=0 )?GOOS=` + goos + ` go build \./\.\.\.\s*$`).MatchString(text) {
				t.Errorf("%s: no step runs GOOS=%s go build ./...", file, goos)
			}
		}
	}
	if !strings.Contains(files[".github/workflows/ci.yml"], ".ci/release-binaries.sh") {
		t.Error(".github/workflows/ci.yml: the release binaries are not built before a release tag (.ci/release-binaries.sh)")
	}
}

// actionlint runs shellcheck on every run: script only when shellcheck is installed, and skips
// it silently otherwise; GitHub's ubuntu-latest has it, so .ci/run installs it first and runs it
// on its own scripts too.
func TestCIRunHasShellcheck(t *testing.T) {
	const file = ".ci/run"
	src := readFile(t, file)
	install := strings.Index(src, "apt_install shellcheck")
	lint := strings.Index(src, "rhysd/actionlint/cmd/actionlint@")
	switch {
	case install < 0:
		t.Errorf("%s: does not install shellcheck (apt_install shellcheck)", file)
	case lint < 0:
		t.Errorf("%s: does not run actionlint", file)
	case install > lint:
		t.Errorf("%s: installs shellcheck after actionlint ran without it", file)
	}
	if !strings.Contains(src, "shellcheck .ci/*.sh .ci/run") {
		t.Errorf("%s: does not run shellcheck .ci/*.sh .ci/run", file)
	}
	// The same actionlint in both places.
	re := regexp.MustCompile(`rhysd/actionlint/cmd/actionlint@(v[0-9.]+)`)
	local := re.FindStringSubmatch(src)
	gh := re.FindStringSubmatch(readFile(t, ".github/workflows/ci.yml"))
	if local == nil || gh == nil || local[1] != gh[1] {
		t.Errorf("actionlint versions differ: .ci/run %v, ci.yml %v", local, gh)
	}
}
