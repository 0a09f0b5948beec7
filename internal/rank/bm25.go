package rank

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// BM25F parameters (Robertson and Zaragoza, "The Probabilistic Relevance
// Framework: BM25 and Beyond", 2009, §3.5): a term's frequency in each
// field is normalised by the field's length against its average (b), the
// fields are summed with their weights, and the sum saturates (k1). The
// question is weighted above the answer: it says what a lesson is about.
const (
	BM25K1        = 1.2
	BM25BQuestion = 0.75
	BM25BAnswer   = 0.75
	BM25WQuestion = 3.0
	BM25WAnswer   = 1.0
)

type bm25Posting struct {
	doc  int32
	q, a uint16 // term frequency in the question and in the answer
}

// BM25F is an inverted index of lessons (a question and an answer each)
// for BM25F ranking. Documents are numbered 0, 1, 2, ... in the order they
// are added; numbers are never reused. It may be searched concurrently;
// Add and Remove need exclusive access.
type BM25F struct {
	dict  *Dict
	post  [][]bm25Posting // by term id
	df    []int32         // live documents holding the term, by term id
	qlen  []int32         // question length in terms, by document
	alen  []int32
	terms [][]uint32 // a document's distinct term ids (for Remove)
	live  []bool
	n     int
	sumQ  int64
	sumA  int64
}

// NewBM25F returns an empty index.
func NewBM25F() *BM25F { return &BM25F{dict: NewDict()} }

// Len returns the number of live documents.
func (x *BM25F) Len() int { return x.n }

// Add indexes a lesson and returns its document number.
func (x *BM25F) Add(question, answer string) int {
	doc := int32(len(x.live))
	tf := map[uint32]*bm25Posting{}
	var order []uint32
	var tk termScanner
	count := func(text string, inQ bool) int32 {
		return int32(tk.each(text, nil, func(t, _ string) {
			id := x.dict.ID(t)
			p := tf[id]
			if p == nil {
				p = &bm25Posting{doc: doc}
				tf[id] = p
				order = append(order, id)
			}
			if inQ {
				p.q = min(p.q+1, math.MaxUint16)
			} else {
				p.a = min(p.a+1, math.MaxUint16)
			}
		}))
	}
	ql, al := count(question, true), count(answer, false)
	for len(x.post) < x.dict.Len() {
		x.post = append(x.post, nil)
		x.df = append(x.df, 0)
	}
	for _, id := range order {
		x.post[id] = append(x.post[id], *tf[id])
		x.df[id]++
	}
	x.qlen, x.alen = append(x.qlen, ql), append(x.alen, al)
	x.terms = append(x.terms, order)
	x.live = append(x.live, true)
	x.n++
	x.sumQ += int64(ql)
	x.sumA += int64(al)
	return int(doc)
}

// Remove drops a live document; its number is not reused.
func (x *BM25F) Remove(doc int) {
	x.live[doc] = false
	x.n--
	x.sumQ -= int64(x.qlen[doc])
	x.sumA -= int64(x.alen[doc])
	for _, id := range x.terms[doc] {
		x.df[id]--
		x.post[id] = slices.DeleteFunc(x.post[id], func(p bm25Posting) bool { return int(p.doc) == doc })
	}
	x.terms[doc] = nil
}

