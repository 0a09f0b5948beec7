package rank

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// A Hit is one document that qualifies for a query, with its relevance
// score (the summed IDF of the query tokens it contains).
type Hit struct {
	Doc   int
	Score float64
}

// An Index is an inverted index over token sets for darwin-memo's smoothed
// IDF retrieval (semantics §4.2). Documents are numbered 0, 1, 2, ... in
// the order they are added; numbers are never reused, so a caller can keep
// doc == position of the entry in its own slice. Removing a document
// leaves a hole.
//
// N and document frequencies always cover exactly the live documents, as
// the Python code recomputes them over its candidate population on every
// query. A filtered query (kind or source filter) is its own corpus in
// Python; build a separate Index over the filtered documents for it
// (building is linear in the total number of tokens).
//
// Rank may be called concurrently; Add and Remove must not run
// concurrently with anything else.
type Index struct {
	dict     *Dict
	docs     [][]uint32 // sorted id sets; nil for a removed document
	live     []bool
	n        int       // number of live documents
	df       []int32   // by token id, over live documents
	postings [][]int32 // by token id; ascending doc numbers, may include removed docs
	dead     int       // postings entries that point to removed docs
	total    int       // all postings entries
	scratch  sync.Pool // *rankScratch
}

// NewIndexIDs returns an index over id sets interned by d (each sorted
// ascending without repeats, as [Dict.Intern] returns). The index keeps
// the sets (not the outer slice) and d; the caller must not modify the
// sets afterwards, but may keep interning new tokens in d.
func NewIndexIDs(d *Dict, sets [][]uint32) *Index {
	sets = slices.Clip(slices.Clone(sets)) // Remove and AddIDs must not write into the caller's slice
	x := &Index{dict: d, docs: sets, live: make([]bool, len(sets)), n: len(sets)}
	x.df = make([]int32, d.Len())
	for _, s := range sets {
		for _, t := range s {
			x.df[t]++
		}
		x.total += len(s)
	}
	// All postings share one backing array; each list is capped at its
	// length so a later Add reallocates that list alone.
	backing := make([]int32, x.total)
	x.postings = make([][]int32, d.Len())
	off := 0
	for t, f := range x.df {
		x.postings[t] = backing[off : off : off+int(f)]
		off += int(f)
	}
	for i, s := range sets {
		x.live[i] = true
		for _, t := range s {
			x.postings[t] = append(x.postings[t], int32(i))
		}
	}
	return x
}

// Dict returns the dictionary the index interns tokens with.
func (x *Index) Dict() *Dict { return x.dict }

// Len returns the number of live documents (N in the IDF formula).
func (x *Index) Len() int { return x.n }

// Cap returns the number of document numbers handed out so far, live or
// removed.
func (x *Index) Cap() int { return len(x.docs) }

// Doc returns the id set of document doc, or nil if it was removed.
func (x *Index) Doc(doc int) []uint32 { return x.docs[doc] }

// Live reports whether doc was added and not removed.
func (x *Index) Live(doc int) bool { return doc >= 0 && doc < len(x.live) && x.live[doc] }

// Add adds a document with the given token set and returns its number.
func (x *Index) Add(tokens []string) int {
	return x.AddIDs(x.dict.Intern(tokens))
}

// AddIDs adds a document whose id set was interned by x.Dict() (sorted
// ascending without repeats) and returns its number. The index keeps set.
func (x *Index) AddIDs(set []uint32) int {
	doc := len(x.docs)
	x.docs = append(x.docs, set)
	x.live = append(x.live, true)
	x.n++
	if grow := x.dict.Len() - len(x.df); grow > 0 {
		x.df = append(x.df, make([]int32, grow)...)
		x.postings = append(x.postings, make([][]int32, grow)...)
	}
	for _, t := range set {
		x.df[t]++
		x.postings[t] = append(x.postings[t], int32(doc))
	}
	x.total += len(set)
	return doc
}

// Remove removes document doc (a buried entry). Removing a removed
// document does nothing. Postings are compacted once more than half of
// them point to removed documents, so removal is amortised O(|set|).
func (x *Index) Remove(doc int) {
	if !x.Live(doc) {
		return
	}
	for _, t := range x.docs[doc] {
		x.df[t]--
	}
	x.dead += len(x.docs[doc])
	x.docs[doc] = nil
	x.live[doc] = false
	x.n--
	if x.dead > x.total/2 {
		x.compact()
	}
}

