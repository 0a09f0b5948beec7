package action

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Measurer measures one merged pull request: settle's Result as settle.Measure returns it (never
// nil without an error). The
// production measurer wraps settle.Measure (SettleMeasurer); tests may pass their own.
//
// history is the flaky-quarantine sidecar: the measurer records this measurement's
// observations into it and excludes quarantined tests; the runner saves it with the store.
type Measurer func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest, history *settle.FlakyHistory) (*settle.Result, error)

// measurement is what a pull request is settled with: settle's Result as the measurer gave
// it, or, for a pull request carried over from a discarded bot branch, the measurement that
// branch recorded (CI is not measured again: its results may have expired).
type measurement struct {
	*settle.Result
	carried *Processed // the carried-over pull request's record; nil when measured in this run
}

// delta is the CI pass delta the settlement applies.
func (m measurement) delta() float64 {
	if m.carried != nil {
		return *m.carried.Delta
	}
	return float64(m.Delta)
}

// source names where the results came from as the record and the evidence show it (for
// example "junit-artifacts", "junit-artifacts (pass counts)").
func (m measurement) source() string {
	if m.carried != nil {
		return m.carried.Source
	}
	if m.Mode == settle.PassCounts {
		return string(m.Source) + " (pass counts)"
	}
	return string(m.Source)
}

// commits are the commits compared.
func (m measurement) commits() (before, after string) {
	if m.carried != nil {
		return m.carried.Before, m.carried.After
	}
	return m.Before.SHA, m.After.SHA
}

// quarantined lists the flaky tests left out of the delta.
func (m measurement) quarantined() []string {
	if m.carried != nil {
		return m.carried.Quarantined
	}
	return m.Quarantined
}

// regressions is how many regressions the delta counts, quarantined tests left out: per-test
// results only, nil for pass counts and carried measurements. Stores with segregate_losses
// charge them apart.
func (m measurement) regressions() *float64 {
	if m.carried != nil || m.Outcome != settle.Measured || m.Mode != settle.PerTest {
		return nil
	}
	q := make(map[string]bool, len(m.Quarantined))
	for _, id := range m.Quarantined {
		q[id] = true
	}
	n := 0.0
	for _, id := range m.Regressions {
		if !q[id] {
			n++
		}
	}
	return &n
}

// url links to the evidence, if any.
func (m measurement) url() string {
	if m.carried == nil && len(m.Links) > 0 {
		return m.Links[0]
	}
	return ""
}

// fixed lists the tests that failed before and pass after (for the lesson encoder).
func (m measurement) fixed() []string {
	if m.carried != nil {
		return nil
	}
	return m.Improvements
}
