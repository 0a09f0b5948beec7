package rank

import (
	"slices"
	"strings"
	"unicode"
)

// Answer-type checking, as question-answering systems do it (Harabagiu et
// al., FALCON, 2000; Li and Roth's question classes, 2002): a question
// whose expected answer is a number is answered only by a text holding
// one. A store's lessons name the things a repository has ("the mailers
// queue", "the jasmine unit tests"), and a query asking for a quantity of
// one of them ("what concurrency does the mailers queue run with", "which
// jasmine version runs the unit tests") matches that lesson's words fully
// while the lesson may not state the quantity at all. The confidence model
// reads, as one more feature, whether the query asks for a quantity and
// the lesson's answer holds no digit (ConfidenceModel.Unstated).

// quantityWords are the head nouns that make a "what" or "which"
// question ask for a quantity: the numbers a repository's notes state (a
// version, a port, a timeout, a size, a limit, a count), compared by their
// stems. Elsewhere they ask nothing ("fix the flaky timeout", "port the
// module").
var quantityWords = []string{"version", "port", "timeout", "size", "limit", "count", "number"}

// headWindow is how far after "what" or "which" a quantity word may stand
// and still head its phrase ("which jasmine version", "what port does the
// local server listen on").
const headWindow = 4

// quantityPairs are the question openings of Li and Roth's numeric class:
// how many, how much, how long, how often, how far, what time.
var quantityPairs = [][2]string{{"how", "many"}, {"how", "much"}, {"how", "long"}, {"how", "often"}, {"how", "far"}, {"what", "time"}}

// AsksQuantity reports whether a query asks for a quantity: it holds one
// of Li and Roth's numeric openings, or a "what" or "which" followed within
// headWindow words by a word naming a number a repository keeps (the head
// word of the question, as question classifiers read it).
func AsksQuantity(query string) bool {
	ws := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) })
	wh := -headWindow - 1 // where the last "what" or "which" stands
	for i, w := range ws {
		if w == "what" || w == "which" {
			wh = i
		}
		if i-wh <= headWindow && slices.Contains(quantityWords, Stem(w)) {
			return true
		}
		if i+1 < len(ws) && slices.Contains(quantityPairs, [2]string{w, ws[i+1]}) {
			return true
		}
	}
	return false
}

// UnstatedQuantity reports whether a query asks for a quantity
// (AsksQuantity) that an answer cannot state: it holds no digit.
func UnstatedQuantity(query, answer string) bool {
	return AsksQuantity(query) && !holdsDigit(answer)
}

// holdsDigit reports whether a text can state a quantity: it holds an
// ASCII digit.
func holdsDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
