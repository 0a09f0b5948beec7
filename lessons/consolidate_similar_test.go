package lessons

import (
	"math"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// mostSimilarReference is the encoder's duplicate check spelt out: every living lesson
// tokenised, the first best kept.
func mostSimilarReference(s *Store, q, a string) (string, float64) {
	toks := rank.Tokens(q + " " + a)
	id, best := "", 0.0
	for _, e := range s.Living() {
		if sim := rank.Jaccard(toks, rank.Tokens(e.Question+" "+e.Answer)); sim > best {
			id, best = e.ID, sim
		}
	}
	return id, best
}

// TestMostSimilarMatchesTokenising compares Store.MostSimilar, bit for bit, with the
// tokenising reference, before and after lessons are buried and added: no-token and
// stopword-only queries, a twin of an earlier lesson (the first in store order wins the tie),
// known lessons and new ones.
func TestMostSimilarMatchesTokenising(t *testing.T) {
	total := exhaustive.Or(300, 3000)
	added := total * 5 / 6
	ls := textgen.Lessons(7, total)
	s := New("t", Options{})
	for _, l := range ls[:added] {
		if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Add(NewLesson{Question: ls[3].Question, Answer: ls[3].Answer + " " + ls[3].Answer}); err != nil {
		t.Fatal(err)
	}
	queries := [][2]string{{"", ""}, {"the and of", ""}, {"unheard-of zyzzyva", "quux"}, {ls[3].Question, ls[3].Answer}}
	for _, l := range ls[added-20 : added+20] { // known ones, then new ones
		queries = append(queries, [2]string{l.Question, l.Answer})
	}
	check := func(label string) {
		t.Helper()
		for _, q := range queries {
			id, sim := s.MostSimilar(q[0], q[1])
			wid, wsim := mostSimilarReference(s, q[0], q[1])
			if id != wid || math.Float64bits(sim) != math.Float64bits(wsim) {
				t.Fatalf("%s: %q %q: MostSimilar = %q %v, reference = %q %v", label, q[0], q[1], id, sim, wid, wsim)
			}
		}
	}
	check("store as added")
	s.bury(s.living[5], s.living[17], s.living[len(s.living)/2])
	for _, l := range textgen.Lessons(uint64(total), 3) {
		if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
			t.Fatal(err)
		}
	}
	check("lessons buried and added")
}
