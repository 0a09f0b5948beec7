package lexrank

// wordTable is an open-addressing hash table from words to int32: the
// stemmer's cache of words as written (substrings of the indexed texts)
// and the tokeniser's term ids by stem. The hash is computed while the
// word is scanned, so a lookup costs one probe sequence and one
// comparison; the hashes are kept apart from the words, so a probe reads
// a small array that stays in cache. It only grows.
type wordTable struct {
	keys   []string
	hashes []uint32
	vals   []int32
	n      int
}

// newWordTable returns a table with room for about n words.
func newWordTable(n int) *wordTable {
	size := 1024
	for 3*size < 4*n {
		size *= 2
	}
	return &wordTable{keys: make([]string, size), hashes: make([]uint32, size), vals: make([]int32, size)}
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

func (t *wordTable) get(w string, h uint32) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint32(len(t.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.hashes[i] {
		case 0:
			return 0, false
		case h | 1<<31:
			if t.keys[i] == w {
				return t.vals[i], true
			}
		}
	}
}

func (t *wordTable) put(w string, h uint32, v int32) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	mask := uint32(len(t.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if t.hashes[i] == 0 {
			t.keys[i], t.hashes[i], t.vals[i] = w, h|1<<31, v
			t.n++
			return
		}
		if t.hashes[i] == h|1<<31 && t.keys[i] == w {
			t.vals[i] = v
			return
		}
	}
}

func (t *wordTable) grow() {
	old := *t
	size := max(1024, 2*len(old.keys))
	*t = wordTable{keys: make([]string, size), hashes: make([]uint32, size), vals: make([]int32, size)}
	for i, k := range old.keys {
		if old.hashes[i] != 0 {
			t.put(k, old.hashes[i]&^(1<<31), old.vals[i])
		}
	}
}
