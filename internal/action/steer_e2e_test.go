package action

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Regression tests of issue 22 (a pull request author cannot steer settlement through files,
// commit shapes or CI gaps) through the fake GitHub and the real action.Run. docs/tickets.md,
// "What a PR author cannot do", lists each attack with the test that holds it.

// forgedFlaky marks app::TestA and app::TestB as flipping (three flips each).
var forgedFlaky = []byte(`{"tests": {"app::TestA": [true, false, true, false], "app::TestB": [true, false, true, false]}}` + "\n")

// selfQuarantineCI fixes TestC and breaks TestA and TestB: delta -1, or +1 with A and B
// quarantined.
var (
	selfQuarantineBefore = map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": false}
	selfQuarantineAfter  = map[string]bool{"app::TestA": false, "app::TestB": false, "app::TestC": true}
)

// mergeSelfQuarantine merges a pull request with a ticket that adds forgedFlaky, onto a base
// whose CI ran selfQuarantineBefore.
// defaultFlakyPath is the flaky sidecar next to the default store.
var defaultFlakyPath = flakyPathOf(Config{StorePath: DefaultStore})

func mergeSelfQuarantine(t *testing.T) (*harness, []*lessons.Entry, *ghfake.GitPull) {
	store, es := seedStore(t)
	h := newHarness(t, store)
	addCI(h.world, h.git.Ref("main"), "completed", selfQuarantineBefore)
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix C", Body: h.ticketFor("how do I run the integration tests"),
		Files: map[string][]byte{defaultFlakyPath: forgedFlaky, "src/c.go": []byte("package app\n")}})
	return h, es, pr
}

// wantEnergy is a lesson at energy 1.0 after one settlement of delta at the default scale 1.5
// and one tick's upkeep.
func wantEnergy(s *lessons.Store, delta float64) float64 {
	return 1.0 + 0.6*math.Tanh(delta/1.5) - s.Upkeep
}

