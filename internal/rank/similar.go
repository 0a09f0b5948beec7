package rank

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
// compute it from id sets, so it is bit for bit the same value. A caller
// asking many queries about the same texts may keep a [Signature] of each
// text, which lets later queries pass over most texts without tokenising
// them.
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
	slots []uint16 // the signature slot of each of the query's tokens
	buf   []byte   // the scanner's lower-casing buffer, reused
	count tokenSet // the distinct tokens of a text, reused
}

// A Signature summarises a text's token set for [Similar.Above]: a bit,
// chosen by a hash, for each of its tokens. Its zero value is a signature
// not yet computed; Above fills it in the first time it tokenises the
// text. A signature holds nothing about the query, so one kept for a text
// serves every later query about the same text.
type Signature struct {
	bits [signatureWords]uint64
	done bool
}

const signatureWords = 8 // 512 bits

// add sets tok's bit.
func (s *Signature) add(tok string) {
	b := signatureSlot(tok)
	s.bits[b>>6] |= 1 << (b & 63)
}

// NewSimilar returns a Similar for the token set of texts joined by single
// spaces (as [Dict.InternText] reads them).
func NewSimilar(texts ...string) *Similar {
	toks := tokensOf(texts)
	q := &Similar{n: len(toks), slots: make([]uint16, len(toks))}
	for i, t := range toks {
		q.slots[i] = signatureSlot(t)
	}
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

// Above returns the Jaccard similarity of the query's token set with the
// token set of texts joined by single spaces, and true, when it is greater
// than floor (a similarity so far: at least 0); otherwise it returns false
// (and a similarity that is at most floor, or 0 when the text was not
// measured). The similarity is JaccardIDs of the two texts' id sets in any
// one dictionary, bit for bit: 0 when either text has no token.
//
// sig, if not nil, is the texts' signature: Above computes it if it is the
// zero Signature, and otherwise reads it instead of tokenising the texts
// when it shows that they cannot beat floor. The caller must pass the same
// texts with the same signature every time.
//
// A text holding i of the query's n distinct tokens, with d distinct
// tokens, has the similarity i/(n+d-i), which rises with i and falls as d
// grows (in floating point too, rounding being monotonic). The signature
// bounds both: i by the query tokens whose bits it has, d from below by the
// number of bits it has (and by i). The first pass over the text finds i
// exactly and the signature; the text's distinct tokens are counted, in a
// second pass, only when the quotient with the bound on d beats floor.
func (q *Similar) Above(floor float64, sig *Signature, texts ...string) (float64, bool) {
	if q.n == 0 {
		return 0, false
	}
	if sig != nil && sig.done {
		most := 0 // of the query's tokens the text may hold
		for _, b := range q.slots {
			most += int(sig.bits[b>>6] >> (b & 63) & 1)
		}
		if most == 0 || jaccardFromCounts(most, q.n, max(sig.atLeast(), most)) <= floor {
			return 0, false
		}
	}
	var local Signature
	if sig == nil || sig.done {
		sig = &local
	}
	inter := q.shared(texts, sig)
	if inter == 0 || jaccardFromCounts(inter, q.n, max(sig.atLeast(), inter)) <= floor {
		return 0, false
	}
	sim := jaccardFromCounts(inter, q.n, q.distinct(texts))
	return sim, sim > floor
}

// shared returns how many of the query's distinct tokens texts hold, and
// fills in sig (the zero Signature) from their tokens.
func (q *Similar) shared(texts []string, sig *Signature) (inter int) {
	sc := scanner{buf: q.buf}
	if q.m != nil {
		var found uint64
		for {
			tok, _, ok := sc.next(texts)
			if !ok {
				break
			}
			sig.add(tok)
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
			sig.add(tok)
			if i, ok := q.index[tok]; ok && q.held[i/64]&(1<<(i%64)) == 0 {
				q.held[i/64] |= 1 << (i % 64)
				inter++
			}
		}
	}
	sig.done = true
	q.buf = sc.buf
	return inter
}

// atLeast is a lower bound on the number of distinct tokens of the text:
// equal tokens set the same bit.
func (sig *Signature) atLeast() int {
	n := 0
	for _, w := range sig.bits {
		n += bits.OnesCount64(w)
	}
	return n
}

// signatureSlot hashes a token (FNV-1a) to one of a signature's bits.
func signatureSlot(tok string) uint16 {
	h := uint32(2166136261)
	for i := 0; i < len(tok); i++ {
		h = (h ^ uint32(tok[i])) * 16777619
	}
	return uint16((h * 0x9e3779b1) >> (32 - 9))
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
