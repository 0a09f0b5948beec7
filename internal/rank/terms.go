package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terms returns the BM25F terms of s in text order, repeats included: the
// tokeniser of this project's ranking (darwin-memo's is [Tokens]).
//
// Text is split into words at every character other than a letter, a
// digit, or one of _ - / . between two alphanumerics ("feature-profile-edit",
// "pkg/auth", "go.mod", "USE_FAKE_S3"). A word is split again into
// identifier parts at those joiners and at camelCase changes ("useFakeS3"
// gives use, fake, s3; "HTTPServer" gives http, server). Each part is
// lower-cased, dropped when it is a stopword or a lone letter, and stemmed
// by [Stem]. A word of several parts also yields itself whole, its
// lower-cased parts joined by "_" (feature_profile_edit, use_fake_s3), so
// that a query naming the whole identifier prefers the lesson naming it
// over one naming a longer or shorter sibling.
func Terms(s string) []string {
	var out []string
	var tk termScanner
	tk.each(s, nil, func(t, _ string) { out = append(out, t) })
	return out
}

// QueryTerm is one distinct term of a query, with the lower-cased word it
// came from (its background rarity is the word's).
type QueryTerm struct {
	Term string
	Word string
	// Not marks a term of a contrast clause (SearchTerms): a lesson
	// holding it is ranked down, not up.
	Not bool
}

// QueryTerms returns the distinct terms of a query in first-occurrence
// order, each with its surface word.
func QueryTerms(s string) []QueryTerm {
	var out []QueryTerm
	var tk termScanner
	tk.each(s, nil, func(t, w string) {
		for _, q := range out {
			if q.Term == t {
				return
			}
		}
		out = append(out, QueryTerm{Term: t, Word: w})
	})
	return out
}

// termScanner yields the terms of texts, reusing its buffers.
type termScanner struct {
	parts []string
}

// A prefixSet holds the first two bytes of a few terms (a one-byte term's
// byte and 0).
type prefixSet [1 << 16 / 64]uint64

// prefixOf returns the first two bytes of t with ASCII capitals
// lower-cased: those of strings.ToLower(t) when t is ASCII or lower-cased.
func prefixOf(t string) uint16 {
	if len(t) < 2 {
		return uint16(lowerByte(t[0])) << 8
	}
	return uint16(lowerByte(t[0]))<<8 | uint16(lowerByte(t[1]))
}

func lowerByte(c byte) byte {
	if c-'A' < 26 {
		return c + 'a' - 'A'
	}
	return c
}

func (p *prefixSet) add(t string) { k := prefixOf(t); p[k/64] |= 1 << (k % 64) }

func (p *prefixSet) has(k uint16) bool { return p[k/64]&(1<<(k%64)) != 0 }

// each calls fn for every term of s with the lower-cased word part it
// came from (a whole identifier's term comes with itself), and returns
// the number of terms. When only is not nil, fn is called only for the
// terms whose first two bytes are in it, and the others are neither
// lower-cased, joined nor stemmed ([Stem] keeps a term's first two bytes).
func (tk *termScanner) each(s string, only *prefixSet, fn func(term, word string)) int {
	n := 0
	for i := 0; ; {
		word, plain, next := nextWord(s, i)
		if word == "" {
			return n
		}
		i = next
		if plain {
			n += part(word, true, only, fn)
			continue
		}
		tk.parts = splitIdent(word, tk.parts[:0])
		if len(tk.parts) > 1 {
			n++
			if only == nil || only.has(joinedPrefix(tk.parts)) {
				j := strings.ToLower(strings.Join(tk.parts, "_"))
				fn(j, j)
			}
		}
		for _, p := range tk.parts {
			n += part(p, false, only, fn)
		}
	}
}

// part calls fn for the term of one identifier part (lower-cased, or
// ASCII with capitals; plain when the caller knows it is), as each does,
// and returns 1, or 0 when the part yields no term.
func part(p string, plain bool, only *prefixSet, fn func(term, word string)) int {
	if len(p) < 2 && !(len(p) == 1 && p[0] >= '0' && p[0] <= '9') || plain && isTermStopword(p) || !plain && isStopPart(p) {
		return 0
	}
	if only == nil || only.has(prefixOf(p)) {
		p = strings.ToLower(p)
		fn(Stem(p), p)
	}
	return 1
}

// isStopPart is isTermStopword of strings.ToLower(p) for a part p as part
// takes it, without allocating.
func isStopPart(p string) bool {
	if len(p) > maxStopword {
		return false
	}
	var low [maxStopword]byte
	for i := range len(p) {
		low[i] = lowerByte(p[i])
	}
	return isTermStopword(string(low[:len(p)]))
}

// maxStopword is the length of the longest stopword.
const maxStopword = 7

// joinedPrefix is prefixOf the parts joined by "_".
func joinedPrefix(parts []string) uint16 {
	if len(parts[0]) < 2 {
		return uint16(lowerByte(parts[0][0]))<<8 | '_'
	}
	return prefixOf(parts[0])
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isWordByte(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isWordByte is isWordRune of an ASCII byte.
func isWordByte(c byte) bool { return isPlainByte(c) || c-'A' < 26 }

// isPlainByte reports whether c is a lower-case ASCII letter or a digit.
func isPlainByte(c byte) bool { return c-'a' < 26 || c-'0' < 10 }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isPlain reports whether s holds lower-case ASCII letters and digits
// only: a segment that is one part as it is.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isPlainByte(s[i]) {
			return false
		}
	}
	return true
}

func isJoiner(r rune) bool { return r == '_' || r == '-' || r == '/' || r == '.' }