// A pull request fixes one test, breaks two, and adds .darwin-memo/flaky.json marking the two as
// flipping. With no bot pull request open the sidecar was read from the base branch's tip, which
// already holds the pull request: delta +1 (1.0 -> 1.30) instead of -1 (-> 0.60). The sidecar
// is read at the base of the run's oldest pull request, and the bot pull request names the
// pull request that edited it.
func TestE2ESteerOwnFlakySidecarQuarantinesNothing(t *testing.T) {
	t.Parallel()
	h, es, pr := mergeSelfQuarantine(t)
	addCI(h.world, pr.HeadSHA, "completed", selfQuarantineAfter)
	res := h.runReal("pull_request_target", mergedEvent(pr.Number))
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "-1" {
		t.Fatalf("the pull request quarantined its own regressions: outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || math.Abs(e.Energy-wantEnergy(s, -1)) > 1e-9 {
		t.Fatalf("energy %+v, want %v", e, wantEnergy(s, -1))
	}
	if q := h.record(DefaultBranch).Processed[0].Quarantined; len(q) != 0 {
		t.Fatalf("quarantined %v", q)
	}
	if b, _ := h.git.File(DefaultBranch, defaultFlakyPath); bytes.Equal(b, forgedFlaky) || len(settle.LoadFlakyHistory(b).Quarantined()) != 0 {
		t.Fatalf("the bot branch carries the pull request's sidecar:\n%s", b)
	}
	if body := h.openBotPRs()[0].Body; !strings.Contains(body, "#1 changes "+defaultFlakyPath) {
		t.Fatalf("the bot pull request does not name the pull request that edited the sidecar:\n%s", body)
	}
}

// The same attack through the bot branch: the pull request waits for CI while another merge
// makes the bot commit. The commit is built on the base branch's tip, which holds the forged
// sidecar; the bot did not write its own copy when its history had not changed, so the next run
// read the forged copy back from the bot branch as the bot's. The bot writes its own.
func TestE2ESteerFlakySidecarDoesNotRideTheBotBranch(t *testing.T) {
	t.Parallel()
	h, es, pr := mergeSelfQuarantine(t)
	addCI(h.world, pr.HeadSHA, "in_progress", nil)
	other := h.merge("Docs", "Lesson: Run make itest twice when the docker daemon restarts.", nil)
	res := h.runReal("pull_request_target", mergedEvent(other.Number))
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "created" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	if b, _ := h.git.File(DefaultBranch, defaultFlakyPath); len(settle.LoadFlakyHistory(b).Quarantined()) != 0 {
		t.Fatalf("the bot branch carries the pull request's sidecar:\n%s", b)
	}
	addCI(h.world, pr.HeadSHA, "completed", selfQuarantineAfter)
	res = h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "-1" {
		t.Fatalf("the pull request quarantined its own regressions: outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Energy >= 1 {
		t.Fatalf("energy %+v", e)
	}
}

// CI is still running at the merge, so the pull request is queued; then someone comments on it
// (a bot, an outsider, or its author after seeing CI go red), which moves updated_at. The queued
// run never wrote the tickets it read (the record alone opened no bot pull request), so the
// next run read the body from the API, saw updated_at after merged_at and refused the tickets
// for good. The first reading is written when the pull request is queued, and it settles.
func TestE2ESteerCommentAfterMergeDoesNotVoidQueuedTickets(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	body := "Fixes the itest.\n\n" + h.ticketFor("how do I run the integration tests")
	pr := queueBehindCI(t, h, body)
	rec := h.record(DefaultBranch)
	if len(rec.Held[itoa(pr.Number)]) != 1 || rec.HeldBody[itoa(pr.Number)] != bodyHash(body) {
		t.Fatalf("the first reading was not written: %+v", rec)
	}
	// A run while CI still runs keeps the bot pull request (and the reading) open: it holds a
	// reading the base branch lacks.
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "pending" || len(h.openBotPRs()) != 1 || len(h.record(DefaultBranch).Held[itoa(pr.Number)]) != 1 {
		t.Fatalf("the held reading was dropped while CI ran: outputs %v\n%s", res.outputs, res.stdout)
	}
	h.git.EditPullBody(pr.Number, body) // a comment: updated_at moves, the body stays
	h.setMeasurement(pr.Number, *measured(-1))
	res = h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("a comment after the merge voided the held tickets: outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Uses != 1 || math.Abs(e.Energy-wantEnergy(s, -1)) > 1e-9 {
		t.Fatalf("%+v", e)
	}
	if rec := h.record(DefaultBranch); rec.Held != nil || rec.HeldBody != nil || len(rec.Queued) != 0 {
		t.Fatalf("the record keeps the held tickets after settling them: %+v", rec)
	}
}

// The compat flow has the pull request commit lessons.json with its pending ticket. The ticket
// was checked only for not being pending at the base, and settled by the record the pull request
// wrote: changing its deciding_entry to an unrelated lesson drained that lesson (delta -5:
// 1.0 -> 0.352). The record is verified at the base like a store-free ticket.
func TestE2ESteerForgedCompatTicketDrainsNothing(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	s, _ := lessons.Parse(storePath, store)
	d, err := s.Decide("how do I run the integration tests", lessons.DecideOptions{Register: true})
	if err != nil || d.Ticket == nil || d.Decider != es[0].ID {
		t.Fatalf("decide: %v %+v", err, d)
	}
	honest, _ := s.Marshal()
	forged := bytes.Replace(honest, []byte(`"deciding_entry": "`+es[0].ID+`"`), []byte(`"deciding_entry": "`+es[1].ID+`"`), 1)
	if bytes.Equal(forged, honest) {
		t.Fatal("no deciding_entry to forge")
	}
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix itest", Body: "darwin-memo-ticket: " + d.Ticket.ID,
		Files: map[string][]byte{storePath: forged, "src/itest.go": []byte("package app\n")}})
	h.setMeasurement(pr.Number, *measured(-5))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "0" {
		t.Fatalf("a forged pending record settled: outputs %v\n%s", res.outputs, res.stdout)
	}
	// The bot pull request is written to name the edit of the store, with no lesson moved.
	if bot := h.openBotPRs(); len(bot) != 1 || !strings.Contains(bot[0].Body, "changes "+storePath) {
		t.Fatalf("no bot pull request names the pull request that edited the store:\n%s", res.stdout)
	}
	for _, e := range es[:2] {
		if got, _ := h.botStore(DefaultBranch).Entry(e.ID); got == nil || got.Energy != e.Energy || got.Uses != e.Uses {
			t.Fatalf("the refused ticket moved %s: %+v", e.ID, got)
		}
	}
	// The honest record (its query retrieves its decider at the base) settles.
	h2 := newHarness(t, store)
	ok := h2.git.MergePull(ghfake.MergeSpec{Title: "Fix itest", Body: "darwin-memo-ticket: " + d.Ticket.ID,
		Files: map[string][]byte{storePath: honest, "src/itest.go": []byte("package app\n")}})
	h2.setMeasurement(ok.Number, *measured(1))
	if res := h2.run("pull_request_target", mergedEvent(ok.Number), nil); res.outputs["settled-tickets"] != "1" {
		t.Fatalf("the honest compat ticket did not settle: outputs %v\n%s", res.outputs, res.stdout)
	}
}

