package rank

import (
	"fmt"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// benchCorpus caches generated lessons and their token sets per size, so
// that each benchmark pays for generation once.
type benchCorpus struct {
	texts   []string
	queries []string
	tokens  [][]string
	dict    *Dict
	ids     [][]uint32
}

var (
	corpusMu sync.Mutex
	corpora  = map[int]*benchCorpus{}
)

func corpus(b *testing.B, n int) *benchCorpus {
	b.Helper()
	corpusMu.Lock()
	defer corpusMu.Unlock()
	if c, ok := corpora[n]; ok {
		return c
	}
	c := &benchCorpus{dict: NewDict()}
	for _, l := range textgen.Lessons(1, n) {
		c.texts = append(c.texts, l.Text())
		toks := Tokens(l.Text())
		c.tokens = append(c.tokens, toks)
		c.ids = append(c.ids, intern(c.dict, toks))
	}
	for _, l := range textgen.Lessons(2, 200) {
		c.queries = append(c.queries, l.Question)
	}
	corpora[n] = c
	return c
}

var sizes = []int{1000, 10000, 100000}

func BenchmarkTokens(b *testing.B) {
	c := corpus(b, 1000)
	var bytes int64
	for _, t := range c.texts {
		bytes += int64(len(t))
	}
	b.SetBytes(bytes / int64(len(c.texts)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Tokens(c.texts[i%len(c.texts)])
	}
}

// BenchmarkLoad is the per-load cost of a store's text machinery:
// tokenise and intern every lesson and build the Index.
func BenchmarkLoad(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := corpus(b, n)
			b.ReportAllocs()
			for b.Loop() {
				d := NewDict()
				sets := make([][]uint32, len(c.texts))
				for i, t := range c.texts {
					sets[i] = d.InternText(t)
				}
				NewIndexIDs(d, sets)
			}
		})
	}
}

// BenchmarkIndexBuild builds an Index from interned sets alone.
func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := corpus(b, n)
			b.ReportAllocs()
			for b.Loop() {
				NewIndexIDs(c.dict, c.ids)
			}
		})
	}
}

// BenchmarkRank is one query (a question from a different seed) against
// an index of n lessons, returning the top 3.
func BenchmarkRank(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := corpus(b, n)
			x := NewIndexIDs(c.dict, c.ids)
			qs := make([][]string, len(c.queries))
			for i, q := range c.queries {
				qs[i] = Tokens(q)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				x.Rank(qs[i%len(qs)])
			}
		})
	}
}

// BenchmarkCluster is one consolidation pass over n lessons at the
// default threshold 0.55.
func BenchmarkCluster(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := corpus(b, n)
			b.ReportAllocs()
			var clusters int
			for b.Loop() {
				clusters = len(Cluster(c.ids, 0.55, nil))
			}
			b.ReportMetric(float64(clusters), "clusters")
		})
	}
}

// BenchmarkClusterQuadratic is the reference at 1k and 3k lessons, for
// scale (it grows with the square of the store; 10k takes about a minute).
func BenchmarkClusterQuadratic(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := corpus(b, n)
			for b.Loop() {
				ClusterQuadratic(c.ids, 0.55, nil)
			}
		})
	}
}

// BenchmarkInternText interns every lesson's question and answer into a fresh dictionary, as a
// store's first tick does (its consolidation needs every token set).
func BenchmarkInternText(b *testing.B) {
	for _, n := range sizes {
		c := corpus(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := NewDict()
				for _, t := range c.texts {
					d.InternText(t)
				}
			}
		})
	}
}
