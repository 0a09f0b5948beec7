package lexrank

import (
	"cmp"
	"math"
	"slices"
)

// Ranking constants.
const (
	// QuestionWeight is how many answer occurrences one question
	// occurrence of a term is worth (BM25F field weight).
	QuestionWeight = 2.0
	// K1 and B are BM25's term-frequency saturation and length
	// normalisation.
	K1 = 1.2
	B  = 0.75
	// MinCoverage is the floor on the weighted share of the query a
	// lesson must cover (darwin-memo's 0.25, over v2's weights).
	MinCoverage = 0.25
	// UnseenFloor is the weight share of an ordinary English word that no
	// lesson contains (rarity 0): it still counts, a little.
	UnseenFloor = 0.1
)

type posting struct {
	doc  int32
	q, a uint16 // occurrences in the question and in the answer
}

// An Index is an inverted BM25F index over lessons (question, answer).
// Documents are numbered 0, 1, 2, ... in the order they are added and
// never renumbered; Remove leaves a hole. Search may run concurrently
// with itself; Add and Remove need exclusive access.
type Index struct {
	ids    map[string]uint32
	post   [][]posting // by term id; ascending doc, may hold removed docs
	df     []int32     // by term id, over live documents
	docLen []float32   // QuestionWeight·|question terms| + |answer terms|
	terms  [][]uint32  // by doc: its distinct term ids; nil once removed
	live   []bool
	n      int
	sumLen float64
}

// New returns an empty index.
func New() *Index { return &Index{ids: map[string]uint32{}} }

// Len returns the number of documents ever added.
func (x *Index) Len() int { return len(x.live) }

// Live returns the number of live documents.
func (x *Index) Live() int { return x.n }

func (x *Index) id(stem string) uint32 {
	if id, ok := x.ids[stem]; ok {
		return id
	}
	id := uint32(len(x.post))
	x.ids[stem] = id
	x.post = append(x.post, nil)
	x.df = append(x.df, 0)
	return id
}

// Add indexes a lesson and returns its document number.
func (x *Index) Add(question, answer string) int {
	doc := int32(len(x.live))
	type tf struct {
		id   uint32
		q, a uint16
	}
	var tfs []tf
	nq, na := 0, 0
	count := func(stem string, inQ bool) {
		id := x.id(stem)
		i := slices.IndexFunc(tfs, func(t tf) bool { return t.id == id })
		if i < 0 {
			tfs = append(tfs, tf{id: id})
			i = len(tfs) - 1
		}
		if inQ {
			nq++
			if tfs[i].q < math.MaxUint16 {
				tfs[i].q++
			}
		} else {
			na++
			if tfs[i].a < math.MaxUint16 {
				tfs[i].a++
			}
		}
	}
	each(question, func(t Term) { count(t.Stem, true) })
	each(answer, func(t Term) { count(t.Stem, false) })
	ids := make([]uint32, len(tfs))
	for i, t := range tfs {
		x.post[t.id] = append(x.post[t.id], posting{doc, t.q, t.a})
		x.df[t.id]++
		ids[i] = t.id
	}
	x.terms = append(x.terms, ids)
	l := float32(QuestionWeight*float64(nq) + float64(na))
	x.docLen = append(x.docLen, l)
	x.live = append(x.live, true)
	x.n++
	x.sumLen += float64(l)
	return int(doc)
}

// Remove removes document doc; removing a removed document does nothing.
func (x *Index) Remove(doc int) {
	if doc < 0 || doc >= len(x.live) || !x.live[doc] {
		return
	}
	x.live[doc] = false
	x.n--
	x.sumLen -= float64(x.docLen[doc])
	for _, id := range x.terms[doc] {
		x.df[id]--
	}
	x.terms[doc] = nil
}

// Hit is one qualifying document.
type Hit struct {
	Doc      int
	Score    float64 // BM25F relevance
	Coverage float64 // weighted share of the query the document contains, in [0, 1]
}

// Result is the outcome of a search.
type Result struct {
	Hits []Hit // best first: score descending, then document number
	// Blocked is the query word that silenced the search: a likely name
	// or a number that no lesson contains. "" if none.
	Blocked string
	// Unseen are the query's content words no lesson contains (stems of
	// rarity at least ContentRarity): things the query is about that the
	// store does not know.
	Unseen []string
}

// QueryTerm is a distinct query term with its weights, for explanations.
type queryTerm struct {
	id   uint32
	seen bool
	idf  float64 // BM25 idf (seen terms)
	w    float64 // coverage weight
	bit  uint64
	stem string
}

