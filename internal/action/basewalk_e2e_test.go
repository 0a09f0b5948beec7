package action

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Issue 22 (round two), the base walk: a pull request author cannot move the "before" commit of
// the pass delta below someone else's fix, by the words of its commits or by a gap in CI.

var (
	redSuite   = map[string]bool{"app::TestA": true, "app::TestB": false, "app::TestC": false}
	greenSuite = map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true}
)

// redMain is a repository with the seeded store whose main branch's tip has CI with two of
// three tests failing; it returns the tip.
func redMain(t *testing.T) (*harness, []*lessons.Entry, string) {
	t.Helper()
	store, es := seedStore(t)
	h := newHarness(t, store)
	red := h.git.Ref("main")
	addCI(h.world, red, "completed", redSuite)
	return h, es, red
}

// mergeTicketed merges a pull request that carries a ticket for the integration-test lesson and
// gives its head a green suite.
func (h *harness) mergeTicketed(spec ghfake.MergeSpec) *ghfake.GitPull {
	h.t.Helper()
	spec.Body = h.ticketFor("how do I run the integration tests")
	pr := h.git.MergePull(spec)
	addCI(h.world, pr.HeadSHA, "completed", greenSuite)
	return pr
}

// mergeFix merges, without a ticket, alice's pull request that makes the red suite green and
// returns it; headCI gives its head its pull_request CI.
func (h *harness) mergeFix(headCI bool) *ghfake.GitPull {
	h.t.Helper()
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Fix B and C", Body: "Fixes the failing tests.", User: "alice",
		Files: map[string][]byte{"src/fix.go": []byte("package app\n// fixed\n")}})
	if headCI {
		addCI(h.world, pr.HeadSHA, "completed", greenSuite)
	}
	return pr
}

// A squash merge disguised as a rebase: the pull request's first commit copies the message and
// author of the newest commit on main (alice's fix), its last the message GitHub writes for the
// squash ("Title (#N)"). Read by words, the walk took the squash for a rebase of two commits and
// measured (and verified the tickets) from below alice's fix: +2 for a README change. A replayed
// commit must make the pull request commit's change, and GitHub must say the pull request
// introduced the oldest; in doubt, the pull request abstains, saying why.
func TestE2EBaseWalkSquashDisguisedAsRebase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// copied is the change of the first commit; belowTheFix starts the branch below the fix.
		copied      map[string][]byte
		belowTheFix bool
		why         string // in the step summary, as the bot pull request escapes it
	}{
		{name: "copied words, empty commit", why: "does not replay its commit"},
		{name: "copied words and change", copied: map[string][]byte{"src/fix.go": []byte("package app\n// fixed\n")}, belowTheFix: true,
			why: "was introduced by #\u200b1, not #\u200b2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, es, red := redMain(t)
			fix := h.mergeFix(true)
			addCI(h.world, fix.MergeCommitSHA, "completed", greenSuite)
			mustCode(t, h.runReal("workflow_dispatch", `{"inputs":{}}`), 0)

			spec := ghfake.MergeSpec{Title: "Tidy readme", Body: h.ticketFor("how do I run the integration tests"), User: "mallory",
				BranchCommits: []ghfake.BranchCommit{
					{Message: "Fix B and C (#1)", Author: "alice", Files: tc.copied},
					{Message: "Tidy readme (#2)", Files: map[string][]byte{"README.md": []byte("# demo, tidied\n")}},
				}}
			if tc.belowTheFix {
				spec.From = red
			}
			pr := h.git.MergePull(spec)
			if got := h.git.Parents(pr.MergeCommitSHA); len(got) != 1 || got[0] != fix.MergeCommitSHA {
				t.Fatalf("the squash commit's parents %v, want the fix %s", got, fix.MergeCommitSHA)
			}
			addCI(h.world, pr.HeadSHA, "completed", greenSuite)
			res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
			mustCode(t, res, 0)
			if res.outputs["settled-tickets"] != "0" || res.outputs["result"] != "abstained" || !strings.Contains(res.summary, tc.why) {
				t.Fatalf("#%d, a README change, was not abstained on with %q: %v\n%s", pr.Number, tc.why, res.outputs, res.summary)
			}
			if s := h.botStoreIfAny(DefaultBranch); s != nil {
				if e, _ := s.Entry(es[0].ID); e == nil || e.Uses != 0 {
					t.Fatalf("the lesson was settled: %+v", e)
				}
			}
		})
	}
}

