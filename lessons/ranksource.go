package lessons

import "github.com/darwin-memo/darwin-memo-action/internal/rank"

// library returns the rankings' view of the store (rank.Library): the
// ranking indexes of the living entries, built on first use and kept current
// by addLiving and markDead.
func (s *Store) library() *rank.Library[*Entry] {
	if s.lib == nil {
		s.lib = rank.NewLibrary[*Entry](source{s})
	}
	return s.lib
}

// source is the store as internal/rank reads it.
type source struct{ s *Store }

func (source) Text(e *Entry) (string, string) { return e.Question, e.Answer }

func (source) Lesson(e *Entry) rank.Lesson {
	return rank.Lesson{ID: e.ID, Answer: e.Answer, Energy: e.Energy, Born: e.BornCycle, Settled: e.LastUsedCycle, Recorded: e.RecordedTS, MayDecide: e.MayDecide()}
}

func (source) Supersedes(e *Entry) []string { return e.Supersedes() }

func (src source) TokenSets(es []*Entry) [][]uint32 {
	sets := make([][]uint32, len(es))
	for i, e := range es {
		sets[i] = src.s.tokenSet(e)
	}
	return sets
}

func (src source) Dict() *rank.Dict { return src.s.tokenDict() }

// tokenDict returns the store's token dictionary, creating it on first use.
func (s *Store) tokenDict() *rank.Dict {
	if s.dict == nil {
		s.dict = rank.NewDict()
	}
	return s.dict
}

// tokenSet returns e's token id set (question + " " + answer), interning it
// on first use.
func (s *Store) tokenSet(e *Entry) []uint32 {
	if !e.hasSet {
		e.set, e.hasSet = s.tokenDict().InternText(e.Question, e.Answer), true
	}
	return e.set
}
