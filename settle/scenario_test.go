package settle_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Commit graph shared by the scenarios:
//
//	b0 ── b1 ───────────── M        (main; M is the merge/squash/rebase result)
//	  \                   /
//	   c1 ── head ───────           (the PR branch, branched at b0)
var (
	b0, b1     = ghfake.SHA("b0"), ghfake.SHA("b1")
	c1, head   = ghfake.SHA("c1"), ghfake.SHA("head")
	merge      = ghfake.SHA("merge")
	r1         = ghfake.SHA("rebased-1")
	stale      = ghfake.SHA("stale")
	prNumber   = 7
	testCtx    = context.Background()
	fastPolicy = ghapi.Policy{Sleep: ghfake.NoSleep}
)

// graph returns the commits and PR for a merge method.
func graph(kind string) ([]ghfake.Commit, ghfake.PullRequest) {
	commits := []ghfake.Commit{
		{SHA: b0, Message: "base zero"},
		{SHA: b1, Parents: []string{b0}, Message: "base one"},
		{SHA: c1, Parents: []string{b0}, Message: "first change", Change: map[string]string{"a.go": "first"}},
		{SHA: head, Parents: []string{c1}, Message: "second change", Change: map[string]string{"b.go": "second"}},
	}
	pr := ghfake.PullRequest{Number: prNumber, Title: "Fix it", Merged: true, HeadSHA: head, BaseSHA: b0,
		MergeCommitSHA: merge, CommitSHAs: []string{c1, head}}
	switch kind {
	case "merge":
		commits = append(commits, ghfake.Commit{SHA: merge, Parents: []string{b1, head}, Message: "Merge pull request #7"})
	case "squash":
		commits = append(commits, ghfake.Commit{SHA: merge, Parents: []string{b1}, Message: "Fix it (#7)\n\n* first change\n* second change"})
	case "rebase":
		commits = append(commits,
			ghfake.Commit{SHA: r1, Parents: []string{b1}, Message: "first change", Change: map[string]string{"a.go": "first"}},
			ghfake.Commit{SHA: merge, Parents: []string{r1}, Message: "second change", Change: map[string]string{"b.go": "second"}})
		pr.Replayed = []string{r1, merge}
	case "rebase-diverged":
		commits = append(commits,
			ghfake.Commit{SHA: r1, Parents: []string{b1}, Message: "something else"},
			ghfake.Commit{SHA: merge, Parents: []string{r1}, Message: "second change", Change: map[string]string{"b.go": "second"}})
	}
	return commits, pr
}

func job(sha, name, conclusion string) ghfake.CheckRun {
	return ghfake.CheckRun{HeadSHA: sha, Name: name, Conclusion: conclusion}
}

// mergedPR fetches the measured pull request, as the action does before it measures.
func mergedPR(t *testing.T, client *github.Client) *github.PullRequest {
	t.Helper()
	pr, _, err := client.PullRequests.Get(testCtx, "o", "r", prNumber)
	if err != nil {
		t.Fatalf("get #%d: %v", prNumber, err)
	}
	return pr
}

func measure(t *testing.T, repo ghfake.Repo, opts settle.Options) (*settle.Result, *ghfake.Server) {
	t.Helper()
	srv := ghfake.New(t, repo)
	client, _ := srv.NewClient(fastPolicy)
	res, err := settle.Measure(testCtx, client, settle.Request{Owner: "o", Repo: "r", PR: mergedPR(t, client), Options: opts})
	if err != nil {
		t.Fatalf("Measure: %v", err)
	}
	return res, srv
}

