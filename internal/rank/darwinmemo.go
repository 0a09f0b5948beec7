package rank

import (
	"cmp"
	"slices"
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
// query (a filtered query is its own corpus: an Index of its own).
//
// Rank may be called concurrently; AddIDs and Remove must not run
// concurrently with anything else.
type Index struct {
	dict     *Dict
	docs     [][]uint32 // sorted id sets; nil for a removed document
	live     []bool
	n        int       // number of live documents
	df       []int32   // by token id, over live documents
	postings [][]int32 // by token id; ascending doc numbers, may include removed docs
}

// NewIndexIDs returns an index over id sets interned by d (each sorted
// ascending without repeats, as [Dict.InternText] returns). The index keeps
// sets and d; the caller must not modify sets afterwards, but may keep
// interning new tokens in d.
func NewIndexIDs(d *Dict, sets [][]uint32) *Index {
	x := &Index{dict: d, docs: sets, live: make([]bool, len(sets)), n: len(sets)}
	x.df = make([]int32, d.Len())
	total := 0
	for _, s := range sets {
		for _, t := range s {
			x.df[t]++
		}
		total += len(s)
	}
	// All postings share one backing array; each list is capped at its
	// length so a later Add reallocates that list alone.
	backing := make([]int32, total)
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

// Len returns the number of live documents (N in the IDF formula).
func (x *Index) Len() int { return x.n }

// AddIDs adds a document whose id set was interned by the index's Dict (sorted
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
	return doc
}

// Remove removes live document doc (a buried entry); its postings stay,
// and Rank passes over them.
func (x *Index) Remove(doc int) {
	for _, t := range x.docs[doc] {
		x.df[t]--
	}
	x.docs[doc] = nil
	x.live[doc] = false
	x.n--
}

// Rank scores every live document that shares a token with query and
// returns those whose score/mass >= [MinCoverage], best first (score
// descending, then document number ascending), and the query's mass.
// query is a token set as from [Tokens]; repeated tokens count once.
//
// The arithmetic is that of retrieval.py: idf(t) = ln(1 + N/(1+df(t))),
// mass = Σ idf(t) over the query (a token no document holds weighs
// ln(1+N)), score = Σ idf(t) over the query tokens the document contains,
// and a document qualifies if score / mass >= MinCoverage. Both sums run
// over the query tokens in their order in query (first occurrence), which
// makes results deterministic; Python sums in set iteration order, which
// varies between processes, so its scores can differ from these in the
// last bits (and from each other).
//
// Rank returns no hit when the query is empty, the index has no live
// document, or nothing qualifies (darwin-memo's silence).
func (x *Index) Rank(query []string) (hits []Hit, mass float64) {
	if len(query) == 0 || x.n == 0 {
		return nil, 0
	}
	N := float64(x.n)
	score := map[int32]float64{}
	for i, w := range query {
		if slices.Contains(query[:i], w) {
			continue
		}
		df := 0.0
		id, ok := x.dict.Lookup(w)
		if ok && int(id) < len(x.df) {
			df = float64(x.df[id])
		}
		idf := correctLog(1 + N/(1+df))
		mass += idf
		if df == 0 {
			continue
		}
		for _, d := range x.postings[id] {
			if x.live[d] {
				score[d] += idf
			}
		}
	}
	for d, sc := range score {
		if sc/mass >= MinCoverage {
			hits = append(hits, Hit{Doc: int(d), Score: sc})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return hits, mass
}
