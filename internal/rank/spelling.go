package rank

import (
	"math"
	"strings"
)

// Spelling correction against the store's own words, as a search engine's
// "did you mean" does it (Lucene's DirectSpellChecker; Damerau, 1964): a
// query term that no lesson holds, made of letters only, at least
// minCorrected long and whose word is not an English word of the background
// list, is a misspelling ("enviroment", "integraton", "interactivly") when some
// term the lessons hold is one edit from it and starts with the same two
// bytes (a prefix length of two, as search engines set it to keep the
// lookup cheap; typos rarely fall there). It is replaced by the term of
// those that the most lessons hold (then the first in byte order). Names
// are never corrected: a term with a digit, a dot or a joiner names a
// version, a file or an identifier, and web_1 is not web_2. Nor are short
// terms: the shorter a word, the more words lie one edit from it (Kukich,
// "Techniques for automatically correcting words in text", 1992), and an
// unknown six-letter name one edit from a known one is as likely another
// name as a typo (the selection benchmark's made-up words, which differ by
// a letter, were read as each other at five).
const minCorrected = 7

// mayBeMisspelt reports whether t is a candidate for correction, leaving
// aside whether any lesson holds it.
func mayBeMisspelt(t QueryTerm) bool {
	return len(t.Term) >= minCorrected && !strings.ContainsAny(t.Term, "0123456789._") && BackgroundRank(t.Word) == 0
}

// nearTerm reports whether w, a term the lessons hold, may correct the
// misspelt term t.
func nearTerm(t, w string) bool {
	return len(w) >= 2 && w[0] == t[0] && w[1] == t[1] && oneEdit(t, w)
}

// betterCorrection reports whether w, held by df lessons, corrects better
// than best, held by bestDF.
func betterCorrection(w string, df int, best string, bestDF int) bool {
	return df > bestDF || df == bestDF && w < best
}

// corrected replaces term i of q by its correction w and reports whether
// it did: not when w is already a term of q (the query then holds the
// right spelling too).
func corrected(q []QueryTerm, i int, w string) bool {
	for _, t := range q {
		if t.Term == w {
			return false
		}
	}
	q[i].Term, q[i].Word = w, w
	return true
}

// correctSpelling corrects the misspelt terms of q against the index.
func (x *BM25F) correctSpelling(q []QueryTerm) {
	for i, t := range q {
		if !mayBeMisspelt(t) {
			continue
		}
		if id, ok := x.dict.Lookup(t.Term); ok && int(id) < len(x.df) && x.df[id] > 0 {
			continue
		}
		best, bestDF := "", 0
		for id, w := range x.dict.words {
			if df := int(x.df[id]); df > 0 && nearTerm(t.Term, w) && betterCorrection(w, df, best, bestDF) {
				best, bestDF = w, df
			}
		}
		if best != "" {
			corrected(q, i, best)
		}
	}
}

// A nearCount is a document's frequencies, in its question and in its
// answer, of a term that may correct a misspelt query term.
type nearCount struct {
	doc  int32
	q, a uint16
}

// countNear counts one more occurrence of a term in field f (0 the
// question, 1 the answer) of doc, documents coming in ascending order.
func countNear(c []nearCount, doc int32, f int) []nearCount {
	if len(c) == 0 || c[len(c)-1].doc != doc {
		c = append(c, nearCount{doc: doc})
	}
	if last := &c[len(c)-1]; f == 0 {
		last.q = min(last.q+1, math.MaxUint16)
	} else {
		last.a = min(last.a+1, math.MaxUint16)
	}
	return c
}

// correctOnce is correctSpelling for SearchOnce: df holds each query
// term's document frequency, tfs its frequencies by document, near (by
// worker, in document order) those of the terms one edit from a misspelt
// query term. A corrected term takes its correction's frequencies.
func correctOnce(q []QueryTerm, df []int, tfs []uint16, near []map[string][]nearCount) {
	merged := map[string][]nearCount{}
	for _, m := range near {
		for w, c := range m {
			merged[w] = append(merged[w], c...)
		}
	}
	for i, t := range q {
		if df[i] > 0 || !mayBeMisspelt(t) {
			continue
		}
		best, bestDF := "", 0
		for w, c := range merged {
			if nearTerm(t.Term, w) && betterCorrection(w, len(c), best, bestDF) {
				best, bestDF = w, len(c)
			}
		}
		if best == "" || !corrected(q, i, best) {
			continue
		}
		df[i] = bestDF
		for _, c := range merged[best] {
			tfs[2*len(q)*int(c.doc)+2*i], tfs[2*len(q)*int(c.doc)+2*i+1] = c.q, c.a
		}
	}
}

// oneEdit reports whether a and b differ by exactly one insertion,
// deletion, substitution or swap of two neighbouring bytes.
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 || a == b {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) < len(b) {
		return a[i:] == b[i+1:]
	}
	if a[i+1:] == b[i+1:] {
		return true
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}
