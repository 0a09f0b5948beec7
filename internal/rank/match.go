package rank

import "math/bits"

// A Matcher reports which of a few tokens a text holds, tokenising exactly
// as [Tokens] does but without interning, hashing or allocating: a query
// asked once can rank a whole store by matching its tokens against every
// document, instead of building an [Index] over every token.
//
// A Matcher is read-only once made and may be used concurrently.
type Matcher struct {
	toks []string
	// byFirst holds, by a token's first byte, the bits of the tokens
	// starting with it.
	byFirst [256]uint64
}

// MaxMatch is the number of distinct tokens a Matcher can look for.
const MaxMatch = 64

// NewMatcher returns a matcher for at most [MaxMatch] tokens (as from
// [Tokens]: distinct, non-empty), bit i of a match standing for tokens[i].
func NewMatcher(tokens []string) *Matcher {
	m := &Matcher{toks: tokens}
	for i, t := range tokens {
		m.byFirst[t[0]] |= 1 << i
	}
	return m
}

// Match returns the set of the matcher's tokens that the texts, joined by
// single spaces, hold: bit i set when tokens[i] is among the text's
// [Tokens]. (A space separates tokens, so the joined text's tokens are
// those of each text in turn.) A token whose first byte starts none of the
// matcher's tokens still to find is passed over before the stopword test
// and stemming, which keep a token's first byte.
func (m *Matcher) Match(texts ...string) uint64 {
	var (
		sc    scanner
		found uint64
	)
	for _, s := range texts {
		sc = scanner{s: s, buf: sc.buf}
		for {
			tok, _, ok := sc.raw()
			if !ok {
				break
			}
			if m.byFirst[tok[0]]&^found == 0 || isStopword(tok) {
				continue
			}
			found |= m.find(stem(tok), found)
		}
	}
	return found
}

// find returns the bit of tok if it is one of the matcher's tokens and not
// in found, else 0.
func (m *Matcher) find(tok string, found uint64) uint64 {
	for c := m.byFirst[tok[0]] &^ found; c != 0; c &= c - 1 {
		i := bits.TrailingZeros64(c)
		if m.toks[i] == tok {
			return 1 << i
		}
	}
	return 0
}
