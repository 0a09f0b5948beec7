package action

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// citingStore is a new store (this project's recommended ledger.config, stale_upkeep
// included) whose lessons cite code: one a file a pull request will rename (with a
// symbol), one only a file it will delete, one that file and another, one nothing.
func citingStore(t *testing.T) ([]byte, []*lessons.Entry) {
	t.Helper()
	rec := lessons.RecommendedConfig()
	s := lessons.New(storePath, lessons.Options{Now: fixedNow, Config: &rec})
	var es []*lessons.Entry
	for _, l := range []struct {
		q, a    string
		sources []string
	}{
		{"Where are HTTP handlers registered?", "In src/old.go, Handler wires every route; add new routes there.", []string{"pr#1", "path:src/old.go#Handler"}},
		{"How are session tokens minted?", "src/gone.go mints them with the HMAC key from the vault.", []string{"path:src/gone.go"}},
		{"How is the response cache evicted?", "Least recently used first; see src/gone.go and src/app.go.", []string{"path:src/gone.go", "path:src/app.go"}},
		{"How do I run the integration tests?", "Run make itest with DOCKER_HOST unset; the suite starts its own containers.", []string{"seed"}},
	} {
		e, err := s.Add(lessons.NewLesson{Question: l.q, Answer: l.a, Sources: l.sources})
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b, es
}

// A merged pull request that renames one cited file and deletes another: the bot pull
// request's store follows the rename and marks the deleted citation removed, its body lists
// the removal under "Citations broken by #N" with the lesson it leaves without a valid
// citation, and that lesson pays stale_upkeep on the next tick while the others pay their
// idle upkeep. Every response of the fake is held to GitHub's description (TestMain), the
// file list is read once for the citations and the encoder, and a later run that updates
// the bot pull request still shows the broken citations.
func TestE2ECitationsFollowRenamesAndReportRemovals(t *testing.T) {
	t.Parallel()
	store, es := citingStore(t)
	h := newHarness(t, store)
	h.git.CommitFiles("main", "octocat", "add the handlers", map[string][]byte{
		"src/old.go":  []byte("package src\n\nfunc Handler() {}\n"),
		"src/gone.go": []byte("package src\n\nfunc Mint() {}\n"),
	})
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Move the handlers, drop the token minter", Body: "Refactor.",
		Files: map[string][]byte{"src/old.go": nil, "src/new.go": []byte("package src\n\nfunc Handler() {}\n"), "src/gone.go": nil}})
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)

	bot := h.botStore(DefaultBranch)
	wantSources := [][]string{
		{"pr#1", "path:src/new.go#Handler"},
		{"path-removed:src/gone.go"},
		{"path-removed:src/gone.go", "path:src/app.go"},
		{"seed"},
	}
	for i, e := range es {
		got, ok := bot.Entry(e.ID)
		if !ok {
			t.Fatalf("lesson %s gone from the bot store", e.ID)
		}
		if !reflect.DeepEqual(got.Sources, wantSources[i]) {
			t.Errorf("%s: sources %q, want %q", e.Question, got.Sources, wantSources[i])
		}
		if stale := bot.CitationsStale(got); stale != (i == 1) {
			t.Errorf("%s: stale %v", e.Question, stale)
		}
	}
	bots := h.openBotPRs()
	if len(bots) != 1 {
		t.Fatalf("bot pull requests %+v", bots)
	}
	body := bots[0].Body
	for _, want := range []string{
		"### Citations broken by [#" + itoa(pr.Number) + "](https://github.com/acme/widgets/pull/" + itoa(pr.Number) + ")",
		"`src/gone.go`, cited by 2 lessons, was removed; it leaves 1 without any valid citation:",
		"  - `" + es[1].ID + "` How are session tokens minted?",
		"`src/old.go` → `src/new.go` (1 lesson)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("bot pull request body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "  - `"+es[2].ID+"`") {
		t.Errorf("the lesson that keeps a citation is listed as left without one:\n%s", body)
	}
	if n := h.git.Requests["GET pulls/n/files"]; n != 1 {
		t.Errorf("the pull request's files were read %d times, want once (the citations and the encoder share the answer)", n)
	}

	// A second merge with a ticket settles and ticks: the stale lesson pays stale_upkeep,
	// the others their idle upkeep; the bot pull request still lists #1's broken citation.
	line := h.ticketFor("how do I run the integration tests")
	pr2 := h.merge("Fix itest", "Fixes the integration tests.\n\n"+line, measured(1))
	res = h.run("pull_request_target", mergedEvent(pr2.Number), nil)
	mustCode(t, res, 0)
	bot = h.botStore(DefaultBranch)
	if bot.TickCount() != 1 {
		t.Fatalf("tick %d, want 1", bot.TickCount())
	}
	cfg := bot.Config()
	idle := lessons.DefaultUpkeep * *cfg.IdleUpkeepScale
	for i, want := range []float64{1 - idle, 1 - cfg.StaleUpkeep, 1 - idle} {
		got, _ := bot.Entry(es[i].ID)
		if math.Abs(got.Energy-want) > 1e-9 {
			t.Errorf("%s: energy %v, want %v", got.Question, got.Energy, want)
		}
	}
	if body := h.openBotPRs()[0].Body; !strings.Contains(body, "### Citations broken by [#"+itoa(pr.Number)+"]") || !strings.Contains(body, es[1].ID) {
		t.Errorf("the updated bot pull request lost #%d's broken citations:\n%s", pr.Number, body)
	}
}