func (x *Index) compact() {
	for t, p := range x.postings {
		if len(p) == int(x.df[t]) {
			continue
		}
		q := p[:0]
		for _, d := range p {
			if x.live[d] {
				q = append(q, d)
			}
		}
		clear(p[len(q):])
		x.postings[t] = q
	}
	x.total -= x.dead
	x.dead = 0
}

type rankScratch struct {
	mask []uint64 // by doc: which query tokens (by canonical index) it contains
	docs []int32  // docs with a non-zero mask
}

// Rank scores every live document that shares a token with query and
// returns those whose score/mass >= minCoverage, best first (score
// descending, then document number ascending). query is a token set as
// from [Tokens]; repeated tokens count once.
//
// The arithmetic is that of retrieval.py: idf(t) = ln(1 + N/(1+df(t))),
// mass = Σ idf(t) over the query, score = Σ idf(t) over the query tokens
// the document contains, and a document qualifies if score / mass >=
// minCoverage. Both sums run over the query tokens in their order in
// query (first occurrence), which makes results deterministic; Python
// sums in set iteration order, which varies between processes, so its
// scores can differ from these in the last bits (and from each other).
//
// Rank returns nil when the query is empty, the index has no live
// document, or nothing qualifies (darwin-memo's silence). Only documents
// on the query tokens' postings lists are visited.
func (x *Index) Rank(query []string, minCoverage float64) []Hit {
	hits := x.rank(query, minCoverage)
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return hits
}

// RankTop is [Index.Rank] keeping only the best k hits, where ties on
// score are broken by less (less(a, b) reports whether document a ranks
// before document b, e.g. by higher energy), and remaining ties by
// document number ascending. A nil less breaks ties by document number
// alone. k <= 0 keeps every hit.
//
// For darwin-memo's order (score then energy descending, stable over the
// store's entry order) pass a less that compares energy, with documents
// numbered in entry order.
func (x *Index) RankTop(query []string, minCoverage float64, k int, less func(a, b int) bool) []Hit {
	hits := x.rank(query, minCoverage)
	before := func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if less != nil {
			if less(a.Doc, b.Doc) {
				return true
			}
			if less(b.Doc, a.Doc) {
				return false
			}
		}
		return a.Doc < b.Doc
	}
	if k <= 0 || k >= len(hits) || k > 32 {
		slices.SortStableFunc(hits, func(a, b Hit) int {
			switch {
			case before(a, b):
				return -1
			case before(b, a):
				return 1
			}
			return 0
		})
		if k > 0 && k < len(hits) {
			hits = hits[:k:k]
		}
		return hits
	}
	// Bounded insertion: top stays sorted best first.
	top := make([]Hit, 0, k)
	for _, h := range hits {
		if len(top) == k && !before(h, top[k-1]) {
			continue
		}
		i := len(top)
		if i < k {
			top = append(top, h)
		} else {
			i = k - 1
		}
		for i > 0 && before(h, top[i-1]) {
			top[i] = top[i-1]
			i--
		}
		top[i] = h
	}
	return top
}

