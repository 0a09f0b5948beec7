package rank

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// testLesson is a lesson of testSource, the smallest owner of a Library.
type testLesson struct {
	Lesson
	question   string
	kind       int
	supersedes []string
	set        []uint32
	hasSet     bool
}

type testSource struct{ dict *Dict }

func (testSource) Text(l *testLesson) (string, string) { return l.question, l.Answer }
func (testSource) Lesson(l *testLesson) Lesson         { return l.Lesson }
func (testSource) Supersedes(l *testLesson) []string   { return l.supersedes }
func (s *testSource) Dict() *Dict                      { return s.dict }
func (s *testSource) TokenSets(ls []*testLesson) [][]uint32 {
	sets := make([][]uint32, len(ls))
	for i, l := range ls {
		if !l.hasSet {
			l.set, l.hasSet = s.dict.InternText(l.question, l.Answer), true
		}
		sets[i] = l.set
	}
	return sets
}

// newTestLibraries returns n libraries of the same source: the lessons'
// token sets are kept on them, in one dictionary.
func newTestLibraries(n int) []*Library[*testLesson] {
	src := &testSource{NewDict()}
	var out []*Library[*testLesson]
	for range n {
		out = append(out, NewLibrary[*testLesson](src))
	}
	return out
}

// testLessons are n generated lessons with energies, ages, kinds, some on
// probation and some superseding an earlier one by record.
func testLessons(seed uint64, n int) []*testLesson {
	r := rand.New(rand.NewPCG(seed, 3))
	var out []*testLesson
	for i, g := range textgen.Lessons(seed, n) {
		l := &testLesson{question: g.Question, kind: i % 3}
		l.ID = fmt.Sprintf("%012x", i)
		l.Answer = g.Answer
		l.Energy = float64(r.IntN(4)) / 2
		l.Born, l.Settled = r.IntN(20), r.IntN(25)-5
		l.Recorded = fmt.Sprintf("2026-01-01T00:%02d:00+00:00", r.IntN(30))
		l.MayDecide = i%11 != 5
		if i > 0 && i%9 == 0 {
			l.supersedes = []string{out[r.IntN(i)].ID}
		}
		out = append(out, l)
	}
	return out
}

func testQueries(ls []*testLesson, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 5))
	qs := []string{"", "the of and", "Falcon 4521 v3 retry", "how do I fix the flaky retry tests in the scheduler"}
	for range exhaustive.Or(3, 8) {
		a, b := ls[r.IntN(len(ls))], ls[r.IntN(len(ls))]
		w := strings.Fields(a.Answer)
		qs = append(qs, a.question, strings.Join(w[:min(len(w), 4)], " ")+" "+b.question)
	}
	var long []string
	for i := range 70 { // more tokens than a Matcher takes
		long = append(long, fmt.Sprintf("word%d", i))
	}
	return append(qs, strings.Join(long, " ")+" "+ls[0].question)
}

// A query asked Once (no index built) is answered exactly as with the
// library's indexes, for both rankings, with and without a filter, decay
// and other hit counts.
func TestLibraryOnceMatchesIndex(t *testing.T) {
	n := exhaustive.Or(2100, 4500) // the projection runs on several workers (one per 1,024 lessons)
	ls := testLessons(1, n)
	libs := newTestLibraries(2)
	indexed, once := libs[0], libs[1]
	decided := 0
	for _, r := range []Ranking{RankingDarwinMemo, RankingBM25F} {
		for _, text := range testQueries(ls, 1) {
			for _, k := range []int{1, 9} {
				for _, keep := range []func(*testLesson) bool{nil, func(l *testLesson) bool { return l.kind == 1 }} {
					q := Query[*testLesson]{Text: text, Ranking: r, K: k, Keep: keep}
					c := Consult[*testLesson]{Query: q, Provisional: true, MaxSupporters: 8, Conflict: 0.55}
					want, err := indexed.Decide(ls, c)
					if err != nil {
						t.Fatal(err)
					}
					c.Once = true
					got, err := once.Decide(ls, c)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s %q k=%d filtered %v:\nonce    %+v\nindexed %+v", r, text, k, keep != nil, got, want)
					}
					if got.Decider != "" {
						decided++
					}
					if once.Indexed(RankingDarwinMemo) || once.Indexed(RankingBM25F) {
						t.Fatal("Once built an index")
					}
				}
			}
		}
	}
	if decided == 0 {
		t.Fatal("no query decided; the test compares nothing but silence")
	}
}

// Indexes kept current by Add and Remove answer as indexes built afresh
// over the same living lessons.
func TestLibraryAddRemoveMatchesRebuilt(t *testing.T) {
	ls := testLessons(2, 600)
	living := slices.Clone(ls[:500])
	libs := newTestLibraries(2)
	kept, fresh := libs[0], libs[1]
	queries := testQueries(ls, 2)
	for _, r := range []Ranking{RankingDarwinMemo, RankingBM25F} {
		if _, err := kept.Search(living, Query[*testLesson]{Text: queries[4], Ranking: r, K: 3}); err != nil {
			t.Fatal(err)
		}
	}
	living = slices.DeleteFunc(living, func(l *testLesson) bool {
		if l.Born%4 == 0 {
			kept.Remove(l)
			return true
		}
		return false
	})
	for _, l := range ls[500:] {
		living = append(living, l)
		kept.Add(l)
	}
	if dm, bm := kept.Len(); dm != len(living) || bm != len(living) {
		t.Fatalf("indexes hold %d and %d lessons, living %d", dm, bm, len(living))
	}
	for _, r := range []Ranking{RankingDarwinMemo, RankingBM25F} {
		for _, text := range queries {
			q := Query[*testLesson]{Text: text, Ranking: r, K: 5}
			got, _ := kept.Search(living, q)
			want, _ := fresh.Search(living, q)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %q:\nkept    %+v\nrebuilt %+v", r, text, got, want)
			}
		}
	}
}

