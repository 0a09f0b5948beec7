// Package lexrank is the v2 lexical ranking of lessons (docs/retrieval.md):
// a tokeniser that splits identifiers and stems lightly, a BM25 index with
// the question weighted above the answer, and a background English word
// list that weighs query words no lesson contains by how rare they are in
// ordinary English.
//
// darwin-memo's own ranking (smoothed IDF with a 0.25 coverage floor) lives
// in internal/textidx and is untouched by this package. Everything here is
// deterministic: the same store and query give the same bits.
package lexrank

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/darwin-memo/darwin-memo-action/internal/leword"
)

// A Term is one query or document term.
type Term struct {
	Stem string // the indexed form: lower-cased, stemmed
	Raw  string // the lower-cased surface form before stemming
	// Cap reports a capitalised word that does not start a sentence (a
	// likely proper name: a service, a person, a product).
	Cap bool
}

// Terms returns the terms of s in text order, repeats included.
//
// Text is split into words at every character other than a letter, a
// digit or a dot between two alphanumerics ("go.mod", "1.21"). A word is
// split again into identifier parts at lower-to-upper case changes and
// before the last capital of a capital run ("WindowsShell" gives windows,
// shell; "HTTPServer" gives http, server); "_" and "-" separate already.
// One-letter fragments (a possessive "s", the "t" of "don't") and
// stopwords are dropped; the rest are stemmed by [Stem].
func Terms(s string) []Term {
	var out []Term
	each(s, func(t Term) { out = append(out, t) })
	return out
}

// each calls fn for every term of s.
func each(s string, fn func(Term)) {
	words(s, func(word string, sentenceStart bool) { emitWord(word, sentenceStart, fn) })
}

// words calls fn for every word of s (see Terms), with whether it starts a
// sentence.
func words(s string, emit func(word string, sentenceStart bool)) {
	sentenceStart := true
	i := 0
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !isWordRune(r) {
			if r == '.' || r == '?' || r == '!' || r == ':' || r == '\n' {
				sentenceStart = true
			}
			i += size
			continue
		}
		// A word: letters and digits, and dots between them.
		j := i
		for j < len(s) {
			r, size := rune(s[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[j:])
			}
			if isWordRune(r) {
				j += size
				continue
			}
			if (r == '\'' || r == '\u2019') && j > i && j+size < len(s) {
				// A contraction or possessive: keep the stem, drop the
				// ending ("what's", "don't", "HTTPServer's").
				n, _ := utf8.DecodeRuneInString(s[j+size:])
				if isWordRune(n) {
					word := s[i:j]
					k := j + size
					for k < len(s) {
						r, sz := utf8.DecodeRuneInString(s[k:])
						if !isWordRune(r) {
							break
						}
						k += sz
					}
					emit(word, sentenceStart)
					sentenceStart = false
					i = k
					goto next
				}
			}
			if r == '.' && j+1 < len(s) && j > i {
				n, _ := utf8.DecodeRuneInString(s[j+1:])
				if isWordRune(n) {
					j += size
					continue
				}
			}
			break
		}
		emit(s[i:j], sentenceStart)
		sentenceStart = false
		i = j
	next:
	}
}

// emitWord calls fn for the terms of one word.
func emitWord(word string, sentenceStart bool, fn func(Term)) {
	splitIdent(word, func(part string, upperFirst bool) {
		low := lower(part)
		if len(low) < 2 && !(len(low) == 1 && low[0] >= '0' && low[0] <= '9') {
			return
		}
		if isStopword(low) {
			return
		}
		fn(Term{Stem: Stem(low), Raw: low, Cap: upperFirst && !sentenceStart})
	})
}

// stemmer yields the stems of texts for indexing without allocating: an
// ASCII word is split, lower-cased and stemmed in a reused buffer; other
// words take the general path. It yields exactly the Stem of every Term.
type stemmer struct {
	buf []byte
	// raw, when set, caches one-part words as written: the stem's term id,
	// or -1 for none (a stopword, a one-letter word). A cached word's id
	// goes to the sink's known instead of its stem to stem.
	raw     *wordTable
	pending string // the word whose stem the sink is getting; the sink caches it
	pendH   uint32 // its hash
}