func TestSelectSHAs(t *testing.T) {
	tests := []struct {
		name       string
		kind       string
		edit       func(*ghfake.Repo)
		wantBefore string
		wantAfter  string
		outcome    settle.Outcome
	}{
		{name: "merge commit: first parent", kind: "merge", wantBefore: b1, wantAfter: head},
		{name: "squash: parent of the squashed commit", kind: "squash", wantBefore: b1, wantAfter: head},
		{name: "rebase: walk back the PR's commit count", kind: "rebase", wantBefore: b1, wantAfter: head},
		{name: "rebase that diverges: cannot tell a squash, abstain", kind: "rebase-diverged", outcome: settle.Abstained},
		{name: "single-commit squash", kind: "squash", edit: func(r *ghfake.Repo) { r.Pulls[0].CommitSHAs = []string{head}; r.Pulls[0].Commits = 1 },
			wantBefore: b1, wantAfter: head},
		{name: "first parent without CI: walk to b0", kind: "merge", edit: func(r *ghfake.Repo) { r.CheckRuns = dropSHA(r.CheckRuns, b1) },
			wantBefore: b0, wantAfter: head},
		{name: "no merge_commit_sha: base.sha", kind: "merge", edit: func(r *ghfake.Repo) { r.Pulls[0].MergeCommitSHA = "" },
			wantBefore: b0, wantAfter: head},
		{name: "merge commit unknown (404): base.sha", kind: "merge", edit: func(r *ghfake.Repo) { r.Pulls[0].MergeCommitSHA = ghfake.SHA("gc'd") },
			wantBefore: b0, wantAfter: head},
		{name: "base.sha without CI: compare merge base", kind: "squash",
			edit: func(r *ghfake.Repo) {
				r.Pulls[0].MergeCommitSHA = ""
				r.Pulls[0].BaseSHA = stale
				r.Commits = append(r.Commits, ghfake.Commit{SHA: stale})
			},
			wantBefore: b0, wantAfter: head},
		{name: "no CI below the merge: abstain", kind: "merge",
			edit:    func(r *ghfake.Repo) { r.CheckRuns = dropSHA(dropSHA(r.CheckRuns, b1), b0) },
			outcome: settle.Abstained},
		{name: "push-only CI: no CI on head, after = merge commit", kind: "merge",
			edit: func(r *ghfake.Repo) {
				r.CheckRuns = append(dropSHA(r.CheckRuns, head), job(merge, "test", "success"))
			},
			wantBefore: b1, wantAfter: merge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commits, pr := graph(tt.kind)
			repo := ghfake.Repo{
				Branches: map[string]string{"main": merge},
				Commits:  commits, Pulls: []ghfake.PullRequest{pr},
				CheckRuns: []ghfake.CheckRun{
					job(b0, "test", "failure"), job(b1, "test", "failure"), job(head, "test", "success"),
				},
			}
			if tt.edit != nil {
				tt.edit(&repo)
			}
			res, srv := measure(t, repo, settle.Options{})
			want := tt.outcome
			if want == "" {
				want = settle.Measured
			}
			if res.Outcome != want {
				t.Fatalf("Outcome = %s (%s), want %s", res.Outcome, res.Reason, want)
			}
			if want != settle.Measured {
				return
			}
			if res.Before.SHA != tt.wantBefore || res.After.SHA != tt.wantAfter {
				t.Errorf("before/after = %.7s/%.7s, want %.7s/%.7s", res.Before.SHA, res.After.SHA, tt.wantBefore, tt.wantAfter)
			}
			if res.Source != settle.SourceJobs || res.Delta != 1 || srv.Total() > 15 {
				t.Errorf("source %s delta %d requests %d", res.Source, res.Delta, srv.Total())
			}
		})
	}
}

func dropSHA(runs []ghfake.CheckRun, sha string) []ghfake.CheckRun {
	var out []ghfake.CheckRun
	for _, r := range runs {
		if r.HeadSHA != sha {
			out = append(out, r)
		}
	}
	return out
}

