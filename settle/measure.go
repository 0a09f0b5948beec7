package settle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/google/go-github/v62/github"
)

// Outcome is the kind of answer Measure gives.
type Outcome string

// The three outcomes of a measurement.
const (
	// Measured: Delta is meaningful and backed by evidence.
	Measured Outcome = "measured"
	// Pending: CI at one of the SHAs is not complete, or GitHub could not
	// answer in time. Settle later; never guess.
	Pending Outcome = "pending"
	// Abstained: nothing measurable (no CI, zero tests, all skipped, a
	// collection error, expired artifacts). A missing count is never zero.
	Abstained Outcome = "abstained"
)

// Source names where the per-test results came from, best first.
type Source string

// The result sources, in order of preference.
const (
	SourceEnricoMi  Source = "enricomi-check-run" // (a) digest + "tests found" annotations
	SourceArtifacts Source = "junit-artifacts"    // (b) JUnit XML in workflow-run artifacts
	SourceReporter  Source = "reporter-check-run" // (c) dorny/test-reporter, mikepenz/action-junit-report
	SourceJobs      Source = "job-check-runs"     // (d) each job's conclusion
	SourceStatuses  Source = "commit-statuses"    // (e) combined commit status (external CI)
)

// Mode says how Delta was computed.
type Mode string

// The delta modes.
const (
	// PerTest: Delta = improvements - regressions over tests measured at
	// both SHAs (darwin-memo's newest settle-ci).
	PerTest Mode = "per-test"
	// PassCounts: only counts were available at one side; Delta = passes
	// after - passes before, used only when both sides ran the same number
	// of tests (otherwise added tests would be credited) .
	PassCounts Mode = "pass-counts"
)

// MaxWalkBack bounds the first-parent walk looking for a base commit with
// CI.
const MaxWalkBack = 10

// Options tune Measure. The zero value is the default behaviour.
type Options struct {
	// ArtifactName is a path.Match glob selecting the workflow artifacts
	// that hold JUnit XML; empty selects names containing test, junit or
	// report.
	ArtifactName string
	// History, when set, is the flaky-quarantine sidecar: a per-test
	// measurement records its observations into it (before quarantine is
	// computed, as darwin-memo does) and quarantined tests leave the delta.
	// The caller saves it afterwards.
	History *FlakyHistory
	// IgnoreRunID is a workflow run to ignore, with its job check runs:
	// pass GITHUB_RUN_ID so the run doing the measuring (still in progress,
	// and filed under the PR head for pull_request events) does not make
	// every measurement pending. 0 ignores none.
	IgnoreRunID int64
	// Download is the plain client for artifact redirect URLs. It must not
	// add credentials; nil means ghapi.NewDownloadClient.
	Download *http.Client
	// Limits bound artifact downloads; zero means DefaultLimits.
	Limits Limits
	// Bot names the lesson store's bot pull requests and the files they write: a walk for CI
	// may step past a commit one of them introduced (see BotPulls).
	Bot BotPulls
}

// BotPulls names the pull requests of the bot that keeps the lesson store: those from the
// branch Branch of the measured repository itself (only people with write access can push
// there). A walk for CI steps past a commit without CI that such a pull request introduced
// when the commit changes nothing but Paths (the store, its rendering, the flaky sidecar):
// test suites do not read them, so the commit cannot move a test, and a bot pull request merged
// without push CI (a path filter on the store's directory) does not make every later pull
// request abstain. A commit that changes any other file is another pull request's change, as
// ever. The zero value steps past no commit.
type BotPulls struct {
	Branch string
	Paths  []string
}

// Request names the merged pull request to measure.
type Request struct {
	Owner, Repo string
	// PR is the pull request as fetched, with PullRequests.Get or as an
	// item of PullRequests.List. List items follow
	// GitHub's pull-request-simple schema: they carry merged_at but no
	// merged and no commits; Measure decides "merged" from merged_at and
	// fetches the full pull request only when it needs its commit count.
	// Event payloads are not trusted for SHAs.
	PR *github.PullRequest
	Options
}

// Side is one of the two commits compared.
type Side struct {
	SHA string `json:"sha"`
}