// Walking back for a commit with CI across another pull request's fix: #1 fixes the tests and
// its merge commit gets no push CI ([skip ci], a path filter, nightly-only CI); #2, a typo fix
// with a ticket, was measured from the commit below #1 and settled +2. The measured interval
// must not hold another merged pull request's changes: #2 is measured from #1's head when that
// holds the tree of #1's merge and has CI (its pull_request CI tested exactly that code), and
// otherwise abstains, saying why and naming #1. Commits no pull request brought (pushed by
// someone with write access) may still be walked past.
func TestE2EBaseWalkNeverCrossesAnotherPR(t *testing.T) {
	t.Parallel()
	t.Run("another pull request's merge without CI, its head with CI", func(t *testing.T) {
		t.Parallel()
		h, _, _ := redMain(t)
		fix := h.mergeFix(true) // no CI on its merge commit, which holds its head's tree
		pr := h.mergeTicketed(ghfake.MergeSpec{Title: "Fix typo", Files: map[string][]byte{"README.md": []byte("# demo, no typo\n")}})
		res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
		mustCode(t, res, 0)
		if res.outputs["result"] != "settled" || res.outputs["delta"] != "0" {
			t.Fatalf("#%d was settled across #%d's fix: %v\n%s", pr.Number, fix.Number, res.outputs, res.stdout)
		}
		if last := h.record(DefaultBranch).Processed; last[len(last)-1].Before != fix.HeadSHA {
			t.Fatalf("measured from %.7s, want #%d's head %.7s", last[len(last)-1].Before, fix.Number, fix.HeadSHA)
		}
	})
	t.Run("another pull request's merge without CI, its head without CI", func(t *testing.T) {
		t.Parallel()
		h, es, _ := redMain(t)
		fix := h.mergeFix(false) // CI runs nightly only
		pr := h.mergeTicketed(ghfake.MergeSpec{Title: "Fix typo", Files: map[string][]byte{"README.md": []byte("# demo, no typo\n")}})
		res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
		mustCode(t, res, 0)
		if res.outputs["settled-tickets"] != "0" || res.outputs["result"] != "abstained" {
			t.Fatalf("#%d was settled across #%d's fix: %v\n%s", pr.Number, fix.Number, res.outputs, res.stdout)
		}
		want := "which #\u200b1 merged, and count its changes as #\u200b2's" // as the bot pull request escapes it
		if !strings.Contains(res.summary, want) {
			t.Fatalf("the abstention does not name #%d (%q):\n%s", fix.Number, want, res.summary)
		}
		if s := h.botStoreIfAny(DefaultBranch); s != nil {
			if e, _ := s.Entry(es[0].ID); e != nil && e.Uses != 0 {
				t.Fatalf("the lesson was settled: %+v", e)
			}
			if body := h.openBotPRs()[0].Body; !strings.Contains(body, want) {
				t.Fatalf("the bot pull request does not say why #%d abstained:\n%s", pr.Number, body)
			}
		}
	})
	t.Run("a direct push without CI", func(t *testing.T) {
		t.Parallel()
		h, _, red := redMain(t)
		h.git.CommitFiles("main", "maintainer", "Bump version [skip ci]", map[string][]byte{"VERSION": []byte("1.2.4\n")})
		h.mergeTicketed(ghfake.MergeSpec{Title: "Fix B and C", Files: map[string][]byte{"src/fix.go": []byte("package app\n// fixed\n")}})
		res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
		mustCode(t, res, 0)
		if res.outputs["result"] != "settled" || res.outputs["delta"] != "2" {
			t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
		}
		if last := h.record(DefaultBranch).Processed; last[len(last)-1].Before != red {
			t.Fatalf("measured from %.7s, want %.7s", last[len(last)-1].Before, red)
		}
	})
}

// botStoreIfAny parses the store on branch, or returns nil when the branch has none.
func (h *harness) botStoreIfAny(branch string) *lessons.Store {
	h.t.Helper()
	if _, ok := h.git.File(branch, storePath); !ok {
		return nil
	}
	return h.botStore(branch)
}

// A rebase merge of 100 commits (GitHub's most) needs over a hundred requests to walk back to
// the commit it was merged onto; with fewer left in the hour, the run used to start the walk and
// exit 1 on the rate limit. The per-pull-request guard budgets the walk before starting it: the
// pull request waits for a later run, the run exits 0, and the next hour settles it.
func TestE2EBaseWalkWithinRateLimit(t *testing.T) {
	t.Parallel()
	h, _, base := redMain(t)
	var mu sync.Mutex
	now := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h.mergeTicketed(ghfake.MergeSpec{Title: "Fix B and C", Method: "rebase", Commits: 100,
		Files: map[string][]byte{"src/fix.go": []byte("package app\n// fixed\n")}})

	h.world.SetRateLimit(100, clock) // about 90 left when the pull request's turn comes
	res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if got := h.world.RateLimited(); got != 0 {
		t.Fatalf("%d request(s) refused for the rate limit\n%s", got, res.stdout)
	}
	if res.outputs["result"] != "pending" || !strings.Contains(res.stdout, "GitHub API budget") {
		t.Fatalf("outputs %v without a budget notice\n%s", res.outputs, res.stdout)
	}

	mu.Lock()
	now = now.Add(61 * time.Minute)
	mu.Unlock()
	h.world.SetRateLimit(1000, clock)
	t0 := h.world.Total()
	res = h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "2" || h.world.RateLimited() != 0 {
		t.Fatalf("outputs %v, %d refused\n%s", res.outputs, h.world.RateLimited(), res.stdout)
	}
	if last := h.record(DefaultBranch).Processed; last[len(last)-1].Before != base {
		t.Fatalf("measured from %.7s, want the commit below the 100 rebased ones %.7s", last[len(last)-1].Before, base)
	}
	if n, bound := h.world.Total()-t0, RequestsPerRun+RequestsPerPR+settle.WalkRequests(100); n > bound {
		t.Errorf("settling the 100-commit rebase took %d requests, over the budgeted %d", n, bound)
	}
}