// digest encodes EnricoMi's summary digest line for stats.
func digest(t testing.TB, stats map[string]any) string {
	t.Helper()
	data, _ := json.Marshal(stats)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return settle.DigestPrefix + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// enricoFixed is the EnricoMi check run of pytest-junit.fail after a fix:
// test_rsh_events passes.
func enricoFixed(t testing.TB, sha string) ghfake.CheckRun {
	cr, err := ghfake.EnricoMiCheckRun("pytest-junit.fail.checkrun.json", sha)
	if err != nil {
		t.Fatal(err)
	}
	cr.Title = "All 4 tests pass, 1 skipped in 2s"
	cr.Summary = "5 tests   4 ✅  2s ⏱️\n\n" + digest(t, map[string]any{"files": 1, "suites": 1, "duration": 2, "tests": 5, "tests_succ": 4,
		"tests_skip": 1, "tests_fail": 0, "tests_error": 0, "runs": 5, "runs_succ": 4, "runs_skip": 1, "runs_fail": 0, "runs_error": 0, "commit": sha}) + "\n"
	cr.Annotations = cr.Annotations[1:] // drop the failure annotation
	cr.Conclusion = "success"
	return cr
}

func enricoBroken(t testing.TB, sha string) ghfake.CheckRun {
	cr, err := ghfake.EnricoMiCheckRun("pytest-junit.fail.checkrun.json", sha)
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

func readTestdata(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pytestFixed is the pytest report with test_rsh_events passing.
func pytestFixed(t testing.TB) []byte {
	x := string(readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"))
	i := strings.Index(x, "<failure")
	j := strings.Index(x, "</failure>") + len("</failure>")
	return []byte(x[:i] + x[j:])
}

const rshEvents = "test.test_spark.SparkTests::test_rsh_events"

// artifactRepo is a merge-commit scenario whose results live in JUnit
// artifacts (plus one job check run per SHA, as Actions always has).
func artifactRepo(t testing.TB, beforeXML, afterXML []byte) ghfake.Repo {
	commits, pr := graph("merge")
	return ghfake.Repo{
		Commits: commits, Pulls: []ghfake.PullRequest{pr},
		CheckRuns: []ghfake.CheckRun{job(b1, "test", "failure"), job(head, "test", "success")},
		WorkflowRuns: []ghfake.WorkflowRun{
			{ID: 11, Name: "CI", HeadSHA: b1, HeadBranch: "main", Event: "push", Conclusion: "failure"},
			{ID: 21, Name: "CI", HeadSHA: head, HeadBranch: "feature", Conclusion: "success"},
		},
		Artifacts: []ghfake.Artifact{
			{ID: 110, RunID: 11, Name: "junit-results", Zip: ghfake.Zip(map[string][]byte{"reports/junit.xml": beforeXML, "coverage.txt": []byte("x")})},
			{ID: 111, RunID: 11, Name: "binaries", Zip: []byte("not fetched")},
			{ID: 210, RunID: 21, Name: "junit-results", Zip: ghfake.Zip(map[string][]byte{"reports/junit.xml": afterXML})},
		},
	}
}

func TestSources(t *testing.T) {
	dornyBefore := string(readTestdata(t, "dorny", "python-xunit-pytest.md"))
	dornyAfter := strings.Replace(dornyBefore, "❌ test_always_fail", "✅ test_always_fail", 1)
	tests := []struct {
		name        string
		repo        func(t *testing.T) ghfake.Repo
		opts        settle.Options
		source      settle.Source
		mode        settle.Mode
		delta       int
		improved    []string
		regressed   []string
		maxRequests int
	}{
		{name: "a: EnricoMi digest and annotations", source: settle.SourceEnricoMi, mode: settle.PerTest, delta: 1, improved: []string{rshEvents}, maxRequests: 8,
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
					job(b1, "test", "failure"), enricoBroken(t, b1), job(head, "test", "success"), enricoFixed(t, head),
				}}
			}},
		{name: "b: JUnit artifacts", source: settle.SourceArtifacts, mode: settle.PerTest, delta: 1, improved: []string{rshEvents}, maxRequests: 14,
			repo: func(t *testing.T) ghfake.Repo {
				return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
			}},
		{name: "b: artifact name filter", source: settle.SourceArtifacts, mode: settle.PerTest, delta: 1, opts: settle.Options{ArtifactName: "junit-*"},
			repo: func(t *testing.T) ghfake.Repo {
				return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
			}},
		{name: "b: filter matching nothing falls back to jobs", source: settle.SourceJobs, mode: settle.PerTest, delta: 1, opts: settle.Options{ArtifactName: "nope"},
			repo: func(t *testing.T) ghfake.Repo {
				return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
			}},
		{name: "b: rerun-flaky test is not a transition", source: settle.SourceArtifacts, mode: settle.PerTest, delta: 0,
			repo: func(t *testing.T) ghfake.Repo {
				before := `<testsuite><testcase classname="org.acme.FlakyTest" name="testFlaky"><failure/></testcase><testcase classname="org.acme.FlakyTest" name="testStable"/></testsuite>`
				return artifactRepo(t, []byte(before), readTestdata(t, "junit", "surefire-TEST-org.acme.FlakyTest.xml"))
			}},
		{name: "c: dorny per-test summary", source: settle.SourceReporter, mode: settle.PerTest, delta: 1, improved: []string{"tests.test_lib::test_always_fail"},
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
					{HeadSHA: b1, Name: "pytest results", Conclusion: "failure", Title: "6 passed, 2 failed and 2 skipped ", Summary: dornyBefore},
					{HeadSHA: head, Name: "pytest results", Conclusion: "failure", Title: "7 passed, 1 failed and 2 skipped ", Summary: dornyAfter},
				}}
			}},
		{name: "c: mikepenz counts", source: settle.SourceReporter, mode: settle.PassCounts, delta: 1,
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("squash")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
					{HeadSHA: b1, Name: "JUnit Test Report", Conclusion: "failure", Title: "10 tests run, 8 passed, 0 skipped, 2 failed."},
					{HeadSHA: head, Name: "JUnit Test Report", Conclusion: "failure", Title: "10 tests run, 9 passed, 0 skipped, 1 failed."},
				}}
			}},
		{name: "EnricoMi counts without annotations do not shadow per-test artifacts", source: settle.SourceArtifacts, mode: settle.PerTest, delta: 1, improved: []string{rshEvents},
			repo: func(t *testing.T) ghfake.Repo {
				r := artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
				before, after := enricoBroken(t, b1), enricoFixed(t, head)
				before.Annotations, after.Annotations = nil, nil
				r.CheckRuns = append(r.CheckRuns, before, after)
				return r
			}},
		{name: "d: job conclusions", source: settle.SourceJobs, mode: settle.PerTest, delta: 0, improved: []string{"test"}, regressed: []string{"lint"},
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
					job(b1, "build", "success"), job(b1, "test", "failure"), job(b1, "lint", "success"), job(b1, "docs", "skipped"),
					job(head, "build", "success"), job(head, "test", "timed_out"), job(head, "lint", "failure"), job(head, "docs", "success"), job(head, "new", "success"),
					// A re-run of "test" on head: only the latest counts.
					{HeadSHA: head, Name: "test", Conclusion: "success", StartedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
				}}
			}},
		{name: "e: combined commit status", source: settle.SourceStatuses, mode: settle.PerTest, delta: 1, improved: []string{"ci/jenkins"},
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, Statuses: []ghfake.Status{
					{SHA: b1, Context: "ci/jenkins", State: "failure", TargetURL: "https://jenkins.example/job/1"}, {SHA: b1, Context: "ci/lint", State: "success"},
					{SHA: head, Context: "ci/jenkins", State: "success"}, {SHA: head, Context: "ci/lint", State: "success"},
				}}
			}},
		{name: "report at one SHA only: fall back to jobs", source: settle.SourceJobs, mode: settle.PerTest, delta: 1,
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
					job(b1, "test", "failure"), job(head, "test", "success"), enricoFixed(t, head),
				}}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, srv := measure(t, tt.repo(t), tt.opts)
			if res.Outcome != settle.Measured {
				t.Fatalf("Outcome = %s: %s (notes %q)", res.Outcome, res.Reason, res.Notes)
			}
			if res.Source != tt.source || res.Mode != tt.mode || res.Delta != tt.delta {
				t.Errorf("source/mode/delta = %s/%s/%d, want %s/%s/%d (notes %q)", res.Source, res.Mode, res.Delta, tt.source, tt.mode, tt.delta, res.Notes)
			}
			if tt.improved != nil && strings.Join(res.Improvements, ",") != strings.Join(tt.improved, ",") {
				t.Errorf("improvements = %q, want %q", res.Improvements, tt.improved)
			}
			if tt.regressed != nil && strings.Join(res.Regressions, ",") != strings.Join(tt.regressed, ",") {
				t.Errorf("regressions = %q, want %q", res.Regressions, tt.regressed)
			}
			if !strings.HasSuffix(res.URL, fmt.Sprintf("/pull/%d", prNumber)) {
				t.Errorf("url = %q, want the pull request's page", res.URL)
			}
			max := tt.maxRequests
			if max == 0 {
				max = 15
			}
			if srv.Total() > max {
				t.Errorf("requests: server %d, want <= %d (%v)", srv.Total(), max, srv.Counts())
			}
		})
	}
}

