package action

import (
	"context"
	"errors"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
)

// SettleMeasurer returns the production Measurer built on settle.Measure.
func SettleMeasurer(policy ghapi.Policy) Measurer {
	return func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest) (Measurement, error) {
		return Measurement{}, errors.New("settle.Measure is not wired in yet")
	}
}
