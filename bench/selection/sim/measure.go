package sim

import (
	"slices"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// CIRun is the per-test result of one simulated CI run, as settle reads it
// from JUnit reports.
type CIRun map[string]junit.Status

// Measurement is what settle measured for one merged PR, with what the
// simulator knows that settle does not: which transitions were real.
type Measurement struct {
	// Delta is settle's per-test delta: improvements minus regressions on
	// shared tests, quarantined tests left out.
	Delta float64
	// Regressions is how many regressions the delta counts (quarantined
	// tests left out): Delta = improvements - Regressions.
	Regressions int
	// Quarantined is the size of the quarantine the delta was computed with.
	Quarantined int
	// Spurious counts transitions settle saw that did not happen (a flaky
	// red at the base or the head); SpuriousQuarantined those of them the
	// quarantine kept out of the delta.
	Spurious, SpuriousQuarantined int
	// GenuineQuarantined counts real transitions the quarantine kept out of
	// the delta (a test that really broke or got fixed but had flipped often
	// enough recently).
	GenuineQuarantined int
}

// CI measures merged PRs the way the action does, with the settle package:
// each measurement first records the PR's two runs in the flaky-quarantine
// sidecar (settle.FlakyHistory, darwin-memo's window 10 and 3 flips), then
// computes settle.Diff with the sidecar's quarantine. The action loads the
// sidecar before it processes merged PRs, lets settle.Measure update it for
// every PR it measures (only PRs with a ticket the base store verifies are
// measured) and commits it with the store; here it lives across the whole
// run instead of being loaded and saved around each batch, which gives the
// same sequence of updates.
//
// Speed: most tests pass in every run, and a test that passed in every
// observation of its window has a history of only trues, cannot be
// quarantined and cannot move the delta. CI therefore hands settle the runs
// restricted to the tests that failed in this measurement or still have a
// failure in their window (the others pass at both SHAs), keeps only those
// in the sidecar, and restores an all-pass history of the right length for
// a test that fails again. The deltas, the quarantines and the sidecar (see
// Sidecar) are exactly those of handing settle the whole suite, which
// TestCompactMeasurementMatchesFullSuite checks against the unrestricted
// path on long random runs.
type CI struct {
	history       *settle.FlakyHistory
	measured      int // measurements so far
	full          bool
	before, after CIRun
}

// NewCI returns a CI with an empty sidecar (a repository that has not
// measured anything yet).
func NewCI() *CI {
	return &CI{history: settle.NewFlakyHistory(), before: CIRun{}, after: CIRun{}}
}

// newFullCI returns a CI that hands settle the whole suite every time: the
// reference the restricted path is tested against.
func newFullCI() *CI {
	c := NewCI()
	c.full = true
	return c
}

// window is the sidecar's history length.
func (c *CI) window() int {
	return settle.DefaultFlakyWindow
}

// Sidecar returns the flaky-quarantine sidecar as the action would commit
// it after the measurements so far, for a suite of world w.
func (c *CI) Sidecar(w *World) *settle.FlakyHistory {
	h := &settle.FlakyHistory{Tests: map[string][]bool{}}
	for id, hist := range c.history.Tests {
		h.Tests[id] = append([]bool(nil), hist...)
	}
	if c.measured > 0 && !c.full {
		for _, id := range w.TestIDs {
			if _, ok := h.Tests[id]; !ok {
				h.Tests[id] = c.allPass()
			}
		}
	}
	return h
}

// allPass is the history of a test that passed in every observation.
func (c *CI) allPass() []bool {
	n := min(2*c.measured, c.window())
	hist := make([]bool, n)
	for i := range hist {
		hist[i] = true
	}
	return hist
}

// Measure measures one merged PR of world w from the true per-test states
// at its base and head (true = passing) and the spurious reds of its two CI
// runs. The true states are used only to build the runs and to classify the
// transitions settle reports; the delta is settle's alone.
func (c *CI) Measure(w *World, base, head []bool, baseFlakes, headFlakes []int) Measurement {
	before, after := c.before, c.after
	clear(before)
	clear(after)
	include := func(i int) {
		id := w.TestIDs[i]
		if _, ok := before[id]; ok {
			return
		}
		if _, ok := c.history.Tests[id]; !ok && !c.full && c.measured > 0 {
			c.history.Tests[id] = c.allPass()
		}
		before[id], after[id] = junit.Passed, junit.Passed
		if !base[i] {
			before[id] = junit.Failed
		}
		if !head[i] {
			after[id] = junit.Failed
		}
	}
	for i := range base {
		if c.full || !base[i] || !head[i] {
			include(i)
		}
	}
	for _, i := range baseFlakes {
		include(i)
		before[w.TestIDs[i]] = junit.Failed
	}
	for _, i := range headFlakes {
		include(i)
		after[w.TestIDs[i]] = junit.Failed
	}
	for id := range c.history.Tests {
		include(w.testIndex[id])
	}
	// The order of settle.Measure for per-test results: record the
	// observations, then quarantine, then diff.
	c.history.Update(before, after)
	c.measured++
	if !c.full {
		for id, hist := range c.history.Tests {
			if !slices.Contains(hist, false) {
				delete(c.history.Tests, id)
			}
		}
	}
	q := c.history.Quarantined()
	t := settle.Diff(before, after, q)
	m := Measurement{Delta: float64(t.Delta), Quarantined: len(q)}
	if len(t.Improvements)+len(t.Regressions) == 0 {
		return m
	}
	quarantined := make(map[string]bool, len(q))
	for _, id := range q {
		quarantined[id] = true
	}
	for _, id := range t.Regressions {
		if !quarantined[id] {
			m.Regressions++
		}
	}
	classify := func(list []string, wasPassing bool) {
		for _, id := range list {
			i := w.testIndex[id]
			real := base[i] == wasPassing && head[i] != wasPassing
			switch {
			case real && quarantined[id]:
				m.GenuineQuarantined++
			case !real:
				m.Spurious++
				if quarantined[id] {
					m.SpuriousQuarantined++
				}
			}
		}
	}
	classify(t.Improvements, false)
	classify(t.Regressions, true)
	return m
}
