package action

import (
	"context"
	"net/http"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/settle"
)

// SettleMeasurer returns the production Measurer: settle.Measure with the artifact filter,
// ignoring the workflow run the action itself runs in (still in progress while it measures),
// and downloading artifacts with download (nil: settle's default credential-free client).
func SettleMeasurer(artifactName string, runID int64, download *http.Client) Measurer {
	return func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest, hist *settle.FlakyHistory) (*settle.Result, error) {
		opts := settle.Options{ArtifactName: artifactName, History: hist, Download: download}
		if runID != 0 {
			opts.IgnoreRunIDs = []int64{runID}
		}
		return settle.Measure(ctx, client, settle.Request{Owner: owner, Repo: repo, Number: pr.GetNumber(), PR: pr, Options: opts})
	}
}
