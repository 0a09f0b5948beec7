package lexrank

import "github.com/darwin-memo/darwin-memo-action/internal/leword"

// wordTable is an open-addressing hash table from words to int32: the
// stemmer's cache of words as written (substrings of the indexed texts)
// and the tokeniser's term ids by stem. The hash is computed while the
// word is scanned, so a lookup costs one probe sequence and one
// comparison. A word of up to inlineMax bytes (nearly all of them) is kept
// in its slot as two integers, so a probe reads one slot of the table and
// compares integers: it never follows a pointer into the texts, which are
// far too large to stay in cache. Longer words are kept apart and compared
// as strings. It only grows.
type wordTable struct {
	slots []wordSlot
	long  []string // the words longer than inlineMax, by k0 of their slot
	n     int
}

// wordSlot is one entry of a wordTable, in 24 bytes so that a probe reads
// one cache line (two for one slot in four).
type wordSlot struct {
	// k0 and k1 hold a word of up to inlineMax bytes little-endian, zero
	// padded, with its length in the top byte of k1, so that two words are
	// equal exactly when their k0 and k1 are. For a longer word, k0 is its
	// index in long and k1 is longKey.
	k0, k1 uint64
	hash   uint32 // the word's hash with the top bit set; 0 for an empty slot
	val    int32
}

// inlineMax is the longest word a slot holds itself: the top byte of k1
// is its length.
const inlineMax = 15

// longKey is k1 of a slot whose word is in long: no inline word's k1 is
// (its top byte is a length of at most inlineMax).
const longKey = ^uint64(0)

// newWordTable returns a table with room for about n words.
func newWordTable(n int) *wordTable {
	size := 1024
	for 3*size < 4*n {
		size *= 2
	}
	return &wordTable{slots: make([]wordSlot, size)}
}

const fnvOffset, fnvPrime = 2166136261, 16777619

// hashString is the FNV-1a hash the scanner computes incrementally.
func hashString(s string) uint32 {
	h := uint32(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h
}

// packWord returns k0 and k1 of a word of up to inlineMax bytes. The
// loads overlap rather than loop over the bytes: a word of 9 to 15 bytes
// is its first 8 bytes and its last 8 shifted down past those, one of 4
// to 7 its first 4 and its last 4 shifted likewise.
func packWord(w string) (k0, k1 uint64) {
	n := len(w)
	switch {
	case n >= 8:
		k0 = leword.Uint64(w)
		if n > 8 {
			k1 = leword.Uint64(w[n-8:]) >> (8 * (16 - n))
		}
	case n >= 4:
		k0 = uint64(leword.Uint32(w)) | uint64(leword.Uint32(w[n-4:])>>(8*(8-n)))<<32
	default:
		for i := n - 1; i >= 0; i-- {
			k0 = k0<<8 | uint64(w[i])
		}
	}
	return k0, k1 | uint64(n)<<56
}

// find returns the slot of w (hash h) and true, or the empty slot where
// it would go and false. The table must have an empty slot.
func (t *wordTable) find(w string, h uint32) (int, bool) {
	mask := uint32(len(t.slots) - 1)
	tag := h | 1<<31
	if len(w) > inlineMax {
		for i := h & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if s.hash == tag && s.k1 == longKey && t.long[s.k0] == w {
				return int(i), true
			}
			if s.hash == 0 {
				return int(i), false
			}
		}
	}
	k0, k1 := packWord(w)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == tag && s.k0 == k0 && s.k1 == k1 {
			return int(i), true
		}
		if s.hash == 0 {
			return int(i), false
		}
	}
}

func (t *wordTable) get(w string, h uint32) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	if i, ok := t.find(w, h); ok {
		return t.slots[i].val, true
	}
	return 0, false
}

func (t *wordTable) put(w string, h uint32, v int32) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	i, ok := t.find(w, h)
	s := &t.slots[i]
	if !ok {
		if len(w) > inlineMax {
			s.k0, s.k1 = uint64(len(t.long)), longKey
			t.long = append(t.long, w)
		} else {
			s.k0, s.k1 = packWord(w)
		}
		s.hash = h | 1<<31
		t.n++
	}
	s.val = v
}

// grow doubles the table; the slots move whole (a long word keeps its
// place in long).
func (t *wordTable) grow() {
	old := t.slots
	t.slots = make([]wordSlot, max(1024, 2*len(old)))
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s.hash == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
