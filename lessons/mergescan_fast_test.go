package lessons

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// checkEntryIDQuick: what entryIDQuick reads, the decoder's walk (entryIDSlow) reads too, and
// it ends where the walk ends; on failure it does not move.
func checkEntryIDQuick(t *testing.T, b []byte) {
	ps := pyjson.NewDecoder("t", b)
	sid, sraw, serr := func() (string, []byte, error) {
		if k, err := ps.Peek(); err != nil || k != pyjson.KindObject {
			return "", nil, err
		}
		return entryIDSlow(ps)
	}()
	pq := pyjson.NewDecoder("t", b)
	id, ok := entryIDQuick(pq)
	if ok && (serr != nil || sraw != nil || sid != id || pq.Pos() != ps.Pos()) {
		t.Fatalf("entryIDQuick read %q (to %d) from %q; the decoder: %q %v at %d", id, pq.Pos(), b, sid, serr, ps.Pos())
	}
	if !ok && pq.Pos() != 0 {
		t.Fatalf("entryIDQuick moved on failure: %q", b)
	}
}

// Repeated ids, ids of other types, ids in nested objects, and a store's entries.
func TestEntryIDQuickCases(t *testing.T) {
	for _, doc := range []string{
		`{"id": 1, "id": "b"}`, `{"id": "b", "id": 1}`, `{"id": "a", "id": "b"}`, `{"id": "a", "id": ""}`,
		`{"x": {"id": "c"}, "question": "q", "answer": "a"}`, `{"id": {"id": "a"}}`, `{"id": ["a"]}`, `  {"id": "a"}  `,
		`{"question": "q", "answer": "a", "kind": "explicit", "sources": ["pr#1"], "energy": 1.5, "born_cycle": 3, "lineage": [], "id": "abc"}`,
		`{"id": "a\u0041"}`, `{"id": "caf` + "\xc3\xa9" + `"}`, `{"i\u0064": "a"}`, `{"id": "a",}`, `{"id": "a"`, `{}`, `[]`,
	} {
		checkEntryIDQuick(t, []byte(doc))
	}
	data := benchStoreBytes(t, 1000)
	p := pyjson.NewDecoder("t", data)
	err := p.Object(func(key string) error {
		if key != "entries" && key != "graveyard" {
			return p.SkipFast()
		}
		return p.Array(func(int) error {
			p.SkipSpace()
			start := p.Pos()
			if err := p.SkipFast(); err != nil {
				return err
			}
			checkEntryIDQuick(t, data[start:p.Pos()])
			if _, ok := entryIDQuick(pyjson.NewDecoder("t", data[start:p.Pos()])); !ok {
				t.Fatalf("a generated entry is not read quickly: %s", data[start:p.Pos()])
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzEntryIDQuick(f *testing.F) {
	f.Add([]byte(`{"question": "q", "answer": "a\"b", "energy": -1.5e3, "lineage": [], "x": {"id": 2}, "id": "x1"}`))
	f.Add([]byte(`{"id": 1, "id": "b"}`))
	f.Fuzz(checkEntryIDQuick)
}
