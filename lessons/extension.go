package lessons

import (
	"bytes"
	"errors"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Extensions are the top-level keys of a store that darwin-memo does not know and ignores (the
// action keeps its record of processed pull requests under one). The store keeps them in a
// storedoc.Extensions, in their order, and writes them back after its own keys; this file
// gives them an API on the store so no other package has to parse or splice the store.

// Extension returns the value of the top-level key darwin-memo ignores as compact JSON in
// Python's spelling (json.dumps: non-ASCII escaped, NaN and Infinity as Python writes them),
// and whether the store has the key.
func (s *Store) Extension(key string) ([]byte, bool) { return s.layout.extensions.Get(key) }

// SetExtension sets the top-level key darwin-memo ignores to the JSON value data, read as
// darwin-memo reads its store (Python's json.loads). A key the store has keeps its place; a new
// one is written last. nil data removes the key. The keys the store owns (config, entries,
// graveyard, ledger, retriever) are refused.
func (s *Store) SetExtension(key string, data []byte) error {
	return s.layout.extensions.Set(key, data)
}

// MarshalSame returns what Marshal returns, and whether other writes the same bytes once the
// extension keys named are left out of both (for example: do two stores differ in anything
// but a record?), writing s once: the extension keys
// come last, so the document without them is its head with another tail. other is written
// against those bytes and stops at the first one that differs, so a store that differs early
// costs little (and a lazily loaded other renders its history notes only if everything before
// them is the same). A store other cannot write (Options.ConsultOnly, notes that do not
// render) is not the same.
func (s *Store) MarshalSame(other *Store, keys ...string) (doc []byte, same bool, err error) {
	if s.opts.ConsultOnly {
		return nil, false, errConsultOnly
	}
	w := pyjson.NewWriter(make([]byte, 0, s.marshalSize()), 0)
	s.marshalHead(w)
	tail := pyjson.NewWriter(nil, 1)
	s.marshalTail(tail, keys)
	c := &compareWriter{want: [][]byte{w.Bytes(), tail.Bytes()}}
	if _, err := other.writeTo(c, keys); err == nil {
		same = c.done()
	}
	s.marshalTail(w, nil)
	return w.Bytes(), same, nil
}

// errDiffers stops a compareWriter's writer at the first byte that differs.
var errDiffers = errors.New("the documents differ")

// compareWriter checks what is written against the concatenation of want, consuming it, and
// fails at the first byte that differs or goes beyond it.
type compareWriter struct{ want [][]byte }

func (c *compareWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.want) == 0 {
			return 0, errDiffers
		}
		k := min(len(p), len(c.want[0]))
		if !bytes.Equal(p[:k], c.want[0][:k]) {
			return 0, errDiffers
		}
		p, c.want[0] = p[k:], c.want[0][k:]
		if len(c.want[0]) == 0 {
			c.want = c.want[1:]
		}
	}
	return n, nil
}

// done reports whether everything wanted was written.
func (c *compareWriter) done() bool {
	for _, w := range c.want {
		if len(w) > 0 {
			return false
		}
	}
	return true
}
