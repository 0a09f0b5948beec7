package lessons_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// The merged documents of storedoc.Merge load as stores.

// mergeStore loads storedoc.Merge's document of the three stores, as the action does.
func mergeStore(base, ours, theirs string) (*lessons.Store, error) {
	doc, err := storedoc.Merge([]byte(base), []byte(ours), []byte(theirs), nil)
	if err != nil {
		return nil, err
	}
	return lessons.Parse("merged", doc)
}

func mentry(id, q string, energy float64, extra string) string {
	return `{"question":"` + q + `","answer":"a ` + q + `","kind":"explicit","sources":[],"energy":` +
		jsonFloat(energy) + `,"born_cycle":0,"recorded_ts":"","last_used_cycle":-1,"uses":0,"lineage":[]` + extra + `,"id":"` + id + `"}`
}

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }

func mstore(living, dead []string, ledger string) string {
	s := `{"config":{"max_energy":5.0,"upkeep":0.05},"entries":[` + strings.Join(living, ",") + `],"graveyard":[` + strings.Join(dead, ",") + `]`
	if ledger != "" {
		s += `,"ledger":` + ledger
	}
	return s + "}"
}

// The merge reads stores as the store does: NaN and Infinity (which Python's json writes for
// such floats) merge, keep their spelling and load, where encoding/json refused them and the
// action rebuilt the bot branch from the base branch.
func TestMergeReadsNaNAsTheStoreDoes(t *testing.T) {
	t.Parallel()
	base := mstore([]string{mentry("aaaaaaaaaaaa", "alpha", 1, "")}, nil, `{"tick_count":1,"config":{"x":NaN}}`)
	ours := strings.Replace(base, `"energy":1`, `"energy":NaN`, 1)
	theirs := strings.Replace(base, `"tick_count":1`, `"tick_count":2`, 1)
	out, err := storedoc.Merge([]byte(base), []byte(ours), []byte(theirs), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mergeStore(base, ours, theirs)
	if err != nil {
		t.Fatalf("merged store does not load: %v\n%s", err, out)
	}
	if e, _ := s.Entry("aaaaaaaaaaaa"); e == nil || e.Energy == e.Energy {
		t.Fatalf("the bot's NaN energy was lost: %+v", e)
	}
	if s.TickCount() != 2 || !strings.Contains(string(out), `"x":NaN`) {
		t.Fatalf("tick %d, want 2; ledger.config's NaN kept:\n%s", s.TickCount(), out)
	}
}

// Lessons added by hand without an id are matched by the id every load gives them, on all three
// sides, so the bot's changes to one merge with people's.
func TestMergeMatchesEntriesWithoutID(t *testing.T) {
	t.Parallel()
	noID := func(energy float64, pinned bool) string {
		e := `{"question":"How?","answer":"Like this.","energy":` + jsonFloat(energy)
		if pinned {
			e += `,"pinned":true`
		}
		return e + `}`
	}
	base := mstore([]string{noID(1, false)}, nil, "")
	ours := mstore([]string{noID(1.5, false)}, nil, "")
	theirs := mstore([]string{noID(1, true)}, nil, "")
	out, err := storedoc.Merge([]byte(base), []byte(ours), []byte(theirs), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mergeStore(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Living()) != 1 {
		t.Fatalf("%d living, want the one lesson matched across the sides:\n%s", len(s.Living()), out)
	}
	e := s.Living()[0]
	if e.ID != lessons.ContentID("entry", "How?", "Like this.") || e.Energy != 1.5 || !e.Pinned {
		t.Fatalf("want the content id, the bot's energy and people's pin: %+v", e)
	}
}

// A repeated key in an entry one side wrote by hand is carried into the merged document and
// read as json.loads reads it (the last value wins), instead of failing the merge.
func TestMergeRepeatedKeyInAnEntry(t *testing.T) {
	base := mstore([]string{mentry("aaaaaaaaaaaa", "q", 1, "")}, nil, "")
	ours := mstore([]string{mentry("aaaaaaaaaaaa", "q", 1, ""), mentry("bbbbbbbbbbbb", "r", 1, "")}, nil, "")
	theirs := mstore([]string{mentry("aaaaaaaaaaaa", "q", 1, `,"pinned":false,"pinned":true`)}, nil, "")
	out, err := storedoc.Merge([]byte(base), []byte(ours), []byte(theirs), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mergeStore(base, ours, theirs)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if e, ok := s.Entry("aaaaaaaaaaaa"); !ok || !e.Pinned {
		t.Errorf("merged entry lost the pin (last value of a repeated key):\n%s", out)
	}
}
