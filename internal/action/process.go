package action

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// candidates lists the merged pull requests to process in merge order: the recently merged
// ones inside the lookback window, the one the event names, and those queued by earlier runs,
// minus those already processed and the bot's own.
func (r *Runner) candidates(ctx context.Context, st *state, trig Trigger) ([]*github.PullRequest, error) {
	list, _, err := r.Client.PullRequests.List(ctx, r.Owner, r.Repo, &github.PullRequestListOptions{
		State: "closed", Base: st.base, Sort: "updated", Direction: "desc",
		ListOptions: github.ListOptions{PerPage: r.Config.Lookback},
	})
	if err != nil {
		return nil, botpr.Explain(fmt.Errorf("listing recently merged pull requests: %w", err), "pull-requests")
	}
	byNum := map[int]*github.PullRequest{}
	// When the record is full (its oldest entries were dropped), a pull request merged before
	// the oldest one it still holds may have been processed already: skip it rather than
	// risk settling it twice.
	oldest, full := st.rec.horizon()
	lost := map[int]bool{}
	keep := func(pr *github.PullRequest) {
		n := pr.GetNumber()
		if pr.MergedAt == nil || pr.GetBase().GetRef() != st.base || r.botsOwn(pr) || st.rec.has(n) {
			return
		}
		if full && mergedBefore(Processed{PR: n, MergedAt: pr.GetMergedAt().UTC().Format(time.RFC3339)}, oldest) {
			if _, carried := st.reapply[n]; carried && !lost[n] {
				lost[n] = true
				st.warnings = append(st.warnings, fmt.Sprintf("#%d was settled on the discarded bot branch but merged before the oldest pull request the base branch's full record holds (#%d); it is not settled again", n, oldest.PR))
			}
			return
		}
		byNum[n] = pr
	}
	for _, pr := range list {
		keep(pr)
	}
	extra := append([]int{}, st.rec.Queued...)
	for n := range st.reapply {
		extra = append(extra, n)
	}
	sort.Ints(extra[len(st.rec.Queued):])
	for _, n := range []int{trig.PR, r.Config.PRNumber} {
		if n > 0 {
			extra = append(extra, n)
		}
	}
	if trig.SHA != "" {
		prs, _, err := r.Client.PullRequests.ListPullRequestsWithCommit(ctx, r.Owner, r.Repo, trig.SHA, &github.ListOptions{PerPage: 10})
		if err != nil {
			return nil, botpr.Explain(fmt.Errorf("finding the pull request of commit %s: %w", short(trig.SHA), err), "pull-requests")
		}
		for _, pr := range prs {
			if pr.MergedAt != nil && pr.GetBase().GetRef() == st.base {
				extra = append(extra, pr.GetNumber())
			}
		}
	}
	for _, n := range extra {
		if _, ok := byNum[n]; ok || st.rec.has(n) {
			continue
		}
		pr, resp, err := r.Client.PullRequests.Get(ctx, r.Owner, r.Repo, n)
		if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
			// The record (which a merged pull request may have edited) or the event names a
			// number GitHub has no pull request for: nothing to settle, and no reason to fail
			// this run and every later one. A queued number is dropped, and the record written.
			st.warnings = append(st.warnings, fmt.Sprintf("#%d is not a pull request of this repository (GitHub answers 404); nothing to settle for it", n))
			if slices.Contains(st.rec.Queued, n) {
				st.rec.unqueue(n)
				st.persist = true
			}
			delete(st.reapply, n)
			continue
		}
		if err != nil {
			return nil, botpr.Explain(fmt.Errorf("reading pull request #%d: %w", n, err), "pull-requests")
		}
		if !pr.GetMerged() && pr.MergedAt == nil {
			if n == trig.PR || n == r.Config.PRNumber {
				st.warnings = append(st.warnings, fmt.Sprintf("pull request #%d is not merged; nothing to settle for it", n))
			}
			continue
		}
		keep(pr)
	}
	out := make([]*github.PullRequest, 0, len(byNum))
	for _, pr := range byNum {
		out = append(out, pr)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].GetMergedAt().Time, out[j].GetMergedAt().Time
		if !a.Equal(b) {
			return a.Before(b)
		}
		return out[i].GetNumber() < out[j].GetNumber()
	})
	return out, nil
}

