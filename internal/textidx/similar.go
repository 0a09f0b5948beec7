package textidx

import (
	"math/bits"
	"strings"
	"unsafe"
)

// A Similar measures the Jaccard similarity of one text's token set (the
// query's) with the token sets of many other texts without interning any
// of them: a duplicate check against a whole store that needs no
// dictionary and no id sets.
//
// For each text it counts which of the query's distinct tokens the text
// holds, with a table of the query's tokens alone; only when that count
// lets the text beat a given floor does it count the text's distinct
// tokens too. The similarity is computed from those two integers and the
// query's distinct count exactly as [JaccardIDs] and [JaccardKnown]
// compute it from id sets, so it is bit for bit the same value.
//
// A Similar reuses scratch space from text to text: it is not safe for
// concurrent use.
type Similar struct {
	n int // distinct tokens of the query
	// m finds the query's tokens when there are at most MaxMatch of them;
	// index (token -> bit) otherwise, with held as the bits' scratch.
	m     *Matcher
	index map[string]int
	held  []uint64
	buf   []byte   // the scanner's lower-casing buffer, reused
	count tokenSet // the distinct tokens of a text, reused
}

// NewSimilar returns a Similar for the token set of texts joined by single
// spaces (as [Dict.InternText] reads them).
func NewSimilar(texts ...string) *Similar {
	toks := tokensOf(texts)
	q := &Similar{n: len(toks)}
	if m, ok := NewMatcher(toks); ok {
		q.m = m
	} else {
		q.index = make(map[string]int, len(toks))
		for i, t := range toks {
			q.index[t] = i
		}
		q.held = make([]uint64, (len(toks)+63)/64)
	}
	q.count.reuse = true
	return q
}

// Len returns the number of distinct tokens of the query.
func (q *Similar) Len() int { return q.n }

// Above returns the Jaccard similarity of the query's token set with the
// token set of texts joined by single spaces, and true, when it is greater
// than floor (a similarity so far: at least 0); otherwise it returns false
// (and a similarity that is at most floor, or 0 when the text was not
// measured). The similarity is JaccardIDs of the two texts' id sets in any
// one dictionary, bit for bit: 0 when either text has no token.
//
// A text holding i of the query's n distinct tokens, with d distinct
// tokens, has the similarity i/(n+d-i), which only falls as d grows (in
// floating point too, rounding being monotonic). The first pass finds i
// and a lower bound on d (the distinct values of a small hash of its
// tokens, and i itself); the text's distinct tokens are counted, in a
// second pass, only when the quotient with that bound beats floor.
func (q *Similar) Above(floor float64, texts ...string) (float64, bool) {
	if q.n == 0 {
		return 0, false
	}
	inter, atLeast := q.shared(texts)
	if inter == 0 || jaccardFromCounts(inter, q.n, max(atLeast, inter)) <= floor {
		return 0, false
	}
	sim := jaccardFromCounts(inter, q.n, q.distinct(texts))
	return sim, sim > floor
}

// shared returns how many of the query's distinct tokens texts hold, and a
// lower bound on the number of distinct tokens of texts.
func (q *Similar) shared(texts []string) (inter, atLeast int) {
	sc := scanner{buf: q.buf}
	var shape [2]uint64 // bit tokenShape(tok) of every token
	if q.m != nil {
		var found uint64
		for {
			tok, _, ok := sc.next(texts)
			if !ok {
				break
			}
			h := tokenShape(tok)
			shape[h>>6] |= 1 << (h & 63)
			found |= q.m.find(tok, found)
		}
		inter = bits.OnesCount64(found)
	} else {
		clear(q.held)
		for {
			tok, _, ok := sc.next(texts)
			if !ok {
				break
			}
			h := tokenShape(tok)
			shape[h>>6] |= 1 << (h & 63)
			if i, ok := q.index[tok]; ok && q.held[i/64]&(1<<(i%64)) == 0 {
				q.held[i/64] |= 1 << (i % 64)
				inter++
			}
		}
	}
	q.buf = sc.buf
	return inter, bits.OnesCount64(shape[0]) + bits.OnesCount64(shape[1])
}

// tokenShape is a cheap hash of a (non-empty) token into 0..127: equal
// tokens have equal shapes, so a text has at least as many distinct tokens
// as its tokens have distinct shapes.
func tokenShape(tok string) uint {
	n := len(tok)
	return (uint(tok[0])*0x9e + uint(tok[n-1])*0x3b + uint(tok[n/2])*0x17 + uint(n)*0x65) & 127
}

// distinct returns the number of distinct tokens of texts.
func (q *Similar) distinct(texts []string) int {
	sc := scanner{buf: q.buf}
	q.count.clear()
	for {
		tok, transient, ok := sc.next(texts)
		if !ok {
			break
		}
		q.count.add(tok, transient)
	}
	q.buf = sc.buf
	return len(q.count.out)
}

// tokensOf returns the distinct tokens of texts joined by single spaces,
// in order of first occurrence, or nil: Tokens of the joined text.
func tokensOf(texts []string) []string {
	var (
		sc  scanner
		set tokenSet
	)
	size := max(len(texts)-1, 0) // the joined text's length
	for _, t := range texts {
		size += len(t)
	}
	set.out = make([]string, 0, min(size/8+4, 128))
	for {
		tok, transient, ok := sc.next(texts)
		if !ok {
			break
		}
		set.add(tok, transient)
	}
	if len(set.out) == 0 {
		return nil
	}
	return set.out
}

// keep returns tok for the set to hold: the token itself unless it is
// transient, else a copy, in the reused arena when the set is reused.
func (t *tokenSet) keep(tok string, transient bool) string {
	switch {
	case !transient:
		return tok
	case !t.reuse:
		return strings.Clone(tok)
	}
	if len(t.arena)+len(tok) > cap(t.arena) {
		// Earlier tokens keep the old block, which is never written again.
		t.arena = make([]byte, 0, max(512, 2*cap(t.arena), len(tok)))
	}
	start := len(t.arena)
	t.arena = append(t.arena, tok...)
	return unsafe.String(&t.arena[start], len(tok))
}

// clear empties a reused set for the next text, keeping its storage.
func (t *tokenSet) clear() {
	t.out = t.out[:0]
	t.table = [256]uint8{}
	t.big = nil
	t.arena = t.arena[:0]
}
