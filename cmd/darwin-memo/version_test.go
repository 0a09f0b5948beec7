package main

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/version"
)

func TestVersionCommand(t *testing.T) {
	want := version.Get().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		r := runCLI(t, args...)
		if r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("%q: exit %d stdout %q stderr %q, want exit 0 and %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
	if !strings.HasPrefix(want, "darwin-memo ") || !strings.Contains(want, "(commit ") || !strings.Contains(want, ", go1.") {
		t.Errorf("version line %q lacks the version, commit or Go version", want)
	}
	if r := runCLI(t, "version", "extra"); r.code != 2 {
		t.Errorf("version extra: exit %d, want 2", r.code)
	}
}