func TestArtifactDownloadNeverSendsToken(t *testing.T) {
	// ghfake fails the test itself if the blob server sees Authorization;
	// this also checks the downloads happened at all.
	res, srv := measure(t, artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t)), settle.Options{})
	if res.Source != settle.SourceArtifacts || srv.Count(ghfake.RouteBlob) != 2 {
		t.Fatalf("source %s, blob downloads %d", res.Source, srv.Count(ghfake.RouteBlob))
	}
	if srv.Count(ghfake.RouteArtifactZip) != 2 {
		t.Errorf("only matching artifacts should be fetched: %v", srv.Counts())
	}
}

func TestPendingAndAbstained(t *testing.T) {
	collection := []byte(`<testsuites><testsuite name="pytest"><testcase classname="" name="tests/test_x.py"><error message="collection failure">ImportError</error></testcase></testsuite></testsuites>`)
	allSkipped := []byte(`<testsuite><testcase classname="c" name="a"><skipped/></testcase><testcase classname="c" name="b"><skipped/></testcase></testsuite>`)
	tests := []struct {
		name    string
		repo    func(t *testing.T) ghfake.Repo
		opts    settle.Options
		outcome settle.Outcome
		reason  string
	}{
		{name: "head CI in progress", outcome: settle.Pending, reason: "after SHA",
			repo: func(t *testing.T) ghfake.Repo {
				r := jobsRepo()
				r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{HeadSHA: head, Name: "e2e", Status: "in_progress"})
				return r
			}},
		{name: "base CI queued", outcome: settle.Pending, reason: "before SHA",
			repo: func(t *testing.T) ghfake.Repo {
				r := jobsRepo()
				r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{HeadSHA: b1, Name: "e2e", Status: "queued"})
				return r
			}},
		{name: "own workflow run and its jobs are ignored", outcome: settle.Measured, opts: settle.Options{IgnoreRunID: 4242},
			repo: func(t *testing.T) ghfake.Repo {
				r := artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
				r.WorkflowRuns = append(r.WorkflowRuns, ghfake.WorkflowRun{ID: 4242, WorkflowID: 99, HeadSHA: head, Status: "in_progress"})
				r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{HeadSHA: head, Name: "settle (ubuntu-latest)", Status: "in_progress",
					DetailsURL: "https://github.com/o/r/actions/runs/4242/job/1"})
				return r
			}},
		{name: "someone else's running workflow is not ignored", outcome: settle.Pending, reason: "in_progress", opts: settle.Options{IgnoreRunID: 4242},
			repo: func(t *testing.T) ghfake.Repo {
				r := jobsRepo()
				r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{HeadSHA: head, Name: "e2e", Status: "in_progress",
					DetailsURL: "https://github.com/o/r/actions/runs/42420/job/1"})
				return r
			}},
		{name: "external status pending", outcome: settle.Pending, reason: "pending",
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, Statuses: []ghfake.Status{
					{SHA: b1, Context: "ci", State: "success"}, {SHA: head, Context: "ci", State: "pending"},
				}}
			}},
		{name: "workflow run still queued at head (artifacts)", outcome: settle.Pending, reason: "queued",
			repo: func(t *testing.T) ghfake.Repo {
				r := artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
				r.WorkflowRuns = append(r.WorkflowRuns, ghfake.WorkflowRun{ID: 22, WorkflowID: 78, HeadSHA: head, Status: "queued"})
				return r
			}},
		{name: "no CI at head or merge commit", outcome: settle.Abstained, reason: "no CI ran on the head",
			repo: func(t *testing.T) ghfake.Repo { r := jobsRepo(); r.CheckRuns = dropSHA(r.CheckRuns, head); return r }},
		{name: "not merged", outcome: settle.Abstained, reason: "not merged",
			repo: func(t *testing.T) ghfake.Repo { r := jobsRepo(); r.Pulls[0].Merged = false; return r }},
		{name: "zero tests (EnricoMi)", outcome: settle.Abstained, reason: "zero tests",
			repo: func(t *testing.T) ghfake.Repo {
				r := jobsRepo()
				empty := func(sha string) ghfake.CheckRun {
					return ghfake.CheckRun{HeadSHA: sha, Name: "Test Results", Conclusion: "success", Title: "No tests found",
						Summary: digest(t, map[string]any{"tests": 0, "tests_succ": 0, "tests_skip": 0, "tests_fail": 0, "tests_error": 0})}
				}
				r.CheckRuns = append(r.CheckRuns, empty(b1), empty(head))
				return r
			}},
		{name: "zero tests (mikepenz)", outcome: settle.Abstained, reason: "zero tests",
			repo: func(t *testing.T) ghfake.Repo {
				r := jobsRepo()
				for _, sha := range []string{b1, head} {
					r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{HeadSHA: sha, Name: "JUnit Test Report", Conclusion: "success", Title: "No test results found!"})
				}
				return r
			}},
		{name: "counts only and the suite changed", outcome: settle.Abstained, reason: "suites differ",
			repo: func(t *testing.T) ghfake.Repo {
				r := jobsRepo()
				r.CheckRuns = append(r.CheckRuns,
					ghfake.CheckRun{HeadSHA: b1, Name: "JUnit Test Report", Conclusion: "success", Title: "10 tests run, 8 passed, 0 skipped, 2 failed."},
					ghfake.CheckRun{HeadSHA: head, Name: "JUnit Test Report", Conclusion: "success", Title: "12 tests run, 11 passed, 0 skipped, 1 failed."})
				return r
			}},
		{name: "all skipped (artifacts)", outcome: settle.Abstained, reason: "unmeasured",
			repo: func(t *testing.T) ghfake.Repo {
				return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), allSkipped)
			}},
		{name: "collection error (artifacts)", outcome: settle.Abstained, reason: "collection error",
			repo: func(t *testing.T) ghfake.Repo {
				return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), collection)
			}},
		{name: "all jobs skipped", outcome: settle.Abstained, reason: "nothing measurable",
			repo: func(t *testing.T) ghfake.Repo {
				commits, pr := graph("merge")
				return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
					job(b1, "test", "skipped"), job(head, "test", "cancelled"),
				}}
			}},
		{name: "expired base artifacts and no job signal", outcome: settle.Abstained, reason: "expired",
			repo: func(t *testing.T) ghfake.Repo {
				r := artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
				r.Artifacts[0].Expired = true
				r.CheckRuns = []ghfake.CheckRun{job(b1, "test", "neutral"), job(head, "test", "neutral")}
				return r
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := measure(t, tt.repo(t), tt.opts)
			if res.Outcome != tt.outcome {
				t.Fatalf("Outcome = %s (%q), want %s", res.Outcome, res.Reason, tt.outcome)
			}
			if !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to mention %q", res.Reason, tt.reason)
			}
			if tt.outcome != settle.Measured && (res.Delta != 0 || len(res.Improvements) != 0 || res.Mode != "") {
				t.Errorf("non-measured result carries a delta: %+v", res)
			}
		})
	}
}

