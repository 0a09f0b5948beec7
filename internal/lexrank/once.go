package lexrank

import "sync"

// BuildFor returns an index over n lessons for one query: every term's
// document frequency is counted, as Build does, but only the postings of
// query's terms are kept, and no document's term list. Search(query),
// Weight, QuestionSimilarity, DF, Has, Len and Live give exactly what they
// give on Build's index; Search with another query misses the other
// terms' postings, and Add and Remove panic. It is the cheaper index for a
// process that asks one question and exits.
func BuildFor(query string, n int, text func(i int) (question, answer string), workers int) *Index {
	want := map[string]bool{}
	each(query, func(t Term) { want[t.Stem] = true })
	workers = max(1, min(workers, n/1024))
	size := (n + workers - 1) / workers
	words, all := sizeHints(n, size, text)
	x := newIndex(all)
	x.once = true
	// Each chunk's tokeniser counts document frequencies under its own
	// term ids and keeps the postings of the query's terms.
	type chunk struct {
		tk   *tokeniser
		df   []int32
		keep []bool // by private term id: a query term
		post []posting
		ids  []uint32 // the private term id of each post
		lens []float32
	}
	chunks := make([]chunk, workers)
	tokenise := func(w int) {
		lo, hi := w*size, min(n, (w+1)*size)
		c := chunk{tk: x.tk, lens: make([]float32, 0, hi-lo), df: make([]int32, 0, words), keep: make([]bool, 0, words)}
		if w > 0 {
			c.tk = newTokeniser(words)
		}
		for i := lo; i < hi; i++ {
			q, a := text(i)
			tfs, l := c.tk.doc(int32(i), q, a)
			for len(c.df) < len(c.tk.words) {
				c.keep = append(c.keep, want[c.tk.words[len(c.df)]])
				c.df = append(c.df, 0)
			}
			for _, p := range tfs {
				c.df[p.doc]++
				if c.keep[p.doc] {
					c.post = append(c.post, posting{int32(i), p.q, p.a})
					c.ids = append(c.ids, uint32(p.doc))
				}
			}
			c.lens = append(c.lens, l)
		}
		chunks[w] = c
	}
	if workers == 1 {
		tokenise(0)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() { defer wg.Done(); tokenise(w) }()
		}
		wg.Wait()
	}
	// Merge in chunk order, as Build does: term ids come out as a
	// sequential pass assigns them, postings in document order.
	remaps := make([][]uint32, workers)
	for w := 1; w < workers; w++ {
		remap := make([]uint32, len(chunks[w].tk.words))
		for i, word := range chunks[w].tk.words {
			remap[i] = x.tk.idString(word)
		}
		remaps[w] = remap
	}
	x.grow()
	for w, c := range chunks {
		for id, f := range c.df {
			g := uint32(id)
			if w > 0 {
				g = remaps[w][id]
			}
			x.df[g] += f
		}
		for k, p := range c.post {
			g := c.ids[k]
			if w > 0 {
				g = remaps[w][g]
			}
			x.post[g] = append(x.post[g], p)
		}
	}
	x.docLen = make([]float32, 0, n)
	x.live = make([]bool, n)
	for _, c := range chunks {
		for _, l := range c.lens {
			x.docLen = append(x.docLen, l)
			x.sumLen += float64(l)
		}
	}
	for i := range x.live {
		x.live[i] = true
	}
	x.n = n
	return x
}