// botsOwn reports whether pr is one of the bot's own pull requests: from the bot branch of
// this repository. A fork's branch may carry the same name (head.ref is only the branch's
// name): its pull request is a contributor's, settled and named like any other. A head whose
// repository is gone (a deleted fork) is not the bot's either.
func (r *Runner) botsOwn(pr *github.PullRequest) bool {
	head := pr.GetHead()
	return head.GetRef() == r.Config.Branch && strings.EqualFold(head.GetRepo().GetFullName(), r.Owner+"/"+r.Repo)
}

// baseOf returns the commit the pull request was merged onto, by settle's rule: the first
// parent of a merge commit, the parent of a squashed commit, the parent of the run of rebased
// commits (not the rebased commit before the last, which already holds the pull request's
// own changes), else its base sha.
func (r *Runner) baseOf(ctx context.Context, pr *github.PullRequest) (string, error) {
	sha, err := settle.MergedOnto(ctx, r.Client, r.Owner, r.Repo, pr)
	if err != nil {
		return "", botpr.Explain(fmt.Errorf("finding the commit #%d was merged onto: %w", pr.GetNumber(), err), "contents")
	}
	return sha, nil
}

// onceTickets is the most tickets verified without building the base store's index: each
// Once ranking passes over every lesson, so from about three tickets one index is cheaper.
const onceTickets = 2

// storeAtBase returns the commit a merged pull request was merged onto and the store there,
// which its tickets are verified against: the base branch's loaded store when it is the same
// blob (the usual case), an empty store when the commit has none. unreadable is set, and the
// store nil, when the file there does not load.
func (r *Runner) storeAtBase(ctx context.Context, st *state, pr *github.PullRequest) (sha string, base *lessons.Store, unreadable, err error) {
	if sha, err = r.baseOf(ctx, pr); err != nil {
		return "", nil, nil, err
	}
	if st.oldest != nil && st.oldest.GetNumber() == pr.GetNumber() {
		st.oldestOnto = sha
	}
	doc, blob, found, err := r.readFile(ctx, r.Config.StorePath, sha)
	switch {
	case err != nil:
		return "", nil, nil, err
	case !found:
		return sha, lessons.New(r.Config.StorePath, r.storeOptions()), nil, nil
	case st.mainFound && blob != "" && blob == r.mainBlob.sha:
		return sha, st.mainStore, nil, nil // the base branch's blob, loaded once (verification only reads it)
	}
	// Only verification reads it: loaded to be consulted (its graveyard checked and passed over,
	// its history notes kept unread).
	opts := r.storeOptions()
	opts.ConsultOnly = true
	base, unreadable = lessons.ParseWith(r.Config.StorePath, doc, opts)
	return sha, base, unreadable, nil
}

