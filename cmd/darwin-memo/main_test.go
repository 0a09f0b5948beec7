package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

var fixed = time.Date(2026, 6, 13, 12, 43, 53, 0, time.UTC)

type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return fixed }})
	return result{code, out.String(), errb.String()}
}

func fixtureStore(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lessons.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStatsFixture(t *testing.T) {
	p := fixtureStore(t)
	r := runCLI(t, "stats", "--json", "--store", p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got struct{ Living, Dead, Tick, Pending int }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Living != 3 || got.Dead != 6 || got.Tick != 49 || got.Pending != 1 {
		t.Errorf("stats %+v, want 3 living, 6 dead, tick 49, 1 pending", got)
	}
	// read-only commands leave the bytes alone
	before, _ := os.ReadFile("testdata/lessons.json")
	after, _ := os.ReadFile(p)
	if !bytes.Equal(before, after) {
		t.Error("stats changed the store")
	}
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name     string
		args     []string // "STORE" is replaced by the fixture copy's path
		code     int
		stdout   string // substring
		stderr   string // substring
		noChange bool   // store bytes must be unchanged
	}{
		{"no args", nil, 2, "Commands:", "", true},
		{"help", []string{"help"}, 0, "decide", "", true},
		{"unknown", []string{"decid"}, 2, "", `did you mean "decide"`, true},
		{"bad flag", []string{"stats", "--nope", "--store", "STORE"}, 2, "", "flag provided but not defined", true},
		{"help flag", []string{"stats", "-h"}, 0, "", "Usage: darwin-memo stats", true},
		{"decide silent", []string{"decide", "--store", "STORE", "zebra", "giraffe"}, 0, `{"answer":null,"ticket_id":null,"silent":true,"ticket":null,"reason":"nothing_relevant"}`, "", true},
		{"decide no store", []string{"decide", "--store", "DIR/none.json", "how do I run the tests"}, 0, `"silent":true,"ticket":null,"reason":"no_store"}`, "no store at", true},
		{"query no store", []string{"query", "--store", "DIR/none.json", "how do I run the tests"}, 0, "(silent: no store at", "no store at", true},
		{"decide store-free", []string{"decide", "--store", "STORE", "are LLM benchmark arms safe in CI?"}, 0, `"ticket":"darwin-memo: v2 t=49 d=053a99cf0a4c`, "", true},
		{"decide darwin-memo retrieval", []string{"decide", "--retrieval", "darwin-memo", "--store", "STORE", "are LLM benchmark arms safe in CI?"}, 0, `"ticket":"darwin-memo: v1 t=49 d=053a99cf0a4c`, "", true},
		{"decide bad retrieval", []string{"decide", "--retrieval", "v9", "--store", "STORE", "x"}, 2, "", "unknown retrieval", true},
		{"query json darwin-memo", []string{"query", "--json", "--retrieval", "darwin-memo", "--store", "STORE", "benchmark", "arms", "CI"}, 0, `[{"id":"053a99cf0a4c","score":`, "", true},
		{"decide no query", []string{"decide", "--store", "STORE"}, 2, "", "missing QUERY", true},
		{"query json", []string{"query", "--json", "--store", "STORE", "benchmark", "arms", "CI"}, 0, `[{"id":"053a99cf0a4c","score":`, "", true},
		{"query json silent", []string{"query", "--store", "STORE", "--json", "zebra"}, 0, "[]\n", "", true},
		{"query flags after args", []string{"query", "zebra", "--json", "--store", "STORE"}, 0, "[]\n", "", true},
		{"why", []string{"why", "--store", "STORE", "7e40e33bc60d"}, 0, "died at tick 38 (starved", "", true},
		{"obituary unknown", []string{"obituary", "--store", "STORE", "ffffffffffff"}, 1, "", "unknown to this store", true},
		{"top", []string{"top", "--json", "--store", "STORE"}, 0, `"ticks_to_starvation":11.3`, "", true},
		{"doctor", []string{"doctor", "--json", "--store", "STORE"}, 0, `"code":"ticking_without_evidence"`, "", true},
		{"render stdout", []string{"render", "--store", "STORE", "-o", "-", "--budget", "900"}, 0, "2 of 3 living entries shown, budget 900 bytes", "", true},
		{"render questions", []string{"render", "--store", "STORE", "-o", "-"}, 0, "- Q: Are LLM benchmark arms safe to run in CI?\n  A: No. Sampled model output", "", true},
		{"render answers only", []string{"render", "--store", "STORE", "-o", "-", "--budget", "600", "--answers-only"}, 0, "2 of 3 living entries shown, budget 600 bytes", "", true},
		{"render bad budget", []string{"render", "--store", "STORE", "--budget", "lots"}, 2, "", "not a size", true},
		{"settle unknown", []string{"settle", "--store", "STORE", "000000000000", "1"}, 1, "", "is not pending", true},
		{"settle bad delta", []string{"settle", "--store", "STORE", "a899bb29d181", "many"}, 2, "", "not a number", true},
		{"settle pending", []string{"settle", "--store", "STORE", "a899bb29d181", "2"}, 0, `"settled":true`, "", false},
		{"abandon", []string{"abandon", "--store", "STORE", "a899bb29d181"}, 0, `"status":"abandon"`, "", false},
		{"tick", []string{"tick", "--store", "STORE"}, 0, `"tick":50`, "", false},
		{"pin", []string{"pin", "--store", "STORE", "053a99cf0a4c"}, 0, "", "", false},
		{"pin dead", []string{"pin", "--store", "STORE", "7e40e33bc60d"}, 1, "", "not a living lesson", false},
		{"forget escrowed", []string{"forget", "--store", "STORE", "053a99cf0a4c"}, 1, "", "named by a pending ticket", false},
		{"forget", []string{"forget", "--store", "STORE", "52867957f4d5"}, 0, "", "", false},
		{"add", []string{"add", "--store", "STORE", "--source", "pr#1", "How do I run tests?", "make test"}, 0, "", "", false},
		{"add missing", []string{"add", "--store", "STORE", "only a question"}, 2, "", "need a QUESTION and an ANSWER", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fixtureStore(t)
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "STORE", p), "DIR", filepath.Dir(p))
			}
			before, _ := os.ReadFile(p)
			r := runCLI(t, args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", r.stdout, tt.stdout)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.stderr)
			}
			after, _ := os.ReadFile(p)
			if tt.noChange && !bytes.Equal(before, after) {
				t.Error("store changed")
			}
			if !tt.noChange && tt.code == 0 && bytes.Equal(before, after) {
				t.Error("mutating command did not change the store")
			}
		})
	}
}

func TestMalformedStoreNamesPathAndWritesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lessons.json")
	bad := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [{"question": "q", "answer": "a", "energy": "high"}], "graveyard": []}`
	os.WriteFile(p, []byte(bad), 0o644)
	for _, args := range [][]string{{"tick", "--store", p}, {"stats", "--store", p}, {"add", "--store", p, "q", "a"}} {
		r := runCLI(t, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "$.entries[0].energy: expected a number, got string") || !strings.Contains(r.stderr, "was not changed") {
			t.Errorf("%v: exit %d stderr %q", args, r.code, r.stderr)
		}
	}
	if got, _ := os.ReadFile(p); string(got) != bad {
		t.Error("malformed store was rewritten")
	}
}

func TestRegisteredDecideThenSettleLifecycle(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".darwin-memo", "lessons.json")
	if r := runCLI(t, "add", "--store", p, "How do I run the integration tests?", "make integration; start docker first"); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, "decide", "--register", "--store", p, "run integration tests")
	var d struct {
		Answer   string `json:"answer"`
		TicketID string `json:"ticket_id"`
		Ticket   string `json:"ticket"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Ticket != "darwin-memo-ticket: "+d.TicketID {
		t.Fatalf("decide: %v %+v %s", err, d, r.stderr)
	}
	if r := runCLI(t, "settle", "--store", p, d.TicketID, "1"); r.code != 0 {
		t.Fatalf("settle: %d %s", r.code, r.stderr)
	}
	// a rerun is no failure (issue 23 §9): exit 0, saying it was settled already
	if r := runCLI(t, "settle", "--store", p, d.TicketID, "1"); r.code != 0 || !strings.Contains(r.stderr, "already settled") {
		t.Errorf("duplicate settle: %+v", r)
	}
	events, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "lessons.events.jsonl"))
	// the duplicate settle changed nothing, not even the event log
	if !bytes.Contains(events, []byte(`"event": "settle"`)) || bytes.Contains(events, []byte(`"event": "settle_dropped"`)) {
		t.Errorf("event log:\n%s", events)
	}
	out := filepath.Join(t.TempDir(), "MEMORY.md")
	if r := runCLI(t, "render", "--store", p, "-o", out); r.code != 0 {
		t.Fatalf("render: %s", r.stderr)
	}
	doc, _ := os.ReadFile(out)
	if !bytes.Contains(doc, []byte("make integration; start docker first")) {
		t.Errorf("render:\n%s", doc)
	}
}

// A missing store is an error for render as for every command but decide and query (docs/cli.md),
// and nothing is written: no LESSONS.md appears in a repository without lessons (issue 23 §11).
func TestRenderMissingStore(t *testing.T) {
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "MEMORY.md"), "", "-"} {
		args := []string{"render", "--store", filepath.Join(dir, ".darwin-memo", "lessons.json")}
		if out != "" {
			args = append(args, "-o", out)
		}
		r := runCLI(t, args...)
		if r.code != exitError || !strings.Contains(r.stderr, "not found; nothing was rendered") || r.stdout != "" {
			t.Errorf("render -o %q of a missing store: %+v", out, r)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("render -o %q of a missing store created %v", out, entries)
		}
	}
}

