package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// mostSimilarReference is the encoder's duplicate check before the store answered it: every
// living lesson tokenised, the first best kept.
func mostSimilarReference(s *Store, q, a string) (string, float64) {
	toks := rank.Tokens(q + " " + a)
	id, best := "", 0.0
	for _, e := range s.Living() {
		if sim := rank.Jaccard(toks, rank.Tokens(e.Question+" "+e.Answer)); sim > best {
			id, best = e.ID, sim
		}
	}
	return id, best
}

// mostSimilarSets is Store.MostSimilar as it was before it learnt to measure entries without
// token sets: every living entry's set computed (interned into the store's dictionary) and
// compared with the query's known ids.
func mostSimilarSets(s *Store, question, answer string) (id string, similarity float64) {
	if len(s.living) == 0 {
		return "", 0
	}
	s.ensureSets(s.living)
	known, distinct := s.tokenDict().LookupText(question, answer)
	if len(known) == 0 {
		return "", 0
	}
	for _, e := range s.living {
		set := s.tokenSet(e)
		if lo, hi := min(distinct, len(set)), max(distinct, len(set)); hi == 0 || float64(lo)/float64(hi) <= similarity {
			continue
		}
		if sim := rank.JaccardKnown(known, distinct, set); sim > similarity {
			id, similarity = e.ID, sim
		}
	}
	return id, similarity
}

type simQuery struct{ q, a string }

// mostSimilarQueries returns duplicate-check queries for a store of the given lessons: the
// lessons themselves, perturbed copies, texts sharing no token with any lesson, empty and
// stopword-only texts, unicode, punctuation, identifiers, repeated words and long texts.
func mostSimilarQueries(r *rand.Rand, living []*Entry, n int) []simQuery {
	qs := []simQuery{
		{"", ""},
		{"the and of", "is it"},
		{"unheard-of zyzzyva", "quux"},
		{"\u212Aelvin \u0130stanbul é ü 日本語 🙂", "KELVIN kelvin i̇stanbul"},
		{"!!! ??? ... *** --- ___ /// '''", "(a) [b] {c} <d> ;;; :: ,,"},
		{"fooBar.BazQux x.y.Z getHTTPResponse snake_case kebab-case", "FOOBAR.bazqux X.Y.z"},
		{"cache cache cache caches CACHES Cache", "cache"},
		{"s ss sss ssss tests testss ands", "this those"},
		{"\xff\xfe invalid \xc3 utf8", "\xe2\x82"},
	}
	if len(living) == 0 {
		return qs
	}
	pick := func() *Entry { return living[r.IntN(len(living))] }
	perturb := func(s string) string {
		words := strings.Fields(s)
		var b strings.Builder
		for _, w := range words {
			switch r.IntN(8) {
			case 0: // dropped
				continue
			case 1:
				w = strings.ToUpper(w)
			case 2:
				w += "s"
			case 3:
				w = w + "-" + pick().ID
			case 4:
				w = w + " " + w // repeated
			}
			b.WriteString(w)
			b.WriteString([]string{" ", ", ", ". ", "/", "_", "\t"}[r.IntN(6)])
		}
		return b.String()
	}
	for i := 0; len(qs) < n; i++ {
		e := pick()
		switch i % 6 {
		case 0, 1: // the lesson itself
			qs = append(qs, simQuery{e.Question, e.Answer})
		case 2:
			qs = append(qs, simQuery{perturb(e.Question), perturb(e.Answer)})
		case 3: // answer and question swapped, or one of them alone
			qs = append(qs, [](simQuery){{e.Answer, e.Question}, {e.Question, ""}, {"", e.Answer}}[r.IntN(3)])
		case 4: // long: more distinct tokens than a Matcher holds
			f := pick()
			qs = append(qs, simQuery{e.Question + " " + e.Answer + " " + f.Question, f.Answer + " " + pick().Answer})
		case 5:
			qs = append(qs, simQuery{pick().Question, perturb(pick().Answer)})
		}
	}
	return qs
}

