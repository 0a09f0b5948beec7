package rank

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
)

// A Query is one question to a [Library].
type Query[K comparable] struct {
	Text    string
	Ranking Ranking
	K       int // hits to keep; at least 1
	// Keep, when set, says which lessons may be hits (the caller's
	// filters). For darwin-memo's ranking the kept lessons are the corpus
	// (document frequencies over them, as in darwin-memo); for BM25F term
	// weights stay the whole library's, so a filtered hit's confidence is
	// the one an unfiltered query sees.
	Keep func(K) bool
	// Once says the library is asked once (a process that loads it, asks
	// one question and exits): rank without building an index, by a pass
	// over the lessons for the query's terms alone. The results are
	// identical; an index already built is used, and none is kept.
	Once bool
	// NearDuplicate, for BM25F, is the token-set Jaccard similarity from
	// which a lesson is a near-duplicate of the first lesson that may
	// decide (the similarity and threshold at which consolidation merges
	// lessons): the first lesson's margin is measured against the next
	// lesson that may decide and is not one, so two copies of one fact do
	// not make each other unsure. 0 counts no lesson a near-duplicate.
	NearDuplicate float64
}

// A Result is one retrieved lesson.
type Result[K comparable] struct {
	Lesson K
	Score  float64
	// Coverage is the weighted share of the query the lesson holds, in
	// [0, 1] (darwin-memo: score / idf mass; BM25F: over BM25F's weights).
	Coverage float64
	// Confidence in [0, 1]: darwin-memo's ranking, Coverage; BM25F, the
	// calibrated probability that the lesson answers the query
	// ([ConfidenceModel] of its coverage, the query's words, whether its
	// answer can state the quantity, version, person, URL or date the query
	// asks for and, for the first lesson that may decide, its Margin).
	Confidence float64
	// Margin, for BM25F's first lesson that may decide, is how far its
	// score stands above the next lesson that may decide and is not its
	// near-duplicate ([Margin]; 1 when there is none); 0 for every other
	// lesson and for darwin-memo's ranking.
	Margin float64
	// SupersededBy is the id of the living lesson that replaces this one
	// by record ("" when none does): it is listed just before, and this one
	// does not decide.
	SupersededBy string
}

// Search ranks the living lessons for q. darwin-memo's ranking is smoothed
// IDF with the MinCoverage floor, energy only breaking ties; BM25F lists up
// to q.K lessons sharing a term with the query (searchBM25F). It returns
// nil when nothing qualifies.
func (l *Library[K]) Search(living []K, q Query[K]) ([]Result[K], error) {
	q.K = max(q.K, 1)
	switch q.Ranking {
	case RankingDarwinMemo:
		return l.searchDarwinMemo(living, q), nil
	case RankingBM25F:
		return l.searchBM25F(living, q), nil
	}
	return nil, fmt.Errorf("unknown retrieval %q; use bm25f or darwin-memo", q.Ranking)
}

func (l *Library[K]) searchDarwinMemo(living []K, q Query[K]) []Result[K] {
	toks := Tokens(q.Text)
	if len(toks) == 0 || len(living) == 0 {
		return nil
	}
	var x *Index
	docs := living
	if q.Keep != nil {
		// A filtered query is its own corpus (df over the filtered population).
		docs = nil
		for _, k := range living {
			if q.Keep(k) {
				docs = append(docs, k)
			}
		}
		if len(docs) == 0 {
			return nil
		}
	}
	if q.Keep != nil || q.Once && l.dm == nil {
		x = projectedIndex(toks, len(docs), func(i int) (string, string) { return l.src.Text(docs[i]) })
	} else {
		x, docs = l.darwinMemo(living)
	}
	// Scores, then energy, break ties, then store order (darwin-memo's
	// order: score and energy descending, stable).
	energy := func(doc int) float64 { return l.src.Lesson(docs[doc]).Energy }
	raw, mass := x.Rank(toks)
	slices.SortStableFunc(raw, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(energy(b.Doc), energy(a.Doc))
	})
	raw = raw[:min(len(raw), q.K)]
	hits := make([]Result[K], len(raw))
	for i, h := range raw {
		cov := min(1, h.Score/mass)
		hits[i] = Result[K]{Lesson: docs[h.Doc], Score: h.Score, Coverage: cov, Confidence: cov}
	}
	return hits
}