// The rankings' rules on a few lessons: a superseded lesson is listed
// after its replacement and never decides or supports, the conflict block
// lists overlapping advice newest first, a filter and the errors.
func TestLibraryDecide(t *testing.T) {
	mk := func(id, q, a, rec string, born int) *testLesson {
		return &testLesson{Lesson: Lesson{ID: id, Answer: a, Energy: 1, Born: born, Settled: -1, Recorded: rec, MayDecide: true}, question: q}
	}
	old := mk("old", "how do I deploy the api", "run make deploy-api from the repo root", "2026-01-01T00:00:00+00:00", 1)
	newer := mk("new", "how do I deploy the api", "run make deploy-api from the repo root with DRY_RUN=0", "2026-01-02T00:00:00+00:00", 2)
	newer.supersedes = []string{"old"}
	other := mk("other", "how do I run the linter", "golangci-lint run", "", 3)
	living := []*testLesson{old, newer, other}
	lib := newTestLibraries(1)[0]

	v, err := lib.Decide(living, Consult[*testLesson]{Query: Query[*testLesson]{Text: "how do I deploy the api", Ranking: RankingBM25F, K: 3}, Conflict: 0.55})
	if err != nil {
		t.Fatal(err)
	}
	if v.Decider != "new" || len(v.Hits) < 2 || v.Hits[0].Lesson != newer || v.Hits[1].SupersededBy != "new" || slices.Contains(v.Supporting, "old") {
		t.Fatalf("bm25f: decider %q supporting %v hits %+v", v.Decider, v.Supporting, v.Hits)
	}
	if want := newer.Answer + "\n[recorded 2026-01-02T00:00:00+00:00; born tick 2; never settled]"; v.Answer != want {
		t.Errorf("bm25f answer %q, want %q", v.Answer, want)
	}

	v, err = lib.Decide(living, Consult[*testLesson]{Query: Query[*testLesson]{Text: "how do I deploy the api", Ranking: RankingDarwinMemo, K: 3}, Conflict: 0.55})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.Answer, "conflicting/overlapping advice, newest first:\n- "+newer.Answer) || !strings.Contains(v.Answer, "- "+old.Answer+" [recorded 2026-01-01") {
		t.Errorf("darwin-memo answer %q", v.Answer)
	}

	keepOther := func(l *testLesson) bool { return l == other }
	hits, _ := lib.Search(living, Query[*testLesson]{Text: "how do I deploy the api run", Ranking: RankingBM25F, K: 3, Keep: keepOther})
	if len(hits) != 1 || hits[0].Lesson != other {
		t.Errorf("filtered hits %+v, want other alone", hits)
	}
	for _, q := range []Query[*testLesson]{{Text: "x", Ranking: "v9", K: 1}} {
		if _, err := lib.Search(living, q); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
}

// A chain of records is followed to its newest lesson; of two lessons
// superseding the same one, the one recorded later (then born later) wins.
func TestSupersessionChain(t *testing.T) {
	mk := func(id, rec string, born int, sup ...string) *testLesson {
		return &testLesson{Lesson: Lesson{ID: id, Born: born, Recorded: rec}, supersedes: sup}
	}
	a := mk("a", "2026-01-01", 1)
	b := mk("b", "2026-01-02", 2, "a")
	c := mk("c", "2026-01-03", 3, "b")
	d := mk("d", "2026-01-02", 4, "a") // recorded with b, born after it
	self := mk("self", "", 5, "self")
	m := NewSupersession([]*testLesson{a, b, c, d, self}, &testSource{})
	var ids []string
	for _, l := range m.Chain(a) {
		ids = append(ids, l.ID)
	}
	if got := strings.Join(ids, ","); got != "a,d" {
		t.Errorf("chain of a: %s, want a,d", got)
	}
	if l, ok := m.Latest(b); !ok || l != c {
		t.Errorf("latest of b: %v %v, want c", l, ok)
	}
	if _, ok := m.Latest(self); ok {
		t.Error("a lesson superseding itself is superseded")
	}
}

// FuzzLibraryOnceMatchesIndex compares Once with the indexes on small
// libraries of generated lessons plus a lesson and a query from the fuzzer
// (any text: capitals, digits, non-ASCII, identifiers).
func FuzzLibraryOnceMatchesIndex(f *testing.F) {
	f.Add(uint64(1), "how do I fix the flaky retry tests", "Retry flaky tests with -count=1", "Use RetryPolicy in scheduler.go")
	f.Add(uint64(2), "Falcon 4521 HTTPServer", "Ünïcode café's naïveTest", "it's the WindowsShell v1.2 go.mod")
	f.Fuzz(func(t *testing.T, seed uint64, query, q1, a1 string) {
		ls := testLessons(seed%64, 40)
		ls[20].question, ls[20].Answer = q1, a1
		libs := newTestLibraries(2)
		for _, r := range []Ranking{RankingDarwinMemo, RankingBM25F} {
			c := Consult[*testLesson]{Query: Query[*testLesson]{Text: query, Ranking: r, K: 5}, Conflict: 0.55}
			want, err := libs[0].Decide(ls, c)
			if err != nil {
				t.Fatal(err)
			}
			c.Once = true
			got, err := libs[1].Decide(ls, c)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %q:\nonce    %+v\nindexed %+v", r, query, got, want)
			}
		}
	})
}