// IDF is BM25's inverse document frequency of a term held by df of n
// documents, ln(1 + (n − df + 0.5)/(df + 0.5)): always positive.
func IDF(df, n int) float64 {
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// A Scored is one document sharing a term with a query.
type Scored struct {
	Doc   int
	Score float64 // BM25F
	// Coverage is the share of the query's weight in the document's terms,
	// in [0, 1]: the weight of the query terms it holds over the weight of
	// all the query's terms, known to the index or not.
	Coverage float64
}

// Weights returns the weight of each query term: its IDF in the index, or,
// for a term no document holds, the IDF of df 0 times the background
// rarity of its word (Rarity), so that an unknown word rare in English
// ("kotlin") says the store does not know what is asked and a common one
// ("tonight") says little.
func (x *BM25F) Weights(q []QueryTerm) []float64 {
	df := make([]int, len(q))
	for i, t := range q {
		if id, ok := x.dict.Lookup(t.Term); ok && int(id) < len(x.df) {
			df[i] = int(x.df[id])
		}
	}
	return weights(q, df, x.n)
}

func weights(q []QueryTerm, dfs []int, n int) []float64 {
	w := make([]float64, len(q))
	for i, t := range q {
		df := dfs[i]
		if df == 0 {
			// Unseen: the background alone says how much it matters.
			w[i] = IDF(0, n) * Rarity(t.Word)
			continue
		}
		w[i] = IDF(df, n)
	}
	return w
}

// Search returns every live document holding a term of the query, by
// BM25F score (highest first, then document number), with its coverage.
func (x *BM25F) Search(query string) []Scored {
	q := SearchTerms(query)
	if len(q) == 0 || x.n == 0 {
		return nil
	}
	x.correctSpelling(q)
	sc := newScorer(q, x.Weights(q), x.n, x.sumQ, x.sumA)
	at := map[int32]int{}
	var out []Scored
	for i, t := range q {
		id, ok := x.dict.Lookup(t.Term)
		if !ok || int(id) >= len(x.post) {
			continue
		}
		for _, p := range x.post[id] {
			k, ok := at[p.doc]
			if !ok {
				k = len(out)
				at[p.doc] = k
				out = append(out, Scored{Doc: int(p.doc)})
			}
			sc.add(&out[k], i, p.q, p.a, x.qlen[p.doc], x.alen[p.doc])
		}
	}
	return sc.finish(out)
}

// scorer holds what scoring one query needs: its terms' weights (an
// excluded term's negated) and the fields' average lengths.
type scorer struct {
	w          []float64
	total      float64 // of the terms asked about
	avgQ, avgA float64
}

func newScorer(q []QueryTerm, w []float64, n int, sumQ, sumA int64) *scorer {
	sc := &scorer{w: w, avgQ: max(1, float64(sumQ)/float64(n)), avgA: max(1, float64(sumA)/float64(n))}
	for i, t := range q {
		if t.Not {
			w[i] = -w[i]
		} else {
			sc.total += w[i]
		}
	}
	return sc
}

// add scores query term i, with frequencies tq and ta in a document whose
// fields are ql and al terms long.
func (sc *scorer) add(d *Scored, i int, tq, ta uint16, ql, al int32) {
	tf := BM25WQuestion*float64(tq)/(1-BM25BQuestion+BM25BQuestion*float64(ql)/sc.avgQ) +
		BM25WAnswer*float64(ta)/(1-BM25BAnswer+BM25BAnswer*float64(al)/sc.avgA)
	d.Score += sc.w[i] * tf * (BM25K1 + 1) / (BM25K1 + tf)
	if sc.w[i] > 0 {
		d.Coverage += sc.w[i]
	}
}

// finish turns summed weights into coverage and sorts, leaving out the
// documents that hold no term asked about (only excluded ones).
func (sc *scorer) finish(out []Scored) []Scored {
	out = slices.DeleteFunc(out, func(d Scored) bool { return d.Coverage == 0 })
	for i := range out {
		if sc.total > 0 {
			out[i].Coverage = min(1, out[i].Coverage/sc.total)
		}
	}
	slices.SortFunc(out, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return out
}

// SearchOnce is Search over n documents given by text, without building an
// index: each document is tokenised once and only the query's terms are
// counted, on up to workers goroutines. It returns what Search on an index
// of the same documents returns, to the bit (TestSearchOnceMatchesIndex).
func SearchOnce(query string, n int, text func(i int) (question, answer string), workers int) []Scored {
	q := SearchTerms(query)
	if len(q) == 0 || n == 0 {
		return nil
	}
	slot := make(map[string]int, len(q))
	var only, prefixes prefixSet // most terms are neither stemmed nor looked up
	var misspelt []string
	for i, t := range q {
		slot[t.Term] = i
		only.add(t.Term)
		if mayBeMisspelt(t) {
			prefixes.add(t.Term)
			misspelt = append(misspelt, t.Term)
		}
	}
	// Per document: the two field lengths and each query term's two
	// frequencies; per worker, those of the terms that may correct a
	// misspelt query term (few: one edit from a word no English list holds).
	lens := make([]int32, 2*n)
	tfs := make([]uint16, 2*len(q)*n)
	workers = max(1, min(workers, n/1024))
	chunk := (n + workers - 1) / workers
	near := make([]map[string][]nearCount, (n+chunk-1)/chunk)
	count := func(w, lo, hi int) {
		var tk termScanner
		near[w] = map[string][]nearCount{}
		for d := lo; d < hi; d++ {
			qs, as := text(d)
			row := tfs[2*len(q)*d : 2*len(q)*(d+1)]
			for f, s := range [2]string{qs, as} {
				lens[2*d+f] = int32(tk.each(s, &only, func(t, _ string) {
					if i, ok := slot[t]; ok {
						if row[2*i+f] < math.MaxUint16 {
							row[2*i+f]++
						}
					} else if misspelt != nil && prefixes.has(prefixOf(t)) && slices.ContainsFunc(misspelt, func(m string) bool { return nearTerm(m, t) }) {
						near[w][t] = countNear(near[w][t], int32(d), f)
					}
				}))
			}
		}
	}
	var wg sync.WaitGroup
	for w, lo := 0, 0; lo < n; w, lo = w+1, lo+chunk {
		wg.Add(1)
		go func(w, lo, hi int) { defer wg.Done(); count(w, lo, hi) }(w, lo, min(n, lo+chunk))
	}
	wg.Wait()
	df := make([]int, len(q))
	var sumQ, sumA int64
	for d := range n {
		sumQ += int64(lens[2*d])
		sumA += int64(lens[2*d+1])
		row := tfs[2*len(q)*d : 2*len(q)*(d+1)]
		for i := range q {
			if row[2*i] > 0 || row[2*i+1] > 0 {
				df[i]++
			}
		}
	}
	if misspelt != nil {
		correctOnce(q, df, tfs, near)
	}
	sc := newScorer(q, weights(q, df, n), n, sumQ, sumA)
	var out []Scored
	for d := range n {
		row := tfs[2*len(q)*d : 2*len(q)*(d+1)]
		var cur *Scored
		for i := range q {
			if row[2*i] == 0 && row[2*i+1] == 0 {
				continue
			}
			if cur == nil {
				out = append(out, Scored{Doc: d})
				cur = &out[len(out)-1]
			}
			sc.add(cur, i, row[2*i], row[2*i+1], lens[2*d], lens[2*d+1])
		}
	}
	return sc.finish(out)
}