// commitRead matches GET /repos/{owner}/{repo}/commits/{sha}, a commit with its files.
var commitRead = regexp.MustCompile(`/repos/[^/]+/[^/]+/commits/[0-9a-f]{40}$`)

// GitHub failing to answer during the walk to the base (here every read of a commit with its
// files answers 502) leaves the pull request queued with its tickets held, as pending CI does,
// instead of failing the run; the next run settles it.
func TestE2EBaseWalkOutageQueues(t *testing.T) {
	t.Parallel()
	h, _, base := redMain(t)
	h.mergeTicketed(ghfake.MergeSpec{Title: "Fix B and C", Method: "rebase", Commits: 2,
		Files: map[string][]byte{"src/fix.go": []byte("package app\n// fixed\n")}})
	h.world.SetBefore(func(r *http.Request) (int, string) {
		if commitRead.MatchString(r.URL.Path) {
			return http.StatusBadGateway, `{"message":"Server Error"}`
		}
		return 0, ""
	})
	res := h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if res.outputs["result"] != "pending" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	h.world.SetBefore(nil)
	res = h.runReal("workflow_dispatch", `{"inputs":{}}`)
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["delta"] != "2" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	if last := h.record(DefaultBranch).Processed; last[len(last)-1].Before != base {
		t.Fatalf("measured from %.7s, want the commit below the rebased ones %.7s", last[len(last)-1].Before, base)
	}
}

// The bot pull request is merged with no push CI (the workflow's path filter skips
// .darwin-memo/**), so the next ticketed pull request's base has none, and the walk back for a
// commit with CI met the bot's merge, another pull request's, and abstained: every merge after a
// bot merge abstained. The bot's own pull requests (from its branch of this repository) whose
// commit changes only the files the bot writes are stepped past; anything else still stops the
// walk.
func TestE2EBaseWalkStepsPastTheBotsStoreMerge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fork    string
		files   func(store []byte) map[string][]byte
		settled bool
	}{
		{"the bot's merge of its store", "", func(store []byte) map[string][]byte {
			return map[string][]byte{storePath: append(append([]byte{}, store...), '\n'), DefaultRender: []byte("# Lessons\n")}
		}, true},
		{"the bot's branch changing a source file", "", func(store []byte) map[string][]byte {
			return map[string][]byte{storePath: append(append([]byte{}, store...), '\n'), "src/fix.go": []byte("package app\n// fixed\n")}
		}, false},
		{"a fork's branch named like the bot's", "mallory", func(store []byte) map[string][]byte {
			return map[string][]byte{storePath: append(append([]byte{}, store...), '\n')}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, _, red := redMain(t)
			store, _ := h.git.File("main", storePath)
			bot := h.git.MergePull(ghfake.MergeSpec{Title: "darwin-memo: update lessons", Branch: DefaultBranch, Fork: tc.fork,
				User: "github-actions[bot]", Files: tc.files(store)}) // no CI: the path filter
			pr := h.mergeTicketed(ghfake.MergeSpec{Title: "Fix B and C", Files: map[string][]byte{"src/other.go": []byte("package app\n// fixed\n")}})
			res := h.runReal("pull_request_target", mergedEvent(pr.Number))
			mustCode(t, res, 0)
			if !tc.settled {
				if res.outputs["result"] != "abstained" {
					t.Fatalf("the walk stepped past #%d: %v\n%s", bot.Number, res.outputs, res.stdout)
				}
				return
			}
			if res.outputs["result"] != "settled" || res.outputs["delta"] != "2" {
				t.Fatalf("#%d was not measured across the bot's merge #%d: %v\n%s", pr.Number, bot.Number, res.outputs, res.stdout)
			}
			if last := h.record(DefaultBranch).Processed; last[len(last)-1].Before != red {
				t.Fatalf("measured from %.7s, want %.7s", last[len(last)-1].Before, red)
			}
		})
	}
}
