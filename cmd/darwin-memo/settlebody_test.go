package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// settle --body is the action's rule (lessons.Store.SettleBody): a pull request moves each lesson
// once, so a second ticket naming the same lesson leaves it alone and says so.
func TestSettleBodyMovesALessonOnce(t *testing.T) {
	p := fixtureStore(t)
	var lines string
	for _, q := range []string{"are LLM benchmark arms safe in CI?", "can LLM benchmark suites run in CI?"} {
		r := runCLI(t, "decide", "--store", p, q)
		var d struct{ Ticket string }
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Ticket == "" {
			t.Fatalf("decide %q: %v %q", q, err, r.stdout)
		}
		lines += "<!-- " + d.Ticket + " -->\n"
	}
	body := filepath.Join(t.TempDir(), "pr.md")
	os.WriteFile(body, []byte(lines), 0o644)
	r := runCLI(t, "settle", "--store", p, "--body", body, "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Tickets []struct {
			Settled      bool
			AlreadyMoved []string `json:"already_moved"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	if len(rep.Tickets) != 2 || !rep.Tickets[0].Settled || len(rep.Tickets[1].AlreadyMoved) == 0 {
		t.Errorf("want the second ticket to find the lessons the first moved already moved: %s", r.stdout)
	}
}
