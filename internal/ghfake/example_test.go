package ghfake_test

import (
	"context"
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

func ExampleNewServer() {
	srv := ghfake.NewServer(ghfake.Repo{
		Pulls: []ghfake.PullRequest{{Number: 7, Merged: true, HeadSHA: ghfake.SHA("head"), MergeCommitSHA: ghfake.SHA("merge")}},
		// The first request for the PR fails with 502; the client retries.
		Faults: []ghfake.Fault{{Route: ghfake.RoutePull, Kind: ghfake.ServerError}},
	})
	defer srv.Close()
	client, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	pr, _, err := client.PullRequests.Get(context.Background(), "o", "r", 7)
	fmt.Println(pr.GetMerged(), pr.GetMergeCommitSHA() == ghfake.SHA("merge"), err)
	fmt.Println("requests:", srv.Count(ghfake.RoutePull))
	// Output:
	// true true <nil>
	// requests: 2
}
