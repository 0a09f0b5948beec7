package lessons

import (
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// Supersession is recorded at a lesson's birth, never guessed at query
// time: a lesson replaces another only when its sources say so, with a
// "supersedes:<id>" label. The label comes from `add --supersedes ID`, from
// an encoder that was shown the nearest lessons and named the one its
// lesson replaces, or from Store.Add when a living lesson asks the same
// question (normalised: case, spacing and final punctuation aside) with another answer.
// darwin-memo refuses unknown entry keys but keeps source labels, so the
// record survives a round trip there. How a superseded lesson is ranked is
// internal/rank's (rank.Supersession): still retrieved, listed after the
// lesson that replaces it, and never deciding.

// SupersedesPrefix starts the source label a lesson carries for each lesson
// it supersedes ("supersedes:<id>").
const SupersedesPrefix = "supersedes:"

// Supersedes returns the ids e's sources say it supersedes.
func (e *Entry) Supersedes() []string {
	var out []string
	for _, src := range e.Sources {
		if id, ok := strings.CutPrefix(src, SupersedesPrefix); ok && isHex12(id) {
			out = append(out, id)
		}
	}
	return out
}

// normQuestion is a question with case, spacing and final punctuation
// aside.
func normQuestion(q string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(q), " ")), "?.! ")
}

// recordSupersedes returns sources with a "supersedes:<id>" label added for
// every living lesson that asks question (normalised) with another answer,
// in a store whose default ranking is BM25F (a store kept on darwin-memo's
// ranking gets no labels it did not ask for). Labels already present are
// kept once.
func (s *Store) recordSupersedes(sources []string, question, answer string) []string {
	if s.Retrieval() == RetrievalDarwinMemo {
		return sources
	}
	nq := normQuestion(question)
	for _, e := range s.living {
		if normQuestion(e.Question) != nq || strings.TrimSpace(e.Answer) == strings.TrimSpace(answer) {
			continue
		}
		if l := SupersedesPrefix + e.ID; !slices.Contains(sources, l) {
			sources = append(sources, l)
		}
	}
	return sources
}

// SupersessionChain returns the ids from id to the lesson that replaces it
// last, following the records: id itself first. A lesson nothing
// supersedes has a chain of one.
func (s *Store) SupersessionChain(id string) []string {
	e, ok := s.byID[id]
	if !ok {
		return []string{id}
	}
	var ids []string
	for _, c := range rank.NewSupersession(s.living, source{s}).Chain(e) {
		ids = append(ids, c.ID)
	}
	return ids
}
