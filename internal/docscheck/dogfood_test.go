package docscheck

import (
	"context"
	"path/filepath"
	"testing"

	lessoncite "github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// TestDogfoodStore checks this repository's own lessons: the store loads
// without warnings, the doctor finds no error, and the committed LESSONS.md
// is what rendering the store gives (regenerate it with
// `go run ./cmd/darwin-memo render -o .darwin-memo/LESSONS.md`).
func TestDogfoodStore(t *testing.T) {
	root := repoRoot(t)
	path := filepath.Join(root, ".darwin-memo", "lessons.json")
	s, err := lessons.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Warnings(); len(w) > 0 {
		t.Errorf("load warnings: %v", w)
	}
	if n := len(s.Living()); n < 12 {
		t.Errorf("%d living lessons; the dogfood store should hold a dozen real ones", n)
	}
	if d := s.Doctor(nil); d.HasErrors() {
		t.Errorf("doctor: %+v", d.Findings)
	}
	// Every lesson an agent can be answered with cites files that exist: a
	// superseded lesson never decides, so its citations may have gone.
	c, err := lessoncite.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, e := range s.Living() {
		if len(s.SupersessionChain(e.ID)) > 1 {
			continue
		}
		for _, r := range c.Check(e.Sources) {
			if r.State != lessoncite.OK {
				t.Errorf("lesson %s (%q): %s", e.ID, e.Question, r.Text())
			}
		}
	}
	want, err := s.Render(lessons.RenderOptions{Label: "lessons.json", Questions: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, ".darwin-memo/LESSONS.md"); got != string(want) {
		t.Errorf(".darwin-memo/LESSONS.md is stale; regenerate it with go run ./cmd/darwin-memo render --store .darwin-memo/lessons.json -o .darwin-memo/LESSONS.md")
	}
}
