package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outside is the directory of outside fixtures beside a checkout; no Go
// file of the repository may name it (docs/architecture.md, "Tests"). It
// and the way filepath.Join spells it are written in parts so that this
// file does not name it either.
var (
	outside       = ".." + "/shared"
	outsideJoined = `"..", "` + `shared"`
)

// TestTestsReadOnlyTheRepository checks that no Go file reads fixtures
// from outside the repository's tree: a test that did would pass on a
// machine with the fixtures beside the checkout and fail on a clone.
func TestTestsReadOnlyTheRepository(t *testing.T) {
	root := repoRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, outside) || strings.Contains(line, outsideJoined) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d names %s, outside the repository; copy the fixture into the package's testdata/", rel, i+1, outside)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
