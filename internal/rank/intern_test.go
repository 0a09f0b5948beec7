package rank

import (
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

func TestInternTextsMatchesSequential(t *testing.T) {
	var texts []string
	for _, l := range textgen.Lessons(5, 3000) {
		texts = append(texts, l.Text())
	}
	texts = append(texts, "", "the and of", "\u212Aelvin \u0130stanbul CACHE cache")
	for _, n := range []int{0, 1, 200, 700, len(texts)} {
		seq, par := NewDict(), NewDict()
		// Both dictionaries start with the same words, so ids continue.
		seq.Intern([]string{"cache", "zzz"})
		par.Intern([]string{"cache", "zzz"})
		var want [][]uint32
		for _, s := range texts[:n] {
			want = append(want, seq.Intern(Tokens(s)))
		}
		got := par.InternTexts(texts[:n])
		if len(got) != n {
			t.Fatalf("n=%d: %d sets", n, len(got))
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("n=%d: text %d: InternTexts = %v, sequential = %v", n, i, got[i], want[i])
			}
		}
		if !par.wordsEqual(seq) {
			t.Fatalf("n=%d: dictionaries differ", n)
		}
	}
}

// wordsEqual reports whether two dictionaries hold the same words with the
// same ids.
func (d *Dict) wordsEqual(e *Dict) bool {
	return slices.Equal(d.words, e.words)
}

func FuzzInternText(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"Does the files' cache", "miss.log exist?"}, {"ab\xe2", "\x82cd"}, {"\u212A\u0130x", "TESTS tests ands"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got, want := NewDict(), NewDict()
		got.ID("cache") // a dictionary that already holds words
		want.ID("cache")
		for _, texts := range [][]string{{a, b}, {b}, {a, a, b}, {}} {
			g := got.InternText(texts...)
			w := want.Intern(Tokens(strings.Join(texts, " ")))
			if !slices.Equal(g, w) {
				t.Fatalf("InternText(%q) = %v, Intern(Tokens(joined)) = %v", texts, g, w)
			}
		}
		if !slices.Equal(got.words, want.words) {
			t.Fatalf("dictionaries differ: %q vs %q", got.words, want.words)
		}
	})
}

func TestJaccardKnownMatchesJaccard(t *testing.T) {
	ls := textgen.Lessons(11, 400)
	d := NewDict()
	var sets [][]uint32
	var texts []string
	for _, l := range ls[:200] { // the dictionary knows these; the rest are asked about
		sets = append(sets, d.InternText(l.Question, l.Answer))
		texts = append(texts, l.Question+" "+l.Answer)
	}
	size := d.Len()
	queries := []struct{ q, a string }{
		{"", ""},
		{"the and of", ""},
		{"\u212Aelvin \u0130stanbul CACHE cache", "caches kelvin"},
		{"brand new words only", "nothing known here"},
	}
	for _, l := range ls {
		queries = append(queries, struct{ q, a string }{l.Question, l.Answer})
	}
	for _, q := range queries {
		known, distinct := d.LookupText(q.q, q.a)
		toks := Tokens(q.q + " " + q.a)
		if distinct != len(toks) {
			t.Fatalf("%q %q: distinct = %d, Tokens has %d", q.q, q.a, distinct, len(toks))
		}
		for i, set := range sets {
			if got, want := JaccardKnown(known, distinct, set), Jaccard(toks, Tokens(texts[i])); got != want {
				t.Fatalf("%q %q vs text %d: JaccardKnown = %v, Jaccard = %v", q.q, q.a, i, got, want)
			}
		}
	}
	if d.Len() != size {
		t.Fatalf("LookupText added words: %d, was %d", d.Len(), size)
	}
}
