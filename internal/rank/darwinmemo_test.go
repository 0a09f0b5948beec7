package rank

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveRank is semantics §4.2 transcribed literally: recompute document
// frequencies over the live documents and scan them all.
func naiveRank(docs [][]string, live []bool, query []string) []Hit {
	var q []string
	for _, t := range query {
		if !slices.Contains(q, t) {
			q = append(q, t)
		}
	}
	n := 0
	df := map[string]int{}
	for i, d := range docs {
		if !live[i] {
			continue
		}
		n++
		seen := map[string]bool{}
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	if len(q) == 0 || n == 0 {
		return nil
	}
	idf := map[string]float64{}
	mass := 0.0
	for _, t := range q {
		idf[t] = correctLog(1 + float64(n)/float64(1+df[t]))
		mass += idf[t]
	}
	if mass <= 0 {
		return nil
	}
	var hits []Hit
	for i, d := range docs {
		if !live[i] {
			continue
		}
		score := 0.0
		for _, t := range q {
			if slices.Contains(d, t) {
				score += idf[t]
			}
		}
		if score/mass >= MinCoverage {
			hits = append(hits, Hit{i, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits
}

func randomDoc(r *rand.Rand, vocab int) []string {
	n := r.IntN(8)
	var d []string
	for range n {
		// Skewed so that some words are common.
		w := fmt.Sprintf("w%d", int(float64(vocab)*r.Float64()*r.Float64()))
		if !slices.Contains(d, w) {
			d = append(d, w)
		}
	}
	return d
}

func TestRankMatchesNaive(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 42))
		vocab := 3 + r.IntN(40)
		var docs [][]string
		var live []bool
		for range r.IntN(60) {
			docs = append(docs, randomDoc(r, vocab))
			live = append(live, true)
		}
		x := NewIndex(docs)
		for step := range 40 {
			switch op := r.IntN(4); {
			case op == 0:
				d := randomDoc(r, vocab+5)
				if got := x.AddIDs(intern(x.dict, d)); got != len(docs) {
					t.Fatalf("seed %d: Add returned %d, want %d", seed, got, len(docs))
				}
				docs = append(docs, d)
				live = append(live, true)
			case op == 1 && len(docs) > 0:
				if i := r.IntN(len(docs)); live[i] {
					x.Remove(i)
					live[i] = false
				}
			}
			query := randomDoc(r, vocab+3)
			if r.IntN(5) == 0 && len(query) > 0 {
				query = append(query, query[0]) // repeats count once
			}
			if r.IntN(20) == 0 {
				for i := range 70 { // more than 64 distinct tokens
					query = append(query, fmt.Sprintf("w%d", i))
				}
			}
			want := naiveRank(docs, live, query)
			got := rankAll(x, query)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: Rank(%q)\n got %v\nwant %v", seed, step, query, got, want)
			}
			if x.Len() != countTrue(live) {
				t.Fatalf("seed %d: Len = %d, want %d", seed, x.Len(), countTrue(live))
			}
		}
	}
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func TestRankSilence(t *testing.T) {
	x := NewIndex([][]string{{"cache", "miss"}, {"retry", "flaky"}})
	tests := []struct {
		name  string
		query []string
	}{
		{"empty query", nil},
		{"no shared token", []string{"docker"}},
		{"below coverage floor", []string{"cache", "docker", "image", "layer", "push"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rankAll(x, tt.query); got != nil {
				t.Errorf("Rank(%q) = %v, want nil", tt.query, got)
			}
		})
	}
	empty := NewIndex(nil)
	if got := rankAll(empty, []string{"cache"}); got != nil {
		t.Errorf("Rank on empty index = %v, want nil", got)
	}
}

func TestRankScores(t *testing.T) {
	// Three docs; N = 3. df(cache)=2, df(miss)=1, df(retry)=1.
	x := NewIndex([][]string{{"cache", "miss"}, {"cache"}, {"retry"}})
	got := rankAll(x, []string{"cache", "miss"})
	n, one, two, three := 3.0, 1.0, 2.0, 3.0 // variables: constant arithmetic would be exact
	idfCache := correctLog(one + n/three)
	idfMiss := correctLog(one + n/two)
	want := []Hit{{0, idfCache + idfMiss}, {1, idfCache}}
	if !slices.Equal(got, want) {
		t.Fatalf("Rank = %v, want %v", got, want)
	}
	// Removing doc 2 changes N and so every idf.
	x.Remove(2)
	got = rankAll(x, []string{"cache"})
	w := correctLog(one + two/three)
	if want := []Hit{{0, w}, {1, w}}; !slices.Equal(got, want) {
		t.Errorf("after Remove: Rank = %v, want %v", got, want)
	}
}

func TestIndexRemove(t *testing.T) {
	var docs [][]string
	for i := range 100 {
		docs = append(docs, []string{"common", fmt.Sprintf("u%d", i)})
	}
	x := NewIndex(docs)
	for i := range 90 {
		x.Remove(i)
	}
	got := rankAll(x, []string{"common"})
	if len(got) != 10 || got[0].Doc != 90 || got[9].Doc != 99 {
		t.Errorf("Rank after removing 90 of 100 = %v", got)
	}
	if d := x.AddIDs(intern(x.dict, []string{"common", "new"})); d != 100 || !x.live[100] || x.live[5] || x.docs[5] != nil {
		t.Errorf("Add after removals = %d", d)
	}
}

// NewIndex returns an index over docs (doc i is docs[i], a token set as
// from [Tokens]), using a fresh Dict.
func NewIndex(docs [][]string) *Index {
	d := NewDict()
	sets := make([][]uint32, len(docs))
	for i, toks := range docs {
		sets[i] = intern(d, toks)
	}
	return NewIndexIDs(d, sets)
}

// intern interns every token and returns the id set: sorted ascending,
// without repeats.
func intern(d *Dict, tokens []string) []uint32 {
	var ids []uint32
	for _, t := range tokens {
		ids = append(ids, d.ID(t))
	}
	return sortedSet(ids)
}

// rankAll is Rank's hits.
func rankAll(x *Index, query []string) []Hit {
	hits, _ := x.Rank(query)
	return hits
}
