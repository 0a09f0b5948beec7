package action

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Results of a run, as the `result` output reports them.
const (
	ResultSettled   = "settled"
	ResultPending   = "pending"
	ResultAbstained = "abstained"
	ResultNoop      = "noop"
)

// Runner reconciles merged pull requests into the lesson store and the bot pull request.
type Runner struct {
	Client *github.Client
	Config Config
	// Owner, Repo name the repository; RepoURL is its web address; RunURL the run's.
	Owner, Repo     string
	RepoURL, RunURL string
	// RunID identifies the workflow run in evidence ("12345:1").
	RunID string
	// Measure measures a merged pull request's CI delta.
	Measure Measurer
	// Encoder turns merged pull requests into lessons. It must check every author against the
	// trusted associations (WithTrustedAssociations).
	Encoder *encode.Encoder
	// Now is the clock for timestamps the store writes and for wait-for-ci.
	Now func() time.Time
	// Sleep waits while CI is pending; tests inject one that advances Now.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logf prints one progress line (the runner log).
	Logf func(format string, args ...any)
	// Rate reports the core rate limit left. A run stops taking on merged pull requests when
	// too little is left to process one and write the bot pull request; those wait for a
	// later run.
	Rate func() ghapi.Rate
	// FileLimits bound the files written to the bot branch (zero: GitHub's).
	FileLimits FileLimits

	// mainBlob is the store on the base branch's tip as read in this run, by blob sha: the
	// store at a merged pull request's base is usually the same blob, read and loaded once.
	// Its bytes are kept while the run loads its stores (doc is nil after).
	mainBlob struct {
		sha string
		doc []byte
	}
}

// Outcome is what a run did.
type Outcome struct {
	Result         string
	Delta          float64
	SettledTickets int
	Births, Deaths int
	PRNumber       int
	Operation      botpr.Operation
	// Report is the bot pull request's report (also the step summary).
	Report report.Report
	// Processed lists the pull requests finished in this run, in merge order.
	Processed []int
	// Queued lists pull requests left for a later run (CI pending).
	Queued []int
	// Abstained lists pull requests whose CI was not measurable (left untouched).
	Abstained []int
	// Requests and Retries count the GitHub API requests of the run; Rate is the core rate
	// limit left after it (set by Main).
	Requests, Retries int64
	Rate              ghapi.Rate
}

// Headline is a one-line description of the outcome for the step summary.
func (o *Outcome) Headline() string {
	switch o.Result {
	case ResultSettled:
		return fmt.Sprintf("settled %d ticket(s), delta %s", o.SettledTickets, strconv.FormatFloat(o.Delta, 'g', -1, 64))
	case ResultPending:
		return "CI pending; pull requests stay queued"
	case ResultAbstained:
		return "abstained; nothing measurable"
	}
	return "nothing to settle"
}

func (r *Runner) repoAPI() botpr.Repo {
	return botpr.Repo{Client: r.Client, Owner: r.Owner, Name: r.Repo, Sleep: r.Sleep}
}

// state is the store the run starts from.
type state struct {
	base      string // base branch name
	baseTip   string
	mainDoc   []byte // store on the base branch (nil if absent), while load runs
	mainFound bool   // the base branch has a store
	mainStore *lessons.Store
	mainRec   Record
	// botRec is the record of the open bot pull request's store (nil when none is open or it
	// does not read): the bot's own held readings (checkHeld).
	botRec   *Record
	open     *github.PullRequest
	store    *lessons.Store
	rec      Record
	warnings []string
	// flaky is the flaky-quarantine sidecar the run measures with and records into; nil until
	// first needed (flakyHistory). flakyRef is the commit it is read at: the open bot pull
	// request's head when the run starts from its store, else "" (the base of oldest).
	flaky      *settle.FlakyHistory
	flakyRef   string
	flakyFound bool // the sidecar existed where it was read
	// oldest is the run's first pull request in merge order: every pull request the run
	// settles merged after the commit it was merged onto.
	oldest *github.PullRequest
	// oldestOnto is the commit oldest was merged onto, once its tickets' verification walked
	// back to it (storeAtBase); "" until then.
	oldestOnto string
	// persist is set when the record gained something that must be written even without a
	// lesson-level change: a final abstention, which would otherwise be measured again.
	persist bool
	// reapply holds the records of pull requests a discarded bot branch had processed and the
	// base branch has not: they are settled again with the recorded delta and tickets.
	reapply map[int]Processed
	// closedBranch is set when the bot branch of a closed pull request was read and its work
	// carried over.
	closedBranch bool
	// trig is the run's trigger (its payload's body is the merge-time body of its pull request).
	trig Trigger
}

// Run reconciles every merged pull request not processed yet and publishes the bot pull
// request. It writes nothing until every read succeeded, and moves the bot branch in one
// request, so a failure never leaves a half-written branch.
func (r *Runner) Run(ctx context.Context, trig Trigger) (*Outcome, error) {
	st, err := r.load(ctx, trig)
	var spent budgetSpent
	if errors.As(err, &spent) {
		r.Logf("%s", spent)
		return &Outcome{Result: ResultNoop, Operation: botpr.OpNone,
			Report: report.Report{RepoURL: r.RepoURL, RunURL: r.RunURL, StorePath: r.Config.StorePath, Warnings: []string{string(spent)}}}, nil
	}
	if err != nil {
		return nil, err
	}
	st.trig = trig
	out := &Outcome{Result: ResultNoop, Operation: botpr.OpNone}
	prs, err := r.candidates(ctx, st, trig)
	if err != nil {
		return nil, err
	}
	if len(prs) > 0 {
		st.oldest = prs[0]
	}
	before := livingIDs(st.store)
	for i, pr := range prs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		low, why := r.budgetLow()
		if !low {
			err := r.process(ctx, st, pr, out)
			var queued budgetQueued
			if !errors.As(err, &queued) {
				if err != nil {
					return nil, err
				}
				continue
			}
			why = string(queued)
		}
		// The rate limit left cannot cover this pull request: it and the rest wait.
		var left []string
		for _, rest := range prs[i:] {
			st.rec.queue(rest.GetNumber())
			r.holdReading(st, rest)
			out.Queued = append(out.Queued, rest.GetNumber())
			left = append(left, fmt.Sprintf("#%d", rest.GetNumber()))
		}
		st.warnings = append(st.warnings, fmt.Sprintf("%s: %s wait for a later run", why, strings.Join(left, ", ")))
		r.Logf("%s; queued %s", why, strings.Join(left, ", "))
		break
	}
	out.Births, out.Deaths = bornAndDied(before, st.store)
	switch {
	case out.SettledTickets > 0:
		out.Result = ResultSettled
	case len(out.Queued) > 0:
		out.Result = ResultPending
	case len(out.Abstained) > 0:
		out.Result = ResultAbstained
	}
	if w := extinctionWarning(out.Deaths, len(before)); w != "" {
		st.warnings = append(st.warnings, w)
	}
	if st.rec.holdsBeyond(st.mainRec) {
		st.persist = true
	}
	return out, r.publish(ctx, st, out)
}
