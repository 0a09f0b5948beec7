package sim

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// measureWorld is a generated world whose suite the measurement tests use.
func measureWorld(t *testing.T, noise float64) *World {
	t.Helper()
	cfg := smallConfig()
	cfg.Noise = noise
	w, err := NewWorld(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func allPassing(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// TestCompactMeasurementMatchesFullSuite: the CI that hands settle only the tests that
// changed measures what the whole suite measures, over a random walk of the suite (400 steps
// per noise level in the long sweep, 80 in the fast case).
func TestCompactMeasurementMatchesFullSuite(t *testing.T) {
	steps := exhaustive.Or(80, 400)
	for _, noise := range []float64{0, 0.1, 0.5, 0.9} {
		w := measureWorld(t, noise)
		rng := rand.New(rand.NewPCG(uint64(noise*100), 1))
		compact, full := NewCI(), newFullCI()
		state := allPassing(w.Tests())
		for step := range steps {
			// A random walk of the suite: a few tests break or get fixed
			// between base and head, and some stay broken for a while.
			base := slices.Clone(state)
			for range rng.IntN(4) {
				base[rng.IntN(len(base))] = false
			}
			head := slices.Clone(base)
			for range rng.IntN(4) {
				i := rng.IntN(len(head))
				head[i] = !head[i]
			}
			state = head
			p := w.PRs[step%len(w.PRs)]
			got := compact.Measure(w, base, head, p.BaseFlakes, p.HeadFlakes)
			want := full.Measure(w, base, head, p.BaseFlakes, p.HeadFlakes)
			if got != want {
				t.Fatalf("noise %g, step %d: restricted measurement %+v, whole suite %+v", noise, step, got, want)
			}
			g, _ := compact.Sidecar(w).Marshal()
			f, _ := full.Sidecar(w).Marshal()
			if !bytes.Equal(g, f) {
				t.Fatalf("noise %g, step %d: sidecars differ\nrestricted %s\nwhole suite %s", noise, step, g, f)
			}
		}
	}
}

func TestMeasureFlakesAndQuarantine(t *testing.T) {
	w := measureWorld(t, 0)
	id := func(i int) string { return w.TestIDs[i] }
	ci := NewCI()
	pass := allPassing(w.Tests())
	fixed := allPassing(w.Tests())
	broken := allPassing(w.Tests())
	broken[5] = false

	// A good change whose head run has a flaky red on test 7: reported red.
	m := ci.Measure(w, broken, fixed, nil, []int{7})
	if m.Delta != 0 || m.Spurious != 1 || m.SpuriousQuarantined != 0 || m.Quarantined != 0 {
		t.Fatalf("first flake: %+v, want delta 0 (fix +1, flaky red -1), not quarantined", m)
	}
	// A flake at the base credits a fix that was not made.
	m = ci.Measure(w, pass, pass, []int{7}, nil)
	if m.Delta != 1 || m.Spurious != 1 {
		t.Fatalf("flake at base: %+v, want delta +1", m)
	}
	// Test 7's history is now T F F T: two flips. One more flip
	// quarantines it, and its red no longer counts.
	m = ci.Measure(w, pass, pass, nil, []int{7})
	if m.Delta != 0 || m.Quarantined != 1 || m.SpuriousQuarantined != 1 {
		t.Fatalf("third flip: %+v, want the red on test 7 quarantined", m)
	}
	h := ci.Sidecar(w)
	if q := h.Quarantined(); !slices.Equal(q, []string{id(7)}) {
		t.Fatalf("quarantine %v, want [%s]", q, id(7))
	}
	if got := h.Tests[id(7)]; !slices.Equal(got, []bool{true, false, false, true, true, false}) {
		t.Fatalf("history of the flaky test %v", got)
	}
	if got := h.Tests[id(0)]; len(got) != 6 || slices.Contains(got, false) {
		t.Fatalf("history of a steady test %v, want six passes", got)
	}
	// A real regression on a quarantined test is lost too (settle's rule).
	br7 := allPassing(w.Tests())
	br7[7] = false
	m = ci.Measure(w, pass, br7, nil, nil)
	if m.Delta != 0 || m.GenuineQuarantined != 1 {
		t.Fatalf("regression on a quarantined test: %+v", m)
	}
	// Window 10: after five clean measurements test 7 leaves quarantine.
	for range 5 {
		ci.Measure(w, pass, pass, nil, nil)
	}
	if m = ci.Measure(w, pass, br7, nil, nil); m.Delta != -1 || m.Quarantined != 0 {
		t.Fatalf("after a clean window: %+v, want the regression counted", m)
	}
}

// TestRunMeasuresOnlyTicketedPRs checks that, as in the action, a PR whose
// agents got no advice carries no ticket and is not measured, so its runs do
// not enter the sidecar.
func TestRunMeasuresOnlyTicketedPRs(t *testing.T) {
	task := func(target int) Task { return Task{Topic: 0, Target: target, UFix: 0.5, UHarm: 0.5, Harm: 1} }
	prs := []PR{
		{Tasks: []Task{task(0)}, HeadFlakes: []int{3}},
		{Tasks: []Task{task(1)}, HeadFlakes: []int{3}},
		{Tasks: []Task{task(2)}, HeadFlakes: []int{3}},
	}
	w := tinyWorld(prs)
	arm := &scripted{decide: []int{0, -1, 0}, living: map[int]bool{}}
	r, err := Run(w, arm)
	if err != nil {
		t.Fatal(err)
	}
	if !r.PRs[0].Measured || r.PRs[1].Measured || !r.PRs[2].Measured {
		t.Fatalf("measured %v %v %v, want true false true", r.PRs[0].Measured, r.PRs[1].Measured, r.PRs[2].Measured)
	}
	// Test 3 flipped T F in PR 0 and T F in PR 2 (3 flips with PR 1 unmeasured):
	// quarantined at the second measurement, so PR 2's delta is its fix alone.
	if d := []float64{r.PRs[0].CI.Delta, r.PRs[2].CI.Delta}; !slices.Equal(d, []float64{0, 1}) {
		t.Fatalf("measured deltas %v, want [0 1]", d)
	}
	if !slices.Equal(arm.settled, []float64{0, 1}) {
		t.Fatalf("settled %v", arm.settled)
	}
}

// TestMeasureCountsRegressions checks that a measurement reports the
// regressions its delta counts (quarantined tests left out), so that
// delta + regressions is the improvements settle counted.
func TestMeasureCountsRegressions(t *testing.T) {
	w := measureWorld(t, 0)
	ci := NewCI()
	base := allPassing(w.Tests())
	base[1] = false // fixed by the PR
	head := allPassing(w.Tests())
	head[2], head[3] = false, false // broken by the PR
	m := ci.Measure(w, base, head, nil, nil)
	if m.Delta != -1 || m.Regressions != 2 {
		t.Fatalf("delta %v, regressions %d; want -1 and 2", m.Delta, m.Regressions)
	}
	// A spurious red at the head counts as a regression too (settle cannot
	// tell), until the quarantine takes the test out.
	m = ci.Measure(w, allPassing(w.Tests()), allPassing(w.Tests()), nil, []int{4})
	if m.Delta != -1 || m.Regressions != 1 {
		t.Fatalf("flaky head: delta %v, regressions %d; want -1 and 1", m.Delta, m.Regressions)
	}
}
