package lessons

import (
	"crypto/sha256"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// Extensions are the top-level keys of a store that darwin-memo does not know and ignores (the
// action keeps its record of processed pull requests under one). The store keeps them in a
// storedoc.Extensions, in their order, and writes them back after its own keys; this file
// gives them an API on the store so no other package has to parse or splice the store.

// Extension returns the value of the top-level key darwin-memo ignores as compact JSON in
// Python's spelling (json.dumps: non-ASCII escaped, NaN and Infinity as Python writes them),
// and whether the store has the key.
func (s *Store) Extension(key string) ([]byte, bool) {
	if storedoc.OwnKey(key) {
		return nil, false
	}
	return s.extensions.Get(key)
}

// Extensions lists the store's extension keys in file order.
func (s *Store) Extensions() []string { return s.extensions.Keys() }

// SetExtension sets the top-level key darwin-memo ignores to the JSON value data, read as
// darwin-memo reads its store (Python's json.loads). A key the store has keeps its place; a new
// one is written last. nil data removes the key. The keys the store owns (config, entries,
// graveyard, ledger, retriever) are refused.
func (s *Store) SetExtension(key string, data []byte) error { return s.extensions.Set(key, data) }

// SameExcept reports whether s and o write the same bytes once the extension keys named are
// left out of both (for example: do two stores differ in anything but a record?). Each store
// is written once, without those keys, into a SHA-256 digest, so neither document is held in
// memory and neither store changes.
func (s *Store) SameExcept(o *Store, keys ...string) bool {
	a, errS := s.digestExcept(keys)
	b, errO := o.digestExcept(keys)
	return errS == nil && errO == nil && a == b
}

// digestExcept is the SHA-256 digest of what s writes with the extension keys left out.
func (s *Store) digestExcept(keys []string) ([sha256.Size]byte, error) {
	h := sha256.New()
	if _, err := s.writeTo(h, keys); err != nil {
		return [sha256.Size]byte{}, err
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}
