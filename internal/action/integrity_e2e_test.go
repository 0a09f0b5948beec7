package action

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Regression tests of issue 9 (integrity of settlements) through the fake GitHub.

// decideLine consults the store on main and returns the decider and the store-free ticket line.
func (h *harness) decideLine(query string) (string, string) {
	h.t.Helper()
	b, ok := h.git.File("main", storePath)
	if !ok {
		h.t.Fatal("no store on main")
	}
	s, err := lessons.Parse(storePath, b)
	if err != nil {
		h.t.Fatal(err)
	}
	d, err := s.Decide(query, lessons.DecideOptions{})
	if err != nil || d.Silent {
		h.t.Fatalf("decide %q: err=%v", query, err)
	}
	return d.Decider, d.StoreFreeLine()
}

// Finding 1: six reworded tickets for one lesson on one pull request with delta -1 used to kill
// a healthy lesson in one merge. One merged pull request moves each lesson at most once.
func TestE2EIntegrityRewordedTicketsMoveALessonOnce(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	var body strings.Builder
	body.WriteString("Refactors the test runner.\n\n")
	for _, q := range []string{"how do I run the integration tests", "run the integration tests", "integration tests how to run",
		"running the integration tests", "the integration tests", "integration tests run how"} {
		d, line := h.decideLine(q)
		if d != es[0].ID {
			t.Fatalf("query %q decides %s, want %s", q, d, es[0].ID)
		}
		body.WriteString("<!-- " + line + " -->\n")
	}
	pr := h.merge("Refactor runner", body.String(), measured(-1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	e, ok := s.Entry(es[0].ID)
	if !ok || !e.Alive() {
		t.Fatalf("a healthy lesson died from one merge: %+v", e)
	}
	want := 1.0 - 0.6*math.Tanh(1/1.5) - s.Upkeep
	if math.Abs(e.Energy-want) > 1e-9 || e.Uses != 1 {
		t.Fatalf("energy %v uses %d, want %v and 1 (one settlement's worth)", e.Energy, e.Uses, want)
	}
	if !strings.Contains(h.openBotPRs()[0].Body, "already moved by an earlier ticket") {
		t.Fatalf("the bot PR does not say why the other tickets moved nothing:\n%s", h.openBotPRs()[0].Body)
	}
}

// addByHand appends a lesson without an "id" to the store on main, as a person editing the
// JSON would, and commits it.
func (h *harness) addByHand(question, answer string) {
	h.t.Helper()
	b, _ := h.git.File("main", storePath)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		h.t.Fatal(err)
	}
	var entries []map[string]any
	if err := json.Unmarshal(doc["entries"], &entries); err != nil {
		h.t.Fatal(err)
	}
	entries = append(entries, map[string]any{"question": question, "answer": answer, "energy": 1.0})
	raw, _ := json.Marshal(entries)
	doc["entries"] = raw
	out, _ := json.Marshal(doc)
	if _, err := lessons.Parse(storePath, out); err != nil {
		h.t.Fatalf("a hand-added lesson without id must load: %v", err)
	}
	h.git.CommitFiles("main", "maintainer", "add a lesson by hand", map[string][]byte{storePath: out})
}

// Finding 9: a lesson added by hand on main without an "id" made the three-way merge fail; the
// run rebuilt from main, re-listed only the lookback window and closed the bot pull request as
// "the base branch already holds everything", losing the older settlement.
func TestE2EIntegrityHandAddedLessonWithoutIDKeepsBotBranch(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	bot := h.openBotPRs()[0]
	h.addByHand("Where do feature flags live?", "Feature flags live in config/flags.yaml; never hard-code them.")
	pr2 := h.merge("Tidy readme", "Docs only.", nil)
	res := h.run("pull_request_target", mergedEvent(pr2.Number), map[string]string{"lookback": "1"})
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "updated" || h.git.Pull(bot.Number).State != "open" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	if strings.Contains(res.stdout, "rebuilt from the base branch") {
		t.Fatalf("the bot branch was not merged:\n%s", res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Energy <= 1.0-s.Upkeep || e.Uses != 1 {
		t.Fatalf("settlement of #%d lost: %+v", pr1.Number, e)
	}
	found := false
	for _, e := range s.Living() {
		found = found || strings.HasPrefix(e.Question, "Where do feature flags")
	}
	if !found {
		t.Fatal("the hand-added lesson was lost")
	}
	if rec := h.record(DefaultBranch); !rec.has(pr1.Number) {
		t.Fatalf("record lost #%d: %+v", pr1.Number, rec)
	}
}

// Finding 9: a person closing the bot pull request lost the settlements older than the lookback
// window (docs/merge.md promises they are processed again). They are carried over with the
// delta the branch recorded, without measuring CI again.
func TestE2EIntegrityClosedBotPRKeepsSettlementsOutsideLookback(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	first := h.openBotPRs()[0]
	h.git.ClosePull(first.Number)
	h.setMeasurement(pr1.Number, settle.Result{Outcome: settle.Abstained, Reason: "artifacts expired"})
	pr2 := h.merge("Tidy readme", "Docs only.", nil)
	res := h.run("pull_request_target", mergedEvent(pr2.Number), map[string]string{"lookback": "1"})
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "created" || res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Uses != 1 || e.Energy <= 1.0-s.Upkeep {
		t.Fatalf("settlement of #%d lost: %+v", pr1.Number, e)
	}
	rec := h.record(DefaultBranch)
	if !rec.has(pr1.Number) || !rec.has(pr2.Number) {
		t.Fatalf("record %+v", rec)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.measured[pr1.Number] != 1 {
		t.Fatalf("#%d measured again (%d); the recorded delta is re-applied", pr1.Number, h.measured[pr1.Number])
	}
}

// Finding 9: a bot branch whose store cannot be read (someone pushed a broken file) stops the
// run with a clear error instead of silently dropping the settlements it holds.
func TestE2EIntegrityUnreadableBotBranchStopsTheRun(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	bot := h.openBotPRs()[0]
	h.git.CommitFiles(DefaultBranch, "someone", "oops", map[string][]byte{storePath: []byte("{not json")})
	h.git.CommitFiles("main", "maintainer", "unrelated", map[string][]byte{"docs/x.md": []byte("x\n")})
	tip := h.git.Ref(DefaultBranch)
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 1)
	if !strings.Contains(res.stdout, "cannot be carried over") || !strings.Contains(res.stdout, DefaultBranch) {
		t.Fatalf("error does not say what to do:\n%s", res.stdout)
	}
	if h.git.Ref(DefaultBranch) != tip || h.git.Pull(bot.Number).State != "open" {
		t.Fatal("the run wrote after failing")
	}
}

func mergedEventWithBody(t *testing.T, n int, body string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"action": "closed", "number": n,
		"pull_request": map[string]any{"number": n, "merged": true, "body": body}, "repository": map[string]any{"default_branch": "main"}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Finding 2: the body was read when the action ran, so an author who saw CI's delta could edit
// the merged pull request's body and aim a later run's settlement at any lesson. The run of the
// merge event settles the body its payload carries (the body at the merge).
func TestE2EIntegrityTicketsAddedAfterMergeIgnoredOnMergeEvent(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	original := "Fixes the itest.\n\n" + h.ticketFor("how do I run the integration tests")
	pr := h.merge("Fix itest", original, measured(-1))
	h.git.EditPullBody(pr.Number, original+"\n"+h.ticketFor("which logger does the payments service use"))
	res := h.run("pull_request_target", mergedEventWithBody(t, pr.Number, original), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("the ticket of the merged body did not settle: %+v", e)
	}
	if e, _ := s.Entry(es[1].ID); e == nil || e.Uses != 0 || e.Energy != 1.0-s.Upkeep {
		t.Fatalf("a ticket added after the merge moved a lesson: %+v", e)
	}
}

// Finding 2: a pull request read later than its own merge event (a cancelled run, a dispatch)
// whose body may have changed since the merge has its tickets refused, with the reason, and is
// recorded as processed so no later run reads it again.
func TestE2EIntegrityTicketsOfBodyEditedAfterMergeRefused(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr0 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	pr := h.merge("Tidy payments", "No lessons used.", measured(-2))
	h.git.EditPullBody(pr.Number, "No lessons used.\n"+h.ticketFor("which logger does the payments service use"))
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[1].ID); e == nil || e.Uses != 0 {
		t.Fatalf("a ticket added after the merge moved a lesson: %+v", e)
	}
	body := h.openBotPRs()[0].Body
	if !strings.Contains(body, "updated after its merge") {
		t.Fatalf("the bot PR does not say why #%d's tickets were refused:\n%s", pr.Number, body)
	}
	rec := h.record(DefaultBranch)
	if !rec.has(pr.Number) || !rec.has(pr0.Number) {
		t.Fatalf("record %+v", rec)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.measured[pr.Number] != 0 {
		t.Fatal("a pull request whose tickets are all refused was measured")
	}
}

// Finding 2: a pull request queued behind running CI was read again on every run, so its author
// could add tickets before CI finished. The tickets of its first reading are held in the record.
func TestE2EIntegrityQueuedPRSettlesTicketsOfFirstReading(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr0 := h.merge("Fix migrations", h.ticketFor("how are database migrations applied"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr0.Number), nil), 0)
	original := "Fixes the itest.\n\n" + h.ticketFor("how do I run the integration tests")
	pr := h.merge("Fix itest", original, &settle.Result{Outcome: settle.Pending, Reason: "CI running"})
	res := h.run("pull_request_target", mergedEventWithBody(t, pr.Number, original), nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "pending" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	// The first reading must reach the bot branch: another settlement writes it.
	pr2 := h.merge("Fix migrations again", h.ticketFor("how are database migrations applied"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr2.Number), nil), 0)
	if rec := h.record(DefaultBranch); len(rec.Held[itoa(pr.Number)]) != 1 {
		t.Fatalf("tickets of the first reading not held: %+v", rec)
	}
	h.git.EditPullBody(pr.Number, original+"\n"+h.ticketFor("which logger does the payments service use"))
	h.setMeasurement(pr.Number, *measured(-1))
	res = h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("the held ticket did not settle: %+v", e)
	}
	if e, _ := s.Entry(es[1].ID); e == nil || e.Uses != 0 {
		t.Fatalf("a ticket added while queued moved a lesson: %+v", e)
	}
	if rec := h.record(DefaultBranch); rec.Held != nil || len(rec.Queued) != 0 {
		t.Fatalf("record keeps the held tickets after settling: %+v", rec)
	}
}

// The merge event's payload carries the body at the merge; null is an empty description.
func TestParseEventKeepsMergeTimeBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		payload string
		want    *string
	}{
		{`{"action":"closed","pull_request":{"number":4,"merged":true,"body":"b\nc"}}`, ptr("b\nc")},
		{`{"action":"closed","pull_request":{"number":4,"merged":true,"body":null}}`, ptr("")},
		{`{"action":"closed","pull_request":{"number":4,"merged":true}}`, nil},
		{`{"action":"closed","pull_request":{"number":4,"merged":false,"body":"x"}}`, nil},
	} {
		tr, err := ParseEvent("pull_request_target", []byte(tc.payload))
		if err != nil {
			t.Fatal(err)
		}
		if (tr.Body == nil) != (tc.want == nil) || tr.Body != nil && *tr.Body != *tc.want {
			t.Errorf("%s: body %v", tc.payload, tr.Body)
		}
	}
	if _, err := ParseEvent("pull_request_target", []byte(`{"action":"closed","pull_request":{"number":4,"merged":true,"body":5}}`)); err == nil {
		t.Error("a non-string body was accepted")
	}
	if tr, _ := ParseEvent("pull_request_target", readTestdata(t, "events/pull_request.closed.merged.reallyfastci.json")); tr.Body == nil {
		t.Error("the real webhook's body was not read")
	}
}