// Result is a measurement and its evidence.
type Result struct {
	Outcome Outcome `json:"outcome"`
	// Reason explains a pending or abstained outcome (and notes how a
	// measured one was obtained).
	Reason string `json:"reason,omitempty"`
	// Final marks an abstention that measuring again cannot change: the
	// JUnit reports are over the per-commit caps (Limits.MaxCommitBytes,
	// Limits.MaxCases). Callers record it instead of retrying.
	Final bool `json:"final,omitempty"`
	// Delta is improvements - regressions (or the pass-count difference in
	// PassCounts mode). Zero unless Outcome is Measured.
	Delta  int    `json:"delta"`
	Mode   Mode   `json:"mode,omitempty"`
	Source Source `json:"source,omitempty"`
	Before Side   `json:"before"`
	After  Side   `json:"after"`
	// Transitions holds the per-test lists (empty in PassCounts mode).
	Transitions
	// URL is the pull request's page, the evidence a settlement records.
	URL string `json:"url,omitempty"`
	// Notes record what was skipped on the way (unsafe zip entries,
	// sources present at one SHA only, ...).
	Notes []string `json:"notes,omitempty"`
}

// OutcomeError ends a measurement early with a pending or abstained Outcome
// and its Reason; Final is Result.Final. Measure turns it into the Result;
// MergedOnto returns it when it cannot say what a pull request was merged
// onto: Abstained when the commits below the merge commit cannot be told to
// be the pull request's own (measuring abstains for the same reason),
// Pending when GitHub could not answer in time.
type OutcomeError struct {
	Outcome Outcome
	Reason  string
	Final   bool
}

func (e *OutcomeError) Error() string { return string(e.Outcome) + ": " + e.Reason }

func pending(format string, args ...any) error {
	return &OutcomeError{Outcome: Pending, Reason: fmt.Sprintf(format, args...)}
}

func abstain(format string, args ...any) error {
	return &OutcomeError{Outcome: Abstained, Reason: fmt.Sprintf(format, args...)}
}

// abstainFinal abstains for a reason that measuring again cannot change
// (results past the per-commit caps): Result.Final tells the caller.
func abstainFinal(format string, args ...any) error {
	return &OutcomeError{Outcome: Abstained, Reason: fmt.Sprintf(format, args...), Final: true}
}

