package action

import (
	"math"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
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