// checkMostSimilar asks s every query and compares id and similarity, bit for bit, with
// want (the results of the reference), and checks that MostSimilar neither adds words to
// the store's dictionary nor computes token sets.
func checkMostSimilar(t *testing.T, label string, s *Store, qs []simQuery, want []simResult) {
	t.Helper()
	size := s.tokenDict().Len()
	sets := 0
	for _, e := range s.living {
		if e.hasSet {
			sets++
		}
	}
	for i, q := range qs {
		id, sim := s.MostSimilar(q.q, q.a)
		if id != want[i].id || math.Float64bits(sim) != math.Float64bits(want[i].sim) {
			t.Fatalf("%s: %q %q: MostSimilar = %q %v, reference = %q %v", label, q.q, q.a, id, sim, want[i].id, want[i].sim)
		}
	}
	if got := s.tokenDict().Len(); got != size {
		t.Fatalf("%s: MostSimilar added %d words to the dictionary", label, got-size)
	}
	for _, e := range s.living {
		if e.hasSet {
			sets--
		}
	}
	if sets != 0 {
		t.Fatalf("%s: MostSimilar computed %d token sets", label, -sets)
	}
}

type simResult struct {
	id  string
	sim float64
}

// TestMostSimilarMatchesTokenising compares Store.MostSimilar with the implementation that
// computed every entry's token set (mostSimilarSets) on stores of several sizes, with no
// sets built (the action's tick without consolidation), with some built (a consolidation's
// eligible entries) and with all built, before and after the living list changes; and, on the
// store with a twin lesson, with the tokenising reference. It also checks that the sets built
// after MostSimilar calls hold the ids (and the dictionary the words) of a store never asked.
func TestMostSimilarMatchesTokenising(t *testing.T) {
	total := exhaustiveOr(300, 3000)
	added := total * 5 / 6
	ls := textgen.Lessons(7, total)
	s := New("t", Options{})
	for _, l := range ls[:added] {
		if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
			t.Fatal(err)
		}
	}
	// A twin of an earlier lesson: the first in store order wins the tie.
	if _, err := s.Add(NewLesson{Question: ls[3].Question, Answer: ls[3].Answer + " " + ls[3].Answer}); err != nil {
		t.Fatal(err)
	}
	queries := []simQuery{
		{"", ""},
		{"the and of", ""},
		{"unheard-of zyzzyva", "quux"},
		{ls[3].Question, ls[3].Answer},
	}
	for _, l := range ls[added-20 : added+20] { // known ones, then new ones
		queries = append(queries, simQuery{l.Question, l.Answer})
	}
	want := make([]simResult, len(queries))
	for i, q := range queries {
		want[i].id, want[i].sim = mostSimilarReference(s, q.q, q.a)
	}
	checkMostSimilar(t, "no sets", s, queries, want)
	s.ensureSets(s.Living()) // what the first call used to compute
	checkMostSimilar(t, "all sets", s, queries, want)

	data := benchStoreBytes(t, 1000)
	r := rand.New(rand.NewPCG(1, 2))
	change := func(st *Store) { // lessons buried and added
		n := len(st.living)
		st.bury(st.living[5], st.living[17], st.living[n/2])
		for _, l := range textgen.Lessons(uint64(n), 3) {
			if _, err := st.Add(NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range []int{0, 1, 2, 40, 1000} {
		ref, err := Parse("ref", data)
		if err != nil {
			t.Fatal(err)
		}
		ref.bury(ref.living[n:]...)
		qs := mostSimilarQueries(r, ref.living, 200)
		want := make([]simResult, len(qs))
		for i, q := range qs {
			want[i].id, want[i].sim = mostSimilarSets(ref, q.q, q.a)
		}
		s, _ := Parse("s", data)
		s.bury(s.living[n:]...)
		checkMostSimilar(t, fmt.Sprintf("%d lessons, no sets", n), s, qs, want)
		if n >= 40 {
			// The living list changes between calls (the signatures kept by position go stale):
			// lessons buried and added.
			change(ref)
			change(s)
			for i, q := range qs {
				want[i].id, want[i].sim = mostSimilarSets(ref, q.q, q.a)
			}
			checkMostSimilar(t, fmt.Sprintf("%d lessons changed, no sets", n), s, qs, want)
		}
		var some []*Entry // as a consolidation leaves them: some entries have sets
		for i, e := range s.living {
			if i%3 != 1 {
				some = append(some, e)
			}
		}
		s.ensureSets(some)
		{ // the ids are those of a store never asked
			fresh, _ := Parse("fresh", data)
			fresh.bury(fresh.living[n:]...)
			if n >= 40 {
				change(fresh)
			}
			var freshSome []*Entry
			for i, e := range fresh.living {
				if i%3 != 1 {
					freshSome = append(freshSome, e)
				}
			}
			fresh.ensureSets(freshSome)
			if d, f := s.tokenDict(), fresh.tokenDict(); d.Len() != f.Len() {
				t.Fatalf("%d lessons: %d words after MostSimilar, %d without", n, d.Len(), f.Len())
			} else {
				for id := range uint32(d.Len()) {
					if d.Word(id) != f.Word(id) {
						t.Fatalf("%d lessons: word %d is %q after MostSimilar, %q without", n, id, d.Word(id), f.Word(id))
					}
				}
			}
			for i, e := range s.living {
				if e.hasSet && !slices.Equal(e.set, fresh.living[i].set) {
					t.Fatalf("%d lessons: entry %d's ids differ after MostSimilar", n, i)
				}
			}
		}
		checkMostSimilar(t, fmt.Sprintf("%d lessons, some sets", n), s, qs, want)
		s.ensureSets(s.living)
		checkMostSimilar(t, fmt.Sprintf("%d lessons, all sets", n), s, qs, want)
	}
}

// FuzzMostSimilarMatchesSets compares Store.MostSimilar on a small store without token sets
// with the implementation that computed them.
func FuzzMostSimilarMatchesSets(f *testing.F) {
	ls := textgen.Lessons(21, 60)
	build := func() *Store {
		s := New("f", Options{})
		for _, l := range ls {
			if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer}); err != nil {
				f.Fatal(err)
			}
		}
		return s
	}
	s, ref := build(), build()
	for _, seed := range []simQuery{{"", ""}, {ls[5].Question, ls[5].Answer}, {"fooBar.Baz \u212A", "CACHES cache's"}, {ls[9].Answer, ls[2].Question}} {
		f.Add(seed.q, seed.a)
	}
	f.Fuzz(func(t *testing.T, q, a string) {
		id, sim := s.MostSimilar(q, a)
		wid, wsim := mostSimilarSets(ref, q, a)
		if id != wid || math.Float64bits(sim) != math.Float64bits(wsim) {
			t.Fatalf("%q %q: MostSimilar = %q %v, with sets = %q %v", q, a, id, sim, wid, wsim)
		}
		if s.dict != nil && s.dict.Len() != 0 {
			t.Fatalf("MostSimilar added %d words to the dictionary", s.dict.Len())
		}
	})
}

