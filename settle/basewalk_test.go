package settle_test

import (
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// The base walk takes a run of commits for a rebase only when each makes the pull request's
// change and GitHub says the pull request introduced the oldest, and the walk for CI never
// passes another merged pull request's commit (issue 22, round two).
func TestBaseWalkRules(t *testing.T) {
	tests := []struct {
		name       string
		kind       string
		edit       func(*ghfake.Repo)
		wantBefore string
		reason     string // set: abstained with this in the reason
	}{
		{name: "rebase: replays make the same changes", kind: "rebase", wantBefore: b1},
		{name: "same words, another change: not a replay", kind: "rebase",
			edit:   func(r *ghfake.Repo) { setChange(r, r1, map[string]string{"a.go": "not the first change"}) },
			reason: r1[:12] + ", below it, does not replay its commit " + c1[:12]},
		{name: "empty commits replayed: the same (empty) change", kind: "rebase",
			edit:       func(r *ghfake.Repo) { setChange(r, r1, nil); setChange(r, c1, nil) },
			wantBefore: b1},
		{name: "oldest replay not introduced by the pull request", kind: "rebase",
			edit: func(r *ghfake.Repo) {
				r.Pulls[0].Replayed = []string{merge}
				r.Pulls = append(r.Pulls, ghfake.PullRequest{Number: 6, Merged: true, MergedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
					HeadSHA: r1, BaseSHA: b1, MergeCommitSHA: r1})
			},
			reason: "the oldest, " + r1[:12] + ", was introduced by #6, not #7"},
		{name: "walk for CI stops at another pull request's merge", kind: "merge",
			edit: func(r *ghfake.Repo) {
				r.CheckRuns = dropSHA(r.CheckRuns, b1)
				r.Pulls = append(r.Pulls, ghfake.PullRequest{Number: 6, Merged: true, MergedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
					HeadSHA: ghfake.SHA("pr6-head"), BaseSHA: b0, MergeCommitSHA: b1})
			},
			reason: "would pass " + b1[:12] + ", which #6 merged, and count its changes as #7's (the head " + ghfake.SHA("pr6-head")[:12] + " of #6 has no commit GitHub knows)"},
		{name: "walk for CI measures from another pull request's head that holds the same tree", kind: "merge",
			edit: func(r *ghfake.Repo) {
				r.CheckRuns = append(dropSHA(r.CheckRuns, b1), job(ghfake.SHA("pr6-head"), "test", "failure"))
				r.Commits = append(r.Commits, ghfake.Commit{SHA: ghfake.SHA("pr6-head"), Parents: []string{b0}, Tree: ghfake.SHA("tree:" + b1)})
				r.Pulls = append(r.Pulls, ghfake.PullRequest{Number: 6, Merged: true, MergedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
					HeadSHA: ghfake.SHA("pr6-head"), BaseSHA: b0, MergeCommitSHA: b1})
			},
			wantBefore: ghfake.SHA("pr6-head")},
		{name: "walk for CI stops at another pull request's merge whose head tested another tree", kind: "merge",
			edit: func(r *ghfake.Repo) {
				r.CheckRuns = append(dropSHA(r.CheckRuns, b1), job(ghfake.SHA("pr6-head"), "test", "failure"))
				r.Commits = append(r.Commits, ghfake.Commit{SHA: ghfake.SHA("pr6-head"), Parents: []string{b0}})
				r.Pulls = append(r.Pulls, ghfake.PullRequest{Number: 6, Merged: true, MergedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
					HeadSHA: ghfake.SHA("pr6-head"), BaseSHA: b0, MergeCommitSHA: b1})
			},
			reason: "count its changes as #7's (the head " + ghfake.SHA("pr6-head")[:12] + " of #6 has another tree)"},
		{name: "walk for CI passes a commit no pull request brought", kind: "merge",
			edit:       func(r *ghfake.Repo) { r.CheckRuns = dropSHA(r.CheckRuns, b1) },
			wantBefore: b0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commits, pr := graph(tt.kind)
			repo := ghfake.Repo{Branches: map[string]string{"main": merge}, Commits: commits, Pulls: []ghfake.PullRequest{pr},
				CheckRuns: []ghfake.CheckRun{job(b0, "test", "failure"), job(b1, "test", "failure"), job(head, "test", "success")}}
			if tt.edit != nil {
				tt.edit(&repo)
			}
			res, _ := measure(t, repo, settle.Options{})
			if tt.reason != "" {
				if res.Outcome != settle.Abstained || !strings.Contains(res.Reason, tt.reason) {
					t.Fatalf("%s (%s), want abstained with %q", res.Outcome, res.Reason, tt.reason)
				}
				return
			}
			if res.Outcome != settle.Measured || res.Before.SHA != tt.wantBefore {
				t.Fatalf("%s before %.7s %s, want %.7s", res.Outcome, res.Before.SHA, res.Reason, tt.wantBefore)
			}
		})
	}
}

func setChange(r *ghfake.Repo, sha string, change map[string]string) {
	for i := range r.Commits {
		if r.Commits[i].SHA == sha {
			r.Commits[i].Change = change
		}
	}
}

// WalkRequests bounds what the walk over a rebase of n commits reads; a pull request of one
// commit walks nothing, and GitHub lists no more than 250.
func TestWalkRequests(t *testing.T) {
	for _, tt := range []struct{ n, want int }{{0, 0}, {1, 0}, {2, 7}, {100, 203}, {101, 206}, {250, 505}, {400, 505}} {
		if got := settle.WalkRequests(tt.n); got != tt.want {
			t.Errorf("WalkRequests(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}
