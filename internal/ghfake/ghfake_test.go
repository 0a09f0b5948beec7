package ghfake_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/google/go-github/v62/github"
)

func TestCheckRunsPagingAndLatest(t *testing.T) {
	sha := ghfake.SHA("head")
	repo := ghfake.Repo{PageSize: 2}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		repo.CheckRuns = append(repo.CheckRuns, ghfake.CheckRun{Name: n, HeadSHA: sha, Conclusion: "success"})
	}
	// A rerun of "a": only the newest is listed by default.
	repo.CheckRuns = append(repo.CheckRuns, ghfake.CheckRun{Name: "a", HeadSHA: sha, Conclusion: "failure"})
	srv := ghfake.New(t, repo)
	c, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	ctx := context.Background()
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var all []*github.CheckRun
	pages := 0
	for {
		res, resp, err := c.Checks.ListCheckRunsForRef(ctx, "o", "r", sha, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if res.GetTotal() != 5 {
			t.Errorf("total = %d, want 5", res.GetTotal())
		}
		if resp.Rate.Limit != 5000 {
			t.Errorf("rate limit header = %d", resp.Rate.Limit)
		}
		all = append(all, res.CheckRuns...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if pages != 3 || len(all) != 5 {
		t.Fatalf("pages=%d runs=%d, want 3 and 5", pages, len(all))
	}
	for _, cr := range all {
		if cr.GetName() == "a" && cr.GetConclusion() != "failure" {
			t.Errorf("latest filter kept the older run of a")
		}
		if cr.GetApp().GetSlug() != "github-actions" || cr.GetOutput() == nil {
			t.Errorf("check run lacks real payload fields: %+v", cr)
		}
	}
	if got := srv.Count(ghfake.RouteCheckRuns); got != 3 {
		t.Errorf("Count = %d, want 3", got)
	}
	res, _, err := c.Checks.ListCheckRunsForRef(ctx, "o", "r", sha, &github.ListCheckRunsOptions{Filter: github.String("all")})
	if err != nil || res.GetTotal() != 6 {
		t.Errorf("filter=all total = %d, %v", res.GetTotal(), err)
	}
}

func TestArtifactRedirectAndFaults(t *testing.T) {
	zipBytes := ghfake.Zip(map[string][]byte{"report.xml": []byte("<testsuite/>")})
	repo := ghfake.Repo{
		WorkflowRuns: []ghfake.WorkflowRun{{ID: 10, HeadSHA: ghfake.SHA("h"), Conclusion: "success"}},
		Artifacts: []ghfake.Artifact{
			{ID: 1, RunID: 10, Name: "junit", Zip: zipBytes},
			{ID: 2, RunID: 10, Name: "old", Zip: zipBytes, Expired: true},
		},
		Faults: []ghfake.Fault{{Route: ghfake.RouteBlob, Kind: ghfake.TruncatedZip, Skip: 1}},
	}
	srv := ghfake.New(t, repo)
	c, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	dl := ghapi.NewDownloadClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	ctx := context.Background()
	list, _, err := c.Actions.ListWorkflowRunArtifacts(ctx, "o", "r", 10, nil)
	if err != nil || len(list.Artifacts) != 2 || !list.Artifacts[1].GetExpired() {
		t.Fatalf("artifacts = %+v, %v", list, err)
	}
	if list.Artifacts[0].GetWorkflowRun().GetHeadSHA() != ghfake.SHA("h") {
		t.Error("artifact workflow_run.head_sha not set")
	}
	u, resp, err := c.Actions.DownloadArtifact(ctx, "o", "r", 1, 0)
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("DownloadArtifact: %v %v", resp, err)
	}
	if !strings.HasPrefix(u.String(), srv.BlobURL) {
		t.Errorf("redirect %s not to blob server", u)
	}
	fetch := func() []byte {
		r, err := dl.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return b
	}
	if _, err := zip.NewReader(bytes.NewReader(fetch()), int64(len(zipBytes))); err != nil {
		t.Errorf("first download is not a zip: %v", err)
	}
	trunc := fetch()
	if len(trunc) != len(zipBytes)/2 {
		t.Errorf("truncated download = %d bytes, want %d", len(trunc), len(zipBytes)/2)
	}
	_, resp, err = c.Actions.DownloadArtifact(ctx, "o", "r", 2, 0)
	if err == nil || resp == nil || resp.StatusCode != http.StatusGone {
		t.Errorf("expired artifact: resp=%v err=%v, want 410", resp, err)
	}
}

func TestBlobRejectsAuthorization(t *testing.T) {
	srv := ghfake.NewServer(ghfake.Repo{Artifacts: []ghfake.Artifact{{ID: 1, Zip: []byte("x")}}})
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.BlobURL+"/blob/1?sig=abc", nil)
	req.Header.Set("Authorization", "Bearer "+ghfake.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status = %d", resp.StatusCode)
	}
	errs := srv.Errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "Authorization") || strings.Contains(errs[0], ghfake.Token) {
		t.Errorf("errors = %q", errs)
	}
}

