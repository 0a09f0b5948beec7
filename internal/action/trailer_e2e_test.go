package action

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

// TestE2ECommitTrailerTickets: a ticket may ride in a commit trailer
// ("Darwin-Memo: v1 ...") instead of the body; it is verified and settled
// like a body ticket, the same lesson named in both moves once, and a
// trailer survives a body edited after the merge (commits cannot change).
func TestE2ECommitTrailerTickets(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	line := h.ticketFor("how do I run the integration tests")
	trailer := "Fix flaky itest\n\nRun the suite the documented way.\n\nDarwin-Memo: " + strings.TrimPrefix(line, "darwin-memo: ") + "\n"

	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix flaky itest", Body: "No ticket in the body.", Message: trailer,
		Files: map[string][]byte{"src/itest.go": []byte("package app\n")}})
	h.setMeasurement(pr.Number, *measured(2))
	// Both the body and a trailer name the lesson: it moves once.
	pr2 := h.git.MergePull(ghfake.MergeSpec{Title: "Fix it again", Body: "Body ticket:\n<!-- " + h.ticketFor("how are database migrations applied") + " -->", Message: "Again\n\nDarwin-Memo: " + strings.TrimPrefix(h.ticketFor("how are database migrations applied"), "darwin-memo: ") + "\n",
		Files: map[string][]byte{"src/mig.go": []byte("package app\n")}})
	h.setMeasurement(pr2.Number, *measured(1))

	// A body edited after the merge: its tickets are refused, the trailer's are not.
	pr3 := h.git.MergePull(ghfake.MergeSpec{Title: "Log fix", Body: "Body ticket:\n" + h.ticketFor("how do I run the integration tests"),
		Message: "Log fix\n\nDarwin-Memo: " + strings.TrimPrefix(h.ticketFor("which logger does the payments service use"), "darwin-memo: ") + "\n",
		Files:   map[string][]byte{"src/log.go": []byte("package app\n")}})
	h.setMeasurement(pr3.Number, *measured(1))
	h.git.EditPullBody(pr3.Number, pr3.Body+"\n"+h.ticketFor("how are database migrations applied")) // added after seeing CI

	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "3" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if e, _ := s.Entry(es[1].ID); e.Uses != 1 {
		t.Fatalf("the trailer of a pull request whose body was edited after the merge was not settled: %+v", e)
	}
	if !strings.Contains(h.openBotPRs()[0].Body, "are refused: the pull request was updated after its merge") {
		t.Fatalf("bot PR does not say the edited body's tickets were refused:\n%s", h.openBotPRs()[0].Body)
	}
	if e, _ := s.Entry(es[0].ID); e.Uses != 1 || e.Energy <= 1 {
		t.Fatalf("trailer ticket not settled: %+v", e)
	}
	if e, _ := s.Entry(es[2].ID); e.Uses != 1 {
		t.Fatalf("a lesson named in the body and a trailer, then in an edited body, moved %d times", e.Uses)
	}
}
