package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Given a repository whose best lesson for a question cites a file since deleted, consult
// passes over it (stale), answers with the next lesson and its checked citations, and the
// ticket verifies at the store.
func TestConsultSkipsLessonWhoseCitedFilesAreGone(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", "src", ".darwin-memo"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src/new.go"), []byte("package src\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".darwin-memo", "lessons.json")
	s := lessons.New(path, lessons.Options{Now: clock})
	var ids []string
	for _, l := range []lessons.NewLesson{
		{Question: "How do I run the integration tests?", Answer: "make itest", Sources: []string{"path:src/old.go"}},
		{Question: "How do I run the integration tests locally?", Answer: "make itest-local", Sources: []string{"path:src/new.go"}},
	} {
		e, err := s.Add(l)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if err := s.SaveAs(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, path)
	res, txt := call(t, cs, "consult", map[string]any{"question": "how do I run the integration tests"})
	if res.IsError {
		t.Fatalf("consult failed: %s", txt)
	}
	out := structured[mcpserver.ConsultOutput](t, res)
	if out.LessonID != ids[1] || !slices.Equal(out.Stale, ids[:1]) {
		t.Fatalf("consult = %+v, want %s deciding and %s stale", out, ids[1], ids[0])
	}
	if len(out.Citations) != 1 || out.Citations[0].Path != "src/new.go" || out.Citations[0].State != "ok" {
		t.Errorf("citations %+v", out.Citations)
	}
	tickets, _ := lessons.ParseTickets(out.Ticket)
	if len(tickets) != 1 {
		t.Fatalf("ticket %q", out.Ticket)
	}
	if err := s.VerifyTicket(tickets[0], lessons.VerifyOptions{}); err != nil {
		t.Fatalf("the bot would refuse the ticket: %v", err)
	}
	res, _ = call(t, cs, "lesson", map[string]any{"id": ids[0]})
	if l := structured[mcpserver.LessonOutput](t, res); len(l.Citations) != 1 || l.Citations[0].State != "missing" {
		t.Errorf("lesson %s citations %+v, want src/old.go missing", ids[0], l.Citations)
	}
	res, _ = call(t, cs, "search", map[string]any{"query": "integration tests"})
	for _, h := range structured[mcpserver.SearchOutput](t, res).Hits {
		if len(h.Citations) != 1 || (h.ID == ids[0]) != (h.Citations[0].State == "missing") {
			t.Errorf("search hit %s citations %+v", h.ID, h.Citations)
		}
	}
}
