package action

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.*")

// checkGolden compares got with testdata/name, or rewrites the file with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update to accept):\n%s", path, t.Name(), got)
	}
}

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
	checkGolden(t, "botpr.golden.md", "# "+bots[0].Title+"\n\n"+bots[0].Body)
	checkGolden(t, "summary.golden.md", strings.ReplaceAll(res.summary, h.world.URL, "http://FAKE"))
}
