package lexrank

import "sync"

// BuildFor returns an index over n lessons for one query: every term's
// document frequency is counted, as Build does, but only the postings of
// query's terms are kept, and no document's term list. Search(query),
// Weight, QuestionSimilarity, DF, Has, Len and Live give exactly what they
// give on Build's index; Search with another query misses the other
// terms' postings, and Remove panics. Add indexes a further lesson (in a
// shard of its own) as Build's index would. It is the cheaper index for a
// process that asks one question and exits.
//
// Each worker counts its chunk of lessons under its own term ids, and the
// chunks are not merged: a term's document frequency is the sum of its
// frequencies in the chunks, looked up when asked (a query asks for a few
// hundred terms; merging would touch all of them).
func BuildFor(query string, n int, text func(i int) (question, answer string), workers int) *Index {
	return BuildForAll([]string{query}, n, text, workers)
}

// BuildForAll is BuildFor for several queries: the postings of each
// query's terms are kept, so Search answers any of them.
func BuildForAll(queries []string, n int, text func(i int) (question, answer string), workers int) *Index {
	// The postings Search and SearchV3 may ask for: the queries' terms and,
	// for v3, those of their rewritten forms and every term's alternates.
	want := map[string]bool{}
	add := func(t Term) {
		want[t.Stem] = true
		for _, a := range alternates(t) {
			want[a] = true
		}
	}
	for _, query := range queries {
		each(query, add)
		each(rewriteQuery(query), add)
	}
	workers = max(1, min(workers, n/1024))
	size := (n + workers - 1) / workers
	words, _ := sizeHints(n, size, text)
	x := &Index{once: true, shards: make([]shard, workers), want: want}
	lens := make([][]float32, workers)
	tokenise := func(w int) {
		lo, hi := w*size, min(n, (w+1)*size)
		sh := shard{tk: newTokeniser(words), df: make([]int32, 0, words), qdf: make([]int32, 0, words), post: map[uint32][]posting{}}
		var keep []bool // by term id: a query term
		ls := make([]float32, 0, hi-lo)
		for i := lo; i < hi; i++ {
			q, a := text(i)
			tfs, l := sh.tk.doc(int32(i), q, a)
			for len(sh.df) < len(sh.tk.words) {
				keep = append(keep, want[sh.tk.words[len(sh.df)]])
				sh.df = append(sh.df, 0)
				sh.qdf = append(sh.qdf, 0)
			}
			for _, p := range tfs {
				sh.df[p.doc]++
				if p.q > 0 {
					sh.qdf[p.doc]++
				}
				if keep[p.doc] {
					sh.post[uint32(p.doc)] = append(sh.post[uint32(p.doc)], posting{int32(i), p.q, p.a})
				}
			}
			ls = append(ls, l)
		}
		x.shards[w], lens[w] = sh, ls
	}
	inParallel(workers, tokenise)
	// Document lengths summed in document order, as Build sums them.
	x.docLen = make([]float32, 0, n)
	for _, ls := range lens {
		for _, l := range ls {
			x.docLen = append(x.docLen, l)
			x.sumLen += float64(l)
		}
	}
	x.live = make([]bool, n)
	for i := range x.live {
		x.live[i] = true
	}
	x.n = n
	return x
}

// addOnce is Add on a BuildFor index: the lesson's terms are counted in a
// shard of their own (the postings of the wanted terms only), so document
// frequencies, lengths and the wanted postings are those Build's index
// would have after the same Add.
func (x *Index) addOnce(question, answer string) int {
	doc := int32(len(x.live))
	sh := shard{tk: newTokeniser(0), post: map[uint32][]posting{}}
	tfs, l := sh.tk.doc(doc, question, answer)
	sh.df = make([]int32, len(sh.tk.words))
	sh.qdf = make([]int32, len(sh.tk.words))
	for _, p := range tfs {
		sh.df[p.doc]++
		if p.q > 0 {
			sh.qdf[p.doc]++
		}
		if x.want[sh.tk.words[p.doc]] {
			sh.post[uint32(p.doc)] = append(sh.post[uint32(p.doc)], posting{doc, p.q, p.a})
		}
	}
	x.shards = append(x.shards, sh)
	x.docLen = append(x.docLen, l)
	x.live = append(x.live, true)
	x.n++
	x.sumLen += float64(l)
	return int(doc)
}

// shard is the terms of one chunk of documents of a BuildFor index.
type shard struct {
	tk   *tokeniser // term ids by stem
	df   []int32    // by term id
	qdf  []int32    // by term id: the documents whose question holds it
	post map[uint32][]posting
}

func (x *Index) shardDF(stem string) int32 {
	return x.shardSum(stem, func(sh *shard) []int32 { return sh.df })
}

func (x *Index) shardQDF(stem string) int32 {
	return x.shardSum(stem, func(sh *shard) []int32 { return sh.qdf })
}

// shardSum sums a per-term count of stem over the shards (count picks
// which).
func (x *Index) shardSum(stem string, count func(*shard) []int32) int32 {
	h := hashString(stem)
	n := int32(0)
	for i := range x.shards {
		sh := &x.shards[i]
		if id, ok := sh.tk.ids.get(stem, h); ok {
			n += count(sh)[id]
		}
	}
	return n
}

func (x *Index) shardPostings(stem string) []posting {
	h := hashString(stem)
	var out []posting
	for _, sh := range x.shards {
		if id, ok := sh.tk.ids.get(stem, h); ok {
			out = append(out, sh.post[uint32(id)]...)
		}
	}
	return out
}

// inParallel runs fn(0) ... fn(workers-1), each on its own goroutine when
// there is more than one, and returns when all have.
func inParallel(workers int, fn func(w int)) {
	if workers == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); fn(w) }()
	}
	wg.Wait()
}
