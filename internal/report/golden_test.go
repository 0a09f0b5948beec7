package report

import (
	"os"
	"path/filepath"
	"testing"
)

// checkGolden compares got with testdata/name, or rewrites the file with -update.
func checkGolden(t *testing.T, name, got string) {
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
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update to accept):\n%s", path, t.Name(), got)
	}
}

// The whole bot pull request (title, body) and step summary of the sample report, byte for
// byte: every section, table and escape at once, where TestBodySections checks pieces.
func TestBodyGolden(t *testing.T) {
	t.Parallel()
	checkGolden(t, "sample.title.golden.txt", Title(sample())+"\n")
	checkGolden(t, "sample.body.golden.md", Body(sample()))
	checkGolden(t, "sample.summary.golden.md", Summary(sample(), "settled"))
}
