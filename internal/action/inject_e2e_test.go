package action

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// injection is what a pull request's author puts wherever text of theirs can reach the log:
// standalone workflow commands after a newline, in both syntaxes.
const injection = "x\n::warning::injected\n::set-output name=result::settled\n##[add-mask]y\n  ::error::z"

// rawZip builds an artifact zip whose single entry has the given name and compression
// method (99: one archive/zip cannot open, so the download counts as broken).
func rawZip(t *testing.T, name string, method uint16, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: method, CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// addArtifactCI records a completed workflow run with one artifact, and a check run, at sha.
func addArtifactCI(w *ghfake.World, sha, checkName string, zipData []byte) {
	id := 100 + runIDs.Add(1)
	w.CI.Do(func(r *ghfake.Repo) {
		r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{ID: id, Name: checkName, HeadSHA: sha, Status: "completed", Conclusion: "success",
			AppSlug: "github-actions", StartedAt: time.Date(2026, 1, 1, 0, 0, int(id), 0, time.UTC)})
		r.WorkflowRuns = append(r.WorkflowRuns, ghfake.WorkflowRun{ID: id, Name: checkName, HeadSHA: sha, HeadBranch: "main", Event: "push",
			Status: "completed", Conclusion: "success", RunAttempt: 1})
		r.Artifacts = append(r.Artifacts, ghfake.Artifact{ID: 7000 + id, RunID: id, Name: "junit-results", Zip: zipData})
	})
}

