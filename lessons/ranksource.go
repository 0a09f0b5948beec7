package lessons

import "github.com/darwin-memo/darwin-memo-action/internal/rank"

// index holds what the store keeps for the rankings and the encoder's
// duplicate check (rank.Library): the ranking indexes of the living entries,
// built on first use and kept current by add and bury.
type index struct {
	lib *rank.Library[*Entry]
}

// ensureIndexShell returns the store's index holder, creating an empty one
// (no ranking's index built) if needed.
func (s *Store) ensureIndexShell() *index {
	if s.idx == nil {
		s.idx = &index{lib: rank.NewLibrary[*Entry](source{s})}
	}
	return s.idx
}

// library returns the rankings' view of the store.
func (s *Store) library() *rank.Library[*Entry] { return s.ensureIndexShell().lib }

func (ix *index) add(_ *Store, e *Entry) { ix.lib.Add(e) }

func (ix *index) remove(e *Entry) { ix.lib.Remove(e) }

// source is the store as internal/rank reads it.
type source struct{ s *Store }

func (source) Text(e *Entry) (string, string) { return e.Question, e.Answer }

func (source) Lesson(e *Entry) rank.Lesson {
	return rank.Lesson{ID: e.ID, Answer: e.Answer, Energy: e.Energy, Born: e.BornCycle, Settled: e.LastUsedCycle, Recorded: e.RecordedTS, MayDecide: e.MayDecide()}
}

func (source) Supersedes(e *Entry) []string { return e.Supersedes() }

func (src source) TokenSets(es []*Entry) [][]uint32 {
	src.s.ensureSets(es)
	sets := make([][]uint32, len(es))
	for i, e := range es {
		sets[i] = e.set
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

// ensureSets computes the token sets of the entries that lack one, in
// entry order.
func (s *Store) ensureSets(es []*Entry) {
	for _, e := range es {
		s.tokenSet(e)
	}
}
