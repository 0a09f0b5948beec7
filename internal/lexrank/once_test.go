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

func TestBuildForRefusesChanges(t *testing.T) {
	x := BuildFor("q", 1, func(int) (string, string) { return "q", "a" }, 1)
	for name, fn := range map[string]func(){"Add": func() { x.Add("a", "b") }, "Remove": func() { x.Remove(0) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			fn()
		}()
	}
}
