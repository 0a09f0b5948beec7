package lessons

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx"
	"github.com/darwin-memo/darwin-memo-action/internal/textidx/textgen"
)

// mostSimilarReference is the encoder's duplicate check before the store answered it: every
// living lesson tokenised, the first best kept.
func mostSimilarReference(s *Store, q, a string) (string, float64) {
	toks := textidx.Tokens(q + " " + a)
	id, best := "", 0.0
	for _, e := range s.Living() {
		if sim := textidx.Jaccard(toks, textidx.Tokens(e.Question+" "+e.Answer)); sim > best {
			id, best = e.ID, sim
		}
	}
	return id, best
}

func TestMostSimilarMatchesTokenising(t *testing.T) {
	ls := textgen.Lessons(7, 3000) // above ensureSets' parallel threshold
	s := New("t", Options{})
	for _, l := range ls[:2500] {
		if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
			t.Fatal(err)
		}
	}
	// A twin of an earlier lesson: the first in store order wins the tie.
	if _, err := s.Add(NewLesson{Question: ls[3].Question, Answer: ls[3].Answer + " " + ls[3].Answer}); err != nil {
		t.Fatal(err)
	}
	queries := []struct{ q, a string }{
		{"", ""},
		{"the and of", ""},
		{"unheard-of zyzzyva", "quux"},
		{ls[3].Question, ls[3].Answer},
	}
	for _, l := range ls[2480:2520] { // known ones, then new ones
		queries = append(queries, struct{ q, a string }{l.Question, l.Answer})
	}
	s.ensureSets(s.Living()) // what the first call computes
	size := s.tokenDict().Len()
	for _, q := range queries {
		id, sim := s.MostSimilar(q.q, q.a)
		wid, wsim := mostSimilarReference(s, q.q, q.a)
		if id != wid || sim != wsim {
			t.Fatalf("%q %q: MostSimilar = %s %v, tokenising = %s %v", q.q, q.a, id, sim, wid, wsim)
		}
	}
	if got := s.tokenDict().Len(); got != size {
		t.Fatalf("MostSimilar added %d words to the dictionary", got-size)
	}
}
