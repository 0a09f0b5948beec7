package action

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/golden"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// The bot pull request a first settlement opens, title and body whole, and the step summary:
// what a maintainer reviews, byte for byte.
func TestE2EBotPRGolden(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	line := h.ticketFor("how do I run the integration tests")
	pr := h.merge("Fix flaky itest", "Fixes the integration tests.\n\n"+line+"\n\nLesson: Run make itest twice when the docker daemon restarts.", measured(2))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	bots := h.openBotPRs()
	if len(bots) != 1 {
		t.Fatalf("bot PRs %+v", bots)
	}
	golden.Check(t, "botpr.golden.md", "# "+bots[0].Title+"\n\n"+bots[0].Body)
	golden.Check(t, "summary.golden.md", strings.ReplaceAll(res.summary, h.world.URL, "http://FAKE"))
}

// A store holding NaN (Python's json writes it for a NaN float, and the lessons package reads
// it) merges like any other: before, the merge's encoding/json refused it and the run quietly
// rebuilt the bot branch from the base branch, settling its pull requests again.
func TestE2EStoreWithNaNMerges(t *testing.T) {
	t.Parallel()
	seed, es := seedStore(t)
	s, err := lessons.Parse(storePath, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetExtension("x_tool_score", []byte("NaN")); err != nil {
		t.Fatal(err)
	}
	store, err := s.Marshal()
	if err != nil || !strings.Contains(string(store), `"x_tool_score": NaN`) {
		t.Fatalf("%v\n%s", err, store)
	}
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	// A person pins a lesson on main, so the next run three-way merges the two stores.
	main := h.botStore("main")
	main.Pin(es[2].ID)
	edited, _ := main.Marshal()
	h.git.CommitFiles("main", "maintainer", "pin", map[string][]byte{storePath: edited})
	pr2 := h.merge("Fix payments", h.ticketFor("which logger does the payments service use"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr2.Number), nil)
	mustCode(t, res, 0)
	if !strings.Contains(res.stdout, "merged the bot branch's store") || strings.Contains(res.stdout, "rebuilt from the base branch") {
		t.Fatalf("the stores were not merged:\n%s", res.stdout)
	}
	bot := h.botStore(DefaultBranch)
	if e, _ := bot.Entry(es[0].ID); e == nil || e.Uses != 1 {
		t.Fatalf("the first settlement was lost: %+v", e)
	}
	if e, _ := bot.Entry(es[2].ID); e == nil || !e.Pinned {
		t.Fatalf("the pin was lost: %+v", e)
	}
	if v, ok := bot.Extension("x_tool_score"); !ok || string(v) != "NaN" {
		t.Fatalf("extension %q %v", v, ok)
	}
}