// A sink receives stems (bytes valid until the call returns) and, for
// words the stemmer's cache knows, term ids.
type sink interface {
	stem([]byte)
	known(id uint32)
}

// stems passes each stem of s to fn.
func (st *stemmer) stems(s string, fn sink) {
	// ASCII text (nearly all lessons) is split into words here, exactly as
	// words does, without a call per byte; other text goes through words.
	if !isASCII(s) {
		words(s, func(word string, _ bool) { st.word(word, hashString(word), fn) })
		return
	}
	i := 0
	for i < len(s) {
		if !asciiWord[s[i]] {
			i++
			continue
		}
		h := (fnvOffset ^ uint32(s[i])) * fnvPrime
		j := i + 1
		for j < len(s) {
			c := s[j]
			if asciiWord[c] || c == '.' && j+1 < len(s) && asciiWord[s[j+1]] {
				h = (h ^ uint32(c)) * fnvPrime
				j++
				continue
			}
			break
		}
		if j+1 < len(s) && s[j] == '\'' && asciiWord[s[j+1]] {
			// A contraction or possessive: the ending is dropped.
			st.word(s[i:j], h, fn)
			j++
			for j < len(s) && asciiWord[s[j]] {
				j++
			}
			i = j
			continue
		}
		st.word(s[i:j], h, fn)
		i = j
	}
}

// isASCII reports whether s is ASCII, testing 8 bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if leword.Uint64(s[i:])&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiWord marks the ASCII letters and digits.
var asciiWord = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return
}()

// word calls fn with the stems of one word.
func (st *stemmer) word(word string, h uint32, fn sink) {
	{
		if st.raw != nil {
			if v, ok := st.raw.get(word, h); ok {
				if v >= 0 {
					fn.known(uint32(v))
				}
				return
			}
		}
		dot, digit := false, false
		for i := 0; i < len(word); i++ {
			c := word[i]
			if c >= utf8.RuneSelf {
				emitWord(word, false, func(t Term) { fn.stem([]byte(t.Stem)) })
				return
			}
			dot = dot || c == '.'
			digit = digit || isDigitASCII(c)
		}
		if dot {
			// As splitIdent: whole with a digit, else by its parts.
			if digit {
				st.part(word, fn)
				return
			}
			for word != "" {
				part, rest, _ := strings.Cut(word, ".")
				if part != "" {
					st.word(part, hashString(part), fn)
				}
				word = rest
			}
			return
		}
		// Split points as splitIdent finds them, for ASCII.
		var cuts [8]int
		parts := cuts[:0]
		start := 0
		for pos := 1; pos < len(word); pos++ {
			c, prev := word[pos], word[pos-1]
			if !isUpperASCII(c) {
				continue
			}
			if isLowerASCII(prev) || isDigitASCII(prev) && pos-start > 1 ||
				isUpperASCII(prev) && pos+1 < len(word) && isLowerASCII(word[pos+1]) {
				parts = append(parts, pos)
				start = pos
			}
		}
		if len(parts) == 0 && st.raw != nil {
			// A one-part word: cache what it gives (a term id, or -1 for
			// none), keyed by the word as written.
			st.pending, st.pendH = word, h
			st.part(word, fn)
			if st.pending != "" {
				st.raw.put(word, h, -1)
				st.pending = ""
			}
			return
		}
		start = 0
		for _, pos := range parts {
			st.part(word[start:pos], fn)
			start = pos
		}
		st.part(word[start:], fn)
	}
}

