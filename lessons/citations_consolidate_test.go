package lessons

import (
	"slices"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
)

// Consolidation is a path that creates a lesson (issue 26): the heir cites every file its members
// cited, so removing one of them leaves it a valid citation, and removing both makes it stale.
func TestConsolidatedLessonKeepsBothCitations(t *testing.T) {
	s := newTestStore()
	a, _ := s.Add(NewLesson{Question: "How do I run the integration tests?", Answer: "Run make integration with docker up.", Sources: []string{"pr#1", "path:Makefile"}})
	b, _ := s.Add(NewLesson{Question: "How do I run integration tests?", Answer: "Run make integration with docker up", Sources: []string{"pr#1", "path:docker-compose.yml"}})
	a.Energy, b.Energy = 2.0, 1.0
	for i := 0; i < 5; i++ {
		s.Tick(TickOptions{})
	}
	if len(s.living) != 1 || s.living[0].Kind != KindConsolidated {
		t.Fatalf("no consolidation: %d living", len(s.living))
	}
	heir := s.living[0]
	for _, want := range []string{"path:Makefile", "path:docker-compose.yml"} {
		if !slices.Contains(heir.Sources, want) {
			t.Errorf("heir sources %q lack %q", heir.Sources, want)
		}
	}
	s.FollowCitations(7, []citation.Change{{Status: "removed", Path: "Makefile"}})
	if s.CitationsStale(heir) {
		t.Errorf("stale with docker-compose.yml still cited: %q", heir.Sources)
	}
	s.FollowCitations(8, []citation.Change{{Status: "removed", Path: "docker-compose.yml"}})
	if !s.CitationsStale(heir) {
		t.Errorf("not stale after both cited files were removed: %q", heir.Sources)
	}
}
