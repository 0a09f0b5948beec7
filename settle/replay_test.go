package settle

import (
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// changeText is what sameChange compares: hunks moved to other lines are the same change, other
// hunks, files or statuses are not, a file without a patch is compared by the blob it leaves,
// and a change that cannot be read (no file list, a file with neither patch nor blob) is not
// comparable.
func TestChangeText(t *testing.T) {
	file := func(name, status, patch, sha string) *github.CommitFile {
		f := &github.CommitFile{Filename: github.String(name), Status: github.String(status)}
		if patch != "" {
			f.Patch = github.String(patch)
		}
		if sha != "" {
			f.SHA = github.String(sha)
		}
		return f
	}
	base := []*github.CommitFile{file("a.go", "modified", "@@ -3,2 +3,3 @@ func A\n x\n+y", "b1"), file("b.png", "added", "", "b2")}
	tests := []struct {
		name     string
		files    []*github.CommitFile
		same, ok bool
	}{
		{"the same files in another order", []*github.CommitFile{base[1], base[0]}, true, true},
		{"the hunk at other lines", []*github.CommitFile{file("a.go", "modified", "@@ -30,2 +30,3 @@ func A\n x\n+y", "other blob"), base[1]}, true, true},
		{"the hunk next to other context", []*github.CommitFile{file("a.go", "modified", "@@ -3,2 +3,3 @@ func B\n w\n+y", "b1"), base[1]}, true, true},
		{"another hunk", []*github.CommitFile{file("a.go", "modified", "@@ -3,2 +3,3 @@ func A\n x\n+z", "b1"), base[1]}, false, true},
		{"another status", []*github.CommitFile{file("a.go", "added", "@@ -3,2 +3,3 @@ func A\n x\n+y", "b1"), base[1]}, false, true},
		{"another blob without a patch", []*github.CommitFile{base[0], file("b.png", "added", "", "b3")}, false, true},
		{"a file fewer", base[:1], false, true},
		{"no file list", nil, false, false},
		{"a file with neither patch nor blob", []*github.CommitFile{base[0], file("b.png", "added", "", "")}, false, false},
	}
	want, ok := changeText(base)
	if !ok {
		t.Fatal("the base change is not comparable")
	}
	for _, tt := range tests {
		got, ok := changeText(tt.files)
		if ok != tt.ok || ok && (got == want) != tt.same {
			t.Errorf("%s: same %v comparable %v, want %v %v", tt.name, got == want, ok, tt.same, tt.ok)
		}
	}
}

// patchID reads patches GitHub serves for a pull request author's commits: whatever the text,
// it is stable (its own patch id) and blind to the numbers of hunk headers.
func FuzzPatchID(f *testing.F) {
	f.Add("@@ -3,2 +3,3 @@ func A\n x\n+y")
	f.Add("@@ -0,0 +1 @@\n+new\n\\ No newline at end of file")
	f.Add("")
	f.Fuzz(func(t *testing.T, patch string) {
		id := patchID(patch)
		if patchID(id) != id {
			t.Fatalf("patchID(%q) = %q, whose own patch id differs", patch, id)
		}
		lines := strings.Split(patch, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "@@") {
				lines[i] = "@@ -1,1 +1,1 @@"
			}
		}
		if got := patchID(strings.Join(lines, "\n")); got != id {
			t.Fatalf("renumbering the hunks of %q changed its patch id: %q, want %q", patch, got, id)
		}
	})
}