// BenchmarkMostSimilar is the encoder's duplicate check on a loaded store without token sets
// (the action's tick that does not consolidate), for candidate lessons that continue the
// store's generator (about 5% of them reword a stored lesson). impl=old is the implementation
// that computed every entry's set first (mostSimilarSets), impl=new is Store.MostSimilar;
// every op starts from a store without sets. q=1 asks one candidate per op, q=5 asks five in
// a row (a pull request's most lessons), which the old implementation answered from the sets
// its first call built.
func BenchmarkMostSimilar(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s, err := Parse("bench", benchStoreBytes(b, n))
		if err != nil {
			b.Fatal(err)
		}
		g := textgen.New(uint64(n), textgen.Options{})
		for range n + n/4 { // the store's lessons
			g.Next()
		}
		var cands []textgen.Lesson
		for range 40 {
			cands = append(cands, g.Next())
		}
		impls := []struct {
			name string
			fn   func(s *Store, q, a string) (string, float64)
		}{{"old", mostSimilarSets}, {"new", (*Store).MostSimilar}}
		for _, perOp := range []int{1, 5} {
			for _, impl := range impls {
				b.Run(fmt.Sprintf("n=%d/q=%d/impl=%s", n, perOp, impl.name), func(b *testing.B) {
					b.ReportAllocs()
					c0, runs, next := processCPU(), 0, 0
					for b.Loop() {
						for _, e := range s.living { // no sets, as after a load
							e.set, e.hasSet = nil, false
						}
						s.dict, s.idx = nil, nil
						for range perOp {
							c := cands[next%len(cands)]
							next++
							impl.fn(s, c.Question, c.Answer)
						}
						runs++
					}
					b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
				})
			}
		}
	}
}
