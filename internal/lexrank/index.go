package lexrank

import (
	"cmp"
	"math"
	"slices"
	"unsafe"
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
	// UnseenFloor is the weight share of a phrasing word ("now", "safely",
	// "this week") that no lesson contains: it still counts, a little.
	UnseenFloor = 0.1
	// BlockTerms: a query of at most this many distinct terms is silenced
	// by a name or number no lesson holds.
	BlockTerms = 8
	// ContentFloor is the weight share of an ordinary English content word
	// no lesson contains (rarity 0: "key", "owner"); it rises with rarity
	// to 1 (a word not in the background list weighs ln(1+N), as in
	// darwin-memo).
	ContentFloor = 0.5
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
	ids    *wordTable  // term ids by stem (the tokeniser's)
	post   [][]posting // by term id; ascending doc, may hold removed docs
	df     []int32     // by term id, over live documents
	docLen []float32   // QuestionWeight·|question terms| + |answer terms|
	terms  [][]uint32  // by doc: its distinct term ids; nil once removed
	live   []bool
	n      int
	sumLen float64

	words []string        // by term id
	tk    *tokeniser      // Add's, sharing the index's term ids
	once  bool            // built by BuildFor: one query's postings, no term lists
	want  map[string]bool // BuildFor's: the stems whose postings are kept
	// shards, when set (BuildFor), hold the terms by chunk of documents
	// instead of ids, df and post: a term's df is the sum over them.
	shards []shard
}

// New returns an empty index.
func New() *Index { return newIndex(0) }

// newIndex returns an empty index whose tokeniser is sized for about words
// distinct words.
func newIndex(words int) *Index {
	tk := newTokeniser(words)
	return &Index{ids: tk.ids, tk: tk}
}

// id returns the term id of stem.
func (x *Index) id(stem string) (uint32, bool) {
	v, ok := x.ids.get(stem, hashString(stem))
	return uint32(v), ok
}

// termDF returns how many live documents hold stem.
func (x *Index) termDF(stem string) int32 {
	if x.shards != nil {
		return x.shardDF(stem)
	}
	if id, ok := x.id(stem); ok {
		return x.df[id]
	}
	return 0
}

// postings returns stem's postings (ascending documents, removed ones
// included).
func (x *Index) postings(stem string) []posting {
	if x.shards != nil {
		return x.shardPostings(stem)
	}
	if id, ok := x.id(stem); ok {
		return x.post[id]
	}
	return nil
}

// unsafeString views b as a string for a lookup that does not keep it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Len returns the number of documents ever added.
func (x *Index) Len() int { return len(x.live) }

// Live returns the number of live documents.
func (x *Index) Live() int { return x.n }

// tokeniser turns lessons into term counts with its own term ids (one per
// worker when an index is built on several cores).
type tokeniser struct {
	ids   *wordTable // term ids by stem
	words []string   // by term id
	mark  []int32    // by term id: 1 + the last document that counted it
	slot  []int32    // by term id: its place in the document's counts
	st    stemmer
	tfs   []posting // the current document's counts; doc holds the term id
	// the document being counted
	seq    int32
	inQ    bool
	nq, na int
}

// newTokeniser returns a tokeniser sized for about words distinct words
// (0: a small default), so that building a large index does not grow its
// tables step by step.
func newTokeniser(words int) *tokeniser {
	words = max(words, 1024)
	return &tokeniser{
		ids:   newWordTable(words),
		words: make([]string, 0, words),
		mark:  make([]int32, 0, words),
		slot:  make([]int32, 0, words),
		st:    stemmer{raw: newWordTable(words)},
	}
}

// sizeHints estimates, from the lessons' text size, the distinct words of
// one chunk of size lessons (for a worker's tokeniser) and of all n (for
// the index's own, which ends up holding every term). The tables still
// grow when the estimate is short.
func sizeHints(n, size int, text func(i int) (question, answer string)) (chunk, all int) {
	for i := range n {
		q, a := text(i)
		if i < size {
			chunk += len(q) + len(a)
		}
		all += len(q) + len(a)
	}
	return distinctWords(chunk), distinctWords(all)
}

