package settle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Every injected fault must end in retry-then-success with the same delta
// as without the fault, or in a clean pending/abstained: never a wrong
// delta.
func TestFaults(t *testing.T) {
	enrico := func(t *testing.T) ghfake.Repo {
		commits, pr := graph("merge")
		return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
			job(b1, "test", "failure"), enricoBroken(t, b1), job(head, "test", "success"), enricoFixed(t, head),
		}}
	}
	artifacts := func(t *testing.T) ghfake.Repo {
		return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
	}
	far := time.Now().Add(time.Hour)
	tests := []struct {
		name    string
		repo    func(*testing.T) ghfake.Repo
		fault   ghfake.Fault
		policy  ghapi.Policy
		timeout time.Duration
		outcome settle.Outcome
		source  settle.Source
		reason  string
	}{
		{name: "5xx on check runs, retried", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteCheckRuns, Kind: ghfake.ServerError, Times: 2},
			outcome: settle.Measured, source: settle.SourceEnricoMi},
		{name: "5xx everywhere for a while", repo: enrico, fault: ghfake.Fault{Kind: ghfake.ServerError, Times: 3},
			outcome: settle.Measured, source: settle.SourceEnricoMi},
		{name: "persistent 5xx on annotations: pending", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteAnnotations, Kind: ghfake.ServerError, Times: -1},
			outcome: settle.Pending, reason: "did not answer"},
		{name: "429 on annotations, retried", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteAnnotations, Kind: ghfake.TooManyRequests, RetryAfter: 2},
			outcome: settle.Measured, source: settle.SourceEnricoMi},
		{name: "429 beyond the wait limit: pending", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteAnnotations, Kind: ghfake.TooManyRequests, RetryAfter: 3600},
			outcome: settle.Pending, reason: "rate limit"},
		{name: "secondary rate limit on the PR, retried", repo: enrico, fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.SecondaryRateLimit, RetryAfter: 30},
			outcome: settle.Measured, source: settle.SourceEnricoMi},
		{name: "secondary rate limit beyond the wait: pending", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteGitCommit, Kind: ghfake.SecondaryRateLimit, RetryAfter: 900},
			outcome: settle.Pending, reason: "rate limit"},
		{name: "primary rate limit until far reset: pending", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteCheckRuns, Kind: ghfake.PrimaryRateLimit, Reset: far},
			outcome: settle.Pending, reason: "rate limit"},
		{name: "primary rate limit resetting now, retried", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteCheckRuns, Kind: ghfake.PrimaryRateLimit, Reset: time.Now().Add(-time.Second)},
			outcome: settle.Measured, source: settle.SourceEnricoMi},
		{name: "slow check runs, attempt timeout then retry", repo: enrico, fault: ghfake.Fault{Route: ghfake.RouteCheckRuns, Kind: ghfake.Slow, Delay: 3 * time.Second},
			policy: ghapi.Policy{AttemptTimeout: 150 * time.Millisecond}, outcome: settle.Measured, source: settle.SourceEnricoMi},
		{name: "everything slow past the deadline: pending", repo: enrico, fault: ghfake.Fault{Kind: ghfake.Slow, Delay: 3 * time.Second, Times: -1},
			timeout: 300 * time.Millisecond, outcome: settle.Pending, reason: "settle later"},
		{name: "5xx on workflow runs, retried", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteWorkflowRuns, Kind: ghfake.ServerError},
			outcome: settle.Measured, source: settle.SourceArtifacts},
		{name: "truncated zip once: downloaded again", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteBlob, Kind: ghfake.TruncatedZip},
			outcome: settle.Measured, source: settle.SourceArtifacts},
		{name: "truncated zip always: pending", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteBlob, Kind: ghfake.TruncatedZip, Times: -1},
			outcome: settle.Pending, reason: "downloaded whole"},
		{name: "blob storage 503, retried", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteBlob, Kind: ghfake.ServerError, Times: 2},
			outcome: settle.Measured, source: settle.SourceArtifacts},
		{name: "slow blob, retried", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteBlob, Kind: ghfake.Slow, Delay: 3 * time.Second},
			policy: ghapi.Policy{AttemptTimeout: 150 * time.Millisecond}, outcome: settle.Measured, source: settle.SourceArtifacts},
		{name: "expired artifact (410): job-level fallback", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteArtifactZip, Kind: ghfake.Gone, Times: -1},
			outcome: settle.Measured, source: settle.SourceJobs},
		{name: "5xx on the artifact redirect: retried", repo: artifacts, fault: ghfake.Fault{Route: ghfake.RouteArtifactZip, Kind: ghfake.ServerError},
			outcome: settle.Measured, source: settle.SourceArtifacts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The merged pull request as the action's event gives it: read where no fault
			// applies, so that a fault on every route slows only the measurement.
			calmSrv := ghfake.New(t, tt.repo(t))
			calm, _ := calmSrv.NewClient(fastPolicy)
			pr := mergedPR(t, calm)
			repo := tt.repo(t)
			repo.Faults = []ghfake.Fault{tt.fault}
			srv := ghfake.New(t, repo)
			p := tt.policy
			p.Sleep = ghfake.NoSleep
			client, _ := srv.NewClient(p)
			dl := ghapi.NewDownloadClient(p)
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			res, err := settle.Measure(ctx, client, settle.Request{Owner: "o", Repo: "r", PR: pr, Options: settle.Options{Download: dl}})
			if err != nil {
				t.Fatalf("Measure: %v", err)
			}
			if n := calmSrv.Total(); n != 1 {
				t.Fatalf("the fault-free server answered %d requests; the measurement must ask only the faulty one", n)
			}
			if res.Outcome != tt.outcome {
				t.Fatalf("Outcome = %s (%q), want %s", res.Outcome, res.Reason, tt.outcome)
			}
			switch res.Outcome {
			case settle.Measured:
				wantDelta := 1
				if res.Source != tt.source || res.Delta != wantDelta {
					t.Errorf("source %s delta %d, want %s %d", res.Source, res.Delta, tt.source, wantDelta)
				}
			default:
				if res.Delta != 0 || len(res.Improvements)+len(res.Regressions) != 0 {
					t.Errorf("%s result carries a delta: %+v", res.Outcome, res)
				}
				if !strings.Contains(res.Reason, tt.reason) {
					t.Errorf("Reason = %q, want it to mention %q", res.Reason, tt.reason)
				}
				if strings.Contains(res.Reason, ghfake.Token) || strings.Contains(res.Reason, "sig=") {
					t.Errorf("Reason leaks a credential: %q", res.Reason)
				}
			}
		})
	}
}