// searchBM25F is Search for RankingBM25F: every lesson sharing a term with
// the query (and kept), by BM25F score (then energy, then store order), the
// first K of them. A lesson some living lesson supersedes by record is
// listed right after the lesson replacing it last, which takes its place in
// the ranking when it ranks lower, so the best match is never hidden and
// never decides past its replacement.
func (l *Library[K]) searchBM25F(living []K, q Query[K]) []Result[K] {
	var raw []Scored
	docs := living
	if q.Once && l.bm == nil {
		raw = SearchOnce(q.Text, len(living), func(i int) (string, string) { return l.src.Text(living[i]) }, runtime.GOMAXPROCS(0))
	} else {
		var x *BM25F
		x, docs = l.bm25f(living)
		raw = x.Search(q.Text)
	}
	if q.Keep != nil {
		raw = slices.DeleteFunc(raw, func(r Scored) bool { return !q.Keep(docs[r.Doc]) })
	}
	if len(raw) == 0 {
		return nil
	}
	type ranked struct {
		Result[K]
		energy float64
	}
	rs := make([]ranked, len(raw))
	for i, r := range raw {
		k := docs[r.Doc]
		ls := l.src.Lesson(k)
		rs[i] = ranked{Result[K]{Lesson: k, Score: r.Score, Coverage: r.Coverage}, ls.Energy}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.energy, a.energy)
	})
	hits := make([]Result[K], len(rs))
	at := make(map[K]int, len(hits))
	for i, r := range rs {
		hits[i] = r.Result
		at[r.Lesson] = i
	}
	sup := NewSupersession(living, l.src)
	// List in order until K are listed and the lesson the first one that
	// may decide is measured against is known: the next lesson that may
	// decide and is not its near-duplicate.
	out := make([]Result[K], 0, min(len(hits), q.K+1))
	listed := map[K]bool{}
	first, next, rival := -1, 0.0, false
	add := func(h Result[K]) {
		out = append(out, h)
		listed[h.Lesson] = true
		switch {
		case h.SupersededBy != "" || rival:
		case first < 0:
			first = len(out) - 1
		case !l.nearDuplicates(out[first].Lesson, h.Lesson, q.NearDuplicate):
			next, rival = h.Score, true
		}
	}
	for _, h := range hits {
		if len(out) >= q.K && rival {
			break
		}
		if listed[h.Lesson] {
			continue
		}
		if latest, ok := sup.Latest(h.Lesson); ok {
			h.SupersededBy = l.src.Lesson(latest).ID
			if !listed[latest] {
				r := Result[K]{Lesson: latest, Score: h.Score, Coverage: h.Coverage}
				if i, ok := at[latest]; ok {
					r.Score, r.Coverage = max(r.Score, hits[i].Score), max(r.Coverage, hits[i].Coverage)
				}
				add(r)
			}
		}
		add(h)
	}
	// Confidence: the first lesson that may decide has its margin over
	// the next distinct one; the others 0.
	phrasing, asks := l.conf.Phrasing(q.Text), Asks(q.Text)
	for i := range out {
		if i == first {
			out[i].Margin = Margin(out[i].Score, next)
		}
		unstated := false
		if asks != AnyAnswer {
			_, answer := l.src.Text(out[i].Lesson)
			unstated = !asks.StatedBy(answer)
		}
		out[i].Confidence = l.conf.Of(out[i].Coverage, out[i].Margin, phrasing, unstated)
	}
	return out[:min(len(out), q.K)]
}

// nearDuplicates reports whether lessons a and b are near-duplicates: the
// Jaccard similarity of their token sets (darwin-memo's tokens of question
// and answer, as consolidation compares them) is at least threshold > 0.
func (l *Library[K]) nearDuplicates(a, b K, threshold float64) bool {
	if threshold <= 0 {
		return false
	}
	sets := l.src.TokenSets([]K{a, b})
	return JaccardIDs(sets[0], sets[1]) >= threshold
}
