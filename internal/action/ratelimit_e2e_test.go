package action

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// A busy repository: 50 ticketed pull requests merged in one hour, one run each, with the
// production measurer, under GITHUB_TOKEN's 1,000 requests per hour. No request may be refused
// for the rate limit and no run may fail; a run that cannot afford a merge leaves it for a
// later run, and every merge is settled by the end of the next hour (docs/action.md, "GitHub's
// limits", has the arithmetic). The fast case is 12 merges under 240 requests an hour, the same
// budget per merge.
func TestE2EBurstOfMergesWithinRateLimit(t *testing.T) {
	t.Parallel()
	merges := exhaustive.Or(12, 50)
	limit := 20 * merges
	store, _ := seedStore(t)
	h := newHarness(t, store)
	var mu sync.Mutex
	start := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	now := start
	setNow := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
	h.world.SetRateLimit(limit, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })

	broken := map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	fixed := map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
	addCI(h.world, h.git.Ref("main"), "completed", broken)
	ticket := h.ticketFor("how do I run the integration tests")
	maxRun, maxPerMerge, total := 0, 0, 0
	skipped := 0
	for i := 0; i < merges; i++ {
		setNow(start.Add(time.Duration(i) * time.Hour / time.Duration(merges)))
		pr := h.merge(fmt.Sprintf("Fix number %d", i), ticket, nil)
		addCI(h.world, pr.HeadSHA, "completed", fixed)
		addCI(h.world, pr.MergeCommitSHA, "completed", broken) // the next pull request's base
		t0 := h.world.Total()
		res := h.runReal("pull_request_target", mergedEvent(pr.Number))
		mustCode(t, res, 0)
		n := h.world.Total() - t0
		total += n
		maxRun = max(maxRun, n)
		if res.outputs["result"] == "settled" {
			maxPerMerge = max(maxPerMerge, n)
		} else {
			skipped++
			if !strings.Contains(res.stdout, "GitHub API budget") {
				t.Fatalf("run %d: %v without a budget notice\n%s", i, res.outputs, res.stdout)
			}
		}
	}
	if got := h.world.RateLimited(); got != 0 {
		t.Fatalf("%d request(s) refused for the rate limit", got)
	}
	if skipped == 0 {
		t.Errorf("every one of %d runs settled its merge under %d requests an hour: the budget was never short", merges, limit)
	}
	if maxPerMerge > RequestsPerRun+RequestsPerPR {
		t.Errorf("a run settling one merge made %d requests, over the documented bound %d+%d", maxPerMerge, RequestsPerRun, RequestsPerPR)
	}
	// The next hour: one run catches up on every merge left behind, within the bound.
	setNow(start.Add(61 * time.Minute))
	t0 := h.world.Total()
	res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if n := h.world.Total() - t0; n > RequestsPerRun+skipped*RequestsPerPR {
		t.Errorf("the catch-up run of %d merges made %d requests, over the documented bound %d+%d×%d", skipped, n, RequestsPerRun, skipped, RequestsPerPR)
	}
	if got := h.world.RateLimited(); got != 0 {
		t.Fatalf("%d request(s) refused for the rate limit", got)
	}
	rec := h.record(DefaultBranch)
	settled := 0
	for _, p := range rec.Processed {
		if p.Outcome == OutcomeSettled {
			settled++
		}
	}
	if settled != merges || len(rec.Queued) != 0 {
		t.Fatalf("%d of %d merges settled, queued %v\n%s", settled, merges, rec.Queued, res.stdout)
	}
	t.Logf("%d requests in the first hour (limit %d), at most %d per run, %d for a run settling one merge; %d runs left their merge for later",
		total, limit, maxRun, maxPerMerge, skipped)
}

// The request counts docs/action.md gives per kind of run ("GitHub's limits") hold.
func TestE2ERequestsPerRun(t *testing.T) {
	t.Parallel()
	const rerun, unticketed, ticketed = 12, 16, 25 // docs/action.md
	store, _ := seedStore(t)
	h := newHarness(t, store)
	broken := map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	fixed := map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
	addCI(h.world, h.git.Ref("main"), "completed", broken)
	cost := func(event, payload string) (int, runResult) {
		t0 := h.world.Total()
		res := h.runReal(event, payload)
		mustCode(t, res, 0)
		return h.world.Total() - t0, res
	}
	for i := 0; i < 2; i++ { // the second run updates the bot pull request the first opened
		pr := h.merge(fmt.Sprintf("Fix %d", i), h.ticketFor("how do I run the integration tests"), nil)
		addCI(h.world, pr.HeadSHA, "completed", fixed)
		addCI(h.world, pr.MergeCommitSHA, "completed", broken)
		if n, res := cost("pull_request_target", mergedEvent(pr.Number)); n > ticketed || res.outputs["result"] != "settled" {
			t.Errorf("ticketed merge %d: %d requests (documented: %d), result %s", i, n, ticketed, res.outputs["result"])
		}
	}
	pr := h.merge("Docs only", "no ticket", nil)
	if n, _ := cost("pull_request_target", mergedEvent(pr.Number)); n > unticketed {
		t.Errorf("unticketed merge: %d requests (documented: %d)", n, unticketed)
	}
	if n, _ := cost("workflow_dispatch", `{"inputs":{}}`); n > rerun {
		t.Errorf("rerun: %d requests (documented: %d)", n, rerun)
	}
}
