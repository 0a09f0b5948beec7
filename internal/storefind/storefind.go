// Package storefind is the one rule by which every darwin-memo command finds
// the lesson store when it is not given --store: the way git finds .git.
//
// From the working directory's real path (links resolved, as git does) the
// search goes up through the parents and takes the first
// .darwin-memo/lessons.json that is a file. It stops at the repository root
// (the nearest directory holding .git). Outside a git repository it stops at
// the home directory when the working directory is inside it, and otherwise
// looks in the working directory alone, so a stray store in / or /tmp is
// never taken for this project's.
//
// When no store exists, the path where one belongs is returned: the
// repository root's .darwin-memo/lessons.json, or the working directory's
// outside a repository (not the home directory's). A command that creates the store (add, import)
// creates it there, never a second one in a subdirectory.
package storefind

import (
	"os"
	"path/filepath"
	"strings"
)

// Name is the store's path relative to the directory that holds it.
const Name = ".darwin-memo/lessons.json"

// Find returns the store for a process working in dir, with home the user's
// home directory ("" when unknown). found reports whether the file exists;
// when it does not, path is where the store belongs.
func Find(dir, home string) (path string, found bool) {
	dir = realPath(dir)
	if home != "" {
		home = realPath(home)
	}
	top, inRepo := boundary(dir, home)
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, Name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, true // a directory named lessons.json is not a store: look further up
		}
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	if !inRepo {
		top = dir // outside a repository a new store belongs where the command runs, not in home
	}
	return filepath.Join(top, Name), false
}

// boundary is the last directory the search looks in: the repository root,
// else home when dir is inside it, else dir itself; inRepo reports the first.
func boundary(dir, home string) (top string, inRepo bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if home != "" && within(dir, home) {
		return home, false
	}
	return dir, false
}

// within reports whether dir is base or below it.
func within(dir, base string) bool {
	rel, err := filepath.Rel(base, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
