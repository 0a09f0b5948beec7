package action

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Measurement outcomes: settle's, typed.
const (
	Measured  = settle.Measured
	Pending   = settle.Pending
	Abstained = settle.Abstained
)

// Measurement is a merged pull request's CI pass delta as the action needs it.
type Measurement struct {
	// Outcome is Measured, Pending or Abstained.
	Outcome settle.Outcome
	// Delta is improvements minus regressions of shared tests (Measured only).
	Delta float64
	// Regressions is how many regressions Delta counts, quarantined tests left out (per-test
	// results only; nil for pass counts). Stores with segregate_losses charge them apart.
	Regressions *float64
	// Source names where the results came from (for example "junit-artifacts").
	Source string
	// Before and After are the commits compared.
	Before, After string
	// Quarantined lists flaky tests excluded from the delta.
	Quarantined []string
	// Fixed lists tests that failed before and pass after (for the lesson encoder).
	Fixed []string
	// Reason says why the outcome is pending or abstained.
	Reason string
	// Final marks an abstention that measuring again cannot change (CI results past the
	// per-commit caps): the pull request is recorded as processed instead of retried.
	Final bool
	// URL links to the evidence, if any.
	URL string
}

// Measurer measures one merged pull request. The production measurer wraps settle.Measure;
// tests may pass their own.
//
// history is the flaky-quarantine sidecar: the measurer records this measurement's
// observations into it and excludes quarantined tests; the runner saves it with the store.
type Measurer func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest, history *settle.FlakyHistory) (Measurement, error)
