package settle

import (
	"maps"
	"slices"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

// Transitions is the per-test comparison of two runs (darwin-memo's
// diff_runs, newest version).
type Transitions struct {
	// Improvements failed before and pass after; Regressions the reverse.
	// Both lists are unfiltered: quarantined tests appear here too.
	Improvements []string `json:"improvements"`
	Regressions  []string `json:"regressions"`
	// Quarantined are the ids excluded from Delta as flaky across runs.
	Quarantined []string `json:"quarantined"`
	// Compared counts ids measured (passed or failed) at both SHAs.
	Compared int `json:"compared"`
	// Delta = |Improvements \ Quarantined| - |Regressions \ Quarantined|.
	Delta int `json:"delta"`
}

// Diff compares per-test results at the before and after SHAs. Only ids
// present and measured at both sides can count; an id skipped or flaky on
// either side is ignored, and ids on one side only (added and removed tests)
// never count; quarantined ids are left out of Delta but kept in the lists.
// It is a pure function: the same inputs give the same, sorted output.
func Diff(before, after map[string]junit.Status, quarantined []string) Transitions {
	q := make(map[string]bool, len(quarantined))
	for _, id := range quarantined {
		q[id] = true
	}
	t := Transitions{Improvements: []string{}, Regressions: []string{}, Quarantined: []string{}}
	for _, id := range slices.Sorted(maps.Keys(before)) {
		b, a := before[id], after[id]
		if !b.Measured() || !a.Measured() {
			continue
		}
		t.Compared++
		switch {
		case b == junit.Passed && a == junit.Failed:
			t.Regressions = append(t.Regressions, id)
			if !q[id] {
				t.Delta--
			}
		case b == junit.Failed && a == junit.Passed:
			t.Improvements = append(t.Improvements, id)
			if !q[id] {
				t.Delta++
			}
		}
	}
	t.Quarantined = append(t.Quarantined, slices.Sorted(maps.Keys(q))...)
	return t
}
