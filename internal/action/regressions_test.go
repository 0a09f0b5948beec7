package action

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// TestE2ERegressionsChargedApartFromFixes: with segregate_losses (stores
// this project creates), a pull request whose per-test results fixed two
// tests and broke two (net delta 0) still charges the lesson it used for the
// broken ones; without a count of regressions (pass counts) the net rule
// moves nothing.
func TestE2ERegressionsChargedApartFromFixes(t *testing.T) {
	t.Parallel()
	cfg := lessons.RecommendedConfig()
	if !cfg.SegregateLosses {
		t.Skip("segregate_losses is not a default of new stores")
	}
	energy := map[string]float64{}
	for _, c := range []struct {
		name string
		res  settle.Result // the measurement, its delta aside
	}{
		{"per-test results", settle.Result{Mode: settle.PerTest, Transitions: settle.Transitions{
			Improvements: []string{"t.fixed1", "t.fixed2"}, Regressions: []string{"t.broken1", "t.broken2"}}}},
		{"pass counts", settle.Result{Mode: settle.PassCounts}},
	} {
		func() {
			s := lessons.New(storePath, lessons.Options{Now: fixedNow, Config: &cfg})
			e, err := s.Add(lessons.NewLesson{Question: "How do I run the integration tests?", Answer: "Run make itest with DOCKER_HOST unset."})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := s.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, doc)
			m := measured(0)
			m.Mode, m.Transitions = c.res.Mode, c.res.Transitions // no regressions count on the pass-counts path
			pr := h.merge("Refactor itest", h.ticketFor("how do I run the integration tests"), m)
			mustCode(t, h.run("pull_request_target", mergedEvent(pr.Number), nil), 0)
			got, _ := h.botStore(DefaultBranch).Entry(e.ID)
			energy[c.name] = got.Energy
		}()
	}
	// Same tick, same upkeep, same net delta: only the charge for the two broken tests differs.
	if loss := energy["pass counts"] - energy["per-test results"]; !(loss > 0.1) {
		t.Fatalf("energies %v: the two regressions were not charged apart from the fixes", energy)
	}
}
