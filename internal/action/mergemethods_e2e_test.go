package action

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

// Merge, squash and rebase merges of a two-commit pull request, settled end to end with the
// production measurer, from list items (GET /pulls has no merged and no commits): each compares
// the old tip of main with the pull request's head, and a rerun settles nothing twice.
func TestE2EMergeMethods(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	broken := map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	fixed := map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
	for _, method := range []string{"merge", "squash", "rebase"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, store)
			base := h.git.Ref("main")
			addCI(h.world, base, "completed", broken)
			pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix B and C", Body: h.ticketFor("how do I run the integration tests"),
				Method: method, Commits: 2, Files: map[string][]byte{"src/fix.go": []byte("package app\n")}})
			addCI(h.world, pr.HeadSHA, "completed", fixed)
			res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
			mustCode(t, res, 0)
			if res.outputs["result"] != "settled" || res.outputs["delta"] != "2" {
				t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
			}
			rec := h.record(DefaultBranch)
			last := rec.Processed[len(rec.Processed)-1]
			if last.PR != pr.Number || last.Before != base || last.After != pr.HeadSHA {
				t.Fatalf("processed %+v, want before %.7s (old main) after %.7s (head)", last, base, pr.HeadSHA)
			}
			res = h.runReal("workflow_dispatch", `{"inputs":{}}`)
			mustCode(t, res, 0)
			if res.outputs["settled-tickets"] != "0" {
				t.Fatalf("a rerun settled again: %v", res.outputs)
			}
		})
	}
}

// A flaky API (a seeded 15% of requests, writes included, answer 502 or 503): runs either
// settle or fail cleanly, and retrying the workflow settles the merge exactly once with the
// right delta.
func TestE2EFlakyAPISettlesOnce(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			flakyRun(t, seed)
		})
	}
}

func flakyRun(t *testing.T, seed uint64) {
	store, es := seedStore(t)
	h := newHarness(t, store)
	broken := map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	fixed := map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
	base := h.git.Ref("main")
	addCI(h.world, base, "completed", broken)
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix B and C", Body: h.ticketFor("how do I run the integration tests"),
		Method: "rebase", Commits: 2, Files: map[string][]byte{"src/fix.go": []byte("package app\n")}})
	addCI(h.world, pr.HeadSHA, "completed", fixed)
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 15))
	failed := 0
	h.world.SetBefore(func(r *http.Request) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if rng.IntN(100) < 15 {
			failed++
			return 502 + rng.IntN(2), `{"message":"Server Error"}`
		}
		return 0, ""
	})
	settledRuns := 0
	for attempt := 0; attempt < 20 && settledRuns == 0; attempt++ {
		res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
		if res.code == 0 && res.outputs["result"] == "settled" {
			settledRuns++
			if res.outputs["delta"] != "2" {
				t.Fatalf("delta %s under a flaky API, want 2\n%s", res.outputs["delta"], res.stdout)
			}
		}
	}
	h.world.SetBefore(nil)
	res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if settledRuns != 1 || res.outputs["settled-tickets"] != "0" {
		t.Fatalf("settled in %d runs; the calm rerun: %v", settledRuns, res.outputs)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("the lesson should have been used once: %+v", e)
	}
	if failed == 0 {
		t.Fatal("no fault was injected")
	}
}