// process settles, ticks and encodes one merged pull request into st.
func (r *Runner) process(ctx context.Context, st *state, pr *github.PullRequest, out *Outcome) error {
	n := pr.GetNumber()
	held, carried := st.reapply[n]
	tickets, body, edited, terrs := r.ticketsAtMerge(st, pr)
	for _, e := range terrs {
		st.warnings = append(st.warnings, fmt.Sprintf("#%d: %v", n, e))
	}
	p := Processed{PR: n, Title: pr.GetTitle(), MergeCommit: pr.GetMergeCommitSHA(), Run: r.RunID, Outcome: OutcomeNoTickets}
	if t := pr.GetMergedAt(); !t.IsZero() {
		p.MergedAt = t.UTC().Format(time.RFC3339)
	}
	{
		// Tickets in commit trailers ("Darwin-Memo: v1 ...") come after the body's. Commits
		// cannot change after the merge, so an edited body does not taint them, and they are
		// read on every reading (a first reading held while CI ran already holds them:
		// appendTickets keeps one of each; one held while the rate limit ran low does not).
		trailers, errs, err := r.trailerTickets(ctx, st, pr)
		if err != nil {
			return err
		}
		for _, e := range errs {
			st.warnings = append(st.warnings, fmt.Sprintf("#%d: commit trailer: %v", n, e))
		}
		if edited != "" && len(trailers) > 0 {
			for _, t := range tickets {
				p.Refused = append(p.Refused, t.ID)
			}
			if len(tickets) > 0 {
				st.warnings = append(st.warnings, fmt.Sprintf("#%d: its %d body ticket(s) are refused: %s; its commit trailers' tickets are settled", n, len(tickets), edited))
			}
			tickets, edited = nil, ""
		}
		tickets = appendTickets(tickets, trailers)
	}
	if carried {
		// Settled on a bot branch this run could not start from: settle again exactly the
		// tickets it settled then (ticket ids are hashes of the whole line, so an edited body
		// cannot add one).
		tickets, edited = keepTickets(tickets, held.Settled), ""
	}
	var fixed []string
	if len(tickets) > 0 && edited != "" {
		p.Outcome = OutcomeRefused
		for _, t := range tickets {
			p.Refused = append(p.Refused, t.ID)
		}
		st.warnings = append(st.warnings, fmt.Sprintf("#%d: its %d ticket(s) are refused: %s", n, len(tickets), edited))
		r.Logf("#%d: %d ticket(s) refused: %s", n, len(tickets), edited)
	} else if len(tickets) > 0 {
		if why, err := r.walkBudget(ctx, pr); err != nil || why != "" {
			if err != nil {
				return err
			}
			return budgetQueued(why)
		}
		baseSHA, baseStore, unreadable, err := r.storeAtBase(ctx, st, pr)
		var nobase *settle.OutcomeError
		switch {
		case errors.As(err, &nobase) && nobase.Outcome == settle.Pending:
			out.Queued = append(out.Queued, n)
			st.rec.queue(n)
			st.rec.hold(n, tickets, body)
			r.Logf("#%d: %s; queued", n, nobase.Reason)
			return nil
		case errors.As(err, &nobase):
			// What it was merged onto cannot be told: neither verified nor measured.
			out.Abstained = append(out.Abstained, n)
			st.warnings = append(st.warnings, fmt.Sprintf("#%d abstained: %s; its tickets stay unsettled", n, nobase.Reason))
			return nil
		case err != nil:
			return err
		}
		if unreadable != nil {
			// darwin-memo fails closed when the base store is unreadable.
			out.Abstained = append(out.Abstained, n)
			st.warnings = append(st.warnings, fmt.Sprintf("#%d abstained: the store at its base %s is unreadable (%v)", n, short(baseSHA), unreadable))
			return nil
		}
		expire := r.Config.ExpireAfter
		if expire == 0 {
			expire = -1
		}
		// Verified once, here: the verdicts decide whether CI is worth measuring and are the
		// ones the settlement applies.
		// A pull request carries a ticket or two: their queries are ranked without building
		// the base store's index (the same verdicts, a fraction of the work at 10k lessons).
		// The body verified and settled holds only the tickets the run chose to settle.
		verified := baseStore.VerifyBody(strings.Join(ticketLines(tickets), "\n"), lessons.VerifyOptions{ExpireAfter: expire, Once: len(tickets) <= onceTickets, Settling: st.store})
		if verified.Passed() == 0 {
			p.Outcome = OutcomeRefused
			for _, t := range tickets {
				p.Refused = append(p.Refused, t.ID)
			}
			r.Logf("#%d: %d ticket(s), all refused at base %s", n, len(tickets), short(baseSHA))
		} else {
			m := carriedResult(held) // nil unless carried over with its recorded delta
			if m != nil {
				r.Logf("#%d: carried over from the discarded bot branch with its recorded delta %+d", n, m.Delta)
			} else if m, err = r.measureWaiting(ctx, st, pr); err != nil {
				return fmt.Errorf("measuring the CI of #%d: %w", n, err)
			} else {
				for _, note := range m.Notes {
					r.Logf("#%d: %s", n, note)
				}
			}
			switch m.Outcome {
			case settle.Pending:
				out.Queued = append(out.Queued, n)
				st.rec.queue(n)
				st.rec.hold(n, tickets, body) // written by publish (Record.holdsBeyond)
				r.Logf("#%d: CI pending (%s); queued", n, m.Reason)
				return nil
			case settle.Abstained:
				out.Abstained = append(out.Abstained, n)
				st.warnings = append(st.warnings, fmt.Sprintf("#%d abstained: %s; its tickets stay unsettled", n, m.Reason))
				if !m.Final {
					return nil
				}
				// Measuring again gives the same answer (results past the caps): record the
				// pull request and write the record, so no later run downloads them again.
				p.Outcome, p.Reason = OutcomeAbstained, m.Reason
				st.persist = true
				return r.finish(ctx, st, pr, nil, p, out)
			}
			delta := float64(m.Delta)
			if math.Abs(delta) >= 10 {
				st.warnings = append(st.warnings, fmt.Sprintf("#%d has an unusual delta %+g; check that the suite did not change shape", n, delta))
			}
			rep := r.settle(st, verified, baseStore, pr, m, expire)
			for _, t := range rep.Tickets {
				switch {
				case t.Refused != "":
					p.Refused = append(p.Refused, t.ID)
					st.warnings = append(st.warnings, fmt.Sprintf("#%d: ticket %s refused: %s", n, t.ID, t.Refused))
				case t.Result != nil && t.Result.Landed:
					p.Settled = append(p.Settled, t.ID)
					out.SettledTickets++
				}
				if len(t.AlreadyMoved) > 0 {
					st.warnings = append(st.warnings, fmt.Sprintf("#%d: ticket %s names %s, already moved by an earlier ticket of this pull request; a pull request moves each lesson once", n, t.ID, strings.Join(t.AlreadyMoved, ", ")))
				}
			}
			if rep.Tick != nil {
				tick := rep.Tick.Tick
				p.Tick = &tick
			}
			if len(p.Settled) > 0 {
				p.Outcome = OutcomeSettled
			} else {
				p.Outcome = OutcomeRefused
			}
			p.Delta, p.Source = &delta, resultSource(m)
			p.Before, p.After = m.Before.SHA, m.After.SHA
			p.Quarantined = capStrings(m.Quarantined, 20)
			out.Delta += delta
			fixed = m.Improvements
			r.Logf("#%d: delta %+g from %s, %d ticket(s) settled", n, delta, p.Source, len(p.Settled))
		}
	}
	return r.finish(ctx, st, pr, fixed, p, out)
}