// assertNoInjectedCommand fails when stdout holds a workflow command the action did not
// issue itself: only ::add-mask:: (the token), ::error:: and the abstention's ::warning::
// are allowed, once each.
func assertNoInjectedCommand(t *testing.T, stdout string) {
	t.Helper()
	own := map[string]int{}
	for _, line := range strings.Split(stdout, "\n") {
		if !isCommand(line) {
			continue
		}
		switch {
		case strings.HasPrefix(line, "::add-mask::"+ghfake.Token), strings.HasPrefix(line, "::add-mask::ghs_secret_token_value"):
			own["add-mask"]++
		case strings.HasPrefix(line, "::error::") && !strings.Contains(line, "##["):
			own["error"]++
		case line == "::warning::abstained: nothing measurable; see the step summary":
			own["warning"]++
		default:
			t.Errorf("injected workflow command: %q", line)
		}
	}
	for k, n := range own {
		if n > 1 {
			t.Errorf("%d ::%s:: lines; the action issues one", n, k)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", stdout)
	}
}

// TestE2EUntrustedTextIssuesNoWorkflowCommand feeds a newline-and-:: payload through every
// path that reaches stdout: zip entry names in a broken artifact (the pending reason), in an
// unparsable report (the abstention reason in the dry-run report printed to the log), check
// run and workflow run names, pull request titles, bodies and branch names, the event
// payload, and an error message from GitHub.
func TestE2EUntrustedTextIssuesNoWorkflowCommand(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	addCI(h.world, h.git.Ref("main"), "completed", map[string]bool{"app::TestA": true})
	ticket := h.ticketFor("how do I run the integration tests")

	// A zip entry archive/zip cannot open: the download counts as broken, the run pending.
	broken := h.git.MergePull(ghfake.MergeSpec{Title: "broken " + injection, Body: ticket + "\n" + injection, Branch: "feat::warning::b",
		Files: map[string][]byte{"src/a.go": []byte("package app\n")}})
	addArtifactCI(h.world, broken.HeadSHA, "test "+injection, rawZip(t, injection+".xml", 99, []byte("<testsuite/>")))
	// A report that does not parse: the measurement abstains with the entry name in its reason.
	bad := h.git.MergePull(ghfake.MergeSpec{Title: "bad " + injection, Body: ticket + "\nLesson: " + injection,
		Files: map[string][]byte{"src/b.go": []byte("package app\n")}})
	addArtifactCI(h.world, bad.HeadSHA, "test", ghfake.Zip(map[string][]byte{injection + ".xml": []byte(`<testsuite name="` + injection + `"><testcase name="a">`)}))

	dir := t.TempDir()
	res := h.runRealWith("workflow_dispatch", `{"inputs":{}}`, map[string]string{"INPUT_DRY-RUN": "true", "GITHUB_STEP_SUMMARY": dir + "/summary"})
	mustCode(t, res, 0)
	if !strings.Contains(res.stdout, "set-output name=result") {
		t.Fatalf("the payload did not reach the log, so the test tests nothing:\n%s", res.stdout)
	}
	assertNoInjectedCommand(t, res.stdout)
	if testing.Verbose() {
		t.Log(res.stdout)
	}

	// The event payload: a push of a ref that is not a branch is named in the log.
	res = h.runRealWith("push", fmt.Sprintf(`{"ref":%q,"after":"%s","repository":{"default_branch":"main"}}`, "refs/tags/"+injection, h.git.Ref("main")), nil)
	mustCode(t, res, 0)
	if !strings.Contains(res.stdout, "set-output name=result") {
		t.Fatalf("the payload did not reach the log:\n%s", res.stdout)
	}
	assertNoInjectedCommand(t, res.stdout)

	// An error message GitHub echoes back ends the run: the annotation and the log lines.
	h.world.SetBefore(func(r *http.Request) (int, string) {
		if strings.Contains(r.URL.Path, "/pulls") {
			return http.StatusUnprocessableEntity, fmt.Sprintf(`{"message":%q}`, injection)
		}
		return 0, ""
	})
	res = h.runRealWith("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, ExitError)
	if !strings.Contains(res.stdout, "set-output name=result") {
		t.Fatalf("the payload did not reach the log:\n%s", res.stdout)
	}
	assertNoInjectedCommand(t, res.stdout)
}

// runRealWith is runReal with extra environment variables (inputs included).
func (h *harness) runRealWith(event, payload string, extra map[string]string) runResult {
	h.t.Helper()
	dir := h.t.TempDir()
	evPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(evPath, []byte(payload), 0o644); err != nil {
		h.t.Fatal(err)
	}
	env := map[string]string{
		"INPUT_GITHUB-TOKEN": ghfake.Token, "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": evPath,
		"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": h.world.URL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	for k, v := range extra {
		env[k] = v
	}
	var out bytes.Buffer
	code := Main(context.Background(), Options{Getenv: func(k string) string { return env[k] }, Stdout: &out, Now: fixedNow,
		Policy: ghapi.Policy{Sleep: ghfake.NoSleep, MaxRetries: 1}, Sleep: ghfake.NoSleep})
	return runResult{code: code, stdout: out.String(), outputs: parseOutputs(h.t, env["GITHUB_OUTPUT"])}
}

func TestSetOutputUsesRandomDelimiter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	for _, kv := range [][2]string{{"result", "settled"}, {"delta", "2"}} {
		if err := setOutput(path, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			if !strings.HasPrefix(delim, "ghadelimiter_") || len(delim) != len("ghadelimiter_")+32 || seen[delim] {
				t.Fatalf("output %s: delimiter %q is not fresh and random", name, delim)
			}
			seen[delim] = true
		}
	}
	if got := ghfake.ParseOutputs(b); got["result"] != "settled" || got["delta"] != "2" || len(seen) != 2 {
		t.Fatalf("outputs %v from\n%s", got, b)
	}
}

// TestE2EFinalAbstentionIsRecordedOnce: CI results past the per-commit caps abstain for good;
// the pull request is recorded (the record is written even though no lesson changed) and no
// later run measures it again.
func TestE2EFinalAbstentionIsRecordedOnce(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	huge := h.merge("Huge suite", h.ticketFor("how are database migrations applied"),
		&settle.Result{Outcome: settle.Abstained, Final: true, Reason: "the JUnit reports at abc1234 are over the limit (more than 200000 testcases at this commit)"})
	res := h.run("pull_request_target", mergedEvent(huge.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "abstained" || res.outputs["pull-request-operation"] != "created" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	rec := h.record(DefaultBranch)
	if len(rec.Processed) != 1 || rec.Processed[0].Outcome != OutcomeAbstained || !strings.Contains(rec.Processed[0].Reason, "200000 testcases") {
		t.Fatalf("record %+v", rec)
	}
	if body := h.openBotPRs()[0].Body; !strings.Contains(body, "abstained for good") {
		t.Fatalf("body does not say why:\n%s", body)
	}
	other := h.merge("Docs", "no tickets", nil)
	res = h.run("pull_request_target", mergedEvent(other.Number), nil)
	mustCode(t, res, 0)
	h.mu.Lock()
	n := h.measured[huge.Number]
	h.mu.Unlock()
	if n != 1 {
		t.Fatalf("the capped pull request was measured %d times, want once", n)
	}
}