// jobsRepo is the simplest measurable merged PR: one job, failing before,
// passing after.
func jobsRepo() ghfake.Repo {
	commits, pr := graph("merge")
	return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr},
		CheckRuns: []ghfake.CheckRun{job(b1, "test", "failure"), job(head, "test", "success")}}
}

func TestQuarantineFromHistory(t *testing.T) {
	repo := artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
	// test_rsh_events flipped twice already: this run's F,T makes 3 flips.
	h := settle.LoadFlakyHistory([]byte(`{"tests": {"` + rshEvents + `": [false, true]}}`))
	res, _ := measure(t, repo, settle.Options{History: h})
	if res.Outcome != settle.Measured || res.Delta != 0 {
		t.Fatalf("outcome %s delta %d, want measured 0", res.Outcome, res.Delta)
	}
	if strings.Join(res.Quarantined, ",") != rshEvents || strings.Join(res.Improvements, ",") != rshEvents {
		t.Errorf("quarantined %q improvements %q", res.Quarantined, res.Improvements)
	}
	if got := h.Tests[rshEvents]; len(got) != 4 {
		t.Errorf("history not updated: %v", got)
	}
	// Without history the same PR is +1.
	res, _ = measure(t, repo, settle.Options{})
	if res.Delta != 1 {
		t.Errorf("delta without history = %d", res.Delta)
	}
}