// finish encodes the pull request's lessons and records it as processed.
func (r *Runner) finish(ctx context.Context, st *state, pr *github.PullRequest, fixed []string, p Processed, out *Outcome) error {
	n := pr.GetNumber()
	if err := r.followCitations(ctx, st, pr); err != nil {
		return err
	}
	if err := r.encodeLessons(ctx, st, pr, fixed, &p); err != nil {
		return err
	}
	st.rec.add(p)
	st.rec.addTrend(TrendPoint{PR: n, Tick: st.store.TickCount(), Population: len(st.store.Living()), Energy: round3(totalEnergy(st.store))})
	out.Processed = append(out.Processed, n)
	return nil
}

// holdReading holds the body's tickets of a pull request the run queues without processing it
// (the rate limit ran low), as the run that queues one behind running CI does: a later reading
// could find it updated since its merge (a comment is enough) and refuse them. Nothing is held
// when the body may have been edited already (it is refused then as it would be later) or holds
// no ticket. Reading it costs no request: the body is the event's payload or the listed pull
// request's; its commit trailers are read when it is processed (commits cannot change).
func (r *Runner) holdReading(st *state, pr *github.PullRequest) {
	if _, held := st.rec.Held[itoa(pr.GetNumber())]; held {
		return
	}
	tickets, body, edited, _ := r.ticketsAtMerge(st, pr)
	if edited == "" && len(tickets) > 0 {
		st.rec.hold(pr.GetNumber(), tickets, body)
	}
}

