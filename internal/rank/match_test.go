package rank

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// matchWant is Matcher.Match by definition: the query tokens among the
// Tokens of the joined texts.
func matchWant(query []string, texts ...string) uint64 {
	toks := Tokens(strings.Join(texts, " "))
	var m uint64
	for i, q := range query {
		if slices.Contains(toks, q) {
			m |= 1 << i
		}
	}
	return m
}

func TestMatcherMatchesTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "B", "s", "ss", "1", ".", "*", " ", "_", "-", "\u212A", "\u0130", "é", "\xff", "the", "ands", "cache", "CACHES"}
	randText := func() string {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	lessons := textgen.Lessons(11, 400)
	for i := range 3000 {
		var q, a string
		if i < len(lessons) {
			q, a = lessons[i].Question, lessons[i].Answer
		} else {
			q, a = randText(), randText()
		}
		// Query tokens: some from the text, some from another text, some random.
		other := lessons[r.IntN(len(lessons))]
		pool := slices.Concat(Tokens(q+" "+a), Tokens(other.Question), Tokens(randText()))
		var query []string
		for _, tok := range pool {
			if r.IntN(3) == 0 && !slices.Contains(query, tok) && len(query) < MaxMatch {
				query = append(query, tok)
			}
		}
		m := NewMatcher(query)
		if got, want := m.Match(q, a), matchWant(query, q, a); got != want {
			t.Fatalf("Match(%q, %q) for %q = %b, want %b", q, a, query, got, want)
		}
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add("Does the files' cache-miss.log exist?", "cache file", "miss.log exists")
	f.Add("\u212Aelvin \u0130stanbul", "kelvin i", "stanbul")
	f.Fuzz(func(t *testing.T, text, text2, query string) {
		q := Tokens(query)
		if len(q) > MaxMatch {
			q = q[:MaxMatch]
		}
		m := NewMatcher(q)
		if got, want := m.Match(text, text2), matchWant(q, text, text2); got != want {
			t.Fatalf("Match = %b, want %b", got, want)
		}
	})
}