// distinctWords estimates the distinct words of a text of the given size:
// about one per 64 bytes up to a megabyte (a few thousand lessons), then
// growing as the square root of the size, as a vocabulary does (Heaps'
// law; textgen's stores of 10k and 100k lessons have about a third more).
// Too high an estimate costs more than too low a one: a word table's
// slots move whole when it grows, but a table several times too large
// spreads its words over more cache lines and pages than the tokeniser's
// lookups can keep in cache (BuildForAll's chunks of 50k lessons had
// tables five times their words).
func distinctWords(bytes int) int {
	const knee = 1 << 20
	if bytes <= knee {
		return bytes / 64
	}
	return int(knee / 64 * math.Sqrt(float64(bytes)/knee))
}

func (tk *tokeniser) idString(w string) uint32 {
	h := hashString(w)
	v, ok := tk.ids.get(w, h)
	id := uint32(v)
	if !ok {
		id = uint32(len(tk.words))
		tk.ids.put(w, h, int32(id))
		tk.words = append(tk.words, w)
		tk.mark = append(tk.mark, 0)
		tk.slot = append(tk.slot, 0)
	}
	return id
}

func (tk *tokeniser) id(stem []byte) uint32 {
	h := uint32(fnvOffset)
	for _, c := range stem {
		h = (h ^ uint32(c)) * fnvPrime
	}
	v, ok := tk.ids.get(unsafeString(stem), h)
	id := uint32(v)
	if !ok {
		id = uint32(len(tk.words))
		w := string(stem)
		tk.ids.put(w, h, int32(id))
		tk.words = append(tk.words, w)
		tk.mark = append(tk.mark, 0)
		tk.slot = append(tk.slot, 0)
	}
	return id
}

// doc counts the terms of one lesson (numbered seq, any number unique to
// this tokeniser) and returns the counts (valid until the next call) and
// the weighted length.
func (tk *tokeniser) doc(seq int32, question, answer string) ([]posting, float32) {
	tk.tfs, tk.seq, tk.nq, tk.na = tk.tfs[:0], seq, 0, 0
	tk.inQ = true
	tk.st.stems(question, tk)
	tk.inQ = false
	tk.st.stems(answer, tk)
	return tk.tfs, float32(QuestionWeight*float64(tk.nq) + float64(tk.na))
}

// stem counts a stem (the stemmer's sink).
func (tk *tokeniser) stem(b []byte) {
	id := tk.id(b)
	if tk.st.pending != "" {
		tk.st.raw.put(tk.st.pending, tk.st.pendH, int32(id))
		tk.st.pending = ""
	}
	tk.known(id)
}

// known counts a term by id (the stemmer's sink).
func (tk *tokeniser) known(id uint32) {
	if tk.mark[id] != tk.seq+1 {
		tk.mark[id] = tk.seq + 1
		tk.slot[id] = int32(len(tk.tfs))
		tk.tfs = append(tk.tfs, posting{doc: int32(id)})
	}
	t := &tk.tfs[tk.slot[id]]
	if tk.inQ {
		tk.nq++
		if t.q < math.MaxUint16 {
			t.q++
		}
	} else {
		tk.na++
		if t.a < math.MaxUint16 {
			t.a++
		}
	}
}

// Add indexes a lesson and returns its document number.
func (x *Index) Add(question, answer string) int {
	if x.once {
		return x.addOnce(question, answer)
	}
	doc := int32(len(x.live))
	tfs, l := x.tk.doc(doc, question, answer)
	x.grow()
	x.addDoc(doc, tfs, nil, l)
	return int(doc)
}

// grow extends the per-term slices to the tokeniser's terms.
func (x *Index) grow() {
	// x.ids is x.tk.ids: the tokeniser already holds the new terms.
	if k := len(x.tk.words) - len(x.words); k > 0 {
		x.words = append(x.words, x.tk.words[len(x.words):]...)
		x.post = append(x.post, make([][]posting, k)...)
		x.df = append(x.df, make([]int32, k)...)
	}
}

// addDoc records a document's counts, term ids mapped through remap (nil:
// the index's own ids).
func (x *Index) addDoc(doc int32, tfs []posting, remap []uint32, l float32) {
	ids := make([]uint32, len(tfs))
	for i, t := range tfs {
		id := uint32(t.doc)
		if remap != nil {
			id = remap[id]
		}
		x.post[id] = append(x.post[id], posting{doc, t.q, t.a})
		x.df[id]++
		ids[i] = id
	}
	x.terms = append(x.terms, ids)
	x.docLen = append(x.docLen, l)
	x.live = append(x.live, true)
	x.n++
	x.sumLen += float64(l)
}