// nextWord returns the first word of s[i:] (see Terms), whether it is
// plain ([isPlain]), and where the next one may start; "" when there is
// none. A contraction or possessive keeps its stem only ("what's",
// "don't").
func nextWord(s string, i int) (word string, plain bool, next int) {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !isWordByte(c) {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); !isWordRune(r) {
			i += size
			continue
		}
		j := i
		plain = true
		for {
			for j < len(s) && isPlainByte(s[j]) {
				j++
			}
			if j == len(s) {
				break
			}
			c := s[j]
			r, size := rune(c), 1
			if c >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[j:])
			}
			if c < utf8.RuneSelf && isWordByte(c) || c >= utf8.RuneSelf && isWordRune(r) {
				j, plain = j+size, false
				continue
			}
			if isJoiner(r) && j+size < len(s) {
				if n, _ := utf8.DecodeRuneInString(s[j+size:]); isWordRune(n) {
					j, plain = j+size, false
					continue
				}
			}
			break
		}
		// Skip the ending of a contraction or possessive.
		next = j
		if j < len(s) && (s[j] == '\'' || s[j] >= utf8.RuneSelf) {
			if r, size := utf8.DecodeRuneInString(s[j:]); (r == '\'' || r == '\u2019') && j+size < len(s) {
				k := j + size
				for k < len(s) {
					r, sz := utf8.DecodeRuneInString(s[k:])
					if !isWordRune(r) {
						break
					}
					k += sz
				}
				if k-(j+size) <= 2 {
					next = k
				}
			}
		}
		return s[i:j], plain, next
	}
	return "", false, len(s)
}

// splitIdent appends to buf the identifier parts of word: split at the
// joiners _ - / . and at camelCase changes, a lower-case letter or a digit
// followed by a capital, and before the last capital of a run followed by
// a lower-case letter ("HTTPServer"). Dotted words with a digit
// (versions: "v1.21", "1.22.3") stay whole. A part with a character
// outside ASCII is lower-cased; an ASCII one may keep its capitals.
func splitIdent(word string, buf []string) []string {
	if strings.IndexByte(word, '.') >= 0 && strings.ContainsAny(word, "0123456789") && !strings.ContainsAny(word, "_-/") {
		return append(buf, strings.ToLower(word))
	}
	seg := 0
	for seg < len(word) {
		end := seg
		for end < len(word) && !isJoiner(rune(word[end])) {
			end++
		}
		buf = splitCase(word[seg:end], buf)
		seg = end + 1
	}
	return buf
}

// splitCase appends the camelCase parts of seg to buf, lower-cased unless
// seg is ASCII.
func splitCase(seg string, buf []string) []string {
	if seg == "" {
		return buf
	}
	if isPlain(seg) {
		return append(buf, seg)
	}
	lower := strings.ToLower
	if isASCII(seg) {
		lower = func(s string) string { return s }
	}
	start := 0
	var prev rune
	for pos, r := range seg {
		if pos > start {
			split := false
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				split = true
			case unicode.IsUpper(r) && unicode.IsUpper(prev):
				if n, _ := utf8.DecodeRuneInString(seg[pos+utf8.RuneLen(r):]); pos+utf8.RuneLen(r) < len(seg) && unicode.IsLower(n) {
					split = true
				}
			}
			if split {
				buf = append(buf, lower(seg[start:pos]))
				start = pos
			}
		}
		prev = r
	}
	return append(buf, lower(seg[start:]))
}

// Stem is a light English suffix stripper (an S-stemmer extended to -ing
// and -ed): plurals and third persons ("flakes", "queries", "passes"),
// "-ing" and "-ed" forms, a final "y" after a consonant and a final "e", so
// that flaky/flakes/flaking/flaked, deprecate/deprecated and
// release/released/releases meet. Words of three characters or fewer, and
// words with a digit or a dot, are left alone.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; '0' <= c && c <= '9' || c == '.' {
			return w
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ied") && len(w) >= 5:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && len(w) >= 5 && !strings.HasSuffix(w, "eed"):
		w = undouble(w[:len(w)-2])
	}
	if n := len(w); n > 4 && w[n-1] == 'y' && !isVowel(w[n-2]) {
		w = w[:n-1]
	}
	if n := len(w); n > 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

// undouble drops one of two equal final consonants ("runn" → "run"),
// except l, s and z ("install", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if c := w[n-1]; n >= 3 && c == w[n-2] && !isVowel(c) && c != 'y' && c != 'l' && c != 's' && c != 'z' {
		return w[:n-1]
	}
	return w
}

// isTermStopword reports whether w (lower-case) carries no topic: English
// function words (pronouns, auxiliaries, prepositions, question words).
func isTermStopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it",
		"of", "on", "or", "that", "the", "this", "these", "those", "to", "was", "were", "will", "with",
		"what", "which", "who", "how", "when", "where", "why", "does", "do", "under", "over", "after",
		"before", "during", "between", "within", "against", "but", "if", "then", "than", "so", "may",
		"might", "must", "should", "could", "would", "i", "me", "my", "we", "us", "our", "you", "your",
		"he", "she", "him", "her", "his", "they", "them", "their", "its", "am", "been", "being", "did",
		"doing", "done", "had", "can", "cannot", "shall", "into", "onto", "about", "there", "here",
		"any", "some", "all", "each", "every", "such", "own", "same", "other", "very", "too", "also",
		"just", "only", "again", "ever", "let", "whom", "whose", "while", "because", "until", "upon",
		"via", "per", "not", "no", "nor", "yes", "ok", "don", "doesn", "didn", "isn", "aren", "wasn",
		"weren", "won", "couldn", "shouldn", "wouldn", "haven", "hasn", "hadn", "okay", "please", "get",
		"got", "s", "t", "re", "ll", "ve", "d", "m":
		return true
	}
	return false
}
