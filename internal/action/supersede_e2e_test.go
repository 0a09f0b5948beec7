package action

import (
	"slices"
	"strings"
	"testing"
)

// The deterministic encoder's supersession through the action's encode step: a merged pull
// request whose Lesson: line asks a living lesson's question again with a new answer gives a
// lesson that replaces it (recorded as a supersedes: label), not a duplicate the encoder drops.
// The same answer again is a duplicate and adds nothing.
func TestE2ESameQuestionAskedAgainSupersedes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		lesson     string
		wantBirths string
		supersedes bool
	}{
		{"new answer replaces", "How do I run the integration tests? Run make itest with DOCKER_HOST unset and DOCKER_BUILDKIT=1; the suite starts its own containers.", "1", true},
		{"question in other case and spacing", "how do I  run the Integration tests? Run make itest with DOCKER_HOST unset and DOCKER_BUILDKIT=1; the suite starts its own containers.", "1", true},
		{"same answer is a duplicate", "How do I run the integration tests? Run make itest with DOCKER_HOST unset; the suite starts its own containers.", "0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store, seeded := seedStore(t)
			old := seeded[0] // "How do I run the integration tests?"
			h := newHarness(t, store)
			pr := h.merge("Speed up itest", "Lesson: "+tt.lesson, nil)
			res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
			mustCode(t, res, 0)
			if res.outputs["births"] != tt.wantBirths {
				t.Fatalf("births %s, want %s\n%s", res.outputs["births"], tt.wantBirths, res.stdout)
			}
			if !tt.supersedes {
				return
			}
			s := h.botStore(DefaultBranch)
			var born string
			for _, e := range s.Living() {
				if strings.Contains(e.Answer, "DOCKER_BUILDKIT=1") {
					born = e.ID
					if !slices.Contains(e.Supersedes(), old.ID) {
						t.Fatalf("new lesson's sources %v do not record that it supersedes %s", e.Sources, old.ID)
					}
				}
			}
			if born == "" {
				t.Fatalf("the new lesson was not added: %+v", s.Living())
			}
			if got := s.SupersessionChain(old.ID); !slices.Equal(got, []string{old.ID, born}) {
				t.Fatalf("SupersessionChain(%s) = %v, want %s then %s", old.ID, got, old.ID, born)
			}
		})
	}
}
