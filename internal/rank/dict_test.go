package rank

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// refDict interns the tokens Tokens returns, one string at a time: the
// reference InternText's and LookupText's scans are checked against.
type refDict struct {
	ids   map[string]uint32
	words []string
}

func newRefDict() *refDict { return &refDict{ids: map[string]uint32{}} }

func (r *refDict) id(tok string) uint32 {
	if id, ok := r.ids[tok]; ok {
		return id
	}
	id := uint32(len(r.words))
	r.ids[tok] = id
	r.words = append(r.words, tok)
	return id
}

func (r *refDict) internText(texts ...string) []uint32 {
	var ids []uint32
	for _, tok := range Tokens(strings.Join(texts, " ")) {
		ids = append(ids, r.id(tok))
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// checkDict fails unless d holds exactly ref's words with ref's ids, and
// finds each of them (and none of probes that ref lacks) with Lookup.
func checkDict(t *testing.T, d *Dict, ref *refDict, probes []string) {
	t.Helper()
	if d.Len() != len(ref.words) {
		t.Fatalf("Len = %d, reference has %d words", d.Len(), len(ref.words))
	}
	for id, w := range ref.words {
		if got := d.words[id]; got != w {
			t.Fatalf("word %d = %q, reference %q", id, got, w)
		}
		if got, ok := d.Lookup(w); !ok || got != uint32(id) {
			t.Fatalf("Lookup(%q) = %d, %v; reference %d", w, got, ok, id)
		}
	}
	for _, p := range probes {
		want, wok := ref.ids[p]
		if got, ok := d.Lookup(p); ok != wok || got != want {
			t.Fatalf("Lookup(%q) = %d, %v; reference %d, %v", p, got, ok, want, wok)
		}
	}
}

// dictTexts returns texts whose tokens are short, exactly 16 bytes, just
// longer, long, and share long prefixes and suffixes (where tokens that
// are inline differ from those that are not), with repeats, upper case
// (transient tokens) and stop-words.
func dictTexts(r *rand.Rand, n int) []string {
	stems := []string{"a", "ab", "abc", "cache", "config.yaml", "0123456789abcde", "0123456789abcdef",
		"0123456789abcdefg", "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdefx",
		strings.Repeat("long", 20), "*", ".", "..", "the", "ands", "tests", "kelvin"}
	var texts []string
	for range n {
		var b strings.Builder
		for range r.IntN(40) {
			w := stems[r.IntN(len(stems))]
			switch r.IntN(4) {
			case 0:
				w += fmt.Sprint(r.IntN(50))
			case 1:
				w = fmt.Sprint(r.IntN(50)) + w
			case 2:
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			b.WriteString([]string{" ", "-", "/", ", ", " \u212A"}[r.IntN(5)])
		}
		texts = append(texts, b.String())
	}
	return texts
}

func TestInternTextMatchesTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var texts []string
	for _, l := range textgen.Lessons(3, 3000) {
		texts = append(texts, l.Question, l.Answer)
	}
	texts = append(texts, dictTexts(r, 3000)...)
	r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	probes := append(Tokens(strings.Join(dictTexts(rand.New(rand.NewPCG(8, 8)), 200), " ")),
		"", "\x00", "a\x00", "0123456789abcdef\x00", strings.Repeat("long", 21))
	n := len(texts)
	d, ref := NewDict(), newRefDict()
	for i := 0; i+1 < n; i += 2 {
		got, want := d.InternText(texts[i], texts[i+1]), ref.internText(texts[i], texts[i+1])
		if !slices.Equal(got, want) {
			t.Fatalf("InternText(%q, %q) = %v, reference %v", texts[i], texts[i+1], got, want)
		}
		if i%512 == 0 {
			// ID interleaved with InternText.
			toks := Tokens(texts[i])
			if len(toks) > 0 && d.ID(toks[0]) != ref.id(toks[0]) {
				t.Fatalf("ID(%q) differs", toks[0])
			}
			for _, w := range []string{strings.Repeat(fmt.Sprint(i), 9), ""} {
				if d.ID(w) != ref.id(w) {
					t.Fatalf("ID(%q) differs", w)
				}
			}
		}
	}
	checkDict(t, d, ref, probes)
	for _, p := range probes {
		known, distinct := d.LookupText(p)
		var want []uint32
		for _, tok := range Tokens(p) {
			if id, ok := ref.ids[tok]; ok {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		if !slices.Equal(known, want) || distinct != len(Tokens(p)) {
			t.Fatalf("LookupText(%q) = %v, %d; reference %v, %d", p, known, distinct, want, len(Tokens(p)))
		}
	}
}

// FuzzDict interns the tokens of a text and arbitrary strings (any bytes,
// as ID accepts them) and compares every id, word and lookup with the
// reference.
func FuzzDict(f *testing.F) {
	for _, s := range [][3]string{
		{"", "", ""},
		{"Cache cache CACHES", "0123456789abcdef0123456789abcdefg", "a\x00"},
		{"0123456789abcdef 0123456789abcdefg 0123456789abcdeg", "\x00\x00", "0123456789abcdef\x00"},
		{"\u212Aelvin \u0130stanbul x.y.z *", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, text, x, y string) {
		d, ref := NewDict(), newRefDict()
		for _, w := range []string{x, y, x + y, y + x, strings.Repeat(x, 3)} {
			if got, want := d.ID(w), ref.id(w); got != want {
				t.Fatalf("ID(%q) = %d, reference %d", w, got, want)
			}
		}
		for _, texts := range [][]string{{text}, {x, text}, {text, text, y}, {}} {
			if got, want := d.InternText(texts...), ref.internText(texts...); !slices.Equal(got, want) {
				t.Fatalf("InternText(%q) = %v, reference %v", texts, got, want)
			}
		}
		checkDict(t, d, ref, append(Tokens(text+x+y), x+"\x00", y[:len(y)/2], text))
	})
}
