package citation

import (
	"fmt"
	"os"
	"path/filepath"
)

// StoreDir is the directory a store conventionally lives in, at the repository root.
const StoreDir = ".darwin-memo"

// RepoRoot is the working tree a store's citations are checked against: the nearest
// directory at or above the store's that holds ".git" (a directory, or a file in a linked
// worktree); without one, the parent of the store's ".darwin-memo" directory, else the
// store's own directory.
func RepoRoot(storePath string) (string, error) {
	abs, err := filepath.Abs(storePath)
	if err != nil {
		return "", fmt.Errorf("citations: locating the store %s: %w", storePath, err)
	}
	dir := filepath.Dir(abs)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if filepath.Base(dir) == StoreDir {
		return filepath.Dir(dir), nil
	}
	return dir, nil
}