// A stacked branch lists the commits of the branch it grew from; once that pull request was
// squash-merged they are not on the base by their sha, so the stacked pull request settled
// their trailer tickets a second time, with its own delta. A commit another pull request merged
// before is that pull request's: its trailers are skipped.
func TestE2ESteerStackedBranchDoesNotResettleParentTrailers(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	trailer := "Fix flaky itest\n\nDarwin-Memo: " + strings.TrimPrefix(h.ticketFor("how do I run the integration tests"), "darwin-memo: ") + "\n"
	parent := h.git.MergePull(ghfake.MergeSpec{Title: "Fix itest", Body: "No ticket in the body.", Message: trailer,
		Files: map[string][]byte{"src/itest.go": []byte("package app\n")}})
	h.setMeasurement(parent.Number, *measured(2))
	mustCode(t, h.run("pull_request_target", mergedEvent(parent.Number), nil), 0)
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("the parent's trailer did not settle: %+v", e)
	}
	child := h.git.MergePull(ghfake.MergeSpec{Title: "Build on it", Body: "No ticket.", StackedOn: parent.Number,
		Files: map[string][]byte{"src/more.go": []byte("package app\n")}})
	if len(child.CommitSHAs) != 2 || child.CommitSHAs[0] != parent.CommitSHAs[0] {
		t.Fatalf("fake stacked branch: %+v", child)
	}
	h.setMeasurement(child.Number, *measured(-3))
	res := h.run("pull_request_target", mergedEvent(child.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "0" {
		t.Fatalf("the stacked pull request settled its parent's trailer again: outputs %v\n%s", res.outputs, res.stdout)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("the parent's lesson moved twice: %+v", e)
	}
	if body := h.openBotPRs()[0].Body; !strings.Contains(body, "merged before it") {
		t.Fatalf("the bot pull request does not say why the trailer was skipped:\n%s", body)
	}
}

// A job re-run in a second attempt of its workflow run uploads its JUnit artifact under a name
// of its own (named per attempt); the run keeps attempt 1's, and the reports of both combined
// with failed beating passed, so the stale failure of attempt 1 won. The newest attempt of each
// job wins: here attempt 2 passes everything, so the delta is +1, not 0.
func TestE2ESteerRerunAttemptReplacesStaleReport(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	addCI(h.world, h.git.Ref("main"), "completed", map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": false})
	pr := h.merge("Fix C", h.ticketFor("how do I run the integration tests"), nil)
	id := 100 + runIDs.Add(1)
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	h.world.CI.Do(func(r *ghfake.Repo) {
		r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{ID: id, Name: "test", HeadSHA: pr.HeadSHA, Status: "completed", Conclusion: "success",
			AppSlug: "github-actions", StartedAt: t2})
		r.WorkflowRuns = append(r.WorkflowRuns, ghfake.WorkflowRun{ID: id, Name: "CI", HeadSHA: pr.HeadSHA, HeadBranch: "pr-1", Event: "pull_request",
			Status: "completed", Conclusion: "success", RunAttempt: 2, CreatedAt: t1, AttemptStarts: []time.Time{t1, t2}})
		r.Artifacts = append(r.Artifacts,
			ghfake.Artifact{ID: 7000 + id, RunID: id, Name: "junit-results-1", CreatedAt: t1.Add(5 * time.Minute),
				Zip: ghfake.Zip(map[string][]byte{"junit.xml": junit(map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": true})})},
			ghfake.Artifact{ID: 8000 + id, RunID: id, Name: "junit-results-2", CreatedAt: t2.Add(5 * time.Minute),
				Zip: ghfake.Zip(map[string][]byte{"junit.xml": junit(map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true})})})
	})
	res := h.runReal("pull_request_target", mergedEvent(pr.Number))
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "1" {
		t.Fatalf("the stale attempt's report won: outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || math.Abs(e.Energy-wantEnergy(s, 1)) > 1e-9 {
		t.Fatalf("energy %+v, want %v", e, wantEnergy(s, 1))
	}
}

// GitHub lists at most 250 commits of a pull request, so a longer rebased one was read as a
// squash: its base was the parent of its merge commit, its own second-to-last commit, whose
// store it wrote (here moving the tick forward so a ticket claiming that tick verifies). The
// merge method cannot be told past 250 commits, so the base is base.sha, never its own commit.
func TestE2ESteerLongRebaseVerifiesAtBaseSHA(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	forged := bytes.Replace(store, []byte(`"tick_count": 0`), []byte(`"tick_count": 60`), 1)
	if bytes.Equal(forged, store) {
		t.Fatal("no tick_count to forge")
	}
	ft := lessons.FreeTicket{Version: 2, Tick: 60, Decider: es[1].ID, Query: "which logger does the payments service use"}
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Long refactor", Body: ft.Line(), Commits: ghfake.MaxPullCommits + 1,
		RebaseCommits: []map[string][]byte{{storePath: forged}, {storePath: store}}})
	if len(pr.Replayed) != ghfake.MaxPullCommits+2 {
		t.Fatalf("fake rebase merge of %d commits", len(pr.Replayed))
	}
	h.setMeasurement(pr.Number, *measured(-2))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "0" {
		t.Fatalf("a ticket verified against the pull request's own commit settled: outputs %v\n%s", res.outputs, res.stdout)
	}
	if !strings.Contains(res.stdout, "all refused at base "+short(pr.BaseSHA)) {
		t.Fatalf("not verified at base.sha %s:\n%s", short(pr.BaseSHA), res.stdout)
	}
}

// The store's economics steer settlement as much as its lessons: a pull request that raises
// credit_gain in its own lessons.json settled by its edit (delta +1 moved 3·tanh(1/1.5) instead
// of 0.6·tanh(1/1.5)). Settlement applies the economics of the store at the pull request's base.
func TestE2ESteerOwnConfigDoesNotSettle(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	line := h.ticketFor("how do I run the integration tests")
	s, _ := lessons.Parse(storePath, store)
	c := s.Config()
	c.CreditGain = 3
	s.SetConfig(c)
	forged, _ := s.Marshal()
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix itest", Body: line,
		Files: map[string][]byte{storePath: forged, "src/itest.go": []byte("package app\n")}})
	h.setMeasurement(pr.Number, *measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	bot := h.botStore(DefaultBranch)
	if e, _ := bot.Entry(es[0].ID); e == nil || math.Abs(e.Energy-wantEnergy(bot, 1)) > 1e-9 {
		t.Fatalf("settled by the pull request's own credit_gain: %+v, want energy %v", e, wantEnergy(bot, 1))
	}
	if !strings.Contains(h.openBotPRs()[0].Body, "changes "+storePath) {
		t.Fatalf("the bot pull request does not name the pull request that edited the store:\n%s", h.openBotPRs()[0].Body)
	}
}

// The same hole through the rate limit: a run with too little budget left queues a merged pull
// request without reading it; someone comments on it before the next run, which then refused
// its tickets as possibly edited. The queuing run holds the body's tickets as it read them.
func TestE2ESteerCommentAfterBudgetQueueDoesNotVoidTickets(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	var mu sync.Mutex
	now := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	// Enough to start a run, not to process a merged pull request.
	h.world.SetRateLimit(RequestsPerRun+RequestsReserve+10, clock)
	body := "Fixes the itest.\n\n" + h.ticketFor("how do I run the integration tests")
	pr := h.merge("Fix itest", body, measured(-1))
	res := h.run("pull_request_target", mergedEventWithBody(t, pr.Number, body), nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "pending" || !strings.Contains(res.stdout, "GitHub API budget low") {
		t.Fatalf("the run did not queue for the budget: outputs %v\n%s", res.outputs, res.stdout)
	}
	if rec := h.record(DefaultBranch); len(rec.Held[itoa(pr.Number)]) != 1 {
		t.Fatalf("the reading of the queuing run was not written: %+v", rec)
	}
	h.git.EditPullBody(pr.Number, body) // a comment
	mu.Lock()
	now = now.Add(61 * time.Minute)
	mu.Unlock()
	h.world.SetRateLimit(1000, clock) // the limit resets
	res = h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("a comment after the merge voided the tickets: outputs %v\n%s\n%s", res.outputs, res.stdout, res.summary)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("%+v", e)
	}
}