// Search ranks the live documents for query. A document qualifies when it
// covers at least minCoverage of the query's weight, where a term some
// lesson contains weighs its smoothed idf ln(1 + N/(1+df)) (darwin-memo's
// weight) and a term no lesson contains weighs ln(1+N) scaled by its
// background rarity (at least UnseenFloor; a word missing from the
// background list weighs ln(1+N), as in darwin-memo), so ordinary words
// nobody wrote down do not silence an answerable question. A query word no
// lesson contains that is a likely proper name (capitalised inside a
// sentence) or a number-like word ("4521", "v3") blocks the search:
// nothing stored can be about it.
//
// Qualifying documents are scored by BM25F over the query terms they
// contain (question occurrences weigh QuestionWeight, saturation K1,
// length normalisation B) and sorted best first, ties by document number.
func (x *Index) Search(query string, minCoverage float64) Result {
	if x.n == 0 {
		return Result{}
	}
	N := float64(x.n)
	var q []queryTerm
	mass := 0.0
	var blocked string
	var unseen []string
	each(query, func(t Term) {
		if blocked != "" {
			return
		}
		for _, o := range q {
			if o.stem == t.Stem {
				return
			}
		}
		id, ok := x.ids[t.Stem]
		df := 0.0
		if ok {
			df = float64(x.df[id])
		}
		qt := queryTerm{id: id, stem: t.Stem}
		if df > 0 {
			qt.seen = true
			qt.idf = math.Log(1 + (N-df+0.5)/(df+0.5))
			qt.w = math.Log(1 + N/(1+df))
		} else {
			r := Rarity(t.Raw)
			if t.Cap || (len(t.Raw) >= 2 && hasDigit(t.Raw)) {
				blocked = t.Raw
				return
			}
			qt.w = math.Log(1+N) * (UnseenFloor + (1-UnseenFloor)*r)
			if r >= ContentRarity && len(t.Raw) >= 4 {
				unseen = append(unseen, t.Stem)
			}
		}
		mass += qt.w
		q = append(q, qt)
	})
	if blocked != "" {
		return Result{Blocked: blocked}
	}
	if len(q) == 0 || !(mass > 0) || len(q) > 64 {
		if len(q) > 64 {
			q = q[:64] // longer queries: the first 64 distinct terms
		} else {
			return Result{}
		}
	}
	avg := x.sumLen / N
	type acc struct {
		score float64
		mask  uint64
	}
	docs := map[int32]*acc{}
	var order []int32
	for i := range q {
		t := &q[i]
		t.bit = 1 << i
		if !t.seen {
			continue
		}
		for _, p := range x.post[t.id] {
			if !x.live[p.doc] {
				continue
			}
			a := docs[p.doc]
			if a == nil {
				a = &acc{}
				docs[p.doc] = a
				order = append(order, p.doc)
			}
			f := QuestionWeight*float64(p.q) + float64(p.a)
			norm := 1 - B + B*float64(x.docLen[p.doc])/avg
			a.score += t.idf * f * (K1 + 1) / (f + K1*norm)
			a.mask |= t.bit
		}
	}
	var hits []Hit
	for _, d := range order {
		a := docs[d]
		cov := 0.0
		for _, t := range q {
			if a.mask&t.bit != 0 {
				cov += t.w
			}
		}
		cov /= mass
		if cov >= minCoverage*(1-1e-12) {
			hits = append(hits, Hit{Doc: int(d), Score: a.score, Coverage: min(1, cov)})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return Result{Hits: hits, Unseen: unseen}
}

// Has reports whether some live document holds stem.
func (x *Index) Has(stem string) bool {
	id, ok := x.ids[stem]
	return ok && x.df[id] > 0
}

// Weight returns a stem's smoothed idf ln(1 + N/(1+df)) over the live
// documents (ln(1+N) for a stem no document contains), and ln(1+N).
func (x *Index) Weight(stem string) (w, max float64) {
	N := float64(x.n)
	df := 0.0
	if id, ok := x.ids[stem]; ok {
		df = float64(x.df[id])
	}
	return math.Log(1 + N/(1+df)), math.Log(1 + N)
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// QuestionSimilarity is the weighted Jaccard similarity of two questions'
// term sets, each term weighing its smoothed idf in the index (terms no
// lesson contains weigh ln(1+N)); terms in boost weigh three times as much.
// It is 0 when either question has no terms.
func (x *Index) QuestionSimilarity(a, b []string, boost map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	N := float64(max(x.n, 1))
	w := func(s string) float64 {
		df := 0.0
		if id, ok := x.ids[s]; ok {
			df = float64(x.df[id])
		}
		v := math.Log(1 + N/(1+df))
		if boost[s] {
			v *= 3
		}
		return v
	}
	inter, union := 0.0, 0.0
	for i, s := range a {
		if slices.Contains(a[:i], s) {
			continue
		}
		union += w(s)
		if slices.Contains(b, s) {
			inter += w(s)
		}
	}
	for i, s := range b {
		if !slices.Contains(b[:i], s) && !slices.Contains(a, s) {
			union += w(s)
		}
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

// Stems returns the distinct stems of s in text order.
func Stems(s string) []string {
	var out []string
	each(s, func(t Term) {
		if !slices.Contains(out, t.Stem) {
			out = append(out, t.Stem)
		}
	})
	return out
}