// ticketsAtMerge returns the tickets of a merged pull request as its body stood at the merge,
// and that body. The REST API has no history of body edits, so the body is taken, best first,
// from: the tickets held in the record when the pull request was first read and queued (held
// from then until settled, whatever happens to the pull request meanwhile); the payload of the
// event of its own merge (GitHub builds it at the merge); the API, when the pull request has
// not been updated since it merged (any edit or comment moves updated_at). Otherwise its body
// may have been edited after the merge, when its author could already see CI's delta: edited
// says so, and the tickets are refused.
func (r *Runner) ticketsAtMerge(st *state, pr *github.PullRequest) (tickets []lessons.BodyTicket, body, edited string, errs []error) {
	n := pr.GetNumber()
	if lines, ok := st.rec.Held[itoa(n)]; ok {
		if h, ok := st.rec.HeldBody[itoa(n)]; ok && h != bodyHash(pr.GetBody()) {
			st.warnings = append(st.warnings, fmt.Sprintf("#%d: its body changed after the action first read it; the tickets of that reading are settled", n))
		}
		tickets, errs = lessons.ParseTickets(strings.Join(lines, "\n"))
		return tickets, "", "", errs
	}
	if st.trig.PR == n && st.trig.Body != nil {
		tickets, errs = lessons.ParseTickets(*st.trig.Body)
		return tickets, *st.trig.Body, "", errs
	}
	body = pr.GetBody()
	tickets, errs = lessons.ParseTickets(body)
	merged, updated := pr.GetMergedAt().Time, pr.GetUpdatedAt().Time
	if !merged.IsZero() && updated.After(merged) {
		edited = fmt.Sprintf("the pull request was updated after its merge (updated %s, merged %s), so its body may have been edited since "+
			"and tickets are only settled from the body as it stood at the merge (the payload of its own merge event, or an unchanged pull request)",
			updated.UTC().Format(time.RFC3339), merged.UTC().Format(time.RFC3339))
	}
	return tickets, body, edited, errs
}

// maxTrailerCommits is how many of a pull request's commits are read for ticket trailers:
// GitHub lists at most 250.
const maxTrailerCommits = 250