func TestResultJSON(t *testing.T) {
	res, _ := measure(t, jobsRepo(), settle.Options{})
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"outcome":"measured"`, `"delta":1`, `"source":"job-check-runs"`, `"improvements":["test"]`, `"before":{"sha":"` + b1} {
		if !bytes.Contains(data, []byte(key)) {
			t.Errorf("JSON lacks %s: %s", key, data)
		}
	}
}

func TestEnricoMiDegrades(t *testing.T) {
	t.Run("unreadable digest falls back to jobs", func(t *testing.T) {
		commits, pr := graph("merge")
		bad := enricoFixed(t, head)
		bad.Summary = settle.DigestPrefix + "%%%not-base64\n"
		res, _ := measure(t, ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
			job(b1, "test", "failure"), enricoBroken(t, b1), job(head, "test", "success"), bad,
		}}, settle.Options{})
		if res.Outcome != settle.Measured || res.Source != settle.SourceJobs {
			t.Fatalf("outcome %s source %s: %s", res.Outcome, res.Source, res.Reason)
		}
		if !strings.Contains(strings.Join(res.Notes, "\n"), "unreadable digest") {
			t.Errorf("notes %q", res.Notes)
		}
	})
	t.Run("no test lists: pass counts over the same suite", func(t *testing.T) {
		commits, pr := graph("merge")
		before, after := enricoBroken(t, b1), enricoFixed(t, head)
		before.Annotations, after.Annotations = nil, nil
		res, _ := measure(t, ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{before, after}}, settle.Options{})
		if res.Outcome != settle.Measured || res.Source != settle.SourceEnricoMi || res.Mode != settle.PassCounts || res.Delta != 1 {
			t.Fatalf("outcome %s source %s mode %s delta %d: %s", res.Outcome, res.Source, res.Mode, res.Delta, res.Reason)
		}
	})
}

