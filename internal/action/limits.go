package action

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// GitHub's limits the action works within, and the store size it supports (docs/action.md,
// "GitHub's limits").
const (
	// FileWarnSize: GitHub warns about files over 50 MB on push. A store under it is the
	// supported size: about 30,000 lessons with their history notes.
	FileWarnSize = 50 << 20
	// FileMaxSize: GitHub refuses files over 100 MB, and the Git blobs API serves blobs up
	// to 100 MB.
	FileMaxSize = 100 << 20
	// StoreNearSize: a store over 40 MB nears the supported size, and the bot pull request
	// says so.
	StoreNearSize = 40 << 20
	// supportedLessons is the supported size in lessons with history, as the warnings say it.
	supportedLessons = "about 30,000 lessons with history"

	// RequestsPerPR bounds the API requests one merged pull request costs a run: reading it
	// and its base store (3), measuring its CI (the pull request, the merge commit, check
	// runs, workflow runs, artifacts and their downloads at both commits, with paging: 12 in
	// the common case, 24 here to allow paging and walking back past commits without CI),
	// and collecting it for the encoder (4). The walk over a rebase merge's replayed commits,
	// which grows with them, is budgeted apart (walkBudget, settle.WalkRequests).
	RequestsPerPR = 31
	// RequestsReserve is kept back for the run's own writes (the bot branch commit and the
	// bot pull request: at most 9 requests) plus slack.
	RequestsReserve = 15
)

// FileLimits are the file sizes the bot branch may hold; zero fields take GitHub's, and
// StoreNearSize for Near (the store alone).
type FileLimits struct {
	Near, Warn, Max int
}

func (l FileLimits) withDefaults() FileLimits {
	if l.Near <= 0 {
		l.Near = StoreNearSize
	}
	if l.Warn <= 0 {
		l.Warn = FileWarnSize
	}
	if l.Max <= 0 {
		l.Max = FileMaxSize
	}
	return l
}

// checkSizes refuses, before any branch or pull request is written, a file GitHub would
// refuse, and warns in the bot pull request about one over the supported size (GitHub's
// warning size) and about a store nearing it.
func (r *Runner) checkSizes(st *state, files map[string][]byte) error {
	l := r.FileLimits.withDefaults()
	const prune = "remove dead lessons from the graveyard (and old history notes) by hand on the base branch; the bot keeps a person's deletions (docs/merge.md)"
	for _, name := range slices.Sorted(maps.Keys(files)) {
		n := len(files[name])
		switch {
		case n > l.Max:
			return fmt.Errorf("%s would be %s, over GitHub's %s file limit: nothing was written. To shrink it, %s, then rerun", name, mb(n), mb(l.Max), prune)
		case n > l.Warn:
			st.warnings = append(st.warnings, fmt.Sprintf("%s is %s, over the supported size (under %s, %s): GitHub warns about files this large and refuses files over %s. To shrink it, %s", name, mb(n), mb(l.Warn), supportedLessons, mb(l.Max), prune))
		case n > l.Near && name == r.Config.StorePath:
			st.warnings = append(st.warnings, fmt.Sprintf("%s is %s, nearing the supported size (under %s, %s; GitHub refuses files over %s). To keep it there, %s", name, mb(n), mb(l.Warn), supportedLessons, mb(l.Max), prune))
		}
	}
	return nil
}

func mb(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// budgetLow reports whether the core rate limit left is too small to process one more merged
// pull request and still write the bot pull request; why says so for the report.
func (r *Runner) budgetLow() (bool, string) {
	rt := r.Rate()
	if !rt.Known || rt.Remaining >= RequestsPerPR+RequestsReserve {
		return false, ""
	}
	return true, fmt.Sprintf("GitHub API budget low: %d of %d requests left until %s (a merged pull request may take %d, the bot pull request %d)",
		rt.Remaining, rt.Limit, rt.Reset.UTC().Format(time.TimeOnly+" UTC"), RequestsPerPR, RequestsReserve)
}

// walkBudget reports, for a merged pull request whose tickets are about to be verified and
// measured, why the core rate limit left cannot also cover the walk to the commit it landed on
// ("" when it can): a rebase merge of n commits is walked commit by commit (settle.WalkRequests,
// over 200 requests for GitHub's 100-commit maximum), which RequestsPerPR does not cover. The
// pull request's commit count is read (GET /pulls/{n}, which the measurement reads anyway) only
// when the longest walk would not fit.
func (r *Runner) walkBudget(ctx context.Context, pr *github.PullRequest) (string, error) {
	need := func(commits int) int { return RequestsPerPR + settle.WalkRequests(commits) + RequestsReserve }
	rt := r.Rate()
	if !rt.Known || rt.Remaining >= need(settle.MaxListedCommits) {
		return "", nil
	}
	if pr.Commits == nil {
		full, _, err := r.Client.PullRequests.Get(ctx, r.Owner, r.Repo, pr.GetNumber())
		if err != nil {
			return "", botpr.Explain(fmt.Errorf("reading pull request #%d: %w", pr.GetNumber(), err), "pull-requests")
		}
		pr, rt = full, r.Rate()
	}
	if rt.Remaining >= need(pr.GetCommits()) {
		return "", nil
	}
	return fmt.Sprintf("GitHub API budget low: %d of %d requests left until %s (#%d's walk back over its %d commits may take %d, the rest of it %d, the bot pull request %d)",
		rt.Remaining, rt.Limit, rt.Reset.UTC().Format(time.TimeOnly+" UTC"), pr.GetNumber(), pr.GetCommits(), settle.WalkRequests(pr.GetCommits()), RequestsPerPR, RequestsReserve), nil
}

// budgetQueued stops processing at a merged pull request the rate limit left cannot cover; it
// and the ones after it are queued for a later run.
type budgetQueued string

func (b budgetQueued) Error() string { return string(b) }

// RequestsPerRun bounds what a run costs beyond its merged pull requests: reading the store,
// the flaky sidecar, the recent merges and the open bot pull request with its store (at most
// 10), the bot pull request merged last with its record when the base branch's record holds a
// held reading (2, checkHeld), and writing the bot branch and pull request (at most 9).
const RequestsPerRun = 21

// budgetSpent stops a run that cannot afford to read the store and write the bot pull request.
type budgetSpent string

func (b budgetSpent) Error() string { return string(b) }

// startBudget checks, after the run's first request (the base branch ref), the rate limit that
// answer reported: with fewer than RequestsPerRun + RequestsReserve left the run reads and
// writes nothing more (a later run reconciles every merge this one skipped), so it never
// fails half-way on the limit. No rate-limit headers (GitHub Enterprise Server with rate
// limiting off) lets the run go ahead.
func (r *Runner) startBudget() string {
	rt := r.Rate()
	if !rt.Known || rt.Remaining >= RequestsPerRun+RequestsReserve {
		return ""
	}
	return fmt.Sprintf("GitHub API budget nearly spent: %d of %d requests left until %s; this run stops here, and the next run after the reset reconciles every merge it skipped",
		rt.Remaining, rt.Limit, rt.Reset.UTC().Format(time.TimeOnly+" UTC"))
}

// apiUsage is the step summary's line on the requests the run made.
func apiUsage(o *Outcome) string {
	s := fmt.Sprintf("GitHub API: %d request(s) in this run (%d retried)", o.Requests, o.Retries)
	if o.Rate.Known {
		s += fmt.Sprintf("; %d of %d left until %s", o.Rate.Remaining, o.Rate.Limit, o.Rate.Reset.UTC().Format(time.TimeOnly+" UTC"))
	}
	return s + "."
}
