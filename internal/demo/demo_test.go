package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// TestDemo runs the whole demo (DefaultRounds), as `darwin-memo demo` does: every fate
// reached. A long sweep; TestDemoShortHistory is the fast case.
func TestDemo(t *testing.T) {
	exhaustive.Only(t)
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{Out: &out})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Check(); err != nil {
		t.Fatal(err)
	}
	// Every action run (store, bot PR, pull request lists, settle.Measure over JUnit artifacts,
	// lesson encoding) stays within a fixed request budget whatever the history's length.
	if per := float64(res.Requests) / float64(len(res.Rows)); per > 40 {
		t.Fatalf("%.1f requests per merged pull request", per)
	}
	// The last bot pull request a maintainer merged carries the report sections, and the
	// trivia's starvation reached a maintainer in a bot pull request's deaths.
	for _, want := range []string{"<!-- darwin-memo-action -->", "### Settlements", "### Survivors", "```mermaid"} {
		if !strings.Contains(res.LastBotPR, want) {
			t.Errorf("last bot pull request lacks %q:\n%s", want, res.LastBotPR)
		}
	}
	if !slices.ContainsFunc(res.BotPRs, func(body string) bool { return strings.Contains(body, "starved") }) {
		t.Errorf("no bot pull request of %d reported a starved lesson", len(res.BotPRs))
	}
	// The table explains itself, and the fates include the lessons born during the run and
	// the heirs of merges (issue 10 §3): the seeded near-duplicates' (Check requires it) and
	// those of lessons that ask a question again, which supersede and then merge.
	for _, want := range []string{"lesson used", "total energy", "numbers skip where the bot's own pull requests took them", "created #"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	roles := map[string]int{}
	for _, f := range res.Fates {
		roles[f.Role]++
	}
	if roles[RoleBorn] == 0 || roles[RoleHeir] == 0 {
		t.Errorf("fates by role %v, want born lessons and heirs", roles)
	}
}

// A history too short for every fate is no failure: Run says which fates are still to come
// (issue 10 §3: -rounds 2 exited 1 with UNEXPECTED). The runway the demo gives a trivia lesson
// is the bot pull request's "Ticks to starvation" for it, in the same output: one formula
// (lessons.Store.TicksToStarvation, issue 23 §10). A second run ends in the same store.
func TestDemoShortHistory(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{Out: &out, Rounds: 2})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res.NotYet()) == 0 || strings.Contains(out.String(), "UNEXPECTED") || !strings.Contains(out.String(), "selection has not finished") {
		t.Errorf("not-yet fates %v, output:\n%s", res.NotYet(), out.String())
	}
	compared := 0
	for _, line := range res.NotYet() {
		var id, ticks string
		if n, _ := fmt.Sscanf(line, "trivia %s starves in %s more ticks", &id, &ticks); n != 2 {
			continue
		}
		row := regexp.MustCompile("(?m)^\\| `" + id + "` \\|.*\\| ([0-9.]+) \\| [0-9]+ \\|$").FindStringSubmatch(res.LastBotPR)
		if row == nil {
			t.Errorf("the bot pull request has no survivors row for %s:\n%s", id, res.LastBotPR)
			continue
		}
		if row[1] != ticks {
			t.Errorf("the demo says %q, the bot pull request says %s ticks to starvation", line, row[1])
		}
		compared++
	}
	if compared == 0 {
		t.Fatalf("no trivia runway to compare in %v", res.NotYet())
	}
	again, err := Run(context.Background(), Options{Out: io.Discard, Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Store, res.Store) {
		t.Fatal("two demo runs ended in different stores")
	}
}