func TestAbstainLeavesHistoryAlone(t *testing.T) {
	allSkipped := []byte(`<testsuite><testcase classname="c" name="a"><skipped/></testcase></testsuite>`)
	repo := artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), allSkipped)
	h := settle.LoadFlakyHistory([]byte(`{"tests": {"x": [true]}}`))
	res, _ := measure(t, repo, settle.Options{History: h})
	if res.Outcome != settle.Abstained {
		t.Fatalf("outcome %s", res.Outcome)
	}
	if len(h.Tests) != 1 || len(h.Tests["x"]) != 1 {
		t.Errorf("history changed on abstention: %v", h.Tests)
	}
}

// A pull request found through GET /pulls?state=closed is a pull-request-simple item: it has
// merged_at but no merged and no commits. Measure must take it as merged and learn the commit
// count (for a rebase merge) from GET /pulls/{n}. Before the fix it abstained with "not merged".
func TestMeasureListItem(t *testing.T) {
	for _, kind := range []string{"merge", "squash", "rebase"} {
		t.Run(kind, func(t *testing.T) {
			commits, pr := graph(kind)
			srv := ghfake.New(t, ghfake.Repo{
				Branches: map[string]string{"main": merge},
				Commits:  commits, Pulls: []ghfake.PullRequest{pr},
				CheckRuns: []ghfake.CheckRun{job(b0, "test", "failure"), job(b1, "test", "failure"), job(head, "test", "success")},
			})
			client, _ := srv.NewClient(fastPolicy)
			list, _, err := client.PullRequests.List(testCtx, "o", "r", &github.PullRequestListOptions{State: "closed"})
			if err != nil || len(list) != 1 {
				t.Fatalf("List: %d items, %v", len(list), err)
			}
			if list[0].Merged != nil || list[0].Commits != nil || list[0].MergedAt == nil {
				t.Fatalf("the fake's list item is not pull-request-simple: merged %v commits %v merged_at %v", list[0].Merged, list[0].Commits, list[0].MergedAt)
			}
			res, err := settle.Measure(testCtx, client, settle.Request{Owner: "o", Repo: "r", PR: list[0]})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != settle.Measured || res.Before.SHA != b1 || res.After.SHA != head || res.Delta != 1 {
				t.Fatalf("%s (%s): before %.7s after %.7s delta %d", res.Outcome, res.Reason, res.Before.SHA, res.After.SHA, res.Delta)
			}
			wantGets := 0
			if kind != "merge" {
				wantGets = 1 // one parent: squash or rebase, told apart by the commit count only GET /pulls/{n} has
			}
			if got := srv.Count(ghfake.RoutePull); got != wantGets {
				t.Errorf("GET /pulls/{n} %d times, want %d", got, wantGets)
			}
		})
	}
}

