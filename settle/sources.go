package settle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/google/go-github/v62/github"
)

// sideCI is what one SHA has: its latest check runs (ignored names
// removed) and, when loaded, its combined commit status.
type sideCI struct {
	sha    string
	runs   []*github.CheckRun
	status *github.CombinedStatus
}

func (s *sideCI) hasCI() bool {
	return len(s.runs) > 0 || (s.status != nil && s.status.GetTotalCount() > 0)
}

// incomplete names the check runs (and, when they are the only CI, the
// commit statuses) that have not finished.
func (s *sideCI) incomplete() []string {
	var out []string
	for _, r := range s.runs {
		if r.GetStatus() != "completed" {
			out = append(out, fmt.Sprintf("%q is %s", r.GetName(), r.GetStatus()))
		}
	}
	if len(s.runs) == 0 && s.status != nil {
		for _, st := range s.status.Statuses {
			if st.GetState() == "pending" {
				out = append(out, fmt.Sprintf("status %q is pending", st.GetContext()))
			}
		}
	}
	return out
}

// ignored reports whether a check run is a job of the ignored workflow run
// (Actions job check runs link their run in details_url:
// .../actions/runs/<id>/job/<job id>).
func (m *measurer) ignored(r *github.CheckRun) bool {
	id := m.opts.IgnoreRunID
	return id != 0 && strings.Contains(r.GetDetailsURL()+"/", fmt.Sprintf("/actions/runs/%d/", id))
}

// MaxCheckRunPages bounds the pages of 100 check runs read for one commit. GitHub lists the
// check runs of at most the 1,000 most recent check suites of a commit; a commit with more
// than 1,000 check runs is abstained on rather than measured from a list that may be cut.
const MaxCheckRunPages = 10

