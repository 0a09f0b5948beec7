package ghapi_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

func TestMemoAndRate(t *testing.T) {
	sha := ghfake.SHA("c")
	// An immutable read is sent once.
	{
		srv := ghfake.New(t, ghfake.Repo{Commits: []ghfake.Commit{{SHA: sha, Message: "m"}}})
		c, tr := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
		for i := 0; i < 3; i++ {
			got, _, err := c.Git.GetCommit(context.Background(), "o", "r", sha)
			if err != nil || got.GetSHA() != sha || got.GetMessage() != "m" {
				t.Fatalf("GetCommit %d: %v %v", i, got, err)
			}
		}
		if n := srv.Count(ghfake.RouteGitCommit); n != 1 {
			t.Errorf("sent %d, want 1", n)
		}
		if tr.Requests() != 1 {
			t.Errorf("requests %d, want 1", tr.Requests())
		}
		if r := tr.Rate(); !r.Known || r.Limit != 5000 || r.Remaining != 4999 || r.Reset.IsZero() {
			t.Errorf("rate %+v", r)
		}
	}
	// A read by branch name, or of something that changes, is never remembered.
	srv := ghfake.New(t, ghfake.Repo{Commits: []ghfake.Commit{{SHA: sha}}, Branches: map[string]string{"main": sha}})
	c, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	for i := 0; i < 2; i++ {
		if _, _, err := c.Checks.ListCheckRunsForRef(context.Background(), "o", "r", "main", nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Count(ghfake.RouteCheckRuns); n != 2 {
		t.Errorf("check runs sent %d times, want 2", n)
	}
	// A commit with its files, read by sha (the base walk reads each one for the ticket check
	// and again for the measurement), is sent once; the pull requests that hold it change.
	for i := 0; i < 2; i++ {
		if _, _, err := c.Repositories.GetCommit(context.Background(), "o", "r", sha, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.PullRequests.ListPullRequestsWithCommit(context.Background(), "o", "r", sha, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n, p := srv.Count(ghfake.RouteCommit), srv.Count(ghfake.RouteCommitPulls); n != 1 || p != 2 {
		t.Errorf("commit sent %d times, want 1; its pull requests %d times, want 2", n, p)
	}
}

// An answer over 1 MB (a large store's blob) is not kept for the run: it would stay in memory
// to the end, and is passed on as it streams; a small one is kept.
func TestMemoSkipsLargeAnswers(t *testing.T) {
	big := strings.Repeat("x", 1<<20+10)
	git := ghfake.NewGitRepo("o", "r", "main", map[string]string{"big.txt": big, "small.txt": "small"})
	w := ghfake.NewWorld(git, ghfake.Repo{})
	defer w.Close()
	c, _, err := ghapi.NewClient(ghapi.Options{APIURL: w.URL, Token: ghfake.Token, Policy: ghapi.Policy{Sleep: ghfake.NoSleep}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		content  string
		wantSent int
	}{{big, 2}, {"small", 1}} {
		before := w.Total()
		sha := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(tt.content), tt.content))))
		for i := 0; i < 2; i++ {
			b, _, err := c.Git.GetBlob(context.Background(), "o", "r", sha)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := base64.StdEncoding.DecodeString(b.GetContent()); err != nil || string(got) != tt.content {
				t.Fatalf("read %d of a %d-byte blob: %d bytes, %v", i, len(tt.content), len(got), err)
			}
		}
		if n := w.Total() - before; n != tt.wantSent {
			t.Errorf("%d-byte blob sent %d times, want %d", len(tt.content), n, tt.wantSent)
		}
	}
}
