package rank

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Tokens returns the darwin-memo token set of s, in order of first
// occurrence.
//
// It follows retrieval.py exactly: the text is lower-cased as Python's
// str.lower does, maximal runs of [a-z0-9.*] are extracted (every other
// character separates tokens, including -, _, / and the apostrophe), its
// stopwords are dropped (56 words; its documentation says 52), and a token longer than 3 characters that ends in
// "s" but not in "ss" loses its final "s". Stopwords are tested before
// stemming, as in Python, so "ands" becomes the token "and".
//
// Python lower-cases two non-ASCII characters to ASCII letters, and Tokens
// does the same: KELVIN SIGN (U+212A) becomes "k" inside a token, and
// LATIN CAPITAL LETTER I WITH DOT ABOVE (U+0130) becomes "i" followed by a
// combining dot, which ends the token. Every other non-ASCII character and
// every invalid UTF-8 byte is a separator.
//
// Tokens never returns an empty token; it returns nil when s has none.
// The returned strings may share memory with s.
func Tokens(s string) []string {
	var (
		sc   scanner
		out  []string
		seen = map[string]bool{}
	)
	texts := []string{s}
	for {
		tok, transient, ok := sc.next(texts)
		if !ok {
			return out
		}
		if seen[tok] {
			continue
		}
		if transient {
			tok = strings.Clone(tok)
		}
		seen[tok] = true
		out = append(out, tok)
	}
}

// scanner yields the tokens of a text after stopword removal and
// stemming, in text order, repeats included.
//
// It is the one tokenising loop of Tokens, InternText and LookupText
// (Matcher.Match reads raw tokens): each asks next until it reports
// false. Those that read several texts as if joined by single spaces pass
// them to every next call, and the scanner moves from one to the next (a
// space always separates tokens, so the joined text's tokens are those of
// each text in turn). The texts are an argument rather than a field so that the slice
// does not escape with the scanner's buffer.
type scanner struct {
	s    string
	i    int
	buf  []byte // token being lower-cased, when it is not a substring of s
	text int    // index in next's texts of the text after s
}

// next returns the next token of s and then of each of texts[sc.text:].
// When transient is true the token aliases the scanner's buffer and is
// only valid until the next call. A caller reading many texts in turn may
// reuse one scanner's buffer: scanner{buf: sc.buf}.
func (sc *scanner) next(texts []string) (tok string, transient, ok bool) {
	for {
		tok, transient, ok = sc.raw()
		if !ok {
			if sc.text >= len(texts) {
				return "", false, false
			}
			sc.s, sc.i = texts[sc.text], 0
			sc.text++
			continue
		}
		if !isStopword(tok) {
			return stem(tok), transient, true
		}
	}
}

// raw returns the next maximal run of token characters after Python's
// lower(), before stopword removal.
func (sc *scanner) raw() (string, bool, bool) {
	s := sc.s
	start := -1    // start of the current token in s, while it is a plain substring
	inBuf := false // the current token is in sc.buf instead
	i := sc.i
	for i < len(s) {
		c := s[i]
		end := i // where the current token ends if this character separates
		if c < utf8.RuneSelf {
			switch {
			case isTokenByte(c):
				if inBuf {
					sc.buf = append(sc.buf, c)
					i++
					continue
				}
				if start < 0 {
					start = i
				}
				for i++; i < len(s) && isTokenByte(s[i]); i++ {
				}
				continue
			case c-'A' < 26:
				if !inBuf {
					sc.buf, inBuf = tokenSoFar(sc.buf, s, start, i), true
				}
				sc.buf = append(sc.buf, c+'a'-'A')
				i++
				continue
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == '\u212A' || r == '\u0130' {
				if !inBuf {
					sc.buf, inBuf = tokenSoFar(sc.buf, s, start, i), true
				}
			}
			switch r {
			case '\u212A': // KELVIN SIGN: Python lower() gives ASCII "k".
				sc.buf = append(sc.buf, 'k')
				i += size
				continue
			case '\u0130': // Python lower() gives "i" + U+0307; the combining dot separates.
				sc.buf = append(sc.buf, 'i')
			}
			i += size
		}
		// A separator (or the dotted capital I's combining dot) ends the token.
		if inBuf {
			sc.i = i
			return unsafe.String(unsafe.SliceData(sc.buf), len(sc.buf)), true, true
		}
		if start >= 0 {
			sc.i = i
			return s[start:end], false, true
		}
	}
	sc.i = i
	if inBuf {
		return unsafe.String(unsafe.SliceData(sc.buf), len(sc.buf)), true, true
	}
	if start >= 0 {
		return s[start:], false, true
	}
	return "", false, false
}

// isTokenByte reports whether c is one of darwin-memo's token characters
// [a-z0-9.*].
func isTokenByte(c byte) bool { return c-'a' < 26 || c-'0' < 10 || c == '.' || c == '*' }

// tokenSoFar returns buf holding s[start:i], the current token up to i
// (nothing when start < 0).
func tokenSoFar(buf []byte, s string, start, i int) []byte {
	if start < 0 {
		return buf[:0]
	}
	return append(buf[:0], s[start:i]...)
}

// stem applies darwin-memo's light plural stemming to an ASCII token.
func stem(t string) string {
	if n := len(t); n > 3 && t[n-1] == 's' && t[n-2] != 's' {
		return t[:n-1]
	}
	return t
}

// isStopword reports whether t is one of darwin-memo's stopwords: the 56 words of its
// list (its documentation says 52).
func isStopword(t string) bool {
	switch t {
	case "a", "an", "and", "are", "as", "at", "be", "by", "for", "from",
		"has", "have", "in", "is", "it", "of", "on", "or", "that", "the",
		"this", "these", "those", "to", "was", "were", "will", "with", "what", "which",
		"who", "how", "when", "where", "why", "does", "do", "under", "over", "after",
		"before", "during", "between", "within", "against", "but", "if", "then", "than", "so",
		"may", "might", "must", "should", "could", "would":
		return true
	}
	return false
}

// Jaccard returns the Jaccard index |a∩b| / |a∪b| of two token sets, or 0
// if either is empty. Repeated tokens count once. The quotient is computed
// in float64 exactly as Python's len(a & b) / len(a | b).
func Jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	sa := make(map[string]bool, len(a))
	for _, x := range a {
		sa[x] = true
	}
	sb := make(map[string]bool, len(b))
	inter := 0
	for _, x := range b {
		if sb[x] {
			continue
		}
		sb[x] = true
		if sa[x] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
