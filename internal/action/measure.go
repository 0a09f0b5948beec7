package action

import (
	"context"
	"math"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Measurer measures one merged pull request: settle's Result as settle.Measure returns it (never
// nil without an error). The production measurer wraps settle.Measure (SettleMeasurer); tests
// may pass their own.
//
// history is the flaky-quarantine sidecar: the measurer records this measurement's
// observations into it and excludes quarantined tests; the runner saves it with the store.
type Measurer func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest, history *settle.FlakyHistory) (*settle.Result, error)

// SettleMeasurer returns the production Measurer: settle.Measure with the artifact filter,
// ignoring the workflow run the action itself runs in (still in progress while it measures).
// bot names the action's own pull requests and the files they write, which a walk for CI may
// step past (settle.BotPulls).
func SettleMeasurer(artifactName string, runID int64, bot settle.BotPulls) Measurer {
	return func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest, hist *settle.FlakyHistory) (*settle.Result, error) {
		opts := settle.Options{ArtifactName: artifactName, History: hist, Bot: bot, IgnoreRunID: runID}
		return settle.Measure(ctx, client, settle.Request{Owner: owner, Repo: repo, PR: pr, Options: opts})
	}
}

// carriedResult is the measurement a discarded bot branch recorded for a pull request it
// processed, which is settled again with it (CI is not measured again: its results may have
// expired); nil when it recorded none, or a delta that is not a whole number of tests (the
// pull request is then measured again). Its mode is neither settle's PerTest nor PassCounts:
// the recorded source already says which, and no regression count is recorded.
func carriedResult(p Processed) *settle.Result {
	if p.Delta == nil || *p.Delta != math.Trunc(*p.Delta) || math.Abs(*p.Delta) > 1e9 {
		return nil
	}
	res := &settle.Result{Outcome: settle.Measured, Delta: int(*p.Delta), Source: settle.Source(p.Source),
		Before: settle.Side{SHA: p.Before}, After: settle.Side{SHA: p.After}}
	res.Quarantined = p.Quarantined
	return res
}

// resultSource names where the results came from as the record and the evidence show it (for
// example "junit-artifacts", "junit-artifacts (pass counts)").
func resultSource(m *settle.Result) string {
	if m.Mode == settle.PassCounts {
		return string(m.Source) + " (pass counts)"
	}
	return string(m.Source)
}

// regressions is how many regressions the delta counts, quarantined tests left out: per-test
// results only, nil for pass counts and carried measurements. Stores with segregate_losses
// charge them apart.
func regressions(m *settle.Result) *float64 {
	if m.Outcome != settle.Measured || m.Mode != settle.PerTest {
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
