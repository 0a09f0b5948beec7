package ghapi_test

import (
	"context"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

func TestMemoAndRate(t *testing.T) {
	sha := ghfake.SHA("c")
	for _, tt := range []struct {
		name      string
		memo      bool
		wantSent  int
		wantHits  int64
		wantCount int64
	}{
		{"memo: an immutable read is sent once", true, 1, 2, 1},
		{"no memo", false, 3, 0, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ghfake.New(t, ghfake.Repo{Commits: []ghfake.Commit{{SHA: sha, Message: "m"}}})
			c, tr := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep, Memo: tt.memo})
			for i := 0; i < 3; i++ {
				got, _, err := c.Git.GetCommit(context.Background(), "o", "r", sha)
				if err != nil || got.GetSHA() != sha || got.GetMessage() != "m" {
					t.Fatalf("GetCommit %d: %v %v", i, got, err)
				}
			}
			if n := srv.Count(ghfake.RouteGitCommit); n != tt.wantSent {
				t.Errorf("sent %d, want %d", n, tt.wantSent)
			}
			if tr.MemoHits() != tt.wantHits || tr.Requests() != tt.wantCount {
				t.Errorf("hits %d requests %d, want %d %d", tr.MemoHits(), tr.Requests(), tt.wantHits, tt.wantCount)
			}
			if r := tr.Rate(); !r.Known || r.Limit != 5000 || r.Remaining != 5000-tt.wantSent || r.Reset.IsZero() {
				t.Errorf("rate %+v", r)
			}
		})
	}
	// A read by branch name, or of something that changes, is never remembered.
	srv := ghfake.New(t, ghfake.Repo{Commits: []ghfake.Commit{{SHA: sha}}, Branches: map[string]string{"main": sha}})
	c, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep, Memo: true})
	for i := 0; i < 2; i++ {
		if _, _, err := c.Checks.ListCheckRunsForRef(context.Background(), "o", "r", "main", nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Count(ghfake.RouteCheckRuns); n != 2 {
		t.Errorf("check runs sent %d times, want 2", n)
	}
}
