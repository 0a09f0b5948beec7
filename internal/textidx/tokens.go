package textidx

import "unicode/utf8"

// Tokens returns the darwin-memo token set of s, in order of first
// occurrence.
//
// It follows retrieval.py exactly: the text is lower-cased as Python's
// str.lower does, maximal runs of [a-z0-9.*] are extracted (every other
// character separates tokens, including -, _, / and the apostrophe), the 52
// stopwords are dropped, and a token longer than 3 characters that ends in
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
		out  []string
		seen map[string]struct{} // only for long token lists
		buf  []byte              // token under construction when it is not a substring of s
		used bool                // buf holds the current token
	)
	start := -1 // start of the current token in s when !used
	emit := func(tok string) {
		if tok == "" || isStopword(tok) {
			return
		}
		tok = stem(tok)
		if seen != nil {
			if _, dup := seen[tok]; dup {
				return
			}
			seen[tok] = struct{}{}
			out = append(out, tok)
			return
		}
		for _, t := range out {
			if t == tok {
				return
			}
		}
		out = append(out, tok)
		if len(out) == 16 {
			seen = make(map[string]struct{}, 64)
			for _, t := range out {
				seen[t] = struct{}{}
			}
		}
	}
	// end finishes the current token, which ends just before byte i.
	end := func(i int) {
		switch {
		case used:
			emit(string(buf))
			buf = buf[:0]
			used = false
		case start >= 0:
			emit(s[start:i])
		}
		start = -1
	}
	// switchToBuf copies the substring token so far into buf.
	switchToBuf := func(i int) {
		if !used {
			buf = buf[:0]
			if start >= 0 {
				buf = append(buf, s[start:i]...)
			}
			used = true
			start = -1
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '.', c == '*':
				if used {
					buf = append(buf, c)
				} else if start < 0 {
					start = i
				}
			case 'A' <= c && c <= 'Z':
				switchToBuf(i)
				buf = append(buf, c+'a'-'A')
			default:
				end(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\u212A': // KELVIN SIGN: Python lower() gives ASCII "k".
			switchToBuf(i)
			buf = append(buf, 'k')
		case '\u0130': // Python lower() gives "i" + U+0307; the combining dot separates.
			switchToBuf(i)
			buf = append(buf, 'i')
			end(i)
		default:
			end(i)
		}
		i += size
	}
	end(len(s))
	return out
}

// stem applies darwin-memo's light plural stemming to an ASCII token.
func stem(t string) string {
	if n := len(t); n > 3 && t[n-1] == 's' && t[n-2] != 's' {
		return t[:n-1]
	}
	return t
}

// isStopword reports whether t is one of darwin-memo's 52 stopwords.
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
	if len(a) > len(b) {
		a, b = b, a
	}
	var inter, na, nb int
	if len(a)*len(b) <= 256 {
		na = countDistinct(a)
		nb = countDistinct(b)
		for i, x := range a {
			if indexOf(a[:i], x) >= 0 {
				continue
			}
			if indexOf(b, x) >= 0 {
				inter++
			}
		}
	} else {
		sa := make(map[string]struct{}, len(a))
		for _, x := range a {
			sa[x] = struct{}{}
		}
		na = len(sa)
		sb := make(map[string]struct{}, len(b))
		for _, x := range b {
			if _, dup := sb[x]; dup {
				continue
			}
			sb[x] = struct{}{}
			if _, ok := sa[x]; ok {
				inter++
			}
		}
		nb = len(sb)
	}
	return float64(inter) / float64(na+nb-inter)
}

func indexOf(s []string, x string) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

func countDistinct(s []string) int {
	n := 0
	for i, x := range s {
		if indexOf(s[:i], x) < 0 {
			n++
		}
	}
	return n
}