func TestStoreLockedIsReported(t *testing.T) {
	p := fixtureStore(t)
	lk, err := storedoc.LockWait(t.Context(), p, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	r := runCLI(t, "tick", "--store", p, "--lock-wait", "50ms")
	if r.code != 1 || strings.Count(r.stderr, "retry the entire operation") != 1 || strings.Count(r.stderr, "busy") != 1 {
		t.Errorf("exit %d stderr %q, want the busy message once", r.code, r.stderr)
	}
}

func TestSettleBodyStoreFree(t *testing.T) {
	p := fixtureStore(t)
	r := runCLI(t, "decide", "--store", p, "are LLM benchmark arms safe in CI?")
	var d struct{ Ticket string }
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Ticket == "" {
		t.Fatalf("decide: %v %q", err, r.stdout)
	}
	body := filepath.Join(t.TempDir(), "pr.md")
	os.WriteFile(body, []byte("Makes CI faster.\n\n<!-- "+d.Ticket+" -->\n\ndarwin-memo: v1 t=49 d=7e40e33bc60d s=- q=eA\n"), 0o644)
	r = runCLI(t, "settle", "--store", p, "--body", body, "--source", "ci", "--repository", "o/r", "--run", "pr#5", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Tickets []struct {
			Form, ID, Refused string
			Settled           bool
		}
		Tick *struct{ Tick int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	if len(rep.Tickets) != 2 || !rep.Tickets[0].Settled || rep.Tickets[1].Refused == "" || rep.Tick == nil || rep.Tick.Tick != 50 {
		t.Errorf("report %s", r.stdout)
	}
	// the same PR again: replay guard, nothing lands, no tick
	r = runCLI(t, "settle", "--store", p, "--body", body, "--source", "ci", "--repository", "o/r", "--run", "pr#5", "2")
	if !strings.Contains(r.stdout, `"tick":null`) || strings.Contains(r.stdout, `"settled":true`) {
		t.Errorf("replay: %s", r.stdout)
	}
	// an unreadable base abstains (exit 3) and changes nothing
	bad := filepath.Join(t.TempDir(), "base.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	before, _ := os.ReadFile(p)
	r = runCLI(t, "settle", "--store", p, "--body", body, "--base", bad, "2")
	after, _ := os.ReadFile(p)
	if r.code != 3 || !bytes.Equal(before, after) {
		t.Errorf("unreadable base: exit %d, store changed %v", r.code, !bytes.Equal(before, after))
	}
}

// TestNewStoreStartsWithRecommendedConfig checks that a store the CLI creates
// persists supporting_share 0 while a darwin-memo store keeps its 0.25.
func TestNewStoreStartsWithRecommendedConfig(t *testing.T) {
	dir := t.TempDir()
	share := func(p string) any {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Ledger struct {
				Config map[string]any `json:"config"`
			} `json:"ledger"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Ledger.Config["supporting_share"]
	}
	fresh := filepath.Join(dir, "fresh", "lessons.json")
	if r := runCLI(t, "add", "--store", fresh, "How do I run the tests?", "go test ./..."); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	if got := share(fresh); got != 0.0 {
		t.Errorf("new store supporting_share %v, want 0", got)
	}
	old := filepath.Join(dir, "lessons.json")
	doc := `{"config": {}, "entries": [], "graveyard": [], "ledger": {"tick": 0, "pending": [], "config": {"supporting_share": 0.25}}}`
	if err := os.WriteFile(old, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "add", "--store", old, "How do I run the tests?", "go test ./..."); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	if got := share(old); got != 0.25 {
		t.Errorf("darwin-memo store supporting_share %v, want its 0.25", got)
	}
}

// Issue 10 §3: every command's usage names itself, help CMD shows CMD's
// usage, a wrong flag's error is printed once, and render writes LESSONS.md
// next to the store, where the action keeps it.
func TestUsageAndDefaults(t *testing.T) {
	if r := runCLI(t, "obituary", "-h"); r.code != 0 || !strings.Contains(r.stderr, "Usage: darwin-memo obituary") {
		t.Errorf("obituary -h: exit %d stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "help", "decide"); r.code != 0 || !strings.Contains(r.stderr, "Usage: darwin-memo decide") || strings.Contains(r.stdout, "Commands:") {
		t.Errorf("help decide: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "stats", "--nope"); r.code != 2 || strings.Count(r.stderr, "flag provided but not defined") != 1 {
		t.Errorf("bad flag: exit %d stderr %q, want the error once", r.code, r.stderr)
	}
	p := fixtureStore(t)
	if r := runCLI(t, "render", "--store", p); r.code != 0 {
		t.Fatalf("render: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(p), "LESSONS.md")); err != nil {
		t.Errorf("render did not write LESSONS.md next to the store: %v", err)
	}
}
