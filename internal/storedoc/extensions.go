package storedoc

import (
	"fmt"
	"slices"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// OwnKey reports whether key is one of the top-level keys a store document owns (config,
// entries, graveyard, ledger, retriever); every other top-level key is an extension.
func OwnKey(key string) bool {
	switch key {
	case "config", "entries", "graveyard", "ledger", "retriever":
		return true
	}
	return false
}

// Extensions are the top-level keys of a store document that darwin-memo does not know and
// ignores (the action keeps its record of processed pull requests under one), in their order,
// as values of the Python-compatible reader; a store writes them back after its own keys. The
// zero value has none.
type Extensions struct{ members []pyjson.Member }

// Read keeps the value v of the extension key as the document gives it: a repeated key keeps
// its first place and its last value, as Python's json.loads reads it.
func (x *Extensions) Read(key string, v pyjson.Value) {
	x.members = pyjson.SetMember(x.members, key, v)
}

// Get returns the value of key as compact JSON in Python's spelling (json.dumps: non-ASCII
// escaped, NaN and Infinity as Python writes them), and whether there is one.
func (x Extensions) Get(key string) ([]byte, bool) {
	for i := len(x.members) - 1; i >= 0; i-- {
		if x.members[i].Key == key {
			return pyjson.Compact(x.members[i].Value), true
		}
	}
	return nil, false
}

// Set sets key to the JSON value data, read as darwin-memo reads its store (Python's
// json.loads). A key already there keeps its place; a new one goes last. nil data removes the
// key. A key the store owns (OwnKey) is refused.
func (x *Extensions) Set(key string, data []byte) error {
	if OwnKey(key) {
		return fmt.Errorf("%q is a key of the store itself, not an extension", key)
	}
	if data == nil {
		x.members = slices.DeleteFunc(x.members, func(mb pyjson.Member) bool { return mb.Key == key })
		return nil
	}
	v, err := pyjson.Parse("extension "+key, data)
	if err != nil {
		return err
	}
	x.members = pyjson.SetMember(x.members, key, v)
	return nil
}

// Write writes each extension but those in skip to w as members of the object w is in, after
// the members already written.
func (x Extensions) Write(w *pyjson.Writer, skip []string) {
	for _, mb := range x.members {
		if !slices.Contains(skip, mb.Key) {
			w.Field(mb.Key)
			w.Value(mb.Value)
		}
	}
}