// ciAt lists the latest check runs of sha (all pages, at most MaxCheckRunPages) and, when
// there are none, its combined status.
func (m *measurer) ciAt(ctx context.Context, sha string) (*sideCI, error) {
	if s, ok := m.sides[sha]; ok {
		return s, nil
	}
	s := &sideCI{sha: sha}
	opts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100}}
	for page := 1; ; page++ {
		if page > MaxCheckRunPages {
			return nil, abstain("%s has more than %d check runs; GitHub lists those of at most the 1,000 most recent check suites of a commit, so its results cannot be known complete", short(sha), MaxCheckRunPages*100)
		}
		res, resp, err := m.gh.Checks.ListCheckRunsForRef(ctx, m.req.Owner, m.req.Repo, sha, opts)
		if err != nil {
			return nil, apiErr("list check runs of "+short(sha), err)
		}
		for _, r := range res.CheckRuns {
			if !m.ignored(r) {
				s.runs = append(s.runs, r)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(s.runs) == 0 {
		if err := m.loadStatus(ctx, s); err != nil {
			return nil, err
		}
	}
	if m.sides == nil {
		m.sides = map[string]*sideCI{}
	}
	m.sides[sha] = s
	return s, nil
}

func (m *measurer) loadStatus(ctx context.Context, s *sideCI) error {
	if s.status != nil {
		return nil
	}
	opts := &github.ListOptions{PerPage: 100}
	var all *github.CombinedStatus
	for {
		st, resp, err := m.gh.Repositories.GetCombinedStatus(ctx, m.req.Owner, m.req.Repo, s.sha, opts)
		if err != nil {
			return apiErr("get combined status of "+short(s.sha), err)
		}
		if all == nil {
			all = st
		} else {
			all.Statuses = append(all.Statuses, st.Statuses...)
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	s.status = all
	return nil
}

// sideResult is what one source found at one SHA.
type sideResult struct {
	results    map[string]junit.Status // nil when only counts are known
	counts     junit.Counts
	collection []string
}

// kind of a check run, by what it carries.
type runKind int

const (
	kindJob runKind = iota
	kindEnricoMi
	kindDorny
	kindMikepenz
)

func classify(r *github.CheckRun) runKind {
	out := r.GetOutput()
	if out == nil {
		return kindJob
	}
	if strings.Contains(out.GetSummary(), DigestPrefix) {
		return kindEnricoMi
	}
	if _, ok := ParseDornyTitle(out.GetTitle()); ok {
		return kindDorny
	}
	if _, ok := ParseMikepenzTitle(out.GetTitle()); ok {
		return kindMikepenz
	}
	return kindJob
}

// commonRuns returns, by sorted name, the completed report runs of the
// given kinds present at both SHAs, noting names present at one only.
func (m *measurer) commonRuns(before, after *sideCI, kinds ...runKind) (b, a []*github.CheckRun) {
	pick := func(s *sideCI) map[string]*github.CheckRun {
		out := map[string]*github.CheckRun{}
		for _, r := range s.runs {
			if slices.Contains(kinds, classify(r)) && r.GetStatus() == "completed" {
				out[r.GetName()] = r
			}
		}
		return out
	}
	bm, am := pick(before), pick(after)
	for _, n := range slices.Sorted(maps.Keys(am)) {
		if bm[n] == nil {
			m.note("report check run %q exists at the after SHA only", n)
			continue
		}
		b = append(b, bm[n])
		a = append(a, am[n])
	}
	for _, n := range slices.Sorted(maps.Keys(bm)) {
		if am[n] == nil {
			m.note("report check run %q exists at the before SHA only", n)
		}
	}
	return b, a
}

// compare tries each source in order and settles on the first with per-test
// results at both SHAs. A test-level source that gives only counts (an
// EnricoMi check run without annotations, a reporter title) is kept as a
// fallback while the remaining test-level sources are tried, so counts never
// shadow per-test results that are also there; job conclusions and commit
// statuses are coarser than counts of real tests and come after the fallback.
func (m *measurer) compare(ctx context.Context, before, after *sideCI) error {
	type found struct {
		src  Source
		b, a *sideResult
	}
	var why []string
	var countsOnly *found
	for _, src := range []Source{SourceEnricoMi, SourceArtifacts, SourceReporter, SourceJobs, SourceStatuses} {
		if countsOnly != nil && (src == SourceJobs || src == SourceStatuses) {
			break
		}
		b, a, reason, err := m.source(ctx, src, before, after)
		if err != nil {
			return err
		}
		if b == nil || a == nil {
			if reason != "" {
				why = append(why, reason)
				m.note("source %s unavailable: %s", src, reason)
			}
			continue
		}
		if b.results == nil || a.results == nil {
			if countsOnly == nil {
				countsOnly = &found{src, b, a}
				m.note("source %s gives counts only; looking for per-test results in the next sources", src)
			}
			continue
		}
		return m.settle(src, b, a)
	}
	if countsOnly != nil {
		return m.settle(countsOnly.src, countsOnly.b, countsOnly.a)
	}
	if len(why) == 0 {
		why = append(why, "no source had results at both SHAs")
	}
	return abstain("nothing measurable: %s", strings.Join(why, "; "))
}

// source reads src at both SHAs, the after SHA first. A nil side means the source is not
// available there; reason then says why, or is empty when there is nothing to say.
func (m *measurer) source(ctx context.Context, src Source, before, after *sideCI) (b, a *sideResult, reason string, err error) {
	var br, ar []*github.CheckRun
	read := func(_ *sideCI, runs []*github.CheckRun) (*sideResult, string, error) { return m.reportRuns(ctx, runs) }
	switch src {
	case SourceEnricoMi:
		br, ar = m.commonRuns(before, after, kindEnricoMi)
	case SourceReporter:
		br, ar = m.commonRuns(before, after, kindDorny, kindMikepenz)
	case SourceArtifacts:
		read = func(s *sideCI, _ []*github.CheckRun) (*sideResult, string, error) { return m.artifacts(ctx, s) }
	case SourceJobs:
		read = func(s *sideCI, _ []*github.CheckRun) (*sideResult, string, error) {
			if r := jobs(s); r != nil || len(s.runs) == 0 {
				return r, "", nil
			}
			return nil, "no job check run concluded success or failure", nil
		}
	case SourceStatuses:
		// A pending status at either SHA makes the measurement pending.
		for _, s := range []*sideCI{after, before} {
			if err := m.loadStatus(ctx, s); err != nil {
				return nil, nil, "", err
			}
			for _, st := range s.status.Statuses {
				if st.GetState() == "pending" {
					return nil, nil, "", pending("commit status %q at %s is pending; settle later", st.GetContext(), short(s.sha))
				}
			}
		}
		read = func(s *sideCI, _ []*github.CheckRun) (*sideResult, string, error) {
			return statusResult(s.status), "", nil
		}
	}
	if (src == SourceEnricoMi || src == SourceReporter) && len(ar) == 0 {
		return nil, nil, "", nil
	}
	if a, reason, err = read(after, ar); err != nil || a == nil {
		return nil, nil, withSide("after", reason), err
	}
	if b, reason, err = read(before, br); err != nil || b == nil {
		return nil, nil, withSide("before", reason), err
	}
	return b, a, "", nil
}

func withSide(side, reason string) string {
	if reason == "" {
		return ""
	}
	return reason + " at the " + side + " SHA"
}

// reportRuns reads the report check runs (EnricoMi's, dorny's, mikepenz's) of one SHA: their
// counts added up, and their per-test results combined when every run lists its tests (nil
// otherwise). A run whose counts cannot be read makes the source unavailable; the reason
// says why.
func (m *measurer) reportRuns(ctx context.Context, runs []*github.CheckRun) (*sideResult, string, error) {
	out := &sideResult{results: map[string]junit.Status{}}
	for _, r := range runs {
		c, res, reason, err := m.reportRun(ctx, r, out.results != nil)
		if err != nil || reason != "" {
			return nil, reason, err
		}
		out.counts.Add(c)
		if res == nil {
			out.results = nil
		}
		for id, s := range res {
			if out.results != nil {
				junit.Record(out.results, id, s)
			}
		}
	}
	return out, "", nil
}

// reportRun reads one report check run: its counts, and its per-test results when it lists
// them and perTest is set (nil otherwise: after one run of the set gave counts only, the
// annotations of the rest are not read).
func (m *measurer) reportRun(ctx context.Context, r *github.CheckRun, perTest bool) (junit.Counts, map[string]junit.Status, string, error) {
	out := r.GetOutput()
	switch classify(r) {
	case kindEnricoMi:
		d, err := DecodeDigest(out.GetSummary())
		if err != nil {
			return junit.Counts{}, nil, fmt.Sprintf("check run %q has an unreadable digest (%v)", r.GetName(), err), nil
		}
		if !perTest {
			return d.Counts(), nil, "", nil
		}
		anns, err := m.annotations(ctx, r)
		if err != nil {
			return junit.Counts{}, nil, "", err
		}
		res, err := EnricoMiResults(d, anns)
		if err != nil {
			m.note("check run %q at %s: per-test results unavailable (%v); using counts", r.GetName(), short(r.GetHeadSHA()), err)
		}
		return d.Counts(), res, "", nil
	case kindDorny:
		c, _ := ParseDornyTitle(out.GetTitle())
		res, raw := ParseDornySummary(out.GetSummary())
		if raw != c {
			res = nil
		}
		return c, res, "", nil
	}
	c, _ := ParseMikepenzTitle(out.GetTitle())
	return c, nil, "", nil
}

func (m *measurer) annotations(ctx context.Context, r *github.CheckRun) ([]*github.CheckRunAnnotation, error) {
	if r.GetOutput().GetAnnotationsCount() == 0 {
		return nil, nil
	}
	opts := &github.ListOptions{PerPage: 100}
	var out []*github.CheckRunAnnotation
	for {
		anns, resp, err := m.gh.Checks.ListCheckRunAnnotations(ctx, m.req.Owner, m.req.Repo, r.GetID(), opts)
		if err != nil {
			return nil, apiErr(fmt.Sprintf("list annotations of check run %q", r.GetName()), err)
		}
		out = append(out, anns...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// jobs treats every non-report check run as one test: success passes,
// failure and timed_out fail, anything else (skipped, neutral, cancelled,
// stale, action_required) is unmeasured. nil when no job passed or failed.
func jobs(s *sideCI) *sideResult {
	out := &sideResult{results: map[string]junit.Status{}}
	for _, r := range s.runs {
		if classify(r) != kindJob || r.GetStatus() != "completed" {
			continue
		}
		junit.Record(out.results, r.GetName(), conclusion(r.GetConclusion(), "timed_out"))
	}
	return measurable(out)
}

// statusResult treats every commit status context as one test: success
// passes, failure and error fail. nil when none passed or failed.
func statusResult(st *github.CombinedStatus) *sideResult {
	out := &sideResult{results: map[string]junit.Status{}}
	for _, s := range st.Statuses {
		junit.Record(out.results, s.GetContext(), conclusion(s.GetState(), "error"))
	}
	return measurable(out)
}

// conclusion maps a check run's conclusion or a status's state to a test status: success
// passes, failure and the other failing word fail, anything else is unmeasured.
func conclusion(c, failing string) junit.Status {
	switch c {
	case "success":
		return junit.Passed
	case "failure", failing:
		return junit.Failed
	}
	return junit.Skipped
}

// measurable counts r's results; nil when none passed or failed (not a usable source).
func measurable(r *sideResult) *sideResult {
	r.counts = junit.Count(r.results)
	if r.counts.Passed+r.counts.Failed == 0 {
		return nil
	}
	return r
}

// artifacts reads JUnit XML from the artifacts of the newest run of each
// workflow on the SHA. A nil result with a reason means the source is not
// available there.
func (m *measurer) artifacts(ctx context.Context, s *sideCI) (*sideResult, string, error) {
	opts := &github.ListWorkflowRunsOptions{HeadSHA: s.sha, ListOptions: github.ListOptions{PerPage: 100}}
	newest := map[int64]*github.WorkflowRun{}
	for {
		runs, resp, err := m.gh.Actions.ListRepositoryWorkflowRuns(ctx, m.req.Owner, m.req.Repo, opts)
		if err != nil {
			return nil, "", apiErr("list workflow runs of "+short(s.sha), err)
		}
		for _, r := range runs.WorkflowRuns {
			if r.GetHeadSHA() != s.sha || r.GetID() == m.opts.IgnoreRunID {
				continue
			}
			cur, ok := newest[r.GetWorkflowID()]
			if !ok || r.GetCreatedAt().After(cur.GetCreatedAt().Time) || (r.GetCreatedAt().Equal(cur.GetCreatedAt()) && r.GetID() > cur.GetID()) {
				newest[r.GetWorkflowID()] = r
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(newest) == 0 {
		return nil, "", nil
	}
	ids := slices.Sorted(maps.Keys(newest))
	for _, id := range ids {
		if r := newest[id]; r.GetStatus() != "completed" {
			return nil, "", pending("workflow run %q at %s is %s; settle later", r.GetName(), short(s.sha), r.GetStatus())
		}
	}
	// The reports of this SHA are streamed artifact by artifact into one tally
	// (per-test statuses only) under the per-commit caps on XML bytes and
	// testcases; past a cap the measurement abstains for good.
	rep := &junit.Tally{}
	var read int64
	cases := 0
	out := &sideResult{}
	expired, downloaded, parsed := 0, 0, 0
	for _, id := range ids {
		run := newest[id]
		arts, err := m.runArtifacts(ctx, run.GetID())
		if err != nil {
			return nil, "", err
		}
		attemptOf, err := m.runAttempts(ctx, run)
		if err != nil {
			return nil, "", err
		}
		byAttempt := map[int]*junit.Tally{}
		for _, a := range arts {
			if !artifactMatches(m.opts.ArtifactName, a.GetName()) {
				continue
			}
			if a.GetExpired() {
				expired++
				continue
			}
			if a.GetSizeInBytes() > m.opts.Limits.MaxArtifactBytes {
				m.note("artifact %q is %d bytes, over the %d byte limit; skipped", a.GetName(), a.GetSizeInBytes(), m.opts.Limits.MaxArtifactBytes)
				continue
			}
			if downloaded >= m.opts.Limits.MaxArtifacts {
				m.note("more than %d test artifacts at %s; the rest skipped", m.opts.Limits.MaxArtifacts, short(s.sha))
				continue
			}
			downloaded++
			left := budget{bytes: m.opts.Limits.MaxCommitBytes - read, cases: m.opts.Limits.MaxCases - cases}
			r, n, gone, err := m.downloadJUnit(ctx, a, left)
			read += n
			if errors.Is(err, errOverCap) {
				return nil, "", abstainFinal("the JUnit reports at %s are over the limit (%v); the action measures at most %d testcases and %d MiB of XML per commit, so it does not try this pull request again",
					short(s.sha), err, m.opts.Limits.MaxCases, m.opts.Limits.MaxCommitBytes>>20)
			}
			if err != nil {
				return nil, "", err
			}
			if gone {
				expired++
				continue
			}
			if r != nil {
				parsed++
				cases += r.Cases()
				k := attemptOf(a)
				if byAttempt[k] == nil {
					byAttempt[k] = &junit.Tally{}
				}
				byAttempt[k].Merge(r)
			}
		}
		// A re-run job's reports replace its earlier attempt's for the tests they hold (the
		// newest attempt of each job wins); within one attempt, duplicates combine as usual.
		runTally := &junit.Tally{}
		for _, k := range slices.Sorted(maps.Keys(byAttempt)) {
			runTally.Supersede(byAttempt[k])
		}
		rep.Merge(runTally)
	}
	// A JUnit report with zero testcases is a run of zero tests, which
	// abstains in settle; only the absence of any report makes the source
	// unavailable here (semantics §12 case 29).
	if parsed == 0 {
		if expired > 0 {
			return nil, fmt.Sprintf("%d test artifact(s) expired", expired), nil
		}
		return nil, "", nil
	}
	out.results = rep.Results()
	if ids, n := rep.CollectionErrors(); n > 0 {
		out.collection = ids
		if n > len(ids) {
			out.collection = append(out.collection, fmt.Sprintf("%d more", n-len(ids)))
		}
	}
	out.counts = junit.Count(out.results)
	return out, "", nil
}

// runAttempts returns which attempt of run uploaded an artifact: the newest attempt that had
// started when the artifact was created. A re-run (run_attempt > 1) keeps the artifacts of its
// earlier attempts, and one named per attempt is not replaced by the re-run's, so without this
// a stale failure of attempt 1 would combine with (and beat) the re-run's pass. The start of each
// attempt but the newest (run_started_at) is read from GET /actions/runs/{id}/attempts/{n}.
func (m *measurer) runAttempts(ctx context.Context, run *github.WorkflowRun) (func(*github.Artifact) int, error) {
	n := int(run.GetRunAttempt())
	if n <= 1 {
		return func(*github.Artifact) int { return 1 }, nil
	}
	starts := make([]time.Time, n+1) // starts[k]: attempt k started; attempt 1 is everything before attempt 2
	starts[n] = run.GetRunStartedAt().Time
	for k := 2; k < n; k++ {
		at, _, err := m.gh.Actions.GetWorkflowRunAttempt(ctx, m.req.Owner, m.req.Repo, run.GetID(), k, nil)
		if err != nil {
			return nil, apiErr(fmt.Sprintf("get attempt %d of run %d", k, run.GetID()), err)
		}
		starts[k] = at.GetRunStartedAt().Time
	}
	return func(a *github.Artifact) int {
		created := a.GetCreatedAt().Time
		for k := n; k >= 2; k-- {
			if !starts[k].IsZero() && !created.Before(starts[k]) {
				return k
			}
		}
		return 1
	}, nil
}

func (m *measurer) runArtifacts(ctx context.Context, runID int64) ([]*github.Artifact, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []*github.Artifact
	for {
		list, resp, err := m.gh.Actions.ListWorkflowRunArtifacts(ctx, m.req.Owner, m.req.Repo, runID, opts)
		if err != nil {
			return nil, apiErr(fmt.Sprintf("list artifacts of run %d", runID), err)
		}
		out = append(out, list.Artifacts...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// downloadJUnit fetches an artifact through its one-minute redirect URL
// with the credential-free client and streams the JUnit in it into a tally,
// within what is left of the per-commit budget; read is the XML unpacked.
// A download that is not a whole zip is fetched once more (new URL); if it
// stays broken the measurement is pending. gone is true for 410 (expired).
// Going past the budget is an error wrapping errOverCap.
func (m *measurer) downloadJUnit(ctx context.Context, a *github.Artifact, left budget) (rep *junit.Tally, read int64, gone bool, err error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		u, resp, err := m.gh.Actions.DownloadArtifact(ctx, m.req.Owner, m.req.Repo, a.GetID(), 1)
		if err != nil {
			if resp != nil && resp.StatusCode == 410 {
				return nil, 0, true, nil
			}
			if resp != nil && resp.StatusCode >= 500 {
				return nil, 0, false, pending("download artifact %q: GitHub answered %s; settle later", a.GetName(), resp.Status)
			}
			return nil, 0, false, apiErr(fmt.Sprintf("download artifact %q", a.GetName()), err)
		}
		data, err := fetchBlob(ctx, m.opts.Download, u, m.opts.Limits.MaxArtifactBytes)
		if err != nil {
			if errors.Is(err, errTruncated) || ghapi.IsTransient(err) {
				lastErr = err
				continue
			}
			if ctx.Err() != nil {
				return nil, 0, false, ctx.Err()
			}
			m.note("artifact %q skipped: %v", a.GetName(), err)
			return nil, 0, false, nil
		}
		// A broken download's partial tally is dropped and its bytes are not
		// counted: the retry reads the artifact again from the start.
		rep, n, notes, err := tallyJUnitZip(a.GetName(), data, m.opts.Limits, left)
		for _, n := range notes {
			m.note("%s", n)
		}
		switch {
		case errors.Is(err, errOverCap):
			return nil, n, false, err
		case errors.Is(err, errTruncated):
			lastErr = err
			continue
		case err != nil:
			return nil, n, false, abstain("artifact %q: %v", a.GetName(), err)
		}
		return rep, n, false, nil
	}
	return nil, 0, false, pending("artifact %q could not be downloaded whole (%v); settle later", a.GetName(), lastErr)
}

// settle turns the two sides of the chosen source into the result.
func (m *measurer) settle(src Source, b, a *sideResult) error {
	m.res.Source = src
	for _, x := range []struct {
		side string
		r    *sideResult
	}{{"before", b}, {"after", a}} {
		if len(x.r.collection) > 0 {
			return abstain("collection error at the %s SHA (%s): the suite did not run", x.side, strings.Join(x.r.collection, ", "))
		}
		c := x.r.counts
		if x.r.results != nil {
			c = junit.Count(x.r.results)
		}
		if c.Tests == 0 {
			return abstain("zero tests at the %s SHA (source %s)", x.side, src)
		}
		if c.Passed+c.Failed == 0 {
			return abstain("every test at the %s SHA is unmeasured (%d skipped, %d flaky; source %s)", x.side, c.Skipped, c.Flaky, src)
		}
	}
	if b.results != nil && a.results != nil {
		if Diff(b.results, a.results, nil).Compared == 0 {
			return abstain("no test was measured at both SHAs (source %s)", src)
		}
		// Only a measured result touches the sidecar, as darwin-memo
		// leaves its state file alone when it abstains.
		var q []string
		if h := m.opts.History; h != nil {
			h.Update(b.results, a.results)
			q = h.Quarantined()
		}
		m.res.Mode = PerTest
		m.res.Transitions = Diff(b.results, a.results, q)
		m.res.Delta = m.res.Transitions.Delta
		return nil
	}
	if a.counts.Tests != b.counts.Tests {
		return abstain("source %s gives only counts and the suites differ (%d tests before, %d after); added tests cannot be told from fixes", src, b.counts.Tests, a.counts.Tests)
	}
	m.res.Mode = PassCounts
	m.res.Delta = a.counts.Passed - b.counts.Passed
	m.res.Transitions = Transitions{}
	m.note("source %s gave counts only; delta is the pass-count difference over an unchanged test count", src)
	return nil
}
