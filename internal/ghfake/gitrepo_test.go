package ghfake

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v62/github"
)

func TestGitRepoRoutesThroughGoGitHub(t *testing.T) {
	t.Parallel()
	g := NewGitRepo("o", "r", "main", map[string]string{"a.txt": "one\n"})
	for i := 0; i < 5; i++ {
		g.MergePull(MergeSpec{Title: "change", Files: map[string][]byte{"a.txt": []byte{byte('a' + i)}}})
	}
	srv := httptest.NewServer(g)
	defer srv.Close()
	c, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Paging with Link headers, newest first.
	opts := &github.PullRequestListOptions{State: "closed", ListOptions: github.ListOptions{PerPage: 2}}
	var got []int
	for {
		prs, resp, err := c.PullRequests.List(ctx, "o", "r", opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range prs {
			got = append(got, p.GetNumber())
			// List items are pull-request-simple: merged_at, never merged.
			if p.Merged != nil || p.MergedAt == nil || p.GetMergeCommitSHA() == "" || p.GetHead().GetSHA() == "" {
				t.Fatalf("PR list item #%d: merged %v merged_at %v merge_commit_sha %q", p.GetNumber(), p.Merged, p.MergedAt, p.GetMergeCommitSHA())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(got) != 5 || got[0] != 5 || got[4] != 1 {
		t.Fatalf("pages gave %v", got)
	}
	// Contents at a commit and at a branch; 404 for a missing path.
	pr1 := g.Pull(1)
	fc, _, _, err := c.Repositories.GetContents(ctx, "o", "r", "a.txt", &github.RepositoryContentGetOptions{Ref: pr1.BaseSHA})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := fc.GetContent(); s != "one\n" {
		t.Fatalf("content at base %q", s)
	}
	if _, _, resp, err := c.Repositories.GetContents(ctx, "o", "r", "nope", nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("missing file: %v", err)
	}
	// Commit → pull request mapping, as the push trigger uses it.
	prs, _, err := c.PullRequests.ListPullRequestsWithCommit(ctx, "o", "r", g.Pull(3).MergeCommitSHA, nil)
	if err != nil || len(prs) != 1 || prs[0].GetNumber() != 3 {
		t.Fatalf("commit→PR: %v %v", prs, err)
	}
	// Squash merges: the merge commit's only parent is the old tip.
	if p := g.Parents(g.Pull(2).MergeCommitSHA); len(p) != 1 || p[0] != g.Pull(2).BaseSHA {
		t.Fatalf("parents %v", p)
	}
}

func TestMergeOpenPullKeepsBaseChanges(t *testing.T) {
	t.Parallel()
	g := NewGitRepo("o", "r", "main", map[string]string{"x": "1", "y": "1"})
	g.CommitFiles("bot", "bot", "bot change", map[string][]byte{"x": []byte("bot")})
	g.mu.Lock()
	g.pulls = append(g.pulls, &GitPull{Number: 1, State: "open", Head: "bot", Base: "main", Title: "bot"})
	g.mu.Unlock()
	g.CommitFiles("main", "person", "main change", map[string][]byte{"y": []byte("person")})
	if _, err := g.MergeOpenPull(1); err != nil {
		t.Fatal(err)
	}
	x, _ := g.File("main", "x")
	y, _ := g.File("main", "y")
	if string(x) != "bot" || string(y) != "person" {
		t.Fatalf("x=%q y=%q", x, y)
	}
}