// Check runs are paged to the end, within MaxCheckRunPages: more pages than that abstain
// (GitHub lists check runs of at most 1,000 check suites per commit, so the list may be cut).
func TestCheckRunPagesBounded(t *testing.T) {
	for _, tt := range []struct {
		name    string
		runs    int
		outcome settle.Outcome
	}{
		{"every page read", settle.MaxCheckRunPages, settle.Measured},
		{"over the bound: abstain", settle.MaxCheckRunPages + 1, settle.Abstained},
	} {
		t.Run(tt.name, func(t *testing.T) {
			commits, pr := graph("merge")
			repo := ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, PageSize: 1,
				CheckRuns: []ghfake.CheckRun{job(b1, "test", "failure"), job(head, "test", "success")}}
			for i := 1; i < tt.runs; i++ {
				repo.CheckRuns = append(repo.CheckRuns, job(head, fmt.Sprintf("lint-%02d", i), "success"), job(b1, fmt.Sprintf("lint-%02d", i), "success"))
			}
			res, srv := measure(t, repo, settle.Options{})
			if res.Outcome != tt.outcome {
				t.Fatalf("%s (%s), want %s", res.Outcome, res.Reason, tt.outcome)
			}
			if got := srv.Count(ghfake.RouteCheckRuns); got > 2*settle.MaxCheckRunPages+1 {
				t.Errorf("%d check-run pages read", got)
			}
		})
	}
}

// MergedOnto finds the commit below the merge for every merge method, from a list item too.
func TestMergedOnto(t *testing.T) {
	for _, tt := range []struct{ kind, want, why string }{
		{"merge", b1, ""},
		{"squash", b1, ""},
		{"rebase", b1, ""}, // not r1, which already holds the pull request's first commit
		{"rebase-diverged", "", "cannot tell a squash from a rebase"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			commits, pr := graph(tt.kind)
			srv := ghfake.New(t, ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}})
			client, _ := srv.NewClient(fastPolicy)
			list, _, err := client.PullRequests.List(testCtx, "o", "r", &github.PullRequestListOptions{State: "closed"})
			if err != nil || len(list) != 1 {
				t.Fatalf("List: %v", err)
			}
			sha, err := settle.MergedOnto(testCtx, client, "o", "r", list[0])
			var be *settle.OutcomeError
			if tt.want == "" && errors.As(err, &be) && be.Outcome == settle.Abstained && strings.Contains(be.Reason, tt.why) {
				return // in doubt: no base
			}
			if err != nil || sha != tt.want {
				t.Fatalf("MergedOnto = %.7s %v, want %.7s", sha, err, tt.want)
			}
		})
	}
}
