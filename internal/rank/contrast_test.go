package rank

import (
	"slices"
	"testing"
)

func TestSplitContrast(t *testing.T) {
	for _, c := range []struct{ query, asked, excluded string }{
		{"command for the integration tests, not the unit ones", "command for the integration tests, ", "not the unit ones "},
		{"a build for testers (not the store)", "a build for testers ()", "not the store "},
		{"run the tests - not the e2e ones. Thanks", "run the tests - . Thanks", "not the e2e ones "},
		{"edit the config; NOT the go.mod file!", "edit the config; !", "NOT the go.mod file "},
		{"build it — not jvm, then test", "build it — , then test", "not jvm "},
		// Not a contrast: "not" inside a clause, or part of a word.
		{"ReferenceError: require is not defined", "ReferenceError: require is not defined", ""},
		{"file not found, cannot open note", "file not found, cannot open note", ""},
		{"tests fail,not_found error", "tests fail,not_found error", ""},
		{"not the unit tests", "not the unit tests", ""},
	} {
		asked, excluded := splitContrast(c.query)
		if asked != c.asked || excluded != c.excluded {
			t.Errorf("splitContrast(%q) = %q, %q; want %q, %q", c.query, asked, excluded, c.asked, c.excluded)
		}
	}
}

func TestSearchTerms(t *testing.T) {
	for _, c := range []struct {
		query     string
		asked, no []string
	}{
		{"run the integration tests, not the unit tests", []string{"run", "integration", "test"}, []string{"unit"}},
		{"build for the board (not the dev kit)", []string{"build", "board"}, []string{"dev", "kit"}},
		{"not the unit tests", []string{"unit", "test"}, nil},
		{", not the unit tests", []string{"unit", "test"}, nil},
	} {
		var asked, no []string
		for _, q := range SearchTerms(c.query) {
			if q.Not {
				no = append(no, q.Term)
			} else {
				asked = append(asked, q.Term)
			}
		}
		if !slices.Equal(asked, c.asked) || !slices.Equal(no, c.no) {
			t.Errorf("SearchTerms(%q): asked %q, not %q; want %q, %q", c.query, asked, no, c.asked, c.no)
		}
	}
}

// FuzzSearchTerms: a query's search terms are its terms, each once, the
// excluded ones after the others; a query without a contrast is read
// whole.
func FuzzSearchTerms(f *testing.F) {
	for _, s := range []string{"run the integration tests, not the unit ones", "x (not y) z, not w.v", "a - not b", "not", ",not ", "go.mod, not go.sum."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		all := QueryTerms(query)
		got := SearchTerms(query)
		seen := map[string]bool{}
		excluded := false
		for _, q := range got {
			if seen[q.Term] {
				t.Fatalf("%q: term %q twice", query, q.Term)
			}
			seen[q.Term] = true
			if !slices.ContainsFunc(all, func(a QueryTerm) bool { return a.Term == q.Term }) {
				t.Fatalf("%q: term %q is not one of the query's %v", query, q.Term, all)
			}
			if excluded && !q.Not {
				t.Fatalf("%q: an asked term after an excluded one: %v", query, got)
			}
			excluded = excluded || q.Not
		}
		if _, x := splitContrast(query); x == "" && len(got) != len(all) {
			t.Fatalf("%q: no contrast, but %d search terms of %d", query, len(got), len(all))
		}
	})
}

// A contrast clause ranks the lesson it names below its sibling, and a
// lesson holding only excluded terms is not listed.
func TestContrastRanksSiblingDown(t *testing.T) {
	x := NewBM25F()
	unit := x.Add("How do I run the unit tests?", "go test -short ./...")
	integ := x.Add("How do I run the integration tests?", "make integration; it starts Postgres in Docker.")
	x.Add("Where do the Docker images live?", "ghcr.io/acme/shop")
	x.Add("Which Go version?", "1.22")
	hits := x.Search("command for the unit tests")
	if len(hits) == 0 || hits[0].Doc != unit {
		t.Fatalf("without contrast: %+v, want doc %d first", hits, unit)
	}
	hits = x.Search("command for the integration tests, not the unit ones")
	if len(hits) == 0 || hits[0].Doc != integ {
		t.Fatalf("with contrast: %+v, want doc %d first", hits, integ)
	}
	for _, h := range x.Search("the tests, not the docker images") {
		if h.Coverage == 0 || h.Doc == 2 {
			t.Errorf("listed %+v, which holds no term asked about", h)
		}
	}
}