func ptr(s string) *string { return &s }

// Finding 3: widening trusted-associations built an encoder that trusted every author, so a
// review comment from a NONE user cited by a lesson made it a lesson instead of a proposal.
// Trust is checked per author of each source.
func TestE2EIntegrityWidenedTrustStillChecksEachReviewer(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	review := func(id int64, user, assoc, body string) ghfake.ReviewComment {
		return ghfake.ReviewComment{ID: id, Path: "src/cache.go", Body: body, User: user, AuthorAssociation: assoc}
	}
	spec := func(title, assoc, comment string) ghfake.MergeSpec {
		return ghfake.MergeSpec{Title: title, User: "regular", AuthorAssociation: "CONTRIBUTOR",
			Files:          map[string][]byte{"src/cache.go": []byte("package app\n")},
			ReviewComments: []ghfake.ReviewComment{review(int64(len(title)), "passerby", assoc, comment)}}
	}
	inputs := map[string]string{"trusted-associations": "OWNER,MEMBER,COLLABORATOR,CONTRIBUTOR"}
	// Control: a reviewer the input trusts makes a lesson.
	ok := h.git.MergePull(spec("Cache fix", "MEMBER", "Please flush the cache before closing the store connection."))
	res := h.run("pull_request_target", mergedEvent(ok.Number), inputs)
	mustCode(t, res, 0)
	if res.outputs["births"] != "1" {
		t.Fatalf("a trusted reviewer's lesson was not added: %v\n%s", res.outputs, res.stdout)
	}
	pr := h.git.MergePull(spec("Cache fix again", "NONE", "Please disable the cache warmer in the benchmark job."))
	res = h.run("pull_request_target", mergedEvent(pr.Number), inputs)
	mustCode(t, res, 0)
	if res.outputs["births"] != "0" {
		t.Fatalf("a NONE reviewer's comment became a lesson: %v\n%s", res.outputs, res.stdout)
	}
	if body := h.openBotPRs()[0].Body; !strings.Contains(body, "Proposed, not added") {
		t.Fatalf("the NONE reviewer's lesson is not proposed:\n%s", body)
	}
}