func (st *stemmer) part(p string, fn sink) {
	if len(p) < 2 && !(len(p) == 1 && isDigitASCII(p[0])) {
		return
	}
	b := st.buf[:0]
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isUpperASCII(c) {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	st.buf = b
	if stopwords[string(b)] {
		return
	}
	fn.stem(stemBytes(b))
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitASCII(c byte) bool { return '0' <= c && c <= '9' }

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// splitIdent calls fn for the identifier parts of word.
func splitIdent(word string, fn func(part string, upperFirst bool)) {
	if strings.IndexByte(word, '.') >= 0 {
		// Dotted words with a digit (versions: "v1.21") stay whole; others
		// (file and qualified names) count by their parts: "ioutil.ReadAll"
		// gives ioutil, read, all.
		if strings.ContainsAny(word, "0123456789") {
			fn(word, false)
			return
		}
		for _, part := range strings.Split(word, ".") {
			if part != "" {
				splitIdent(part, func(p string, _ bool) { fn(p, false) })
			}
		}
		return
	}
	start := 0
	var prev rune
	pos := 0
	for pos < len(word) {
		r, size := utf8.DecodeRuneInString(word[pos:])
		if pos > start {
			split := false
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) && pos-start > 1):
				split = true
			case unicode.IsUpper(r) && unicode.IsUpper(prev):
				// "HTTPServer": split before the S (an upper followed by a lower).
				if n, _ := utf8.DecodeRuneInString(word[pos+size:]); pos+size < len(word) && unicode.IsLower(n) {
					split = true
				}
			}
			if split {
				fn(word[start:pos], false)
				start = pos
			}
		}
		prev = r
		pos += size
	}
	// Only a plain capitalised word ("Falcon") may be a name; parts of an
	// identifier ("WindowsShell") and acronyms ("CI") are not.
	p, _ := utf8.DecodeRuneInString(word[start:])
	fn(word[start:], start == 0 && unicode.IsUpper(p) && !isAllUpper(word))
}

func isAllUpper(s string) bool {
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// Stem is a light English suffix stripper: plurals and third persons
// ("flakes", "queries", "passes"), "-ing" and "-ed" forms, a final "y"
// after a consonant and a final "e", so that flaky/flakes/flaking/flaked,
// deprecate/deprecated and release/released/releases meet. Words of three
// characters or fewer, and words with a digit or a dot, are left alone.
func Stem(w string) string {
	return string(stemBytes([]byte(w)))
}

func hasSuf(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

// stemBytes is Stem in place: it may modify w and returns the stem.
func stemBytes(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	for _, c := range w {
		if c >= '0' && c <= '9' || c == '.' {
			return w
		}
	}
	switch {
	case hasSuf(w, "ies") && len(w) > 4:
		w = append(w[:len(w)-3], 'y')
	case hasSuf(w, "sses"):
		w = w[:len(w)-2]
	case hasSuf(w, "ss"), hasSuf(w, "us"), hasSuf(w, "is"):
	case hasSuf(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case hasSuf(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case hasSuf(w, "ied") && len(w) >= 5:
		w = append(w[:len(w)-3], 'y')
	case hasSuf(w, "ed") && len(w) >= 5 && !hasSuf(w, "eed"):
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
func undouble(w []byte) []byte {
	n := len(w)
	if c := w[n-1]; n >= 3 && c == w[n-2] && !isVowel(c) && c != 'y' && c != 'l' && c != 's' && c != 'z' {
		return w[:n-1]
	}
	return w
}

// isStopword reports whether w (lower-case) carries no topic: darwin-memo's
// 56 stopwords plus pronouns, auxiliaries and other function words.
func isStopword(w string) bool { return stopwords[w] }

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopwordList) {
		m[w] = true
	}
	return m
}()

const stopwordList = `a an and are as at be by for from has have in is it of on or that the this these those to was were will with what which who how when where why does do under over after before during between within against but if then than so may might must should could would i me my we us our you your he she him her his they them their its am been being did doing done had can cannot shall into onto about there here any some all each every such own same other very too also just only again ever there's it's let whom whose while because until upon via per not no nor yes ok don doesn didn isn aren wasn weren won couldn shouldn wouldn haven hasn hadn okay please get got s t re ll ve d m`
