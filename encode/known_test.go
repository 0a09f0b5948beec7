package encode

import (
	"context"
	"reflect"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// TestEncodeStoreMatchesList: the duplicate check over a store (its kept token sets) marks
// the same candidates, with the same living lesson and similarity, as over the list of its
// living lessons (each tokenised when asked).
func TestEncodeStoreMatchesList(t *testing.T) {
	s := lessons.New("lessons.json", lessons.Options{})
	n := exhaustive.Or(300, 3000)
	gen := textgen.Lessons(9, n)
	for i, l := range gen {
		if i == n/2 { // the lesson the fixture's first lesson duplicates, amid many others
			if _, err := s.Add(lessons.NewLesson{Question: "Which ports does lib.Load accept in hello.conf files?", Answer: "Ports between 1 and 65535; lib.Load returns ErrPort for port 0 and wraps errors."}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Add(lessons.NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
			t.Fatal(err)
		}
	}
	var list []Living
	for _, e := range s.Living() {
		list = append(list, Living{ID: e.ID, Question: e.Question, Answer: e.Answer})
	}
	twin := goodLesson
	twin.Question = "Which ports does lib.Load accept?"
	third := RawLesson{Question: "What does the Makefile vet target run?", Answer: "The Makefile vet target runs go vet ./... like the test target runs go test.",
		Kind: "explicit", Evidence: []string{"diff:Makefile"}, Paths: []string{"Makefile"}}
	enc := New(staticProvider{[]RawLesson{goodLesson, twin, third}})
	want, err := enc.Encode(context.Background(), fixturePR(t), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := enc.Encode(context.Background(), fixturePR(t), list, s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Candidates, want.Candidates) {
		t.Fatalf("over the store:\n%+v\nover the list:\n%+v", got.Candidates, want.Candidates)
	}
	if len(want.Candidates) != 3 || want.Candidates[0].DuplicateOf != list[n/2].ID || want.Candidates[2].DuplicateOf != "" {
		t.Fatalf("the fixture does not exercise the duplicate check: %+v", want.Candidates)
	}
}
