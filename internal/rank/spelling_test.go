package rank

import (
	"slices"
	"testing"
)

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"enviroment", "environment", true}, // deletion
		{"integraton", "integration", true},
		{"reprot", "report", true}, // swap of neighbours
		{"sytem", "system", true},
		{"genrat", "generat", true},
		{"report", "report", false}, // the same
		{"report", "repair", false}, // two substitutions
		{"report", "rpoert", false}, // two changes
		{"local", "locally", false}, // two insertions
		{"deploy", "deplot", true},  // substitution
		{"ab", "ba", true},
		{"", "a", true},
	} {
		if got := oneEdit(c.a, c.b); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := oneEdit(c.b, c.a); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

// A misspelt word is read as the store's word one edit from it; English
// words, names, versions and words whose first two letters differ are
// not; both ways of searching agree.
func TestSpellingCorrection(t *testing.T) {
	docs := [][2]string{
		{"How do I set up the development environment?", "Run make setup."},
		{"How do I run the integration tests?", "Run make integration; it needs docker."},
		{"Where does web_1 log?", "To /var/log/web_1."},
		{"Which schema does the API use?", "openapi.yaml, version 3.19.0."},
		{"How do I lock the dependency versions?", "Commit go.sum."},
	}
	x := NewBM25F()
	for _, d := range docs {
		x.Add(d[0], d[1])
	}
	for _, c := range []struct {
		query string
		want  []string // the query's terms, corrected
	}{
		{"the dev enviroment", []string{"dev", "environment"}},
		{"integraton tests", []string{"integration", "test"}},
		{"dependancy", []string{"dependenc"}},
		{"web_2 logs", []string{"web_2", "web", "2", "log"}},              // a name: not corrected
		{"changed in 3.19.6", []string{"chang", "3.19.6"}},                // a version
		{"which scheme", []string{"schem"}},                               // an English word
		{"vresion", []string{"vresion"}},                                  // the first two letters differ
		{"dockar", []string{"dockar"}},                                    // too short to read as docker
		{"integration integraton", []string{"integration", "integraton"}}, // spelt right too
	} {
		q := QueryTerms(c.query)
		x.correctSpelling(q)
		var terms []string
		for _, t := range q {
			terms = append(terms, t.Term)
		}
		if !slices.Equal(terms, c.want) {
			t.Errorf("%q: terms %q, want %q", c.query, terms, c.want)
		}
		got := x.Search(c.query)
		once := SearchOnce(c.query, len(docs), func(i int) (string, string) { return docs[i][0], docs[i][1] }, 1)
		if !slices.Equal(once, got) {
			t.Errorf("%q: SearchOnce %v, Search %v", c.query, once, got)
		}
	}
	if hits := x.Search("how do I setup the dev enviroment"); len(hits) == 0 || hits[0].Doc != 0 {
		t.Errorf("the misspelt question does not find its lesson first: %v", hits)
	}
}
