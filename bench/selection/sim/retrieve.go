package sim

import (
	"math"
	"slices"
	"sort"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// plainStore is the baselines' lesson store: entries in insertion order and
// the lexical retrieval of darwin-memo (semantics §4.2: smoothed IDF over the
// living population, coverage floor 0.25, top 3). Baseline entries have no
// energy, so ties keep insertion order.
type plainStore struct {
	entries []plainEntry
	dict    map[string]int32 // token -> id
}

type plainEntry struct {
	key    string
	lesson int
	tokens []int32 // token ids of question + answer, a set
}

const (
	minCoverage = 0.25
	topK        = 3
)

func (s *plainStore) id(tok string) int32 {
	if s.dict == nil {
		s.dict = map[string]int32{}
	}
	id, ok := s.dict[tok]
	if !ok {
		id = int32(len(s.dict))
		s.dict[tok] = id
	}
	return id
}

func (s *plainStore) add(key string, l Lesson) {
	toks := rank.Tokens(l.Question + " " + l.Answer) // already a set
	ids := make([]int32, len(toks))
	for i, t := range toks {
		ids[i] = s.id(t)
	}
	s.entries = append(s.entries, plainEntry{key: key, lesson: l.ID, tokens: ids})
}

func (s *plainStore) remove(key string) bool {
	for i, e := range s.entries {
		if e.key == key {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			return true
		}
	}
	return false
}

func (s *plainStore) living() []Entry {
	out := make([]Entry, len(s.entries))
	for i, e := range s.entries {
		out[i] = Entry{Key: e.key, Lessons: []int{e.lesson}}
	}
	return out
}

// retrieve returns the indices of the qualifying entries, best first.
func (s *plainStore) retrieve(query string) []int {
	n := len(s.entries)
	if n == 0 {
		return nil
	}
	var q []int32
	for _, t := range rank.Tokens(query) {
		if id, ok := s.dict[t]; ok {
			q = append(q, id)
		} else {
			q = append(q, -1) // df 0: still part of the query's mass
		}
	}
	if len(q) == 0 {
		return nil
	}
	idf := make([]float64, len(q))
	var mass float64
	for i, t := range q {
		df := 0
		for _, e := range s.entries {
			if slices.Contains(e.tokens, t) {
				df++
			}
		}
		idf[i] = math.Log(1 + float64(n)/float64(1+df))
		mass += idf[i]
	}
	if mass <= 0 {
		return nil
	}
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	for j, e := range s.entries {
		var score float64
		for i, t := range q {
			if t >= 0 && slices.Contains(e.tokens, t) {
				score += idf[i]
			}
		}
		if score > 0 && score/mass >= minCoverage {
			hits = append(hits, hit{j, score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	if len(hits) > topK {
		hits = hits[:topK]
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.i
	}
	return out
}

// consult turns a retrieval into a consultation: the best hit decides, the
// others support.
func (s *plainStore) consult(query string, ticket string) Consultation {
	hits := s.retrieve(query)
	if len(hits) == 0 {
		return Consultation{}
	}
	entry := func(i int) Entry {
		return Entry{Key: s.entries[i].key, Lessons: []int{s.entries[i].lesson}}
	}
	c := Consultation{Ticket: ticket, Decider: entry(hits[0])}
	for _, i := range hits[1:] {
		c.Supporters = append(c.Supporters, entry(i))
	}
	return c
}
