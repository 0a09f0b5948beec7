// Package golden compares whole outputs with files under testdata, as actionlint's tests do:
// `go test -update` rewrites the files instead of comparing. It is test support, imported only
// by _test.go files, so it is never linked into the darwin-memo binary.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Check compares got with testdata/name, or writes it there with -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run '%s' -update to accept):\n%s", path, t.Name(), got)
	}
}
