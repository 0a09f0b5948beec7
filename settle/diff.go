package settle

import (
	"maps"
	"slices"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

// Changes lists tests that appeared or disappeared between the two SHAs,
// split by their status on the side where they exist.
type Changes struct {
	Passing []string `json:"passing"`
	Failing []string `json:"failing"`
}

// Transitions is the per-test comparison of two runs (darwin-memo's
// diff_runs, newest version).
type Transitions struct {
	// Improvements failed before and pass after; Regressions the reverse.
	// Both lists are unfiltered: quarantined tests appear here too.
	Improvements []string `json:"improvements"`
	Regressions  []string `json:"regressions"`
	// Added and Removed are reported, never credited.
	Added   Changes `json:"added"`
	Removed Changes `json:"removed"`
	// Quarantined are the ids excluded from Delta as flaky across runs.
	Quarantined []string `json:"quarantined"`
	// Flaky are ids present at both SHAs that passed only on a rerun on at
	// least one side: unmeasured, never a transition.
	Flaky []string `json:"flaky"`
	// Compared counts ids measured (passed or failed) at both SHAs.
	Compared int `json:"compared"`
	// Delta = |Improvements \ Quarantined| - |Regressions \ Quarantined|.
	Delta int `json:"delta"`
}

// Diff compares per-test results at the before and after SHAs. Only ids
// present and measured at both sides can count; an id skipped or flaky on
// either side is ignored; ids on one side only go to Added or Removed and
// never count; quarantined ids are left out of Delta but kept in the lists.
// It is a pure function: the same inputs give the same, sorted output.
func Diff(before, after map[string]junit.Status, quarantined []string) Transitions {
	q := make(map[string]bool, len(quarantined))
	for _, id := range quarantined {
		q[id] = true
	}
	union := make(map[string]junit.Status, len(before)+len(after))
	maps.Copy(union, before)
	maps.Copy(union, after)
	t := Transitions{
		Improvements: []string{}, Regressions: []string{},
		Added:       Changes{Passing: []string{}, Failing: []string{}},
		Removed:     Changes{Passing: []string{}, Failing: []string{}},
		Quarantined: []string{}, Flaky: []string{},
	}
	for _, id := range slices.Sorted(maps.Keys(union)) {
		b, inB := before[id]
		a, inA := after[id]
		switch {
		case inB && inA:
			if b == junit.Flaky || a == junit.Flaky {
				t.Flaky = append(t.Flaky, id)
				continue
			}
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
		case inB:
			addChange(&t.Removed, id, b)
		case inA:
			addChange(&t.Added, id, a)
		}
	}
	t.Quarantined = append(t.Quarantined, slices.Sorted(maps.Keys(q))...)
	return t
}

func addChange(c *Changes, id string, s junit.Status) {
	switch s {
	case junit.Passed:
		c.Passing = append(c.Passing, id)
	case junit.Failed:
		c.Failing = append(c.Failing, id)
	}
}