// Build returns an index over n lessons (text(i) gives lesson i's question
// and answer), numbered 0..n-1, tokenising on up to workers goroutines.
// The result is identical to adding the lessons one by one.
func Build(n int, text func(i int) (question, answer string), workers int) *Index {
	workers = max(1, min(workers, n/1024))
	size := (n + workers - 1) / workers
	words, all := sizeHints(n, size, text)
	x := newIndex(all)
	// Each chunk's tokeniser counts its documents' terms with private ids
	// into one backing array (off[d]..off[d+1] are document d's counts).
	type chunk struct {
		tk   *tokeniser
		tfs  []posting // doc holds the private term id
		off  []int32
		lens []float32
	}
	chunks := make([]chunk, workers)
	tokenise := func(w int) {
		lo, hi := w*size, min(n, (w+1)*size)
		c := chunk{tk: x.tk, off: make([]int32, 1, hi-lo+1), lens: make([]float32, 0, hi-lo), tfs: make([]posting, 0, 24*(hi-lo))}
		if w > 0 {
			c.tk = newTokeniser(words)
		}
		for i := lo; i < hi; i++ {
			q, a := text(i)
			tfs, l := c.tk.doc(int32(i), q, a)
			c.tfs = append(c.tfs, tfs...)
			c.off = append(c.off, int32(len(c.tfs)))
			c.lens = append(c.lens, l)
		}
		chunks[w] = c
	}
	inParallel(workers, tokenise)
	// Merge in chunk order: chunk 0 used the index's own ids, later chunks
	// are mapped into them, so ids come out as a sequential pass assigns
	// them (first sight in document order).
	remaps := make([][]uint32, workers)
	for w := 1; w < workers; w++ {
		remap := make([]uint32, len(chunks[w].tk.words))
		for i, word := range chunks[w].tk.words {
			remap[i] = x.tk.idString(word)
		}
		remaps[w] = remap
	}
	x.grow()
	total := 0
	for w, c := range chunks {
		for i := range c.tfs {
			id := uint32(c.tfs[i].doc)
			if w > 0 {
				id = remaps[w][id]
				c.tfs[i].doc = int32(id)
			}
			x.df[id]++
		}
		total += len(c.tfs)
	}
	backing := make([]posting, total)
	off := 0
	for id, f := range x.df {
		x.post[id] = backing[off : off : off+int(f)]
		off += int(f)
	}
	termIDs := make([]uint32, total)
	x.terms = make([][]uint32, 0, n)
	x.docLen = make([]float32, 0, n)
	x.live = make([]bool, 0, n)
	doc, t := int32(0), 0
	for _, c := range chunks {
		for d := 0; d+1 < len(c.off); d++ {
			ids := termIDs[t : t : t+int(c.off[d+1]-c.off[d])]
			for _, p := range c.tfs[c.off[d]:c.off[d+1]] {
				id := uint32(p.doc)
				x.post[id] = append(x.post[id], posting{doc, p.q, p.a})
				ids = append(ids, id)
			}
			t += len(ids)
			x.terms = append(x.terms, ids)
			x.docLen = append(x.docLen, c.lens[d])
			x.live = append(x.live, true)
			x.n++
			x.sumLen += float64(c.lens[d])
			doc++
		}
	}
	return x
}

// Remove removes document doc; removing a removed document does nothing.
func (x *Index) Remove(doc int) {
	if x.once {
		panic("lexrank: Remove on an index built by BuildFor")
	}
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
	// Unseen are the content words of a short query that no lesson
	// contains (not phrasing, three letters or more, rarity at least 0.5:
	// past about the 2,500 most frequent English words): things it asks
	// about that the store does not know. A long task description has none.
	// With SearchV3, only such words that are parts of an identifier, a
	// path or a file name ("shipping-api", "pkg/raft"); see Ordinary.
	Unseen []string
	// Ordinary (SearchV3 only) are the other content words of a short
	// query that no lesson contains, past about the 2,500 most frequent
	// English words: plain words ("repo", "suite") that may be how the
	// asker put a known thing.
	Ordinary []string
	// Terms (SearchV3 only) are the query's distinct terms as searched:
	// after date rewriting and synonym substitution.
	Terms []string
	// Idents (SearchV3 only) are the query terms that are parts of an
	// identifier, a path or a file name ("search-service", "pkg/raft").
	Idents []string
}