// Finding 4: after a rebase merge of n commits, the merge commit's first parent is the pull
// request's own previous commit, so its tickets were verified against a store the pull request
// wrote. Here its first commit moves the store's tick forward (so a ticket claiming that tick
// verifies) and its second restores it.
func TestE2EIntegrityRebaseMergeVerifiesAtTheRealBase(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(store, &doc); err != nil {
		t.Fatal(err)
	}
	var ledger map[string]json.RawMessage
	if err := json.Unmarshal(doc["ledger"], &ledger); err != nil {
		t.Fatal(err)
	}
	ledger["tick_count"] = json.RawMessage("60")
	doc["ledger"], _ = json.Marshal(ledger)
	forged, _ := json.Marshal(doc)
	ft := lessons.FreeTicket{Tick: 60, Decider: es[1].ID, Query: "which logger does the payments service use"}
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Logging tweaks", Body: ft.Line(),
		RebaseCommits: []map[string][]byte{{storePath: forged, "src/log.go": []byte("package app\n")}, {storePath: store}}})
	if len(pr.Replayed) != 2 || h.git.Parents(pr.MergeCommitSHA)[0] != pr.Replayed[0] {
		t.Fatalf("fake rebase merge: %+v", pr)
	}
	h.setMeasurement(pr.Number, *measured(-2))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "0" {
		t.Fatalf("a ticket verified against the pull request's own commit settled: %v\n%s", res.outputs, res.stdout)
	}
	if !strings.Contains(res.stdout, "all refused at base "+short(pr.BaseSHA)) {
		t.Fatalf("not verified at the commit before the first replayed one (%s):\n%s", short(pr.BaseSHA), res.stdout)
	}
	// A squash merge (one parent, not the pull request's) still verifies at its parent.
	ok := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	if res = h.run("pull_request_target", mergedEvent(ok.Number), nil); res.outputs["settled-tickets"] != "1" {
		t.Fatalf("squash merge: %v\n%s", res.outputs, res.stdout)
	}
}

