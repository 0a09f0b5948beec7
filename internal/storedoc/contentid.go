package storedoc

import (
	"crypto/sha256"
	"encoding/hex"
)

// ContentID is the id a store gives a lesson or a ticket, and the merge an entry without
// one: the first 12 hex chars of the SHA-256 of the NUL-joined parts. darwin-memo uses random
// UUIDs instead (see docs/compat.md).
func ContentID(parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	var sum [32]byte
	return hex.EncodeToString(h.Sum(sum[:0]))[:12]
}
