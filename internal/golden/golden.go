// Package golden compares whole outputs with files under testdata, as actionlint's tests do:
// `go test -update` rewrites the files instead of comparing. It is test support, imported only
// by _test.go files, so it is never linked into the darwin-memo binary.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
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

// ReplaceSection replaces the text between <!-- name:begin --> and
// <!-- name:end --> in the Markdown file at path with body, appending the
// section if it is missing: the tables benchmarks regenerate in docs/.
func ReplaceSection(path, name, body string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin, end := "<!-- "+name+":begin -->", "<!-- "+name+":end -->"
	text := string(data)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	section := begin + "\n" + body + end
	if i < 0 || j < i {
		text = strings.TrimRight(text, "\n") + "\n\n" + section + "\n"
	} else {
		text = text[:i] + section + text[j+len(end):]
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// Updating reports whether the tests run with -update: a test that
// regenerates a file other than a golden one follows the same flag.
func Updating() bool { return *update }
