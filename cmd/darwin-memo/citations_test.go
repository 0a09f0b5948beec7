package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// citeRepo is a temporary repository (a ".git" directory, files src/old.go and src/new.go)
// with a store in .darwin-memo holding two lessons for one question: the better-ranked one
// cites src/old.go, the other src/new.go. It returns the store's path and the lessons' ids.
func citeRepo(t *testing.T) (store, staleID, liveID string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".git", "src", ".darwin-memo"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"src/old.go", "src/new.go"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("package src\nfunc Run() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store = filepath.Join(root, ".darwin-memo", "lessons.json")
	add := func(q, a, cite string) string {
		r := runCLI(t, "add", "--store", store, "--cite", cite, q, a)
		if r.code != 0 {
			t.Fatalf("add: exit %d: %s", r.code, r.stderr)
		}
		s, err := lessons.Load(context.Background(), store)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Living() {
			if e.Question == q {
				if !slices.Contains(e.Sources, "path:"+cite) {
					t.Fatalf("add --cite %s: sources %v", cite, e.Sources)
				}
				return e.ID
			}
		}
		t.Fatalf("lesson %q not added", q)
		return ""
	}
	staleID = add("How do I run the integration tests?", "make integration; start docker first", "src/old.go")
	liveID = add("How do I run the integration tests locally?", "make integration-local", "src/new.go#Run")
	return store, staleID, liveID
}

func TestAddCiteRefusesBadPaths(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lessons.json")
	for _, bad := range []string{"/etc/passwd", "../up.go", `a\b.go`, "x.go#1bad", ""} {
		r := runCLI(t, "add", "--store", store, "--cite", bad, "q", "a")
		if r.code != 2 || !strings.Contains(r.stderr, "cite") {
			t.Errorf("--cite %q: exit %d stderr %q, want 2 naming --cite", bad, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("a refused add created the store")
	}
}

// Given a repository whose top lesson for a question cites a file since deleted, decide
// passes over it to the next lesson, names it stale, and mints a ticket that verifies at
// the same store; with both cited files gone it abstains with reason stale_citations; query
// still lists the stale lesson, marked.
func TestDecideSkipsLessonWhoseCitedFilesAreGone(t *testing.T) {
	store, staleID, liveID := citeRepo(t)
	q := "how do I run the integration tests"
	type decision struct {
		Answer    *string
		Ticket    *string
		Silent    bool
		Reason    string
		Stale     []string
		Citations []struct{ Path, State string }
	}
	decide := func() decision {
		r := runCLI(t, "decide", "--store", store, q)
		if r.code != 0 {
			t.Fatalf("decide: exit %d: %s", r.code, r.stderr)
		}
		var d decision
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := decide(); d.Answer == nil || !strings.HasPrefix(*d.Answer, "make integration;") || len(d.Stale) != 0 {
		t.Fatalf("before the deletion: %+v, want the cited lesson to decide", d)
	}
	root := filepath.Dir(filepath.Dir(store))
	if err := os.Remove(filepath.Join(root, "src/old.go")); err != nil {
		t.Fatal(err)
	}
	d := decide()
	if d.Answer == nil || !strings.HasPrefix(*d.Answer, "make integration-local") || !slices.Equal(d.Stale, []string{staleID}) {
		t.Fatalf("after the deletion: %+v, want %s to decide and %s stale", d, liveID, staleID)
	}
	if len(d.Citations) != 1 || d.Citations[0].Path != "src/new.go" || d.Citations[0].State != "ok" {
		t.Errorf("decider citations %+v", d.Citations)
	}
	s, err := lessons.Load(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	bt, _ := lessons.ParseTickets(*d.Ticket)
	if len(bt) != 1 {
		t.Fatalf("ticket line %q", *d.Ticket)
	}
	if err := s.VerifyTicket(bt[0], lessons.VerifyOptions{}); err != nil {
		t.Fatalf("the ticket does not verify at the store (as CI re-runs it, without the tree): %v", err)
	}
	r := runCLI(t, "query", "--store", store, q)
	if !strings.Contains(r.stdout, "cites src/old.go, which no longer exists") {
		t.Errorf("query does not mark the stale lesson:\n%s", r.stdout)
	}
	if err := os.Remove(filepath.Join(root, "src/new.go")); err != nil {
		t.Fatal(err)
	}
	if d := decide(); !d.Silent || d.Reason != "stale_citations" || len(d.Stale) != 2 {
		t.Errorf("every cited file gone: %+v, want silent, stale_citations, both named", d)
	}
}

// Given a repository whose lesson cites a deleted file, beside one citing an existing file and
// one citing nothing, doctor warns about the stale one and the uncited one (exit 0).
func TestDoctorListsStaleAndUncitedLessons(t *testing.T) {
	store, staleID, _ := citeRepo(t)
	r := runCLI(t, "add", "--store", store, "What port do the tests use?", "8080")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(filepath.Dir(store)), "src/old.go")); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "doctor", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("doctor: exit %d: %s", r.code, r.stderr)
	}
	var d struct {
		Findings []struct {
			Code, Severity string
			Evidence       struct{ Lessons []string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range d.Findings {
		if f.Severity == "warn" {
			got[f.Code] = f.Evidence.Lessons
		}
	}
	if !slices.Equal(got["stale_citations"], []string{staleID}) || len(got["uncited"]) != 1 {
		t.Errorf("doctor findings %+v, want stale_citations [%s] and one uncited", d.Findings, staleID)
	}
	if r := runCLI(t, "doctor", "--store", store); !strings.Contains(r.stdout, "warn stale_citations") {
		t.Errorf("doctor text:\n%s", r.stdout)
	}
}

// Issue 26 §1: import keeps each lesson's citations, and they are checked against the
// working tree of the repository the importing store is in: a lesson citing a file that
// repository lacks is stale there, whatever it was where it came from.
func TestImportKeepsCitations(t *testing.T) {
	from, staleID, liveID := citeRepo(t)
	root := t.TempDir()
	for _, d := range []string{".git", "src", ".darwin-memo"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src/new.go"), []byte("package src\nfunc Run() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(root, ".darwin-memo", "lessons.json")
	if r := runCLI(t, "import", "--store", store, "--probation", "0", from); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	src, err := lessons.Load(context.Background(), from)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := lessons.Load(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{staleID, liveID} {
		a, _ := src.Entry(id)
		b, ok := dst.Entry(id)
		if !ok || !slices.Equal(a.Sources, b.Sources) {
			t.Fatalf("lesson %s imported with sources %v, want %v", id, b, a.Sources)
		}
	}
	r := runCLI(t, "decide", "--store", store, "how do I run the integration tests")
	var d struct {
		Answer    *string
		Stale     []string
		Citations []struct{ Path, State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("decide: exit %d: %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if d.Answer == nil || !strings.HasPrefix(*d.Answer, "make integration-local") || !slices.Equal(d.Stale, []string{staleID}) || len(d.Citations) != 1 || d.Citations[0].State != "ok" {
		t.Errorf("decide after import: %+v, want %s to decide with its citation ok and %s stale (src/old.go is not in this repository)", d, liveID, staleID)
	}
}
