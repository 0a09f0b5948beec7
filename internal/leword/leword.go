// Package leword reads the first bytes of a string as a little-endian word, the way the
// word-at-a-time loops of the store's tokenisers and renderer consume text: the compiler turns
// each function into one load (no copy of the string to a []byte, no unsafe).
package leword

// Uint64 returns s's first 8 bytes as a little-endian word; s must hold at least 8 bytes.
func Uint64(s string) uint64 {
	_ = s[7] // one bounds check
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Uint32 returns s's first 4 bytes as a little-endian word; s must hold at least 4 bytes.
func Uint32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