// A typical merged PR takes at most 15 requests whatever the source.
func TestRequestBound(t *testing.T) {
	cases := map[string]func(*testing.T) ghfake.Repo{
		"enricomi": func(t *testing.T) ghfake.Repo {
			commits, pr := graph("merge")
			return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{
				job(b1, "test", "failure"), enricoBroken(t, b1), job(head, "test", "success"), enricoFixed(t, head),
			}}
		},
		"artifacts": func(t *testing.T) ghfake.Repo {
			return artifactRepo(t, readTestdata(t, "junit", "pytest-failure-skipped.enricomi.xml"), pytestFixed(t))
		},
		"rebase of two commits with jobs": func(t *testing.T) ghfake.Repo {
			commits, pr := graph("rebase")
			return ghfake.Repo{Commits: commits, Pulls: []ghfake.PullRequest{pr}, CheckRuns: []ghfake.CheckRun{job(b1, "test", "failure"), job(head, "test", "success")}}
		},
	}
	for name, repo := range cases {
		t.Run(name, func(t *testing.T) {
			res, srv := measure(t, repo(t), settle.Options{})
			if res.Outcome != settle.Measured {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
			}
			total := srv.Total() + srv.Count(ghfake.RouteBlob)
			if total > 15 {
				t.Errorf("requests: server %d (%v); want <= 15", total, srv.Counts())
			}
		})
	}
}
