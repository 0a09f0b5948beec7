package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// A panic while serving a call (a bug) is that call's error, the server keeps
// serving, and the store is reloaded for the next call.
func TestPanicInACallIsItsErrorNotTheServersEnd(t *testing.T) {
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }
	path := filepath.Join(t.TempDir(), "lessons.json")
	s := lessons.New(path, lessons.Options{Now: now})
	if _, err := s.Add(lessons.NewLesson{Question: "How do I run the tests?", Answer: "make test"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveAs(ctx, path); err != nil {
		t.Fatal(err)
	}
	src := &source{path: path, now: now}
	err := src.with(ctx, func(*lessons.Store) error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panicking call: err = %v, want an internal error naming the panic", err)
	}
	if src.store != nil {
		t.Fatal("the store survived a panic; the next call must reload it")
	}
	var living int
	if err := src.with(ctx, func(s *lessons.Store) error { living = len(s.Living()); return nil }); err != nil {
		t.Fatalf("call after the panic: %v", err)
	}
	if living != 1 {
		t.Fatalf("after the panic the store has %d living lessons, want 1", living)
	}
}
