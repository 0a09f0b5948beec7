package storefind

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	type layout struct {
		dirs   []string // made under the temporary root T
		stores []string // .darwin-memo/lessons.json files made under these directories
	}
	tests := []struct {
		name      string
		layout    layout
		dir, home string // relative to T; home "" means unknown
		want      string // relative to T
		found     bool
	}{
		{"store in the working directory", layout{[]string{"repo/.git"}, []string{"repo"}}, "repo", "", "repo", true},
		{"store at the repository root, from a subdirectory", layout{[]string{"repo/.git", "repo/a/b"}, []string{"repo"}}, "repo/a/b", "", "repo", true},
		{"no store: where the repository's belongs, not the subdirectory", layout{[]string{"repo/.git", "repo/a/b"}, nil}, "repo/a/b", "", "repo", false},
		{"a nested store wins, as a nested .git would", layout{[]string{"repo/.git", "repo/a/b"}, []string{"repo", "repo/a"}}, "repo/a/b", "", "repo/a", true},
		{"the search stops at the repository root", layout{[]string{"outer/repo/.git", "outer/repo/a"}, []string{"outer"}}, "outer/repo/a", "", "outer/repo", false},
		{"a directory named lessons.json is passed over", layout{[]string{"repo/.git", "repo/a/.darwin-memo/lessons.json"}, []string{"repo"}}, "repo/a", "", "repo", true},
		{"outside a repository: up to home", layout{[]string{"home/proj/sub"}, []string{"home"}}, "home/proj/sub", "home", "home", true},
		{"outside a repository: not above home", layout{[]string{"home/proj/sub"}, []string{"."}}, "home/proj/sub", "home", "home/proj/sub", false},
		{"outside a repository and home: the working directory alone", layout{[]string{"tmp/work/sub"}, []string{"tmp/work"}}, "tmp/work/sub", "home", "tmp/work/sub", false},
		{"a repository inside home: its root, not home", layout{[]string{"home/repo/.git", "home/repo/a"}, []string{"home"}}, "home/repo/a", "home", "home/repo", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range tt.layout.dirs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range tt.layout.stores {
				p := filepath.Join(root, s, Name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			home := ""
			if tt.home != "" {
				home = filepath.Join(root, tt.home)
			}
			got, found := Find(filepath.Join(root, tt.dir), home)
			if want := filepath.Join(root, tt.want, Name); got != want || found != tt.found {
				t.Errorf("Find = %q, %v; want %q, %v", got, found, want, tt.found)
			}
		})
	}
}

// A working directory reached through a link is searched along its real path: the parents of
// the link are not the repository's.
func TestFindFollowsTheRealPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"repo/.git", "repo/pkg", "elsewhere/.darwin-memo"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "elsewhere", Name), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "elsewhere", "pkg")
	if err := os.Symlink(filepath.Join(root, "repo", "pkg"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if got, found := Find(link, ""); got != filepath.Join(root, "repo", Name) || found {
		t.Errorf("Find(%q) = %q, %v; want the repository's (missing) store", link, got, found)
	}
}
