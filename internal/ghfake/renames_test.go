package ghfake

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v62/github"
)

// A pull request that moves one file unchanged, deletes another and edits a third lists
// them as GitHub does: the move once, status "renamed" under its new name with
// previous_filename; the deletion "removed"; the edit "modified".
func TestPullFilesListRenames(t *testing.T) {
	t.Parallel()
	g := NewGitRepo("o", "r", "main", map[string]string{"src/old.go": "package src\n", "src/gone.go": "package gone\n", "src/app.go": "package app\n"})
	pr := g.MergePull(MergeSpec{Title: "move", Files: map[string][]byte{
		"src/old.go": nil, "src/new.go": []byte("package src\n"), "src/gone.go": nil, "src/app.go": []byte("package app\n// edited\n"),
	}})
	srv := httptest.NewServer(g)
	defer srv.Close()
	c, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := c.PullRequests.ListFiles(context.Background(), "o", "r", pr.Number, &github.ListOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, f := range files {
		got[f.GetFilename()] = [2]string{f.GetStatus(), f.GetPreviousFilename()}
	}
	want := map[string][2]string{"src/new.go": {"renamed", "src/old.go"}, "src/gone.go": {"removed", ""}, "src/app.go": {"modified", ""}}
	if len(got) != len(want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}
