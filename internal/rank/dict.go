package rank

import (
	"slices"
	"strings"
)

// A Dict interns tokens as dense uint32 ids (0, 1, 2, ... in order of
// first sight), so token sets can be held as sorted []uint32 and compared
// without hashing strings. The zero Dict is not usable; call NewDict.
type Dict struct {
	ids   map[string]uint32
	words []string // by id
}

// NewDict returns an empty dictionary.
func NewDict() *Dict {
	return &Dict{ids: map[string]uint32{}}
}

// ID returns the id of tok, interning it if it is new.
func (d *Dict) ID(tok string) uint32 {
	if id, ok := d.ids[tok]; ok {
		return id
	}
	tok = strings.Clone(tok) // do not pin the text the token came from
	id := uint32(len(d.words))
	d.ids[tok] = id
	d.words = append(d.words, tok)
	return id
}

// Lookup returns the id of tok and whether it has been interned.
func (d *Dict) Lookup(tok string) (uint32, bool) {
	id, ok := d.ids[tok]
	return id, ok
}

// Len returns the number of interned tokens.
func (d *Dict) Len() int { return len(d.words) }

// InternText returns the id set of the texts joined by single spaces:
// the ids of Tokens(strings.Join(texts, " ")), sorted ascending without
// repeats, interning new tokens in the order Tokens returns them, but
// without building the joined text or the token strings. A space always
// separates tokens, so the joined text's tokens are those of each text in
// turn.
func (d *Dict) InternText(texts ...string) []uint32 {
	var scratch [128]uint32
	ids := scratch[:0]
	var sc scanner
	for {
		tok, _, ok := sc.next(texts)
		if !ok {
			break
		}
		ids = append(ids, d.ID(tok)) // ID clones new tokens
	}
	if len(ids) == 0 {
		return nil
	}
	ids = sortedSet(ids)
	out := make([]uint32, len(ids))
	copy(out, ids)
	return out
}

// LookupText returns, as an ascending set, the ids of the tokens of texts (the token set of
// the texts joined by spaces, as InternText reads them) that the dictionary holds, and how
// many distinct tokens the texts have in all, held or not. It adds nothing to d, so it can ask
// about a text without changing the ids later texts get.
func (d *Dict) LookupText(texts ...string) (known []uint32, distinct int) {
	var unknown map[string]struct{}
	var sc scanner
	for {
		tok, transient, ok := sc.next(texts)
		if !ok {
			break
		}
		if id, ok := d.Lookup(tok); ok {
			known = append(known, id)
			continue
		}
		if _, dup := unknown[tok]; dup {
			continue
		}
		if unknown == nil {
			unknown = map[string]struct{}{}
		}
		if transient {
			tok = strings.Clone(tok)
		}
		unknown[tok] = struct{}{}
	}
	known = sortedSet(known)
	return known, len(known) + len(unknown)
}

// JaccardKnown is the Jaccard similarity of a text's token set, given as LookupText returns
// it (the ids the dictionary holds and the number of distinct tokens), with the id set set of
// the same dictionary: a token the dictionary lacks is in no id set. It equals Jaccard of the
// two texts' token sets.
func JaccardKnown(known []uint32, distinct int, set []uint32) float64 {
	if distinct == 0 || len(set) == 0 {
		return 0
	}
	return jaccardFromCounts(intersectCount(known, set), distinct, len(set))
}

// sortedSet sorts ids in place and removes repeats.
func sortedSet(ids []uint32) []uint32 {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// JaccardIDs is [Jaccard] for id sets from [Dict.InternText]: both must be
// sorted ascending without repeats. It returns 0 if either is empty and
// otherwise float64(|a∩b|) / float64(|a∪b|), bit for bit the value
// Jaccard gives for the same sets.
func JaccardIDs(a, b []uint32) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return jaccardFromCounts(intersectCount(a, b), len(a), len(b))
}

// jaccardFromCounts is the one place the Jaccard quotient is computed for
// id sets, so that every clustering compares bit-identical values.
func jaccardFromCounts(inter, la, lb int) float64 {
	return float64(inter) / float64(la+lb-inter)
}

// intersectCount counts common elements of two ascending sets.
func intersectCount(a, b []uint32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch x, y := a[i], b[j]; {
		case x < y:
			i++
		case x > y:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}
