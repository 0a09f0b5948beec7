package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testSupport are the packages only tests may link: the demo links the fake GitHub
// (internal/ghfake), but neither the fake nor anything else in the binary may pull these in.
var testSupport = []string{
	"testing",
	"net/http/httptest",
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake/ghschema",
}

// The darwin-memo binary (and so the action image) carries no test support: go list -deps of
// the command names none of testSupport, and go tool nm of the built binary shows no symbol
// of theirs (a test-only package would show up as symbols like "testing.(*T).Errorf").
func TestBinaryLinksNoTestSupport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	deps, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(deps)) {
		for _, p := range testSupport {
			if dep == p {
				t.Errorf("cmd/darwin-memo links %s; import it only from _test.go files", p)
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "darwin-memo")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	syms, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(syms), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		name := f[len(f)-1]
		for _, p := range testSupport {
			if strings.HasPrefix(name, p+".") {
				n++
				if n <= 5 {
					t.Errorf("the binary has symbol %s of test support package %s", name, p)
				}
			}
		}
	}
	if n == 0 && !strings.Contains(string(syms), "main.main") {
		t.Fatal("go tool nm listed no main.main; the check looked at nothing")
	}
}
