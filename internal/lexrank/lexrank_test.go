package lexrank

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx"
	"github.com/darwin-memo/darwin-memo-action/internal/textidx/textgen"
)

func stemsOf(t Term) string { return t.Stem }

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // stems, space-separated
		caps string // raw words flagged Cap
	}{
		{"How do I run WindowsShell tests?", "run window shell test", ""},
		{"snake_case_name and HTTPServer's go.mod", "snak case name http server go mod", ""},
		{"Go 1.21 or v1.22.3?", "go 1.21 v1.22.3", ""},
		{"flaky flakes flaking flaked", "flak flak flak flak", ""},
		{"deprecate deprecated releases released queries retried", "deprecat deprecat releas releas quer retr", ""},
		{"What's the on-call rotation for team Falcon right now?", "call rotation team falcon right now", "falcon"},
		{"Don't use ioutil.ReadAll. Falcon is the first word.", "use ioutil read falcon first word", ""},
		{"the CI API a b 7 x", "ci api 7", ""},
		{"Ünïcode café naïve", "ünïcod café naïv", ""},
	} {
		var stems, caps []string
		for _, x := range Terms(tc.in) {
			stems = append(stems, x.Stem)
			if x.Cap {
				caps = append(caps, x.Raw)
			}
		}
		if got := strings.Join(stems, " "); got != tc.want {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := strings.Join(caps, " "); got != tc.caps {
			t.Errorf("Terms(%q) caps %q, want %q", tc.in, got, tc.caps)
		}
	}
}

// The indexing fast path yields exactly the stems of Terms.
func TestStemmerMatchesTerms(t *testing.T) {
	texts := []string{
		"How do I run WindowsShell tests? snake_case HTTPServer's go.mod don't it's.go a.b. .x x. 'quoted' rock'n'roll",
		"Ünïcode mixed with ASCII: café's naïveTest", "", "...", "A", "ABCdef1Ghi2 x1Y v1.2 1.2.3a",
	}
	for _, l := range textgen.Lessons(7, 300) {
		texts = append(texts, l.Question, l.Answer)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "B", "c", "D", "1", ".", "'", " ", "_", "-", "é", "’", "s", "Ab", "ing", "ed"}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := r.IntN(12); j >= 0; j-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, cached := range []bool{false, true} {
		st := stemmer{}
		if cached {
			st.raw = &wordTable{}
		}
		sk := &testSink{st: &st, ids: map[string]int32{}}
		for _, s := range texts {
			sk.got = sk.got[:0]
			st.stems(s, sk)
			got := sk.got
			var want []string
			for _, x := range Terms(s) {
				want = append(want, x.Stem)
			}
			if cached {
				// Cached words reach known instead of stem: compare as multisets.
				slices.Sort(got)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("cached=%v %q: stems %q, Terms %q", cached, s, got, want)
			}
		}
	}
}

type testSink struct {
	st    *stemmer
	ids   map[string]int32
	words []string
	got   []string
}

func (k *testSink) stem(b []byte) {
	w := string(b)
	k.got = append(k.got, w)
	if k.st.pending != "" {
		id, ok := k.ids[w]
		if !ok {
			id = int32(len(k.words))
			k.ids[w] = id
			k.words = append(k.words, w)
		}
		k.st.raw.put(k.st.pending, k.st.pendH, id)
		k.st.pending = ""
	}
}

func (k *testSink) known(id uint32) { k.got = append(k.got, k.words[id]) }

func TestRarity(t *testing.T) {
	if Rank("you") != 1 || Rank("the") != 2 || Rank("zzzzqx") != 0 || Rank("") != 0 {
		t.Fatalf("ranks: you %d the %d", Rank("you"), Rank("the"))
	}
	for _, w := range []string{"now", "week", "right", "today", "safely", "currently"} {
		if r := Rarity(w); r != 0 {
			t.Errorf("Rarity(%q) = %v, want 0 (ordinary)", w, r)
		}
	}
	for _, w := range []string{"kubectl", "4521", "v3", "inventory", "rebalance"} {
		if r := Rarity(w); r != 1 {
			t.Errorf("Rarity(%q) = %v, want 1 (rare)", w, r)
		}
	}
	if r := Rarity("password"); !(r > 0 && r < 1) {
		t.Errorf("Rarity(password) = %v, want in (0, 1)", r)
	}
}

func TestBuildMatchesAdd(t *testing.T) {
	ls := textgen.Lessons(3, 9000)
	seq := New()
	for _, l := range ls {
		seq.Add(l.Question, l.Answer)
	}
	par := Build(len(ls), func(i int) (string, string) { return ls[i].Question, ls[i].Answer }, 4)
	if fmt.Sprint(seq.words) != fmt.Sprint(par.words) || fmt.Sprint(seq.df) != fmt.Sprint(par.df) ||
		fmt.Sprint(seq.post) != fmt.Sprint(par.post) || seq.sumLen != par.sumLen || fmt.Sprint(seq.terms) != fmt.Sprint(par.terms) {
		t.Fatal("parallel build differs from sequential adds")
	}
	for _, q := range []string{ls[5].Question, ls[77].Answer, "flaky retry tests"} {
		a, b := seq.Search(q, MinCoverage, 0), par.Search(q, MinCoverage, 0)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%q: %v vs %v", q, a, b)
		}
	}
	// Adding after a build and removing keep the index consistent.
	d := par.Add("How do I restart the billing service?", "kubectl rollout restart deploy/billing")
	if h := par.Search("restart billing service", MinCoverage, 0); len(h.Hits) == 0 || h.Hits[0].Doc != d {
		t.Fatalf("added doc not found first: %+v", h)
	}
	par.Remove(d)
	if h := par.Search("restart billing service", MinCoverage, 0); len(h.Hits) > 0 && h.Hits[0].Doc == d {
		t.Fatal("removed doc still found")
	}
}

