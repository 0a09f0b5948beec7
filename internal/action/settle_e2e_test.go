package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

// These tests use the production measurer (settle.Measure) against CI results held by the CI
// fake behind the World: JUnit XML in workflow-run artifacts plus a job check run per commit.

func junit(results map[string]bool) []byte {
	var b strings.Builder
	b.WriteString(`<testsuites><testsuite name="app">`)
	for _, id := range []string{"app::TestA", "app::TestB", "app::TestC"} {
		class, name, _ := strings.Cut(id, "::")
		if results[id] {
			fmt.Fprintf(&b, `<testcase classname="%s" name="%s"/>`, class, name)
		} else {
			fmt.Fprintf(&b, `<testcase classname="%s" name="%s"><failure message="boom"/></testcase>`, class, name)
		}
	}
	b.WriteString(`</testsuite></testsuites>`)
	return []byte(b.String())
}

// runIDs numbers fake workflow runs across parallel tests.
var runIDs atomic.Int64

func addCI(w *ghfake.World, sha, status string, results map[string]bool) {
	id := 100 + runIDs.Add(1)
	w.CI.Do(func(r *ghfake.Repo) {
		concl := ""
		if status == "completed" {
			concl = "success"
		}
		r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{ID: id, Name: "test", HeadSHA: sha, Status: status, Conclusion: concl,
			AppSlug: "github-actions", StartedAt: time.Date(2026, 1, 1, 0, 0, int(id), 0, time.UTC)})
		r.WorkflowRuns = append(r.WorkflowRuns, ghfake.WorkflowRun{ID: id, Name: "CI", HeadSHA: sha, HeadBranch: "main", Event: "push",
			Status: status, Conclusion: concl, RunAttempt: 1})
		if status == "completed" {
			r.Artifacts = append(r.Artifacts, ghfake.Artifact{ID: 7000 + id, RunID: id, Name: "junit-results", Zip: ghfake.Zip(map[string][]byte{"junit.xml": junit(results)})})
		}
	})
}

// runReal runs the action with the production measurer.
func (h *harness) runReal(event, payload string) runResult {
	h.t.Helper()
	dir := h.t.TempDir()
	evPath := filepath.Join(dir, "event.json")
	os.WriteFile(evPath, []byte(payload), 0o644)
	env := map[string]string{
		"INPUT_GITHUB-TOKEN": ghfake.Token, "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": evPath,
		"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": h.world.URL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	var out bytes.Buffer
	code := Main(context.Background(), Options{Getenv: func(k string) string { return env[k] }, Stdout: &out, Now: fixedNow,
		Policy: ghapi.Policy{Sleep: ghfake.NoSleep}, Sleep: ghfake.NoSleep})
	res := runResult{code: code, stdout: out.String(), outputs: parseOutputs(h.t, env["GITHUB_OUTPUT"])}
	if b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(b)
	}
	return res
}

func TestE2ERealSettlePendingThenMeasured(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	before := map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	after := map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
	addCI(h.world, h.git.Ref("main"), "completed", before)
	pr := h.merge("Fix B and C", h.ticketFor("how do I run the integration tests"), nil)
	addCI(h.world, pr.HeadSHA, "in_progress", nil)
	res := h.runReal("pull_request_target", mergedEvent(pr.Number))
	mustCode(t, res, 0)
	if res.outputs["result"] != "pending" || len(h.record(DefaultBranch).Held[itoa(pr.Number)]) != 1 {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	// CI finishes; the next run (a push of an unrelated commit, mapped to no PR) settles it.
	addCI(h.world, pr.HeadSHA, "completed", after)
	sha := h.git.CommitFiles("main", "octocat", "docs", map[string][]byte{"README.md": []byte("more\n")})
	res = h.runReal("push", fmt.Sprintf(`{"ref":"refs/heads/main","after":"%s","repository":{"default_branch":"main"}}`, sha))
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "2" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Energy <= 1.4 {
		t.Fatalf("delta 2 at the default scale 1.5 should credit 0.6*tanh(2/1.5) ≈ 0.522: %+v", e)
	}
	rec := h.record(DefaultBranch)
	if len(rec.Processed) == 0 || rec.Processed[len(rec.Processed)-1].Source != "junit-artifacts" {
		t.Fatalf("record %+v", rec)
	}
}

func TestE2EPushEventMapsCommitToPR(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res := h.run("push", fmt.Sprintf(`{"ref":"refs/heads/main","after":"%s","repository":{"default_branch":"main"}}`, pr.MergeCommitSHA),
		map[string]string{"lookback": "1"})
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
}

func TestE2EBotPRClosedByPersonIsRebuilt(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	first := h.openBotPRs()[0]
	h.git.ClosePull(first.Number)
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "created" || res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	// Settled once on the new branch, from main's store: the same energy as the first time.
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("%+v", e)
	}
}

// What the measurer skipped on the way reaches the step log, escaped: here an artifact entry
// with an unsafe path, named to look like a workflow command.
func TestE2EMeasureNotesReachTheLog(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	before := map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	after := map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
	addCI(h.world, h.git.Ref("main"), "completed", before)
	pr := h.merge("Fix B and C", h.ticketFor("how do I run the integration tests"), nil)
	addCI(h.world, pr.HeadSHA, "completed", after)
	h.world.CI.Do(func(r *ghfake.Repo) {
		last := &r.Artifacts[len(r.Artifacts)-1]
		last.Zip = ghfake.Zip(map[string][]byte{"junit.xml": junit(after), "\n::error::owned.xml": []byte("<testsuite/>"), "../##[error]owned.xml": []byte("<testsuite/>")})
	})
	res := h.runReal("pull_request_target", mergedEvent(pr.Number))
	mustCode(t, res, 0)
	if !strings.Contains(res.stdout, `skipped unsafe path`) || !strings.Contains(res.stdout, "owned.xml") {
		t.Fatalf("the measurer's note is not in the log:\n%s", res.stdout)
	}
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::error::") || strings.Contains(line, "##[") {
			t.Fatalf("a note carries a workflow command into the log: %q", line)
		}
	}
}
