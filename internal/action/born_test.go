package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// bornAndDied counts what two sets of living ids would: the run's births are the living ids
// after it that were not living before, its deaths the living ids before it that are not
// living after (an entry at or below the alive threshold is not living).
func TestBornAndDied(t *testing.T) {
	store := func(living ...string) *lessons.Store {
		t.Helper()
		var es []string
		for _, l := range living {
			id, energy, _ := strings.Cut(l, "=")
			if energy == "" {
				energy = "1.0"
			}
			es = append(es, fmt.Sprintf(`{"question": "q %s", "answer": "a %s", "kind": "explicit", "sources": [], "energy": %s, "born_cycle": 0, "recorded_ts": null, "last_used_cycle": -1, "uses": 0, "lineage": [], "id": %q}`, id, id, energy, id))
		}
		s, err := lessons.Parse(storePath, []byte(`{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [`+strings.Join(es, ", ")+`], "graveyard": []}`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name               string
		before, after      *lessons.Store
		wantBorn, wantDied int
	}{
		{"nothing changed", store("a", "b"), store("a", "b"), 0, 0},
		{"one born", store("a"), store("a", "b"), 1, 0},
		{"one died", store("a", "b"), store("b"), 0, 1},
		{"merged: two died, their heir born", store("a", "b", "c"), store("c", "h"), 1, 2},
		{"every one replaced", store("a", "b", "c"), store("x", "y"), 2, 3},
		{"at the alive threshold is not living", store("a", "b"), store("a", "b=0.0"), 0, 1},
		{"not living before, living after", store("a", "b=0.0"), store("a", "b"), 1, 0},
		{"empty stores", store(), store(), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			born, died := bornAndDied(livingIDs(tt.before), tt.after)
			if born != tt.wantBorn || died != tt.wantDied {
				t.Fatalf("born %d, died %d; want %d, %d", born, died, tt.wantBorn, tt.wantDied)
			}
		})
	}
}

func TestExtinctionWarning(t *testing.T) {
	for _, tt := range []struct {
		died, lived int
		warn        bool
	}{
		{0, 0, false}, {2, 3, false}, {3, 5, true}, {3, 6, false}, {4, 7, true}, {50, 100, false}, {51, 100, true},
	} {
		w := extinctionWarning(tt.died, tt.lived)
		if (w != "") != tt.warn || tt.warn && !strings.Contains(w, fmt.Sprintf("%d of %d living lessons died", tt.died, tt.lived)) {
			t.Errorf("extinctionWarning(%d, %d) = %q; want a warning: %v", tt.died, tt.lived, w, tt.warn)
		}
	}
}