// apiErr turns a GitHub error into a pending outcome when it is transient
// (rate limits, 5xx, timeouts) and otherwise wraps it with what was being
// done and, for permission errors, what to grant.
func apiErr(what string, err error) error {
	if ghapi.IsRateLimit(err) {
		return pending("%s: GitHub rate limit (%v); settle later", what, err)
	}
	if ghapi.IsTransient(err) {
		return pending("%s: GitHub did not answer (%v); settle later", what, err)
	}
	switch ghapi.StatusCode(err) {
	case http.StatusUnauthorized:
		return fmt.Errorf("%s: %w (the token is invalid or expired)", what, err)
	case http.StatusForbidden:
		return fmt.Errorf("%s: %w (grant the workflow `checks: read`, `actions: read`, `statuses: read` and `pull-requests: read`)", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Measure reads the CI pass delta of a merged pull request from the GitHub
// API: it picks the before and after SHAs, finds the best result source
// available at both, and compares them. A returned error means the request
// itself is wrong (an invalid token, a missing permission) or ctx was
// cancelled; everything about CI state is expressed as the Result's
// Outcome.
func Measure(ctx context.Context, client *github.Client, req Request) (*Result, error) {
	m := &measurer{gh: client, req: req, opts: req.Options, res: &Result{}}
	if m.opts.Limits == (Limits{}) {
		m.opts.Limits = DefaultLimits()
	}
	if m.opts.Download == nil {
		m.opts.Download = ghapi.NewDownloadClient(ghapi.Policy{})
	}
	// Delta, Mode and Transitions are set only once nothing can end the
	// measurement early: a pending or abstained Result leaves them zero.
	err := m.run(ctx)
	var oe *OutcomeError
	switch {
	case err == nil:
		m.res.Outcome = Measured
	case errors.As(err, &oe):
		m.res.Outcome, m.res.Reason, m.res.Final = oe.Outcome, oe.Reason, oe.Final
	case ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		m.res.Outcome = Pending
		m.res.Reason = "measuring took longer than allowed; settle later"
	default:
		return m.res, fmt.Errorf("settle: %s/%s#%d: %w", req.Owner, req.Repo, req.PR.GetNumber(), err)
	}
	return m.res, nil
}

type measurer struct {
	gh   *github.Client
	req  Request
	opts Options
	res  *Result

	pr    *github.PullRequest
	sides map[string]*sideCI
}

func (m *measurer) note(format string, args ...any) {
	m.res.Notes = append(m.res.Notes, fmt.Sprintf(format, args...))
}

func (m *measurer) run(ctx context.Context) error {
	if err := m.loadPR(); err != nil {
		return err
	}
	after, err := m.chooseAfter(ctx)
	if err != nil {
		return err
	}
	m.res.After.SHA = after.sha
	before, err := m.chooseBefore(ctx)
	if err != nil {
		return err
	}
	m.res.Before.SHA = before.sha
	if err := m.checkComplete(after, "after"); err != nil {
		return err
	}
	if err := m.checkComplete(before, "before"); err != nil {
		return err
	}
	return m.compare(ctx, before.ci, after.ci)
}

func (m *measurer) loadPR() error {
	pr := m.req.PR
	m.pr = pr
	m.res.URL = pr.GetHTMLURL()
	if !isMerged(pr) {
		return abstain("pull request #%d is not merged", pr.GetNumber())
	}
	if pr.GetHead().GetSHA() == "" {
		return abstain("pull request #%d has no head SHA", pr.GetNumber())
	}
	return nil
}

// isMerged decides "merged" from merged_at, which both the full pull request
// (GET /pulls/{n}) and list items (pull-request-simple, which has no merged
// field) carry; merged is only a second opinion.
func isMerged(pr *github.PullRequest) bool {
	return pr.MergedAt != nil && !pr.GetMergedAt().IsZero() || pr.GetMerged()
}

// commitCount returns the pull request's number of commits. Only the full
// pull request has it: for a list item the pull request is fetched once.
func (m *measurer) commitCount(ctx context.Context) (int, error) {
	if m.pr.Commits == nil {
		full, _, err := m.gh.PullRequests.Get(ctx, m.req.Owner, m.req.Repo, m.pr.GetNumber())
		if err != nil {
			return 0, apiErr(fmt.Sprintf("get pull request #%d", m.pr.GetNumber()), err)
		}
		if full.Commits == nil {
			return 0, fmt.Errorf("pull request #%d: GET /pulls/%d has no commits count", m.pr.GetNumber(), m.pr.GetNumber())
		}
		m.pr = full
	}
	return m.pr.GetCommits(), nil
}

// chosen is a SHA picked for one side with its CI.
type chosen struct {
	sha string
	ci  *sideCI
}

func (m *measurer) chooseAfter(ctx context.Context) (chosen, error) {
	head := m.pr.GetHead().GetSHA()
	ci, err := m.ciAt(ctx, head)
	if err != nil {
		return chosen{}, err
	}
	if ci.hasCI() {
		return chosen{head, ci}, nil
	}
	// Repositories whose CI runs only on push to the base branch have none
	// on the PR head; the merge commit's push CI is then the after side.
	if mc := m.pr.GetMergeCommitSHA(); mc != "" {
		mci, err := m.ciAt(ctx, mc)
		if err != nil {
			return chosen{}, err
		}
		if mci.hasCI() {
			return chosen{mc, mci}, nil
		}
	}
	return chosen{}, abstain("no CI ran on the head %s of #%d (no check runs or commit statuses)", short(head), m.pr.GetNumber())
}

// baseCandidate is a starting point for the before side.
type baseCandidate struct {
	sha, why string
}

// chooseBefore picks the base commit: the first parent of the merge commit
// (merge and squash), the commit before the rebased run (rebase), then
// base.sha, then the compare merge base; from each, walk first parents up
// to the bound until a commit has CI.
func (m *measurer) chooseBefore(ctx context.Context) (chosen, error) {
	first, err := m.mergeParent(ctx)
	if err != nil {
		return chosen{}, err
	}
	// The merge base, last, costs a request: it is asked for only when the others have no CI
	// in reach.
	cands := []baseCandidate{first, {m.pr.GetBase().GetSHA(), fmt.Sprintf("base.sha of #%d", m.pr.GetNumber())}, {}}
	tried := map[string]bool{}
	var misses []string
	for i := range cands {
		if i == len(cands)-1 {
			if cands[i], err = m.mergeBase(ctx); err != nil {
				return chosen{}, err
			}
		}
		c := cands[i]
		if c.sha == "" || tried[c.sha] {
			continue
		}
		tried[c.sha] = true
		got, err := m.walkForCI(ctx, c)
		if err != nil {
			return chosen{}, err
		}
		if got.sha != "" {
			return got, nil
		}
		misses = append(misses, fmt.Sprintf("no CI within %d first parents of %s (%s)", MaxWalkBack, short(c.sha), c.why))
	}
	if len(misses) == 0 {
		return chosen{}, abstain("no base commit: #%d has no merge commit parent, base.sha or merge base", m.pr.GetNumber())
	}
	return chosen{}, abstain("no base commit with CI: %s", strings.Join(misses, "; "))
}

// mergeParent finds the commit the PR was merged onto, detecting the
// merge method from the merge commit's parents.
func (m *measurer) mergeParent(ctx context.Context) (baseCandidate, error) {
	mc := m.pr.GetMergeCommitSHA()
	if mc == "" {
		m.note("no merge_commit_sha on #%d", m.pr.GetNumber())
		return baseCandidate{}, nil
	}
	c, _, err := m.gh.Git.GetCommit(ctx, m.req.Owner, m.req.Repo, mc)
	if err != nil {
		if ghapi.StatusCode(err) == http.StatusNotFound || ghapi.StatusCode(err) == http.StatusUnprocessableEntity {
			m.note("merge commit %s not found", short(mc))
			return baseCandidate{}, nil
		}
		return baseCandidate{}, apiErr("get merge commit "+short(mc), err)
	}
	parents := c.Parents
	switch {
	case len(parents) >= 2:
		return baseCandidate{parents[0].GetSHA(), fmt.Sprintf("first parent of merge commit %s (merge)", short(mc))}, nil
	case len(parents) == 0:
		m.note("merge commit %s has no parents", short(mc))
		return baseCandidate{}, nil
	}
	n, err := m.commitCount(ctx)
	if err != nil {
		return baseCandidate{}, err
	}
	if n <= 1 {
		return baseCandidate{parents[0].GetSHA(), fmt.Sprintf("parent of %s (squash or single-commit merge)", short(mc))}, nil
	}
	prCommits, err := m.prCommits(ctx, n)
	if err != nil {
		return baseCandidate{}, err
	}
	if len(prCommits) < n {
		// GitHub lists at most 250 commits of a pull request: a longer one's last commit is
		// not listed, so a squash cannot be told from a rebase, whose merge commit's parent is
		// the pull request's own commit. Its base is never one of its own commits.
		m.note("#%d has %d commits and GitHub lists %d, so its merge method cannot be told; using base.sha", m.pr.GetNumber(), n, len(prCommits))
		return baseCandidate{}, nil
	}
	squash := baseCandidate{parents[0].GetSHA(), fmt.Sprintf("parent of squashed commit %s (squash)", short(mc))}
	// The merge commit's words are at hand: a squash's differ from its last commit's.
	if !sameWords(c.GetMessage(), c.GetAuthor().GetName(), prCommits[n-1]) {
		return squash, nil
	}
	cur, same, err := m.sameChange(ctx, mc, prCommits[n-1])
	if err != nil || !same {
		return squash, err
	}
	// Rebase: the base branch moved through n rebased commits; walk n-1 more first parents,
	// each of which must replay the matching pull request commit.
	for k := n - 2; k >= 0; k-- {
		p := cur.Parents[0].GetSHA()
		next, same, err := m.sameChange(ctx, p, prCommits[k])
		if err != nil {
			return baseCandidate{}, err
		}
		if !same || len(next.Parents) != 1 {
			// Either a squash whose last commit matches, or commits copied: in doubt, abstain
			// (base.sha may be older than the commit the pull request was merged onto).
			return baseCandidate{}, abstain("%s replays #%d's last commit, but %s, below it, does not replay its commit %s: cannot tell a squash from a rebase, so not what #%d was merged onto",
				short(mc), m.pr.GetNumber(), short(p), short(prCommits[k].GetSHA()), m.pr.GetNumber())
		}
		cur = next
	}
	if len(cur.Parents) != 1 {
		return baseCandidate{}, nil
	}
	// Commits the base branch held before the merge can be copied, change and all, into the
	// pull request's first commits: the run is the pull request's only if GitHub says its oldest
	// commit was introduced by this pull request (every commit above it on the first-parent
	// chain then was too).
	prs, err := m.mergedPRsOf(ctx, cur.GetSHA())
	if err != nil {
		return baseCandidate{}, err
	}
	if !slices.ContainsFunc(prs, func(pr *github.PullRequest) bool { return pr.GetNumber() == m.pr.GetNumber() }) {
		return baseCandidate{}, abstain("the %d commits ending at %s replay #%d's, but GitHub says the oldest, %s, was introduced by %s, not #%d: not what #%d was merged onto",
			n, short(mc), m.pr.GetNumber(), short(cur.GetSHA()), prList(prs), m.pr.GetNumber(), m.pr.GetNumber())
	}
	return baseCandidate{cur.Parents[0].GetSHA(), fmt.Sprintf("parent of the %d rebased commits ending at %s (rebase)", n, short(mc))}, nil
}

// prCommits lists the PR's commits (oldest first), at most MaxListedCommits as GitHub
// serves.
func (m *measurer) prCommits(ctx context.Context, n int) ([]*github.RepositoryCommit, error) {
	opts := &github.ListOptions{PerPage: 100}
	var all []*github.RepositoryCommit
	for {
		cs, resp, err := m.gh.PullRequests.ListCommits(ctx, m.req.Owner, m.req.Repo, m.pr.GetNumber(), opts)
		if err != nil {
			return nil, apiErr(fmt.Sprintf("list commits of #%d", m.pr.GetNumber()), err)
		}
		all = append(all, cs...)
		if resp.NextPage == 0 || len(all) >= n {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

func (m *measurer) mergeBase(ctx context.Context) (baseCandidate, error) {
	base, head := m.pr.GetBase().GetRef(), m.pr.GetHead().GetSHA()
	if base == "" {
		return baseCandidate{}, nil
	}
	cmp, _, err := m.gh.Repositories.CompareCommits(ctx, m.req.Owner, m.req.Repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		if s := ghapi.StatusCode(err); s == http.StatusNotFound || s == http.StatusUnprocessableEntity {
			return baseCandidate{}, nil
		}
		return baseCandidate{}, apiErr("compare "+base+"..."+short(head), err)
	}
	sha := cmp.GetMergeBaseCommit().GetSHA()
	if sha == "" || sha == head {
		// Once a merge commit lands, the head is an ancestor of the base
		// branch and the merge base is the head itself: no base there.
		return baseCandidate{}, nil
	}
	return baseCandidate{sha, fmt.Sprintf("merge base of %s and the head (compare)", base)}, nil
}

// walkForCI returns the first commit with CI on the first-parent chain
// from c, within the walk-back bound.
func (m *measurer) walkForCI(ctx context.Context, c baseCandidate) (chosen, error) {
	sha := c.sha
	for step := 0; ; step++ {
		ci, err := m.ciAt(ctx, sha)
		if err != nil {
			return chosen{}, err
		}
		if ci.hasCI() {
			return chosen{sha, ci}, nil
		}
		if step >= MaxWalkBack {
			return chosen{}, nil
		}
		commit, _, err := m.gh.Git.GetCommit(ctx, m.req.Owner, m.req.Repo, sha)
		if err != nil {
			if ghapi.StatusCode(err) == http.StatusNotFound {
				return chosen{}, nil
			}
			return chosen{}, apiErr("walk first parents at "+short(sha), err)
		}
		if len(commit.Parents) == 0 {
			return chosen{}, nil
		}
		// Stepping past sha puts its change inside the measured interval: never another
		// merged pull request's (its fix would count as this one's). A commit no pull request
		// brought was pushed by someone with write access.
		prs, err := m.mergedPRsOf(ctx, sha)
		if err != nil {
			return chosen{}, err
		}
		if other := m.otherMerged(prs); other != nil {
			bot, err := m.botFilesOnly(ctx, sha, prs)
			if err != nil {
				return chosen{}, err
			}
			if bot {
				sha = commit.Parents[0].GetSHA()
				continue
			}
			// That pull request's own head may have tested exactly the code sha holds.
			got, lacks, err := m.sameTreeHead(ctx, commit, other)
			if err != nil || got.sha != "" {
				return got, err
			}
			return chosen{}, abstain("no CI at %s (%s); walking back for a commit with CI would pass %s, which #%d merged, and count its changes as #%d's (the head %s of #%d has %s)",
				short(c.sha), c.why, short(sha), other.GetNumber(), m.pr.GetNumber(), short(other.GetHead().GetSHA()), other.GetNumber(), lacks)
		}
		sha = commit.Parents[0].GetSHA()
	}
}

func (m *measurer) checkComplete(c chosen, side string) error {
	if inc := c.ci.incomplete(); len(inc) > 0 {
		sort.Strings(inc)
		return pending("CI at the %s SHA %s is not complete (%s); settle later", side, short(c.sha), strings.Join(inc, ", "))
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// MergedOnto returns the commit a merged pull request landed on, by the rule Measure uses for
// its before side: the first parent of a merge commit, the parent of a squashed commit, the
// parent of the run of rebased commits (a rebase of n commits lands n first parents below the
// merge commit), else the pull request's base.sha. pr may be a list item. An *OutcomeError
// says why it cannot tell.
func MergedOnto(ctx context.Context, client *github.Client, owner, repo string, pr *github.PullRequest) (string, error) {
	m := &measurer{gh: client, req: Request{Owner: owner, Repo: repo, PR: pr}, pr: pr, res: &Result{}}
	c, err := m.mergeParent(ctx)
	if err != nil {
		return "", err
	}
	if c.sha == "" {
		return pr.GetBase().GetSHA(), nil
	}
	return c.sha, nil
}
