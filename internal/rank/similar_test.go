package rank

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// checkSimilar compares q.Above(floor, sig, texts...) with the Jaccard of
// the joined texts' Tokens, bit for bit, at each floor, without a
// signature, with a fresh one and with sig (the texts' signature, computed
// or not, which it keeps).
func checkSimilar(t *testing.T, q *Similar, query []string, floors []float64, sig *Signature, texts ...string) {
	t.Helper()
	want := Jaccard(Tokens(strings.Join(query, " ")), Tokens(strings.Join(texts, " ")))
	for _, floor := range floors {
		var fresh Signature
		for k, sig := range []*Signature{nil, &fresh, sig, &fresh} {
			got, ok := q.Above(floor, sig, texts...)
			if ok != (want > floor) || ok && math.Float64bits(got) != math.Float64bits(want) || !ok && got > floor {
				t.Fatalf("query %q, text %q, floor %v, signature %d: Above = %v %v, Jaccard = %v", query, texts, floor, k, got, ok, want)
			}
		}
	}
}

var similarFloors = []float64{0, 0.05, 0.3, 0.55, 1}

func TestSimilarMatchesJaccard(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "B", "s", "ss", "1", ".", "*", " ", "_", "-", "\u212A", "\u0130", "é", "\xff",
		"the", "ands", "cache", "CACHES", "fooBar", "x.y.Z", "Tests", "TEST", "test's"}
	randText := func(n int) string {
		var b strings.Builder
		for range r.IntN(n) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	ls := textgen.Lessons(13, 300)
	long := func() string { // well over MaxMatch distinct tokens
		var b strings.Builder
		for range 4 {
			l := ls[r.IntN(len(ls))]
			b.WriteString(l.Question + " " + l.Answer + " ")
		}
		return b.String()
	}
	// The texts asked about, each with a signature kept from query to query.
	var pool [][]string
	for i := range 400 {
		switch i % 3 {
		case 0:
			l := ls[r.IntN(len(ls))]
			pool = append(pool, []string{l.Question, l.Answer})
		case 1:
			pool = append(pool, []string{randText(40), randText(10)})
		case 2:
			pool = append(pool, []string{long(), randText(10), long()})
		}
	}
	sigs := make([]Signature, len(pool))
	queries := 250
	if raceEnabled {
		queries = 50
	}
	for i := range queries {
		var query []string
		switch i % 5 {
		case 0:
			query = []string{ls[i%len(ls)].Question, ls[i%len(ls)].Answer}
		case 1:
			query = []string{randText(30), randText(30)}
		case 2:
			query = []string{long()}
		case 3:
			query = []string{randText(8)}
		case 4:
			query = []string{ls[r.IntN(len(ls))].Answer, randText(20), ls[r.IntN(len(ls))].Question}
		}
		q := NewSimilar(query...)
		if q.n != len(Tokens(strings.Join(query, " "))) {
			t.Fatalf("%q: Len = %d", query, q.n)
		}
		for range 40 {
			j := r.IntN(len(pool))
			checkSimilar(t, q, query, similarFloors, &sigs[j], pool[j]...)
		}
		checkSimilar(t, q, query, similarFloors, nil)
		checkSimilar(t, q, query, similarFloors, nil, "")
		checkSimilar(t, q, query, similarFloors, nil, query...)
	}
}

// TestSimilarAllocations checks that a Similar, once warm, measures texts
// without allocating (the store-wide duplicate check runs it on every
// lesson).
func TestSimilarAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ls := textgen.Lessons(17, 200)
	for _, query := range [][]string{{ls[0].Question, ls[0].Answer}, {ls[1].Text() + " " + ls[2].Text() + " " + ls[3].Text()}} {
		q := NewSimilar(query...)
		sigs := make([]Signature, len(ls))
		run := func() {
			for i, l := range ls {
				q.Above(0, nil, l.Question, l.Answer)
				q.Above(0, &sigs[i], l.Question, l.Answer)
			}
		}
		run()
		if n := testing.AllocsPerRun(5, run); n > 0 {
			t.Errorf("query of %d tokens: %v allocations per pass", q.n, n)
		}
	}
}

func FuzzSimilar(f *testing.F) {
	f.Add("Does the files' cache-miss.log exist?", "cache file", "miss.log exists", 0.0)
	f.Add("\u212Aelvin \u0130stanbul", "kelvin i", "stanbul KELVIN", 0.2)
	f.Add("fooBar x.y.Z tests", "", "foobar X.Y.z test", 0.5)
	f.Fuzz(func(t *testing.T, q, a, text string, floor float64) {
		if math.IsNaN(floor) || floor < 0 { // Above's floor is a similarity so far
			floor = 0
		}
		s := NewSimilar(q, a)
		floors := []float64{0, floor}
		var sig Signature
		checkSimilar(t, s, []string{q, a}, floors, &sig, text)
		checkSimilar(t, s, []string{q, a}, floors, &sig, text) // the signature computed
		checkSimilar(t, s, []string{q, a}, floors, nil, text, q)
		checkSimilar(t, s, []string{q, a}, floors, nil, a, text, text)
		// Another query about the same text, with its signature.
		checkSimilar(t, NewSimilar(text, q), []string{text, q}, floors, &sig, text)
	})
}