// QueryTerm is a distinct query term with its weights, for explanations.
type queryTerm struct {
	post []posting // seen terms
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
// length normalisation B) and sorted best first, ties by document number;
// limit > 0 keeps only the best limit.
func (x *Index) Search(query string, minCoverage float64, limit int) Result {
	return x.search(query, minCoverage, limit, false)
}

// SearchV3 is Search with v3's query handling (docs/retrieval.md): month
// dates are rewritten as lessons write them ("April 12" → "04-12"); a
// query word no lesson holds is looked up under its software-domain
// synonyms and abbreviations (repo/repository, env/environment,
// ship/release); and of the content words still unknown only those that
// are parts of identifiers, paths or file names are Unseen (things the
// store does not know), the plain ones are Ordinary.
func (x *Index) SearchV3(query string, minCoverage float64, limit int) Result {
	return x.search(query, minCoverage, limit, true)
}

func (x *Index) search(query string, minCoverage float64, limit int, v3 bool) Result {
	if x.n == 0 {
		return Result{}
	}
	N := float64(x.n)
	var q []queryTerm
	mass := 0.0
	var blocked string
	var unseen, ordinary []string
	var ident, values, states map[string]bool
	if v3 {
		query = rewriteQuery(query)
		ident = identifierStems(query)
		values = valueStems(query)
		states = stateWords(query)
	}
	terms := Terms(query)
	// In a query written in title case or capitals, capitals name nothing.
	caps := 0
	for _, t := range terms {
		if t.Cap {
			caps++
		}
	}
	titleCase := caps >= 3 && 2*caps >= len(terms)
	// In a short question an unknown name or number is what it asks about
	// and silences it; in a long task description it is one word among
	// many and weighs as an unknown content word.
	distinct := 0
	for i, t := range terms {
		if !slices.ContainsFunc(terms[:i], func(o Term) bool { return o.Stem == t.Stem }) {
			distinct++
		}
	}
	short := distinct <= BlockTerms
	var capNames []string // v3: unknown capitalised words of a short query
	for _, t := range terms {
		if titleCase {
			t.Cap = false
		}
		if blocked != "" {
			break
		}
		if slices.ContainsFunc(q, func(o queryTerm) bool { return o.stem == t.Stem }) {
			continue
		}
		df := float64(x.termDF(t.Stem))
		if v3 && df == 0 && !ident[t.Stem] {
			// A synonym or abbreviation some lesson holds stands in.
			dup := false
			for _, alt := range alternates(t) {
				if adf := x.termDF(alt); adf > 0 {
					dup = slices.ContainsFunc(q, func(o queryTerm) bool { return o.stem == alt })
					t.Stem, df = alt, float64(adf)
					break
				}
			}
			if dup {
				continue // the query names it already
			}
		}
		qt := queryTerm{stem: t.Stem}
		if df > 0 {
			qt.seen = true
			qt.post = x.postings(t.Stem)
			qt.idf = math.Log(1 + (N-df+0.5)/(df+0.5))
			qt.w = math.Log(1 + N/(1+df))
		} else {
			r := Rarity(t.Raw)
			name := t.Cap || (len(t.Raw) >= 2 && hasDigit(t.Raw) && !values[t.Stem])
			if name && short && v3 && t.Cap && !hasDigit(t.Raw) && !x.namesKind(query, t.Raw) {
				// v3: an unknown capitalised word silences only a query with
				// little else that identifies a lesson (capitalSilences).
				capNames = append(capNames, t.Raw)
				qt.w = math.Log(1 + N)
				unseen = append(unseen, t.Stem)
				mass += qt.w
				q = append(q, qt)
				continue
			}
			if name && short {
				blocked = t.Raw
				break
			}
			switch {
			case name:
				// (only in a long description: weighs fully, guards nothing)
				qt.w = math.Log(1 + N)
			case Phrasing(t.Raw) || v3 && states[t.Raw]:
				// (v3: a state a symptom is in, "is climbing", names no thing)
				qt.w = math.Log(1+N) * UnseenFloor
			case !short:
				// A long description: an everyday word is noise, a rare one
				// weighs as in darwin-memo.
				qt.w = math.Log(1+N) * (UnseenFloor + (1-UnseenFloor)*r)
			default:
				qt.w = math.Log(1+N) * (ContentFloor + (1-ContentFloor)*r)
				switch {
				case v3 && ident[t.Stem]:
					unseen = append(unseen, t.Stem)
				case len(t.Raw) >= 3 && r >= 0.5:
					if v3 {
						ordinary = append(ordinary, t.Stem)
					} else {
						unseen = append(unseen, t.Stem)
					}
				}
			}
		}
		mass += qt.w
		q = append(q, qt)
	}
	if blocked == "" && len(capNames) > 0 && capitalSilences(q, N) {
		blocked = capNames[0]
	}
	if blocked != "" {
		return Result{Blocked: blocked}
	}
	if len(q) > 64 {
		// Longer queries: the first 64 distinct terms.
		q = q[:64]
		mass = 0
		for _, t := range q {
			mass += t.w
		}
	}
	if len(q) == 0 || !(mass > 0) {
		return Result{}
	}
	avg := x.sumLen / N
	// Dense accumulators by document: a query touches many documents.
	score := make([]float64, len(x.live))
	mask := make([]uint64, len(x.live))
	var order []int32
	for i := range q {
		t := &q[i]
		t.bit = 1 << i
		if !t.seen {
			continue
		}
		for _, p := range t.post {
			if !x.live[p.doc] {
				continue
			}
			if mask[p.doc] == 0 {
				order = append(order, p.doc)
			}
			f := QuestionWeight*float64(p.q) + float64(p.a)
			norm := 1 - B + B*float64(x.docLen[p.doc])/avg
			score[p.doc] += t.idf * f * (K1 + 1) / (f + K1*norm)
			mask[p.doc] |= t.bit
		}
	}
	var hits []Hit
	for _, d := range order {
		cov := 0.0
		for _, t := range q {
			if mask[d]&t.bit != 0 {
				cov += t.w
			}
		}
		cov /= mass
		if cov >= minCoverage*(1-1e-12) {
			hits = append(hits, Hit{Doc: int(d), Score: score[d], Coverage: min(1, cov)})
		}
	}
	hits = best(hits, limit)
	res := Result{Hits: hits, Unseen: unseen, Ordinary: ordinary}
	if v3 {
		for _, t := range q {
			res.Terms = append(res.Terms, t.stem)
			if ident[t.stem] {
				res.Idents = append(res.Idents, t.stem)
			}
		}
	}
	return res
}

// best sorts hits best first (score descending, then document number) and
// keeps the first limit of them (all when limit <= 0), selecting them in
// one pass when few are wanted from many.
func best(hits []Hit, limit int) []Hit {
	before := func(a, b Hit) bool { return a.Score > b.Score || a.Score == b.Score && a.Doc < b.Doc }
	if limit <= 0 || limit >= len(hits) || limit > 64 {
		slices.SortFunc(hits, func(a, b Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(a.Doc, b.Doc)
		})
		if limit > 0 && limit < len(hits) {
			hits = hits[:limit]
		}
		return hits
	}
	top := make([]Hit, 0, limit)
	for _, h := range hits {
		if len(top) == limit && !before(h, top[limit-1]) {
			continue
		}
		i := len(top)
		if i < limit {
			top = append(top, h)
		} else {
			i = limit - 1
		}
		for i > 0 && before(h, top[i-1]) {
			top[i] = top[i-1]
			i--
		}
		top[i] = h
	}
	return top
}

// DF returns how many live documents hold stem.
func (x *Index) DF(stem string) int {
	return int(x.termDF(stem))
}

// Has reports whether some live document holds stem.
func (x *Index) Has(stem string) bool {
	return x.termDF(stem) > 0
}

// Weight returns a stem's smoothed idf ln(1 + N/(1+df)) over the live
// documents (ln(1+N) for a stem no document contains), and ln(1+N).
func (x *Index) Weight(stem string) (w, max float64) {
	N := float64(x.n)
	df := float64(x.termDF(stem))
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
		df := float64(x.termDF(s))
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