// Finding 5: the record's processed list was sorted by number while the replay horizon read its
// first entry as the oldest merge; with a full record whose lowest number merged late (a
// long-open pull request), every earlier-merged unprocessed pull request was skipped.
func TestE2EIntegrityFullRecordHorizonIsTheOldestMerge(t *testing.T) {
	t.Parallel()
	seed, es := seedStore(t)
	rec := Record{Version: 1}
	// #999 was opened long ago and merged last; #1000.. merged before everything in the fake.
	rec.Processed = append(rec.Processed, Processed{PR: 999, MergedAt: "2026-03-01T00:00:00Z", Outcome: OutcomeNoTickets})
	base := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < maxProcessed-1; i++ {
		rec.Processed = append(rec.Processed, Processed{PR: 1000 + i, MergedAt: base.Add(time.Duration(i) * time.Minute).Format(time.RFC3339), Outcome: OutcomeNoTickets})
	}
	store := withRecord(t, seed, rec)
	h := newHarness(t, store)
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" {
		t.Fatalf("an unprocessed pull request merged after the oldest recorded merge was skipped: %v\n%s", res.outputs, res.stdout)
	}
	got := h.record(DefaultBranch)
	if len(got.Processed) != maxProcessed || got.Processed[0].PR != 1001 || got.Processed[len(got.Processed)-1].PR != 999 {
		t.Fatalf("record not capped by merge time: first #%d last #%d, %d entries", got.Processed[0].PR, got.Processed[len(got.Processed)-1].PR, len(got.Processed))
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("%+v", e)
	}
}

