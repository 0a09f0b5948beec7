package action

// Attacks through what merged pull requests leave on the base branch or name like the bot's:
// a fork branch with the bot branch's name, numbers and held readings in the record, a sidecar
// planted by an earlier pull request. docs/tickets.md, "What a PR author cannot do", lists them.

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// A fork contributor names its branch like the bot's (darwin-memo/lessons). The run skipped
// every merged pull request whose head branch had the bot branch's name as the bot's own, so
// the fork's pull request was never processed: its tickets never settled (a delta that would
// drain the lessons it used was never applied) and its edits to the store were never named in
// the bot pull request. The bot's own pull requests are those from the repository's own branch.
func TestE2ESteerForkBranchNamedLikeTheBotIsProcessed(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix itest", Body: h.ticketFor("how do I run the integration tests"),
		Branch: DefaultBranch, Fork: "mallory", User: "mallory", AuthorAssociation: "CONTRIBUTOR",
		Files: map[string][]byte{storePath: append(append([]byte{}, store...), '\n'), "src/itest.go": []byte("package app\n")}})
	h.setMeasurement(pr.Number, *measured(-1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" || res.outputs["delta"] != "-1" {
		t.Fatalf("the fork's pull request was taken for the bot's and skipped: outputs %v\n%s", res.outputs, res.stdout)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Energy >= 1 {
		t.Fatalf("the negative delta did not reach the lesson: %+v", e)
	}
	if body := h.openBotPRs()[0].Body; !strings.Contains(body, "changes "+storePath) {
		t.Fatalf("the bot pull request does not name the fork's edit of the store:\n%s", body)
	}
}

// A pull request edits the record in lessons.json to queue a pull request number that does not
// exist (or an issue's number). Every later run failed reading it ("reading pull request
// #9999: 404"), so nothing settled until someone repaired the record by hand. A queued number
// GitHub has no pull request for is dropped from the queue with a warning.
func TestE2ESteerQueuedNumberWithoutPullRequestFailsNoRun(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	s, err := lessons.Parse(storePath, store)
	if err != nil {
		t.Fatal(err)
	}
	if err := putRecord(s, Record{Version: 1, Queued: []int{9999}}); err != nil {
		t.Fatal(err)
	}
	forged, _ := s.Marshal()
	bad := h.git.MergePull(ghfake.MergeSpec{Title: "Tidy the store", Files: map[string][]byte{storePath: forged}})
	res := h.run("pull_request_target", mergedEvent(bad.Number), nil)
	mustCode(t, res, 0)
	if !strings.Contains(h.openBotPRs()[0].Body, "9999 is not a pull request") {
		t.Fatalf("the bot pull request does not say the queued number was dropped:\n%s", h.openBotPRs()[0].Body)
	}
	if q := h.record(DefaultBranch).Queued; len(q) != 0 {
		t.Fatalf("still queued: %v", q)
	}
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res = h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Energy <= 1 {
		t.Fatalf("%+v", e)
	}
}

// A pull request waits for CI, queued with its held reading, and the bot pull request holding
// that reading is merged. Another pull request then edits the record in lessons.json: the held
// reading of the queued pull request now names a lesson it likes. The run read held readings
// from the base branch's record, so the queued pull request's measured delta credited the
// forged ticket's lesson instead of its own. A held reading is honoured only as the bot wrote
// it (the head of the bot pull request merged last).
func TestE2ESteerForgedHeldReadingSettlesNothing(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	victim := queueBehindCI(t, h, "Fixes the itest.\n\n"+h.ticketFor("how do I run the integration tests"))
	bot := h.openBotPRs()
	if len(bot) != 1 {
		t.Fatalf("bot pull requests %+v", bot)
	}
	if _, err := h.git.MergeOpenPull(bot[0].Number); err != nil {
		t.Fatal(err)
	}
	onMain, _ := h.git.File("main", storePath)
	s, err := lessons.Parse(storePath, onMain)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := RecordOf(s)
	if err != nil || len(rec.Held[itoa(victim.Number)]) != 1 {
		t.Fatalf("no held reading on main: %+v %v", rec, err)
	}
	rec.Held[itoa(victim.Number)] = []string{h.ticketFor("which logger does the payments service use")}
	if err := putRecord(s, rec); err != nil {
		t.Fatal(err)
	}
	forged, _ := s.Marshal()
	h.git.MergePull(ghfake.MergeSpec{Title: "Tidy the store", User: "mallory", AuthorAssociation: "CONTRIBUTOR",
		Files: map[string][]byte{storePath: forged}})
	h.setMeasurement(victim.Number, *measured(2))
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	got := h.botStore(DefaultBranch)
	if e, _ := got.Entry(es[1].ID); e == nil || e.Uses != 0 || e.Energy > 1 {
		t.Fatalf("the forged held reading credited its lesson with #%d's delta: %+v\n%s", victim.Number, e, res.stdout)
	}
	if e, _ := got.Entry(es[0].ID); e == nil || e.Uses != 1 || e.Energy <= 1 {
		t.Fatalf("the queued pull request's own ticket did not settle: %+v\n%s", e, res.stdout)
	}
	if !strings.Contains(h.openBotPRs()[0].Body, "held reading") {
		t.Fatalf("the bot pull request does not say the record was edited:\n%s", h.openBotPRs()[0].Body)
	}
}

// The self-quarantine attack in two pull requests: the first only adds .darwin-memo/flaky.json
// marking TestA and TestB as flipping; the second breaks them, fixes TestC and carries a ticket.
// The first changed no lesson, so no bot pull request was written: the warning naming its edit
// reached only the step summary, though the docs promise the bot pull request names it. A pull
// request that edits what steers settlement is recorded in the bot pull request, whose branch
// carries the bot's own sidecar over the edited one; the second is measured with the bot's
// (delta -1, nothing quarantined).
func TestE2ESteerSidecarPlantedByAnEarlierPullRequest(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	addCI(h.world, h.git.Ref("main"), "completed", selfQuarantineBefore)
	plant := h.git.MergePull(ghfake.MergeSpec{Title: "Track flaky tests", Files: map[string][]byte{defaultFlakyPath: forgedFlaky}})
	addCI(h.world, plant.MergeCommitSHA, "completed", selfQuarantineBefore)
	res := h.runReal("pull_request_target", mergedEvent(plant.Number))
	mustCode(t, res, 0)
	bot := h.openBotPRs()
	if len(bot) != 1 || !strings.Contains(bot[0].Body, "changes "+defaultFlakyPath) {
		t.Fatalf("no bot pull request names #%d's edit of the sidecar: %v\n%s", plant.Number, res.outputs, res.stdout)
	}
	if b, _ := h.git.File(DefaultBranch, defaultFlakyPath); len(settle.LoadFlakyHistory(b).Quarantined()) != 0 {
		t.Fatalf("the bot branch carries the planted sidecar:\n%s", b)
	}
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix C", Body: h.ticketFor("how do I run the integration tests"),
		Files: map[string][]byte{"src/c.go": []byte("package app\n")}})
	addCI(h.world, pr.HeadSHA, "completed", selfQuarantineAfter)
	res = h.runReal("pull_request_target", mergedEvent(pr.Number))
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "-1" {
		t.Fatalf("the planted sidecar quarantined #%d's regressions: outputs %v\n%s", pr.Number, res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Energy >= 1 {
		t.Fatalf("energy %+v", e)
	}
}

// queueBehindCI merges a pull request with body whose CI is still running and runs the action
// on its merge event, which queues it holding the body's tickets.
func queueBehindCI(t *testing.T, h *harness, body string) *ghfake.GitPull {
	t.Helper()
	pr := h.merge("Fix itest", body, &settle.Result{Outcome: settle.Pending, Reason: "CI running"})
	res := h.run("pull_request_target", mergedEventWithBody(t, pr.Number, body), nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "pending" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	return pr
}
