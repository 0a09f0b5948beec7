package rank

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A query may name what it does not ask about: "command for the
// integration tests, not the unit ones", "build for our hardware (not the
// dev kit)". The words of such a contrast clause, the word "not" opening a
// clause (after a comma, a semicolon, an opening parenthesis or a dash) up
// to the clause's end, are the query's excluded terms: a lesson holding
// one loses what the term would have added to its score (the "must not"
// of a Boolean query, softened to a penalty), and they count for nothing
// in its coverage. Only that construction is read: a "not" inside a
// clause ("require is not defined", "file not found") is part of what is
// asked, as error messages are.

// contrastOpeners open a clause that a following "not" turns into a
// contrast.
const contrastOpeners = ",;(—–"

// clauseEnd returns the length of the clause s opens: up to a comma,
// semicolon, closing parenthesis, question or exclamation mark, line
// break, or a full stop ending a sentence (not the dot of "go.mod").
func clauseEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', ';', ')', '?', '!', '\n':
			return i
		case '.':
			if i+1 == len(s) || s[i+1] == ' ' {
				return i
			}
		}
	}
	return len(s)
}

// splitContrast returns the query without its contrast clauses and the
// text of those clauses ("" when it has none).
func splitContrast(query string) (asked, excluded string) {
	var a, x strings.Builder
	rest := query
	for {
		i := contrastAt(rest)
		if i < 0 {
			a.WriteString(rest)
			break
		}
		a.WriteString(rest[:i])
		clause := rest[i:]
		end := clauseEnd(clause)
		x.WriteString(clause[:end])
		x.WriteByte(' ')
		rest = clause[end:]
	}
	return a.String(), x.String()
}

// contrastAt returns the byte offset of the first "not" in s that opens a
// contrast clause, or -1: the word "not" followed by a space, after an
// opener and optional spaces (" - " counts as a dash).
func contrastAt(s string) int {
	for i := 0; i+len("not ") <= len(s); i++ {
		if !strings.EqualFold(s[i:i+3], "not") || s[i+3] != ' ' || i > 0 && isWordByte(s[i-1]) {
			continue
		}
		before := strings.TrimRight(s[:i], " ")
		r, _ := utf8.DecodeLastRuneInString(before)
		if strings.ContainsRune(contrastOpeners, r) || r == '-' && strings.HasSuffix(before, " -") {
			return i
		}
	}
	return -1
}

// SearchTerms returns the terms a search scores for query: QueryTerms of
// the query without its contrast clauses, then those of the clauses that
// the rest does not hold, marked Not. A query that is all contrast ("not
// the unit tests") is read whole.
func SearchTerms(query string) []QueryTerm {
	asked, excluded := splitContrast(query)
	if excluded == "" {
		return QueryTerms(query)
	}
	q := QueryTerms(asked)
	if len(q) == 0 {
		return QueryTerms(query)
	}
	for _, t := range QueryTerms(excluded) {
		if !slices.ContainsFunc(q, func(a QueryTerm) bool { return a.Term == t.Term }) {
			t.Not = true
			q = append(q, t)
		}
	}
	return q
}
