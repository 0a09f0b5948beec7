package lexrank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx/textgen"
)

// BuildFor's index answers its query, and every weight, exactly as
// Build's does, on one core and on several.
func TestBuildForMatchesBuild(t *testing.T) {
	ls := textgen.Lessons(5, 2500)
	text := func(i int) (string, string) { return ls[i].Question, ls[i].Answer }
	full := Build(len(ls), text, 4)
	r := rand.New(rand.NewPCG(5, 6))
	queries := []string{"how do I fix the flaky retry tests in the scheduler", "", "the of", "Falcon 4521 tests", "WindowsShell go.mod v1.2"}
	for range 10 {
		a, b := ls[r.IntN(len(ls))], ls[r.IntN(len(ls))]
		w := strings.Fields(a.Answer)
		i := r.IntN(len(w))
		queries = append(queries, a.Question, strings.Join(w[i:min(len(w), i+5)], " ")+" "+b.Question)
	}
	var long []string
	for i := range 70 {
		long = append(long, fmt.Sprintf("term%d", i))
	}
	queries = append(queries, ls[9].Question+" "+strings.Join(long, " "))
	for _, workers := range []int{1, 4} {
		for _, q := range queries {
			once := BuildFor(q, len(ls), text, workers)
			for _, lim := range []int{0, 3, 24} {
				a, b := once.Search(q, MinCoverage, lim), full.Search(q, MinCoverage, lim)
				if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
					t.Fatalf("workers %d %q limit %d:\nonce %#v\nfull %#v", workers, q, lim, a, b)
				}
				a, b = once.SearchV3(q, MinCoverage, lim), full.SearchV3(q, MinCoverage, lim)
				if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
					t.Fatalf("v3: workers %d %q limit %d:\nonce %#v\nfull %#v", workers, q, lim, a, b)
				}
			}
			if once.Len() != full.Len() || once.Live() != full.Live() || once.sumLen != full.sumLen || !slices.Equal(once.docLen, full.docLen) {
				t.Fatalf("%q: sizes differ", q)
			}
			// Every term's weight, and similarities between lessons.
			for id := 0; id < len(full.words); id += 17 {
				if w := full.words[id]; once.DF(w) != int(full.df[id]) {
					t.Fatalf("%q: DF(%q) = %d, want %d", q, full.words[id], once.DF(full.words[id]), full.df[id])
				}
				for _, limit := range []int{0, 2} {
					if w := full.words[id]; once.QuestionDF(w, limit) != full.QuestionDF(w, limit) {
						t.Fatalf("%q: QuestionDF(%q, %d) = %d, want %d", q, w, limit, once.QuestionDF(w, limit), full.QuestionDF(w, limit))
					}
				}
			}
			for range 5 {
				a, b := Stems(ls[r.IntN(len(ls))].Question), Stems(ls[r.IntN(len(ls))].Question)
				boost := map[string]bool{a[0]: true}
				if x, y := once.QuestionSimilarity(a, b, boost), full.QuestionSimilarity(a, b, boost); math.Float64bits(x) != math.Float64bits(y) {
					t.Fatalf("similarity %v, want %v", x, y)
				}
				w1, m1 := once.Weight(b[0])
				w2, m2 := full.Weight(b[0])
				if w1 != w2 || m1 != m2 {
					t.Fatalf("Weight(%q) = %v %v, want %v %v", b[0], w1, m1, w2, m2)
				}
			}
		}
	}
}

func TestBuildForRefusesRemove(t *testing.T) {
	x := BuildFor("q", 1, func(int) (string, string) { return "q", "a" }, 1)
	defer func() {
		if recover() == nil {
			t.Error("Remove did not panic")
		}
	}()
	x.Remove(0)
}

// An index built for several queries and then added to answers each of
// them, and every document frequency and similarity, as Build's index with
// the same lessons added does: what a process that adds a few lessons to a
// large store (each checked against the store and the ones added before it)
// needs.
func TestBuildForAllThenAddMatchesBuild(t *testing.T) {
	ls := textgen.Lessons(7, 2200)
	base, added := ls[:2000], ls[2000:]
	text := func(i int) (string, string) { return base[i].Question, base[i].Answer }
	r := rand.New(rand.NewPCG(7, 8))
	for _, workers := range []int{1, 4} {
		// Queries: the added lessons' questions (their supersession checks),
		// one sharing words with a base lesson, one with words no lesson has.
		queries := []string{base[r.IntN(len(base))].Question + " unseenword", "Falcon 4521 tests"}
		for _, l := range added[:30] {
			queries = append(queries, l.Question)
		}
		once := BuildForAll(queries, len(base), text, workers)
		full := Build(len(base), text, workers)
		for k, l := range added[:30] {
			if a, b := once.Add(l.Question, l.Answer), full.Add(l.Question, l.Answer); a != b {
				t.Fatalf("Add gives document %d, want %d", a, b)
			}
			if k%7 != 0 {
				continue
			}
			for _, q := range queries {
				for _, lim := range []int{0, 24} {
					a, b := once.Search(q, MinCoverage, lim), full.Search(q, MinCoverage, lim)
					if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
						t.Fatalf("after %d adds, workers %d, %q:\nonce %#v\nfull %#v", k+1, workers, q, a, b)
					}
					a, b = once.SearchV3(q, MinCoverage, lim), full.SearchV3(q, MinCoverage, lim)
					if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
						t.Fatalf("v3 after %d adds, workers %d, %q:\nonce %#v\nfull %#v", k+1, workers, q, a, b)
					}
				}
			}
			if once.Len() != full.Len() || once.Live() != full.Live() || once.sumLen != full.sumLen || !slices.Equal(once.docLen, full.docLen) {
				t.Fatalf("after %d adds: sizes differ", k+1)
			}
			for id := 0; id < len(full.words); id += 13 {
				w := full.words[id]
				if once.DF(w) != int(full.df[id]) || once.QuestionDF(w, 0) != full.QuestionDF(w, 0) {
					t.Fatalf("after %d adds: DF(%q) = %d, want %d", k+1, w, once.DF(w), full.df[id])
				}
			}
			a, b := Stems(added[k].Question), Stems(base[r.IntN(len(base))].Question)
			if x, y := once.QuestionSimilarity(a, b, nil), full.QuestionSimilarity(a, b, nil); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("after %d adds: similarity %v, want %v", k+1, x, y)
			}
		}
	}
}
