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
	return func(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest, hist *settle.FlakyHistory) (Measurement, error) {
		opts := settle.Options{ArtifactName: artifactName, History: hist, Download: download}
		if runID != 0 {
			opts.IgnoreRunIDs = []int64{runID}
		}
		res, err := settle.Measure(ctx, client, settle.Request{Owner: owner, Repo: repo, Number: pr.GetNumber(), PR: pr, Options: opts})
		if err != nil {
			return Measurement{}, err
		}
		m := Measurement{
			Outcome: res.Outcome, Delta: float64(res.Delta), Source: string(res.Source),
			Before: res.Before.SHA, After: res.After.SHA, Quarantined: res.Quarantined, Reason: res.Reason, Final: res.Final,
			Fixed: res.Improvements,
		}
		if res.Outcome == settle.Measured && res.Mode == settle.PerTest {
			q := make(map[string]bool, len(res.Quarantined))
			for _, id := range res.Quarantined {
				q[id] = true
			}
			n := 0.0
			for _, id := range res.Regressions {
				if !q[id] {
					n++
				}
			}
			m.Regressions = &n
		}
		if res.Mode == settle.PassCounts {
			m.Source += " (pass counts)"
		}
		if len(res.Links) > 0 {
			m.URL = res.Links[0]
		}
		if res.Outcome == settle.Measured && res.Compared == 0 && res.Mode == settle.PerTest {
			m.Reason = "no test was measured at both commits"
		}
		return m, nil
	}
}