// Finding 5: the three-way rule of the record sorts and caps by merge time, not by number.
func TestMergeRecordsSortsAndCapsByMergeTime(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(m int) string { return t0.Add(time.Duration(m) * time.Minute).Format(time.RFC3339) }
	var ours, theirs Record
	ours.Version, theirs.Version = 1, 1
	// Low numbers merged late on ours; high numbers merged early on theirs.
	for i := 0; i < maxProcessed; i++ {
		theirs.Processed = append(theirs.Processed, Processed{PR: 5000 + i, MergedAt: at(i), Outcome: OutcomeNoTickets})
	}
	ours.Processed = []Processed{{PR: 1, MergedAt: at(10000), Outcome: OutcomeSettled}, {PR: 2, MergedAt: at(10001), Outcome: OutcomeSettled}}
	o, _ := json.Marshal(ours)
	th, _ := json.Marshal(theirs)
	raw, err := mergeRecords(nil, o, th)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecord([]byte(`{"` + RecordKey + `":` + string(raw) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Processed) != maxProcessed || got.Processed[0].PR != 5002 || got.Processed[maxProcessed-1].PR != 2 || !got.has(1) {
		t.Fatalf("first #%d last #%d has #1 %v", got.Processed[0].PR, got.Processed[maxProcessed-1].PR, got.has(1))
	}
	if h, full := got.horizon(); !full || h.PR != 5002 {
		t.Fatalf("horizon %+v", h)
	}
}

// The branch of a closed bot pull request whose work the base branch already holds is deleted,
// so its record is not carried over again on every run.
func TestE2EIntegrityStaleClosedBotBranchDeleted(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	bot := h.openBotPRs()[0]
	b, _ := h.git.File(DefaultBranch, storePath)
	md, _ := h.git.File(DefaultBranch, DefaultRender)
	h.git.CommitFiles("main", "maintainer", "take lessons", map[string][]byte{storePath: b, DefaultRender: md})
	h.git.ClosePull(bot.Number)
	res := h.run("workflow_dispatch", `{"inputs":{}}`, map[string]string{"dry-run": "true"})
	mustCode(t, res, 0)
	if h.git.Ref(DefaultBranch) == "" {
		t.Fatal("a dry run deleted the branch")
	}
	res = h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "none" || h.git.Ref(DefaultBranch) != "" {
		t.Fatalf("outputs %v, branch %q\n%s", res.outputs, h.git.Ref(DefaultBranch), res.stdout)
	}
}
