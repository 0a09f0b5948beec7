package lessons

import (
	"errors"
	"runtime"
	"sync"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// A query asked once (RetrieveOptions.Once: the CLI's decide and query,
// which load the store, ask one question and exit) need not pay for an
// index over every token of every lesson. For darwin-memo's ranking the
// store is projected onto the query instead: each lesson is tokenised and
// matched against the query's tokens (rank.Matcher), and the index is
// built over those projections. Every lesson is a document, in living
// order, so N, the query tokens' document frequencies and their postings
// are exactly those of the full index (ensureIndex), and Rank, RankTop and
// Mass, which read nothing else, give the same bits
// (TestOnceMatchesIndex).

// projectedIndex returns an index over docs that holds, of each document's
// tokens, only the query's (q distinct, as Tokens returns).
func projectedIndex(q []string, docs []*Entry) *rank.Index {
	// One matcher per rank.MaxMatch query tokens (a longer query
	// tokenises each lesson once per matcher).
	var ms []*rank.Matcher
	for lo := 0; lo < len(q); lo += rank.MaxMatch {
		m, _ := rank.NewMatcher(q[lo:min(len(q), lo+rank.MaxMatch)])
		ms = append(ms, m)
	}
	d := rank.NewDict()
	ids := make([]uint32, len(q))
	for i, t := range q {
		ids[i] = d.ID(t) // 0, 1, 2, ... in query order
	}
	sets := make([][]uint32, len(docs))
	project := func(lo, hi int) {
		var backing []uint32
		for i := lo; i < hi; i++ {
			if cap(backing)-len(backing) < len(q) {
				backing = make([]uint32, 0, max(1024, len(q)))
			}
			start := len(backing)
			for g, m := range ms {
				mask := m.Match(docs[i].Question, docs[i].Answer)
				for j := g * rank.MaxMatch; mask != 0; j++ { // ascending ids: the set is sorted
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
	workers := min(runtime.GOMAXPROCS(0), len(docs)/2048)
	if workers < 2 {
		project(0, len(docs))
	} else {
		chunk := (len(docs) + workers - 1) / workers
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*chunk, min(len(docs), (w+1)*chunk)
			wg.Add(1)
			go func() { defer wg.Done(); project(lo, hi) }()
		}
		wg.Wait()
	}
	return rank.NewIndexIDs(d, sets)
}

// errConsultOnly refuses to write a store loaded without its history and
// graveyard (Options.ConsultOnly).
var errConsultOnly = errors.New("the store was loaded to be consulted only, without its history notes and graveyard (Options.ConsultOnly), so writing it would lose them")
