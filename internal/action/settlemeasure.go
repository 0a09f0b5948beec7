package action

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/settle"
)

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
