package lessons

import (
	"bytes"
	"errors"

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
// left out of both (for example: do two stores differ in anything but a record?). o is written
// once, without those keys; s is then written against those bytes and stops at the first one
// that differs, so two stores that differ early cost little more than writing o (and a lazily
// loaded s renders its history notes only if everything before them is the same). Neither
// store changes.
func (s *Store) SameExcept(o *Store, keys ...string) bool {
	want, err := o.marshalExcept(keys)
	if err != nil {
		return false
	}
	c := &compareWriter{want: want}
	if _, err := s.writeTo(c, keys); err != nil {
		return false
	}
	return len(c.want) == 0
}

// errDiffers stops a compareWriter's writer at the first byte that differs.
var errDiffers = errors.New("the documents differ")

// compareWriter checks what is written against want, consuming it, and fails at the first
// byte that differs or goes beyond it.
type compareWriter struct{ want []byte }

func (c *compareWriter) Write(p []byte) (int, error) {
	if len(p) > len(c.want) || !bytes.Equal(p, c.want[:len(p)]) {
		return 0, errDiffers
	}
	c.want = c.want[len(p):]
	return len(p), nil
}
