package storedoc

import "github.com/darwin-memo/darwin-memo-action/internal/pyjson"

// ExtensionOf returns the value of one top-level key of a store document as compact JSON in
// Python's spelling, without loading the store: the document only has to be a JSON object
// (Python's json.loads grammar), so a store whose lessons do not load still gives it. ok is
// false when the key is absent.
func ExtensionOf(name string, doc []byte, key string) (value []byte, ok bool, err error) {
	p := pyjson.NewDecoder(name, doc)
	if err := p.Expect(pyjson.KindObject, "a JSON object"); err != nil {
		return nil, false, err
	}
	var found []byte
	err = p.Object(func(k string) error {
		if k != key {
			return p.Skip()
		}
		v, err := p.Value()
		if err == nil {
			found = pyjson.Compact(v) // a repeated key: the last value wins, as in Python
		}
		return err
	})
	if err == nil {
		err = p.End()
	}
	if err != nil {
		return nil, false, err
	}
	return found, found != nil, nil
}
