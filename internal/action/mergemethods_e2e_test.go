package action

import (
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