func TestSearchBlocksUnseenNamesAndNumbers(t *testing.T) {
	x := New()
	x.Add("What caused incident 4121?", "An expired TLS certificate on the gateway.")
	x.Add("How do I restart the billing service?", "kubectl rollout restart deploy/billing")
	for q, blocked := range map[string]string{
		"What caused incident 9981?":                   "9981",
		"How do I restart the Falcon service?":         "falcon",
		"How do I restart the billing service safely?": "",
		"what caused incident 4121 this week":          "",
	} {
		if got := x.Search(q, MinCoverage, 0).Blocked; got != blocked {
			t.Errorf("%q blocked by %q, want %q", q, got, blocked)
		}
	}
	if len(x.Search("How do I restart the billing service right now?", MinCoverage, 0).Hits) == 0 {
		t.Error("ordinary words no lesson holds silenced an answerable question")
	}
	// A long task description is not silenced by an incidental name.
	long := x.Search("Restart the billing service after the Kubernetes upgrade; the rollout restart of deploy/billing hangs and kubectl waits forever", MinCoverage, 0)
	if long.Blocked != "" || len(long.Hits) == 0 || long.Hits[0].Doc != 1 {
		t.Errorf("long query: %+v", long)
	}
}

func BenchmarkBuild(b *testing.B) {
	ls := textgen.Lessons(3, 10000)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprint(w), func(b *testing.B) {
			for b.Loop() {
				Build(len(ls), func(i int) (string, string) { return ls[i].Question, ls[i].Answer }, w)
			}
		})
	}
}

// BenchmarkBuildVsDarwinMemo compares the v2 index build with darwin-memo's
// (textidx) on the same texts, so a busy machine inflates both alike.
func BenchmarkBuildVsDarwinMemo(b *testing.B) {
	ls := textgen.Lessons(3, 10000)
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = l.Question + " " + l.Answer
	}
	b.Run("v2", func(b *testing.B) {
		for b.Loop() {
			Build(len(ls), func(i int) (string, string) { return ls[i].Question, ls[i].Answer }, 2)
		}
	})
	b.Run("darwin-memo", func(b *testing.B) {
		for b.Loop() {
			d := textidx.NewDict()
			textidx.NewIndexIDs(d, d.InternTexts(texts))
		}
	})
}

// FuzzStemmer checks that the indexing fast path yields exactly the stems
// of Terms, with and without the word cache, and that Search never panics.
func FuzzStemmer(f *testing.F) {
	for _, s := range []string{"How do I run WindowsShell tests?", "go.mod v1.21 ioutil.ReadAll don't", "Ünïcode’s café", "a.b. .x 'q' x'y'z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []string
		for _, x := range Terms(s) {
			want = append(want, x.Stem)
		}
		st := stemmer{raw: &wordTable{}}
		k := &testSink{st: &st, ids: map[string]int32{}}
		for round := 0; round < 2; round++ { // the second round hits the cache
			k.got = k.got[:0]
			st.stems(s, k)
			got := slices.Clone(k.got)
			w := slices.Clone(want)
			slices.Sort(got)
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Fatalf("round %d %q: stems %q, Terms %q", round, s, got, w)
			}
		}
		x := New()
		x.Add(s, s)
		x.Search(s, MinCoverage, 0)
	})
}

func TestSearchLimitIsAPrefix(t *testing.T) {
	ls := textgen.Lessons(5, 3000)
	x := Build(len(ls), func(i int) (string, string) { return ls[i].Question, ls[i].Answer }, 2)
	for _, q := range []string{ls[1].Question, "build test flaky", ls[9].Answer} {
		all := x.Search(q, MinCoverage, 0).Hits
		for _, k := range []int{1, 3, 24, 64, 100} {
			got := x.Search(q, MinCoverage, k).Hits
			if want := all[:min(k, len(all))]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q limit %d: %v, want %v", q, k, got, want)
			}
		}
	}
}

// isASCII finds a non-ASCII byte at any place, in the 8-byte steps and
// in the tail.
func TestIsASCII(t *testing.T) {
	for n := range 40 {
		b := []byte(strings.Repeat("a", n))
		if !isASCII(string(b)) {
			t.Fatalf("isASCII(%q) = false", b)
		}
		for i := range n {
			for _, c := range []byte{0x80, 0xc3, 0xff} {
				b[i] = c
				if isASCII(string(b)) {
					t.Fatalf("isASCII(%q) = true", b)
				}
				b[i] = 0x7f
				if !isASCII(string(b)) {
					t.Fatalf("isASCII(%q) = false", b)
				}
				b[i] = 'a'
			}
		}
	}
}