func TestUnknownRouteReported(t *testing.T) {
	srv := ghfake.NewServer(ghfake.Repo{})
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/v3/repos/o/r/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || len(srv.Errors()) != 1 || !strings.Contains(srv.Errors()[0], "HandleFunc") {
		t.Errorf("status %d errors %q", resp.StatusCode, srv.Errors())
	}
	resp, _ = http.Get(srv.URL + "/repos/o/r/pulls/1")
	resp.Body.Close()
	if len(srv.Errors()) != 2 || !strings.Contains(srv.Errors()[1], "absolute endpoint") {
		t.Errorf("errors %q", srv.Errors())
	}
}

func TestCompareCommitStatusAndWrongRepo(t *testing.T) {
	a, b, c, d := ghfake.SHA("a"), ghfake.SHA("b"), ghfake.SHA("c"), ghfake.SHA("d")
	srv := ghfake.New(t, ghfake.Repo{
		Branches: map[string]string{"main": c},
		Commits: []ghfake.Commit{
			{SHA: a}, {SHA: b, Parents: []string{a}}, {SHA: c, Parents: []string{b}}, {SHA: d, Parents: []string{a}},
		},
		Statuses: []ghfake.Status{
			{SHA: c, Context: "ci/jenkins", State: "pending"},
			{SHA: c, Context: "ci/jenkins", State: "success", Description: "12 tests passed"},
			{SHA: c, Context: "ci/lint", State: "failure"},
		},
	})
	cl, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	ctx := context.Background()
	cmp, _, err := cl.Repositories.CompareCommits(ctx, "o", "r", "main", d, nil)
	if err != nil || cmp.GetMergeBaseCommit().GetSHA() != a {
		t.Fatalf("merge base = %q, %v; want %q", cmp.GetMergeBaseCommit().GetSHA(), err, a)
	}
	gc, _, err := cl.Git.GetCommit(ctx, "o", "r", c)
	if err != nil || len(gc.Parents) != 1 || gc.Parents[0].GetSHA() != b {
		t.Fatalf("GetCommit = %+v, %v", gc, err)
	}
	st, _, err := cl.Repositories.GetCombinedStatus(ctx, "o", "r", c, nil)
	if err != nil || st.GetState() != "failure" || st.GetTotalCount() != 2 || st.Statuses[0].GetState() != "success" {
		t.Fatalf("combined = %+v, %v", st, err)
	}
	if _, _, err := cl.Git.GetCommit(ctx, "other", "r", c); ghapi.StatusCode(err) != 404 {
		t.Errorf("wrong repo: %v", err)
	}
}

func TestEnricoMiFixture(t *testing.T) {
	cr, err := ghfake.EnricoMiCheckRun("pytest-junit.fail.checkrun.json", ghfake.SHA("x"))
	if err != nil {
		t.Fatal(err)
	}
	if cr.Name != "Test Results" || len(cr.Annotations) != 3 || !strings.Contains(cr.Summary, "[test-results]:data:application/gzip;base64,") {
		t.Errorf("check run = %+v", cr)
	}
	if _, err := ghfake.EnricoMiCheckRun("missing.json", ""); err == nil {
		t.Error("missing fixture loaded")
	}
}
