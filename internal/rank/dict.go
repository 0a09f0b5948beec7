package rank

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"unsafe"

	"github.com/darwin-memo/darwin-memo-action/internal/leword"
)

// A Dict interns tokens as dense uint32 ids (0, 1, 2, ... in order of
// first sight), so token sets can be held as sorted []uint32 and compared
// without hashing strings. The zero Dict is not usable; call NewDict.
//
// The ids are found with an open-addressing table of slots that hold a
// token's first 16 bytes inline: a token that short (nearly all are) is
// found or found missing by reading one slot and the ones after it, with
// no pointer to follow into the words' bytes. A Go map of strings reads a
// group's control word, then the matching slot's string header (often on
// another cache line of the group), then the key's bytes wherever they
// are; on a store of 100k lessons those cache misses were most of the time
// its sets took to intern.
type Dict struct {
	slots []slot // a power of two long; at most 3/4 full
	words []string
	// arena holds the bytes of the interned words, many to a block: a word is not an
	// allocation of its own. Blocks are only appended to, never rewritten.
	arena []byte
	// seed varies the hash from dictionary to dictionary, as Go's maps do,
	// so that no fixed set of texts makes every dictionary's probes long.
	seed uint64
	// hashMask is ANDed into every hash: all ones, except in tests that
	// force collisions.
	hashMask uint32
}

// A slot is one entry of a Dict's table, 24 bytes: the length shares a
// word with the hash so that a table of a large store's words is a quarter
// smaller than with a field of its own (less to allocate, and more of the
// frequent words' slots in cache).
type slot struct {
	// hash is the token's hash in the top 27 bits, the top one set (0
	// marks an empty slot), and the token's length, or 31 for any length
	// above 30, in the low 5 bits.
	hash uint32
	id   uint32
	// k0 and k1 are the token's first 16 bytes, little-endian, zero past
	// its end. With the length they are the whole token when it is at most
	// inlineMax bytes long.
	k0, k1 uint64
}

// inlineMax is the longest token a slot holds whole.
const inlineMax = 16

// arenaBlock is the size of the blocks the words' bytes are copied into.
const arenaBlock = 64 << 10

// NewDict returns an empty dictionary.
func NewDict() *Dict {
	return &Dict{seed: rand.Uint64(), hashMask: ^uint32(0)}
}

// ID returns the id of tok, interning it if it is new.
func (d *Dict) ID(tok string) uint32 {
	h, k0, k1 := d.hash(tok)
	if s := d.find(tok, h, k0, k1); s != nil {
		return s.id
	}
	return d.add(tok, h, k0, k1)
}

// find returns tok's slot, or nil if tok has not been interned; h, k0 and
// k1 are what hash returns for tok. A token of at most inlineMax bytes is
// equal to a slot's if the hash words (so the lengths) and the 16 bytes
// are; a longer one is compared with the word itself.
func (d *Dict) find(tok string, h uint32, k0, k1 uint64) *slot {
	if len(d.slots) == 0 {
		return nil
	}
	mask := uint32(len(d.slots) - 1)
	for i := h >> 5 & mask; ; i = (i + 1) & mask {
		s := &d.slots[i]
		if s.hash == 0 {
			return nil
		}
		if s.hash == h && s.k0 == k0 && s.k1 == k1 &&
			(len(tok) <= inlineMax || d.words[s.id] == tok) {
			return s
		}
	}
}

func (d *Dict) add(tok string, h uint32, k0, k1 uint64) uint32 {
	if 4*(len(d.words)+1) > 3*len(d.slots) {
		d.grow()
	}
	id := uint32(len(d.words))
	d.words = append(d.words, d.clone(tok)) // do not pin the text the token came from
	mask := uint32(len(d.slots) - 1)
	i := h >> 5 & mask
	for d.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	d.slots[i] = slot{hash: h, id: id, k0: k0, k1: k1}
	return id
}

// grow doubles the table (or makes the first, small one: many dictionaries
// only ever hold a query's few tokens).
func (d *Dict) grow() {
	old := d.slots
	d.slots = make([]slot, max(16, 2*len(old)))
	mask := uint32(len(d.slots) - 1)
	for _, s := range old {
		if s.hash == 0 {
			continue
		}
		i := s.hash >> 5 & mask
		for d.slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = s
	}
}