// rank returns the qualifying hits in no particular order.
//
// Query tokens are visited rarest first. Once the idf still to come
// cannot lift a document that has not been met yet to the coverage floor
// (with a relative safety margin of 1e-9, far above float rounding), the
// remaining postings are not scanned; the documents already met are
// tested for the remaining tokens by binary search instead. Scores are
// then summed in canonical query order from a per-document token mask, so
// pruning never changes a bit of any score.
func (x *Index) rank(query []string, minCoverage float64) []Hit {
	if len(query) == 0 || x.n == 0 {
		return nil
	}
	// Distinct query tokens in first-occurrence order, with their idf.
	q := make([]queryToken, 0, len(query))
	words := make([]string, 0, len(query))
	N := float64(x.n)
	mass := 0.0
	for _, w := range query {
		if slices.Contains(words, w) {
			continue
		}
		words = append(words, w)
		id, ok := x.dict.Lookup(w)
		df := 0.0
		if ok && int(id) < len(x.df) {
			df = float64(x.df[id])
		}
		idf := correctLog(1 + N/(1+df))
		mass += idf
		q = append(q, queryToken{id, ok && df > 0, idf})
	}
	if !(mass > 0) || math.IsNaN(minCoverage) {
		return nil
	}
	if len(q) > 64 || minCoverage <= 0 {
		return x.rankAll(q, mass, minCoverage)
	}

	// Known tokens, rarest (largest idf) first, and the idf still to come.
	var byIDF []int
	for i, t := range q {
		if t.known {
			byIDF = append(byIDF, i)
		}
	}
	slices.SortStableFunc(byIDF, func(a, b int) int { return cmp.Compare(q[b].idf, q[a].idf) })
	rest := make([]float64, len(byIDF)+1)
	for k := len(byIDF) - 1; k >= 0; k-- {
		rest[k] = rest[k+1] + q[byIDF[k]].idf
	}
	floor := minCoverage * mass * (1 - 1e-9)

	s, _ := x.scratch.Get().(*rankScratch)
	if s == nil {
		s = &rankScratch{}
	}
	if len(s.mask) < len(x.docs) {
		s.mask = make([]uint64, len(x.docs))
	}
	s.docs = s.docs[:0]
	k := 0
	for ; k < len(byIDF) && rest[k]*(1+1e-9) >= floor; k++ {
		i := byIDF[k]
		bit := uint64(1) << i
		for _, d := range x.postings[q[i].id] {
			if !x.live[d] {
				continue
			}
			if s.mask[d] == 0 {
				s.docs = append(s.docs, d)
			}
			s.mask[d] |= bit
		}
	}
	for ; k < len(byIDF); k++ {
		// Only documents already met can still qualify: look the token up
		// in each of them, or walk its postings, whichever is shorter.
		i := byIDF[k]
		bit := uint64(1) << i
		id := q[i].id
		if p := x.postings[id]; len(p) < 16*len(s.docs) {
			for _, d := range p {
				if s.mask[d] != 0 {
					s.mask[d] |= bit
				}
			}
			continue
		}
		for _, d := range s.docs {
			if _, found := slices.BinarySearch(x.docs[d], id); found {
				s.mask[d] |= bit
			}
		}
	}
	var hits []Hit
	for _, d := range s.docs {
		m := s.mask[d]
		s.mask[d] = 0
		score := 0.0
		for i, t := range q {
			if m&(1<<i) != 0 {
				score += t.idf
			}
		}
		if score/mass >= minCoverage {
			hits = append(hits, Hit{Doc: int(d), Score: score})
		}
	}
	x.scratch.Put(s)
	return hits
}

// queryToken is one distinct query token with its idf.
type queryToken struct {
	id    uint32
	known bool // on some live document's postings
	idf   float64
}

// rankAll is rank without pruning, for queries of more than 64 distinct
// tokens and for minCoverage <= 0, where every live document qualifies
// (score 0 included, as in Python).
func (x *Index) rankAll(q []queryToken, mass, minCoverage float64) []Hit {
	score := make(map[int32]float64)
	for _, t := range q {
		if !t.known {
			continue
		}
		for _, d := range x.postings[t.id] {
			if x.live[d] {
				score[d] += t.idf
			}
		}
	}
	var hits []Hit
	if minCoverage > 0 {
		for d, sc := range score {
			if sc/mass >= minCoverage {
				hits = append(hits, Hit{Doc: int(d), Score: sc})
			}
		}
		return hits
	}
	for d, live := range x.live {
		if live {
			hits = append(hits, Hit{Doc: d, Score: score[int32(d)]})
		}
	}
	return hits
}

// Mass returns the query's idf mass, Σ idf(t) over its distinct tokens
// (unknown tokens weigh ln(1+N)), the denominator of the coverage test in
// [Index.Rank]; so score/Mass is a hit's coverage. It is 0 for an empty
// query or index.
func (x *Index) Mass(query []string) float64 {
	if x.n == 0 {
		return 0
	}
	N := float64(x.n)
	mass := 0.0
	for i, w := range query {
		if slices.Contains(query[:i], w) {
			continue
		}
		df := 0.0
		if id, ok := x.dict.Lookup(w); ok && int(id) < len(x.df) {
			df = float64(x.df[id])
		}
		mass += correctLog(1 + N/(1+df))
	}
	return mass
}
