package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 23 §5: every flag is checked before anything is read or written, the way tick --count
// is: a bad value exits 2 with a message naming the flag, and the store is left as it was.
func TestBadFlagValuesAreRefused(t *testing.T) {
	tests := []struct {
		args   []string // STORE is replaced by a fixture copy
		stderr string
	}{
		{[]string{"add", "--recorded-ts", "yesterday", "q", "a"}, "-recorded-ts"},
		{[]string{"add", "--recorded-ts", "2026-06-13", "q", "a"}, "ISO-8601"},
		{[]string{"add", "--source", " ", "q", "a"}, "-source"},
		{[]string{"add", "--kind", "rumour", "q", "a"}, "unknown kind"},
		{[]string{"add", "--lock-wait", "-1s", "q", "a"}, "-lock-wait"},
		{[]string{"import", "--probation", "-1", "SRC"}, "-probation"},
		{[]string{"import", "--probation", "many", "SRC"}, "-probation"},
		{[]string{"import", "--label", " ", "SRC"}, "--label is blank"},
		{[]string{"decide", "--kind", "rumour", "which logger"}, "unknown kind"},
		{[]string{"decide", "--register", "--kind", "rumour", "which logger"}, "unknown kind"},
		{[]string{"query", "--kind", "rumour", "which logger"}, "unknown kind"},
		{[]string{"tick", "--lock-wait", "soon"}, "-lock-wait"},
		{[]string{"settle", "--source", "", "a899bb29d181", "1"}, "--source"},
		{[]string{"settle", "--base", "STORE", "a899bb29d181", "1"}, "--base applies to --body only"},
		{[]string{"settle", "--run", "pr#4", "a899bb29d181", "1"}, "--run applies to --body only"},
		{[]string{"settle", "--body", "-", "--repository", "widgets", "1"}, "not owner/name"},
		{[]string{"settle", "--body", "-", "--repository", "acme/widgets", "1"}, "go together"},
		{[]string{"settle", "--body", "-", "--run", "pr#4", "1"}, "go together"},
		{[]string{"pin", "--lock-wait", "-5ms", "053a99cf0a4c"}, "-lock-wait"},
		{[]string{"add", "--store", "", "q", "a"}, "--store is empty"},
		{[]string{"stats", "--store", " "}, "--store is empty"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			store := fixtureStore(t)
			src := fixtureStore(t)
			argv := []string{tt.args[0], "--store", store}
			for _, a := range tt.args[1:] {
				switch a {
				case "SRC":
					a = src
				case "STORE":
					a = store
				}
				argv = append(argv, a)
			}
			before, _ := os.ReadFile(store)
			wd := t.TempDir()
			t.Chdir(wd)
			r := runCLI(t, argv...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", r.code, r.stderr, tt.stderr)
			}
			if entries, _ := os.ReadDir(wd); len(entries) > 0 {
				t.Errorf("the command left %v in the working directory", entries)
			}
			if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
				t.Error("the store changed")
			}
			if _, err := os.Stat(store + ".lock"); err == nil {
				t.Error("a lock file was left")
			}
		})
	}
}