// hash returns tok's hash word and its first 16 bytes as a slot holds
// them. The hash mixes the 16 bytes and the length with a 64-bit
// multiplication (a longer token folds in the rest 16 bytes at a time);
// it is computed from the token rather than by the scanner so that ID,
// Lookup and InternText share it, and costs a few nanoseconds a token.
func (d *Dict) hash(tok string) (h uint32, k0, k1 uint64) {
	k0, k1 = load16(tok)
	m := mix(k0^d.seed, k1^uint64(len(tok))^0xe7037ed1a0b428db)
	for i := inlineMax; i < len(tok); i += inlineMax {
		a, b := load16(tok[i:min(len(tok), i+inlineMax)])
		m = mix(a^m, b^0x8ebc6af09c88c6e3)
	}
	return (uint32(m)^uint32(m>>32))&d.hashMask&^31 | 1<<31 | uint32(min(len(tok), 31)), k0, k1
}

// mix is the folded 128-bit product of a and b (as wyhash mixes).
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// load16 returns the first 16 bytes of s (fewer if s is shorter, the rest
// zero) as two little-endian words, with whole-word loads where s is long
// enough: overlapping loads fill in the odd lengths.
func load16(s string) (k0, k1 uint64) {
	switch n := len(s); {
	case n >= 16:
		return leword.Uint64(s), leword.Uint64(s[8:])
	case n >= 8:
		return leword.Uint64(s), leword.Uint64(s[n-8:]) >> (8 * (16 - n))
	case n >= 4:
		return uint64(leword.Uint32(s)) | uint64(leword.Uint32(s[n-4:]))<<(8*(n-4)), 0
	case n > 0:
		return uint64(s[0]) | uint64(s[n/2])<<(8*(n/2)) | uint64(s[n-1])<<(8*(n-1)), 0
	}
	return 0, 0
}

// clone copies tok into the arena.
func (d *Dict) clone(tok string) string {
	if len(tok) == 0 {
		return ""
	}
	if len(d.arena)+len(tok) > cap(d.arena) {
		d.arena = make([]byte, 0, max(arenaBlock, len(tok)))
	}
	start := len(d.arena)
	d.arena = append(d.arena, tok...)
	return unsafe.String(&d.arena[start], len(tok))
}

// Lookup returns the id of tok and whether it has been interned.
func (d *Dict) Lookup(tok string) (uint32, bool) {
	h, k0, k1 := d.hash(tok)
	if s := d.find(tok, h, k0, k1); s != nil {
		return s.id, true
	}
	return 0, false
}

// Word returns the token with the given id. It panics if id was not
// returned by this Dict.
func (d *Dict) Word(id uint32) string { return d.words[id] }

// Len returns the number of interned tokens.
func (d *Dict) Len() int { return len(d.words) }

// Intern interns every token and returns the id set: sorted ascending,
// without repeats. The result is what [JaccardIDs], [Index.AddIDs] and
// [Cluster] expect.
func (d *Dict) Intern(tokens []string) []uint32 {
	if len(tokens) == 0 {
		return nil
	}
	ids := make([]uint32, len(tokens))
	for i, t := range tokens {
		ids[i] = d.ID(t)
	}
	return sortedSet(ids)
}

// InternText returns the id set of the texts joined by single spaces:
// exactly d.Intern(Tokens(strings.Join(texts, " "))), including the ids d
// hands out to new tokens, but without building the joined text or the
// token strings. A space always separates tokens, so the joined text's
// tokens are those of each text in turn.
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
	sortIDs(ids)
	return slices.Compact(ids)
}

// insertionMax is the longest slice sortIDs sorts by insertion. A
// lesson's text has a few dozen tokens; on the id slices of such texts
// insertion sort takes about 0.6 of the time slices.Sort does, which
// partitions them before it sorts the pieces by insertion.
const insertionMax = 64

// sortIDs sorts ids in place, ascending.
func sortIDs(ids []uint32) {
	if len(ids) > insertionMax {
		slices.Sort(ids)
		return
	}
	for i := 1; i < len(ids); i++ {
		x := ids[i]
		j := i
		for j > 0 && ids[j-1] > x {
			ids[j] = ids[j-1]
			j--
		}
		ids[j] = x
	}
}

// RemapSet moves an id set from one dictionary to another: it replaces
// each id with remap[id] (the word's id in the other dictionary, so remap
// has no repeats) and sorts the set again.
func RemapSet(set, remap []uint32) {
	for i, id := range set {
		set[i] = remap[id]
	}
	sortIDs(set)
}

// JaccardIDs is [Jaccard] for id sets from [Dict.Intern]: both must be
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
