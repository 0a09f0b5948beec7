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
					emitWord(word, sentenceStart, fn)
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
		emitWord(s[i:j], sentenceStart, fn)
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
// ("flakes", "queries", "passes"), "-ing" and "-ed" forms, and a final
// "e", so that flaky/flakes/flaking/flaked, deprecate/deprecated and
// release/released/releases meet. Words of four characters or fewer, and
// words with a digit or a dot, are left alone.
func Stem(w string) string {
	if len(w) <= 3 || strings.ContainsAny(w, "0123456789.") {
		return w
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
	if n := len(w); n > 4 && w[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(w[n-2])) {
		w = w[:n-1]
	}
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops one of two equal final consonants ("runn" → "run"),
// except l, s and z ("install", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// isStopword reports whether w (lower-case) carries no topic: darwin-memo's
// 52 stopwords plus pronouns, auxiliaries and other function words.
func isStopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "by", "for", "from",
		"has", "have", "in", "is", "it", "of", "on", "or", "that", "the",
		"this", "these", "those", "to", "was", "were", "will", "with", "what", "which",
		"who", "how", "when", "where", "why", "does", "do", "under", "over", "after",
		"before", "during", "between", "within", "against", "but", "if", "then", "than", "so",
		"may", "might", "must", "should", "could", "would",
		// beyond darwin-memo's list
		"i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "him", "her", "his",
		"they", "them", "their", "its", "am", "been", "being", "did", "doing", "done",
		"had", "can", "cannot", "shall", "into", "onto", "about", "there", "here",
		"any", "some", "all", "each", "every", "such", "own", "same", "other", "very",
		"too", "also", "just", "only", "again", "ever", "there's", "it's", "let",
		"whom", "whose", "while", "because", "until", "upon", "via", "per", "not", "no",
		"nor", "yes", "ok", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "couldn",
		"shouldn", "wouldn", "haven", "hasn", "hadn", "okay", "please", "get", "got", "s", "t", "re", "ll", "ve", "d", "m":
		return true
	}
	return false
}
