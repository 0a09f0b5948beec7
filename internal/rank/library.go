package rank

import (
	"runtime"
	"sync"
)

// A Lesson is what the rankings read of one lesson besides its text: what
// orders, decays, places and answers with it.
type Lesson struct {
	ID        string
	Answer    string
	Energy    float64 // breaks ties between equal scores
	Born      int     // tick of birth
	Settled   int     // tick last settled; -1 for never
	Recorded  string  // when it was recorded; "" for unknown, the oldest
	MayDecide bool    // out of probation
}

// A Source is how a [Library] reads its owner's lessons, each named by a
// key of the owner's (K). Text, Lesson and Supersedes may be called
// concurrently.
type Source[K comparable] interface {
	// Text returns the lesson's question and answer, which never change.
	Text(k K) (question, answer string)
	Lesson(k K) Lesson
	// Supersedes returns the ids the lesson records it supersedes.
	Supersedes(k K) []string
	// TokenSets returns the lessons' token sets in Dict's ids, as
	// Dict().InternText(question, answer) gives them.
	TokenSets(ks []K) [][]uint32
	Dict() *Dict
}

// A Library holds the indexes of a changing list of living lessons: each
// ranking's, built from the living lessons on its first use and kept
// current by Add and Remove. Document numbers follow insertion order,
// which is the living order, so ties fall back to store order as in
// darwin-memo.
type Library[K comparable] struct {
	src    Source[K]
	dm     *Index // darwin-memo's ranking; nil until first used
	dmDocs []K    // by document number; zero once removed
	dmDoc  map[K]int
	bm     *BM25F // the BM25F ranking; nil until first used
	bmDocs []K
	bmDoc  map[K]int
	conf   ConfidenceModel // BM25F's confidence
}

// NewLibrary returns a library of src's lessons with neither index built.
func NewLibrary[K comparable](src Source[K]) *Library[K] {
	return &Library[K]{src: src, conf: DefaultConfidence()}
}

// Indexed reports whether r's index is built.
func (l *Library[K]) Indexed(r Ranking) bool {
	if r == RankingDarwinMemo {
		return l.dm != nil
	}
	return l.bm != nil
}

// Add adds a lesson that has come to life to the indexes built.
func (l *Library[K]) Add(k K) {
	if l.dm != nil {
		d := l.dm.AddIDs(l.src.TokenSets([]K{k})[0])
		l.dmDocs = append(l.dmDocs, k)
		l.dmDoc[k] = d
	}
	if l.bm != nil {
		d := l.bm.Add(l.src.Text(k))
		l.bmDocs = append(l.bmDocs, k)
		l.bmDoc[k] = d
	}
}

// Remove removes a lesson that has died from the indexes built.
func (l *Library[K]) Remove(k K) {
	var zero K
	if d, ok := l.bmDoc[k]; ok {
		l.bm.Remove(d)
		l.bmDocs[d] = zero
		delete(l.bmDoc, k)
	}
	if d, ok := l.dmDoc[k]; ok {
		l.dm.Remove(d)
		l.dmDocs[d] = zero
		delete(l.dmDoc, k)
	}
}

// Len returns the number of lessons in each index built (-1 for one not
// built).
func (l *Library[K]) Len() (darwinMemo, bm25f int) {
	darwinMemo, bm25f = -1, -1
	if l.dm != nil {
		darwinMemo = l.dm.Len()
	}
	if l.bm != nil {
		bm25f = l.bm.Len()
	}
	return darwinMemo, bm25f
}

// darwinMemo returns darwin-memo's index over living, building it if needed.
func (l *Library[K]) darwinMemo(living []K) (*Index, []K) {
	if l.dm == nil {
		sets := l.src.TokenSets(living)
		l.dm, l.dmDocs, l.dmDoc = NewIndexIDs(l.src.Dict(), sets), append([]K(nil), living...), make(map[K]int, len(living))
		for i, k := range living {
			l.dmDoc[k] = i
		}
	}
	return l.dm, l.dmDocs
}

// bm25f returns the BM25F index over living, building it if needed.
func (l *Library[K]) bm25f(living []K) (*BM25F, []K) {
	if l.bm == nil {
		l.bm, l.bmDoc = NewBM25F(), make(map[K]int, len(living))
		for _, k := range living {
			l.bmDoc[k] = l.bm.Add(l.src.Text(k))
			l.bmDocs = append(l.bmDocs, k)
		}
	}
	return l.bm, l.bmDocs
}

// A query asked once (Query.Once: a process that loads a store, asks one
// question and exits) need not pay for an index over every token of every
// lesson. For darwin-memo's ranking the lessons are projected onto the
// query instead: each is tokenised and matched against the query's tokens
// (a [Matcher]), and the index is built over those projections. Every
// lesson is a document, in living order, so N, the query tokens' document
// frequencies and their postings are exactly those of the full index, and
// Rank, RankTop and Mass, which read nothing else, give the same bits.

// projectedIndex returns an index over docs that holds, of each document's
// tokens, only the query's (q distinct, as Tokens returns).
func projectedIndex(q []string, n int, text func(i int) (question, answer string)) *Index {
	// One matcher per MaxMatch query tokens (a longer query tokenises each
	// lesson once per matcher).
	var ms []*Matcher
	for lo := 0; lo < len(q); lo += MaxMatch {
		ms = append(ms, NewMatcher(q[lo:min(len(q), lo+MaxMatch)]))
	}
	d := NewDict()
	ids := make([]uint32, len(q))
	for i, t := range q {
		ids[i] = d.ID(t) // 0, 1, 2, ... in query order
	}
	sets := make([][]uint32, n)
	project := func(lo, hi int) {
		var backing []uint32
		for i := lo; i < hi; i++ {
			if cap(backing)-len(backing) < len(q) {
				backing = make([]uint32, 0, max(1024, len(q)))
			}
			start := len(backing)
			question, answer := text(i)
			for g, m := range ms {
				mask := m.Match(question, answer)
				for j := g * MaxMatch; mask != 0; j++ { // ascending ids: the set is sorted
					if mask&1 != 0 {
						backing = append(backing, ids[j])
					}
					mask >>= 1
				}
			}
			if len(backing) > start {
				sets[i] = backing[start:len(backing):len(backing)]
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), n/2048)
	if workers < 2 {
		project(0, n)
	} else {
		chunk := (n + workers - 1) / workers
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*chunk, min(n, (w+1)*chunk)
			wg.Add(1)
			go func() { defer wg.Done(); project(lo, hi) }()
		}
		wg.Wait()
	}
	return NewIndexIDs(d, sets)
}