// --recorded-ts is stored as the store keeps timestamps: UTC to the second.
func TestRecordedTimestampIsStoredInUTC(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lessons.json")
	r := runCLI(t, "add", "--store", store, "--recorded-ts", "2026-06-13T14:43:53.5+02:00", "How do I lint?", "make lint")
	if r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Entries []struct {
			RecordedTS string `json:"recorded_ts"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Entries) != 1 {
		t.Fatalf("%v %s", err, data)
	}
	if got := doc.Entries[0].RecordedTS; got != "2026-06-13T12:43:53+00:00" {
		t.Errorf("recorded_ts %q, want 2026-06-13T12:43:53+00:00", got)
	}
}

// Issue 23 §9: a rerun of settle --body for the same run changes nothing and exits 0, saying
// why; a body whose tickets cannot land says why for each one and exits 1.
func TestSettleBodyRerunSaysWhyAndSucceeds(t *testing.T) {
	store := fixtureStore(t)
	dir := filepath.Dir(store)
	r := runCLI(t, "decide", "--store", store, "are LLM benchmark arms safe in CI?")
	var d struct{ Ticket string }
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Ticket == "" {
		t.Fatalf("decide: %+v", r)
	}
	body := filepath.Join(dir, "pr.md")
	if err := os.WriteFile(body, []byte("Fixes CI.\n<!-- "+d.Ticket+" -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settle := []string{"settle", "--store", store, "--body", body, "--source", "ci", "--repository", "acme/widgets", "--run", "pr#7", "2"}
	if r := runCLI(t, settle...); r.code != 0 || !strings.Contains(r.stdout, `"settled":true`) {
		t.Fatalf("first settle: %+v", r)
	}
	before, _ := os.ReadFile(store)
	r = runCLI(t, settle...)
	if r.code != exitOK || !strings.Contains(r.stdout, `"reason":"already settled for acme/widgets run pr#7`) || !strings.Contains(r.stderr, "already settled") {
		t.Errorf("rerun: %+v; want exit 0 saying the ticket was already settled", r)
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Error("the rerun changed the store")
	}

	unknown := filepath.Join(dir, "unknown.md")
	if err := os.WriteFile(unknown, []byte("darwin-memo-ticket: 000000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "settle", "--store", store, "--body", unknown, "1")
	if r.code != exitError || !strings.Contains(r.stdout, `"reason":"not pending in this store`) || !strings.Contains(r.stderr, `"reason"`) {
		t.Errorf("unknown compat ticket: %+v; want exit 1 with the reason", r)
	}
}

// Issue 23 §12: the small things a person meets on day two.
func TestDayTwoMessages(t *testing.T) {
	store := fixtureStore(t)
	dir := filepath.Dir(store)
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // substrings
		notStderr      string
	}{
		{"demo stray argument", []string{"demo", "extra"}, exitUsage, "", `unexpected argument "extra"`, ""},
		{"action stray argument", []string{"action", "extra"}, exitUsage, "", `unexpected argument "extra"`, ""},
		{"pin says so", []string{"pin", "--store", store, "053a99cf0a4c"}, exitOK, "053a99cf0a4c is pinned", "", ""},
		{"unpin says so", []string{"unpin", "--store", store, "053a99cf0a4c"}, exitOK, "053a99cf0a4c is unpinned", "", ""},
		{"forget names the ticket that holds the lesson", []string{"forget", "--store", store, "053a99cf0a4c"}, exitError, "", "pending ticket (a899bb29d181); settle or abandon it first (darwin-memo abandon a899bb29d181)", ""},
		{"import of a missing store does not suggest add", []string{"import", "--store", store, filepath.Join(dir, "nonexistent.json")}, exitError, "", "SOURCE_STORE", "darwin-memo add"},
		{"bench is gone", []string{"bench", "-h"}, exitUsage, "", "unknown command", "Usage: bench"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) || tt.notStderr != "" && strings.Contains(r.stderr, tt.notStderr) {
				t.Errorf("%+v; want exit %d, stdout with %q, stderr with %q and without %q", r, tt.code, tt.stdout, tt.stderr, tt.notStderr)
			}
		})
	}
	// forget of a lesson no ticket holds buries it and says so
	r := runCLI(t, "stats", "--json", "--store", store)
	if r.code != 0 {
		t.Fatal(r)
	}
	r = runCLI(t, "top", "--json", "--store", store)
	var rows []struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.ID == "053a99cf0a4c" {
			continue
		}
		if r := runCLI(t, "forget", "--store", store, row.ID); r.code == 0 {
			if !strings.Contains(r.stdout, "buried "+row.ID) {
				t.Errorf("forget printed %q", r.stdout)
			}
			return
		}
	}
	t.Fatal("no lesson could be forgotten")
}

// Issue 23 §9, one ticket: settling a ticket again exits 0 and says when it was settled (from
// the event log); a ticket the store never settled is still an error.
func TestSettleTicketRerunSucceeds(t *testing.T) {
	store := fixtureStore(t)
	if r := runCLI(t, "settle", "--store", store, "a899bb29d181", "1"); r.code != 0 {
		t.Fatalf("first settle: %+v", r)
	}
	before, _ := os.ReadFile(store)
	r := runCLI(t, "settle", "--store", store, "a899bb29d181", "1")
	if r.code != exitOK || !strings.Contains(r.stderr, "already settled at tick 49") || !strings.Contains(r.stdout, `"status":"dropped"`) {
		t.Errorf("rerun: %+v", r)
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Error("the rerun changed the store")
	}
	if r := runCLI(t, "settle", "--store", store, "000000000000", "1"); r.code != exitError || !strings.Contains(r.stderr, "not pending") {
		t.Errorf("unknown ticket: %+v", r)
	}
}