// trailerTickets returns the tickets in the trailers of the pull request's commits, written
// "Darwin-Memo: v1 t=... d=... s=... q=..." (git's trailer form of the body's ticket line), in
// commit order. The commit list is the one the encoder and the measurement read (same request,
// answered once per run). A commit already on the base as another pull request's is skipped,
// with a warning (earlierOwner).
func (r *Runner) trailerTickets(ctx context.Context, st *state, pr *github.PullRequest) ([]lessons.BodyTicket, []error, error) {
	n := pr.GetNumber()
	var lines []string
	opts := &github.ListOptions{PerPage: 100}
	for read := 0; read < maxTrailerCommits; {
		cs, resp, err := r.Client.PullRequests.ListCommits(ctx, r.Owner, r.Repo, n, opts)
		if err != nil {
			return nil, nil, botpr.Explain(fmt.Errorf("listing the commits of #%d for ticket trailers: %w", n, err), "pull-requests")
		}
		read += len(cs)
		for _, c := range cs {
			found := lessons.TrailerTicketLines(c.GetCommit().GetMessage())
			if len(found) == 0 {
				continue
			}
			by, err := r.earlierOwner(ctx, pr, c.GetSHA())
			if err != nil {
				return nil, nil, err
			}
			if by != 0 {
				st.warnings = append(st.warnings, fmt.Sprintf("#%d: the ticket trailers of commit %s are not settled: the commit is also #%d's, merged before it, so they were that pull request's", n, short(c.GetSHA()), by))
				continue
			}
			lines = append(lines, found...)
		}
		if resp.NextPage == 0 || len(cs) == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(lines) == 0 {
		return nil, nil, nil
	}
	tickets, errs := lessons.ParseTickets(strings.Join(lines, "\n"))
	return tickets, errs, nil
}

// earlierOwner returns the number of another pull request into the same base branch, merged
// before pr, that holds the commit sha; 0 when there is none. A stacked branch lists the commits
// of the branch it grew from until they are on the base by their sha, which they never are once
// that pull request was squashed or rebased: they are on the base as its changes all the same,
// and their trailers were its tickets. GitHub lists the pull requests of a commit that is not
// on the default branch (merged and open, GET /commits/{sha}/pulls); only commits carrying
// trailer tickets are asked about.
func (r *Runner) earlierOwner(ctx context.Context, pr *github.PullRequest, sha string) (int, error) {
	prs, _, err := r.Client.PullRequests.ListPullRequestsWithCommit(ctx, r.Owner, r.Repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return 0, botpr.Explain(fmt.Errorf("finding the pull requests of commit %s: %w", short(sha), err), "pull-requests")
	}
	me := Processed{PR: pr.GetNumber(), MergedAt: pr.GetMergedAt().UTC().Format(time.RFC3339)}
	for _, o := range prs {
		if o.GetNumber() == me.PR || o.MergedAt == nil || o.GetBase().GetRef() != pr.GetBase().GetRef() {
			continue
		}
		if mergedBefore(Processed{PR: o.GetNumber(), MergedAt: o.GetMergedAt().UTC().Format(time.RFC3339)}, me) {
			return o.GetNumber(), nil
		}
	}
	return 0, nil
}

// appendTickets appends the tickets of more that tickets does not hold yet.
func appendTickets(tickets, more []lessons.BodyTicket) []lessons.BodyTicket {
	for _, t := range more {
		if !slices.ContainsFunc(tickets, func(u lessons.BodyTicket) bool { return u.Form == t.Form && u.ID == t.ID }) {
			tickets = append(tickets, t)
		}
	}
	return tickets
}

// keepTickets returns the tickets whose ids are in ids, in their order.
func keepTickets(tickets []lessons.BodyTicket, ids []string) []lessons.BodyTicket {
	var out []lessons.BodyTicket
	for _, t := range tickets {
		for _, id := range ids {
			if t.ID == id {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// ticketLines renders tickets as the canonical lines ParseTickets reads back to the same
// tickets (ids included).
func ticketLines(tickets []lessons.BodyTicket) []string {
	lines := make([]string, 0, len(tickets))
	for _, t := range tickets {
		if t.Form == lessons.FormCompat {
			lines = append(lines, "darwin-memo-ticket: "+t.ID)
		} else {
			lines = append(lines, t.Free.Line())
		}
	}
	return lines
}

// measureWaiting measures a pull request, polling while its CI is pending for at most the
// wait-for-ci input (every 30 seconds, or sooner at the deadline).
func (r *Runner) measureWaiting(ctx context.Context, st *state, pr *github.PullRequest) (*settle.Result, error) {
	deadline := r.Now().Add(r.Config.WaitForCI)
	for {
		hist, err := r.flakyHistory(ctx, st)
		if err != nil {
			return nil, err
		}
		m, err := r.Measure(ctx, r.Client, r.Owner, r.Repo, pr, hist)
		if err != nil || m.Outcome != settle.Pending {
			return m, err
		}
		left := deadline.Sub(r.Now())
		if left <= 0 {
			return m, nil
		}
		wait := min(30*time.Second, left)
		r.Logf("#%d: CI pending (%s); checking again in %s", pr.GetNumber(), m.Reason, wait)
		if err := r.Sleep(ctx, wait); err != nil {
			return m, err
		}
	}
}

// settle applies one measured delta to the pull request's tickets with the action's scale.
// The scale input overrides the store's persisted resource_scale for this settlement only, as
// darwin-memo's --scale does; the store's ledger.config is left as it was (absent stays absent).
// The economics applied (ledger.config, max_energy) are the store's at the pull request's base
// (base): the working store already holds the pull request's own edits to them.
func (r *Runner) settle(st *state, verified *lessons.VerifiedBody, base *lessons.Store, pr *github.PullRequest, m *settle.Result, expire int) lessons.BodyReport {
	n := pr.GetNumber()
	return st.store.SettleVerified(verified, float64(m.Delta), lessons.SettleOptions{
		Scale:       r.Config.Scale,
		Economics:   base,
		Source:      "ci",
		Regressions: regressions(m),
		Detail:      fmt.Sprintf("pr#%d", n),
		Evidence: &lessons.Evidence{
			Mode: resultSource(m), Identity: "verified", Repository: r.Owner + "/" + r.Repo,
			Run: fmt.Sprintf("pr#%d", n), PR: n, BaseSHA: m.Before.SHA, HeadSHA: m.After.SHA, URL: m.URL,
		},
	}, lessons.TickOptions{ExpireAfter: expire})
}

// encodeLessons turns the merged pull request into lessons and adds the trusted ones.
func (r *Runner) encodeLessons(ctx context.Context, st *state, pr *github.PullRequest, fixed []string, p *Processed) error {
	n := pr.GetNumber()
	var ci []encode.CIFailure
	for _, t := range fixed {
		ci = append(ci, encode.CIFailure{Test: t})
	}
	epr, err := encode.Collect(ctx, r.Client, r.Owner, r.Repo, pr, ci)
	if err != nil {
		// An API failure here fails the run before any write, so a rerun encodes the pull
		// request instead of recording it without its lessons.
		return botpr.Explain(fmt.Errorf("reading #%d for lesson encoding: %w", n, err), "pull-requests")
	}
	if w, edits := r.steeringEdits(n, epr.Files); w != "" {
		st.warnings = append(st.warnings, w)
		// Named in the bot pull request, which is written for it (recording the pull request,
		// and the bot's own sidecar over the edited one), not only in this run's step summary.
		st.persist = st.persist || edits
	}
	assoc := pr.GetAuthorAssociation()
	trusted := false
	for _, a := range r.Config.TrustedAssociations {
		trusted = trusted || strings.EqualFold(a, assoc)
	}
	// The store answers the duplicate check from the token sets the tick's consolidation
	// computed: the living lessons are not tokenised again. Their texts let the encoder tell
	// a question asked again and ask a model which lesson its lesson replaces.
	var living []encode.Living
	for _, e := range st.store.Living() {
		if e.Alive() {
			living = append(living, encode.Living{ID: e.ID, Question: e.Question, Answer: e.Answer})
		}
	}
	res, err := r.Encoder.Encode(ctx, epr, living, st.store)
	if err != nil {
		return fmt.Errorf("encoding lessons from #%d: %w", n, err)
	}
	if res.Fallback != "" {
		st.warnings = append(st.warnings, fmt.Sprintf("#%d: the %s encoder failed (%s); used the deterministic encoder", n, res.Requested, res.Fallback))
	}
	added, proposed := res.Added(), res.Proposed()
	// A supersession note names the lesson by the id the store gives it
	// (the candidate's own id means nothing outside the encoding), or by
	// its question when it is only proposed.
	note := func(c encode.Candidate, id string) {
		if c.SupersedeNote == "" {
			return
		}
		if id == "" {
			id = fmt.Sprintf("%q", c.Question)
		}
		st.warnings = append(st.warnings, fmt.Sprintf("#%d: lesson %s: %s", n, id, c.SupersedeNote))
	}
	if !trusted {
		// The user trusts this association less than the default: propose only.
		proposed, added = append(proposed, added...), nil
	}
	for _, c := range added {
		sources := c.Sources
		if c.Supersedes != "" { // the model's answer, an id it was shown: recorded as darwin-memo sources are
			sources = append(slices.Clip(sources), lessons.SupersedesPrefix+c.Supersedes)
		}
		l := lessons.NewLesson{Question: c.Question, Answer: c.Answer, Kind: lessons.Kind(c.Kind), Sources: sources, RecordedTS: c.RecordedTS}
		if e, err := st.store.Add(l); err != nil {
			st.warnings = append(st.warnings, fmt.Sprintf("#%d: lesson not added: %v", n, err))
		} else {
			note(c, e.ID)
		}
	}
	for _, c := range proposed {
		note(c, "")
		if len(p.Proposed) == maxProposed {
			break
		}
		p.Proposed = append(p.Proposed, Proposal{Question: c.Question, Answer: c.Answer, Author: epr.Author})
	}
	return nil
}

func capStrings(l []string, n int) []string {
	if len(l) > n {
		return append([]string{}, l[:n]...)
	}
	return l
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func totalEnergy(s *lessons.Store) float64 {
	t := 0.0
	for _, e := range s.Living() {
		t += e.Energy
	}
	return t
}

// bornAndDied counts the living lessons of s whose ids are not in before (born in the run) and
// the ids of before no longer living in s (died). Living ids are unique in a store, so one pass
// over s tells the born from the survivors, and the rest of before died.
func bornAndDied(before map[string]struct{}, s *lessons.Store) (born, died int) {
	survived := 0
	for _, e := range s.Living() {
		if !e.Alive() {
			continue
		}
		if _, ok := before[e.ID]; ok {
			survived++
		} else {
			born++
		}
	}
	return born, len(before) - survived
}

// extinctionWarning warns of a run in which at least three lessons died, and more than half of
// the lessons living before it; "" otherwise.
func extinctionWarning(died, lived int) string {
	if died >= 3 && died*2 > lived {
		return fmt.Sprintf("mass extinction: %d of %d living lessons died in this run; check the settlements above before merging", died, lived)
	}
	return ""
}

// livingIDs is the set of ids of the living lessons of s (bornAndDied's before).
func livingIDs(s *lessons.Store) map[string]struct{} {
	m := make(map[string]struct{}, len(s.Living()))
	for _, e := range s.Living() {
		if e.Alive() {
			m[e.ID] = struct{}{}
		}
	}
	return m
}
