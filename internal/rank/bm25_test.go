package rank

import (
	"fmt"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// SearchOnce gives Search's results to the bit, on generated lessons with
// some removed from the index (and left out of SearchOnce's documents).
func TestSearchOnceMatchesIndex(t *testing.T) {
	ls := textgen.Lessons(7, 3000)
	x := NewBM25F()
	var kept []textgen.Lesson
	var docs []int // kept lesson -> index document
	for i, l := range ls {
		d := x.Add(l.Question, l.Answer)
		if i%7 == 3 {
			x.Remove(d)
			continue
		}
		kept = append(kept, l)
		docs = append(docs, d)
	}
	queries := []string{"how do I fix the flaky retry tests", "", "the of and", "Falcon 4521 v3 retry", ls[10].Question, ls[2999].Question + " " + ls[5].Answer,
		misspell(ls[20].Question), misspell(ls[40].Answer) + " " + misspell(ls[41].Question),
		ls[30].Question + ", not " + ls[31].Question, "(not " + ls[32].Answer + ")"}
	for _, q := range queries {
		want := x.Search(q)
		for _, workers := range exhaustive.Or([]int{1, 2}, []int{1, 2, 4}) { // 3,000 lessons take two workers at most
			got := SearchOnce(q, len(kept), func(i int) (string, string) { return kept[i].Question, kept[i].Answer }, workers)
			if len(got) != len(want) {
				t.Fatalf("%q, %d workers: %d hits, want %d", q, workers, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if docs[g.Doc] != w.Doc || g.Score != w.Score || g.Coverage != w.Coverage {
					t.Fatalf("%q, %d workers, hit %d: %+v (doc %d), want %+v", q, workers, i, g, docs[g.Doc], w)
				}
			}
		}
	}
}

// The question is weighted above the answer, and a whole identifier
// prefers its own lesson over a longer sibling's.
func TestBM25FRanksQuestionAndIdentifiers(t *testing.T) {
	x := NewBM25F()
	x.Add("Where does the feature-profile-edit page live?", "apps/web/features/feature-profile-edit")
	x.Add("Where does the feature-profile page live?", "apps/web/features/feature-profile")
	x.Add("How do I deploy?", "Run make deploy; it also rebuilds the profile page.")
	for q, want := range map[string]int{
		"feature-profile page":      1,
		"feature-profile-edit page": 0,
		"deploy the profile":        2,
	} {
		hits := x.Search(q)
		if len(hits) == 0 || hits[0].Doc != want {
			t.Errorf("%q: %s, want doc %d first", q, fmt.Sprint(hits), want)
		}
	}
	if hits := x.Search("kotlin version"); len(hits) != 0 {
		t.Errorf("no shared term, yet %v", hits)
	}
}

// misspell swaps the third and fourth letters of every word of s of six
// letters or more, and drops the last letter of every fifth word.
func misspell(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if len(w) >= 6 {
			b := []byte(w)
			b[2], b[3] = b[3], b[2]
			w = string(b)
		}
		if i%5 == 4 && len(w) > 5 {
			w = w[:len(w)-1]
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}
