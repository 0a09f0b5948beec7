package settle_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Issue 22, item 9: a job re-run in a later attempt of its workflow run uploads its report
// under a name of its own; the run keeps the earlier attempts' artifacts. The newest attempt
// of each test's job wins; reports of one attempt still combine (failed beats passed).
func TestArtifactsNewestAttemptWins(t *testing.T) {
	t.Parallel()
	suite := func(results ...bool) []byte { // T1, T2 in order
		x := `<testsuite>`
		for i, ok := range results {
			if ok {
				x += fmt.Sprintf(`<testcase classname="s" name="T%d"/>`, i+1)
			} else {
				x += fmt.Sprintf(`<testcase classname="s" name="T%d"><failure/></testcase>`, i+1)
			}
		}
		return []byte(x + `</testsuite>`)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	start := []time.Time{t0, t0.Add(time.Hour), t0.Add(2 * time.Hour)}
	type art struct {
		attempt int // uploaded during this attempt
		xml     []byte
	}
	for _, tc := range []struct {
		name     string
		attempts int
		arts     []art
		delta    int
	}{
		// Before: T1 fails, T2 passes.
		{"re-run passes: the stale failure loses", 2, []art{{1, suite(true, false)}, {2, suite(true, true)}}, 1},
		{"re-run fails: the stale pass loses", 2, []art{{1, suite(true, true)}, {2, suite(true, false)}}, 0},
		{"three attempts: the third wins over the second", 3, []art{{1, suite(false, false)}, {2, suite(true, false)}, {3, suite(true, true)}}, 1},
		// Job X reports T1 and passed at once; job Y reports T2, failed and was re-run.
		{"a job not re-run keeps its report", 2, []art{{1, suite(true)}, {1, []byte(`<testsuite><testcase classname="s" name="T2"><failure/></testcase></testsuite>`)},
			{2, []byte(`<testsuite><testcase classname="s" name="T2"/></testsuite>`)}}, 1},
		{"one attempt's shards still combine", 2, []art{{2, suite(true, true)}, {2, suite(true, false)}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := artifactRepo(t, suite(false, true), nil)
			repo.WorkflowRuns[1].RunAttempt = tc.attempts
			repo.WorkflowRuns[1].CreatedAt = t0
			repo.WorkflowRuns[1].AttemptStarts = start[:tc.attempts]
			repo.Artifacts = repo.Artifacts[:2]
			for i, a := range tc.arts {
				repo.Artifacts = append(repo.Artifacts, ghfake.Artifact{ID: int64(300 + i), RunID: 21, Name: fmt.Sprintf("junit-%d-%d", a.attempt, i),
					CreatedAt: start[a.attempt-1].Add(10 * time.Minute), Zip: ghfake.Zip(map[string][]byte{"junit.xml": a.xml})})
			}
			res, srv := measure(t, repo, settle.Options{})
			if res.Outcome != settle.Measured || res.Source != settle.SourceArtifacts || res.Delta != tc.delta {
				t.Fatalf("outcome %s source %s delta %d, want delta %d (%s)", res.Outcome, res.Source, res.Delta, tc.delta, res.Reason)
			}
			if got, want := srv.Count(ghfake.RouteRunAttempt), max(tc.attempts-2, 0); got != want {
				t.Errorf("%d attempt requests, want %d (attempts 2..n-1)", got, want)
			}
		})
	}
}

// Issue 22, item 9: GitHub lists at most 250 commits of a pull request, so for a longer one the
// merge method cannot be told, and reading it as a squash took the parent of its merge commit:
// after a rebase, the pull request's own second-to-last commit. Its base is base.sha instead,
// never one of its own commits.
func TestMergedOntoLongRebaseIsNeverItsOwnCommit(t *testing.T) {
	t.Parallel()
	const n = ghfake.MaxPullCommits + 10
	b0 := ghfake.SHA("long-b0")
	commits := []ghfake.Commit{{SHA: b0, Message: "base"}}
	var own []string
	prev, replayed := b0, b0
	for k := 1; k <= n; k++ {
		c, r := ghfake.SHA(fmt.Sprintf("long-c%d", k)), ghfake.SHA(fmt.Sprintf("long-r%d", k))
		msg := fmt.Sprintf("change %d", k)
		commits = append(commits, ghfake.Commit{SHA: c, Parents: []string{prev}, Message: msg}, ghfake.Commit{SHA: r, Parents: []string{replayed}, Message: msg})
		own = append(own, c)
		prev, replayed = c, r
	}
	pr := ghfake.PullRequest{Number: prNumber, Title: "Long", Merged: true, HeadSHA: prev, BaseSHA: b0, MergeCommitSHA: replayed, CommitSHAs: own}
	srv := ghfake.New(t, ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}})
	client, _ := srv.NewClient(fastPolicy)
	gpr, _, err := client.PullRequests.Get(testCtx, "o", "r", prNumber)
	if err != nil {
		t.Fatal(err)
	}
	sha, err := settle.MergedOnto(testCtx, client, "o", "r", gpr)
	if err != nil || sha != b0 {
		t.Fatalf("merged onto %s, %v; want base.sha %s", sha, err, b0)
	}
}
