package lessons

import (
	"slices"
	"strings"
	"unicode"

	"github.com/darwin-memo/darwin-memo-action/internal/lexrank"
)

// camelNames returns the capitalised camel-case words of a short query
// ("DirectX", "PgBouncer", "TestLeaderElection"): names, whose parts
// ("direct") other lessons may hold while none is about the thing. A
// query of more than lexrank.BlockTerms distinct terms (a task
// description) has none, as in v2's blocking.
func camelNames(query string) []string {
	var out []string
	for _, w := range strings.Fields(query) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		rs := []rune(w)
		if len(rs) < 3 || !unicode.IsUpper(rs[0]) || strings.ContainsAny(w, "-_/.") {
			continue
		}
		camel, lowerSeen := false, false
		for _, r := range rs[1:] {
			if unicode.IsLower(r) {
				lowerSeen = true
			} else if unicode.IsUpper(r) && lowerSeen {
				camel = true
			}
		}
		if camel {
			out = append(out, strings.ToLower(w))
		}
	}
	if out == nil {
		return nil
	}
	distinct := map[string]bool{}
	for _, t := range lexrank.Terms(query) {
		distinct[t.Stem] = true
	}
	if len(distinct) > lexrank.BlockTerms {
		return nil
	}
	return out
}

// unknownName reports whether the short query names a capitalised
// camel-case thing that no candidate lesson writes (v3): like an unknown
// capitalised word in v2 (docs/retrieval.md, step 3), it silences the
// query; its parts alone ("direct" of "DirectX") name nothing.
func (li *lexIndex) unknownName(query string, raw []lexrank.Hit) bool {
	for _, n := range camelNames(query) {
		// A name whose split keeps every letter ("PostgreSQL": postgre,
		// sql) is known when a candidate holds all its parts, however it
		// spells it; one whose split drops a fragment ("DirectX": direct)
		// must be written out.
		parts := lexrank.Terms(n)
		whole := ""
		for _, t := range parts {
			whole += t.Raw
		}
		found := false
		for _, h := range raw {
			e := li.docs[h.Doc]
			if e == nil {
				continue
			}
			if whole == n && len(parts) > 1 {
				all := lexrank.Stems(e.Question + "\n" + e.Answer)
				found = !slices.ContainsFunc(parts, func(t lexrank.Term) bool { return !slices.Contains(all, t.Stem) })
			} else {
				found = containsFold(e.Question, n) || containsFold(e.Answer, n)
			}
			if found {
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds the lower-case word w, ignoring
// case.
func containsFold(s, w string) bool {
	return strings.Contains(strings.ToLower(s), w)
}

// heading reports whether e's question is a heading (not a statement
// filed as its own question, nor a note under a generic one): only
// headings form families of sibling questions that differ in one slot.
func (li *lexIndex) heading(e *Entry, memo stemMemo) bool {
	return !li.generic(e.Question) && !statementLike(memo.of(e.Question), memo.of(e.Answer))
}
