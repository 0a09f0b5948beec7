package lessons

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The fast paths of the merge accept only what the decoder's walk accepts, and end where it
// ends: checked on store documents and on random damage to them.
func TestMergeFastPathsAgreeWithParser(t *testing.T) {
	docs := []string{
		`{"config": {"max_energy": 5.0}, "entries": [{"question": "q", "answer": "a\"b\\u00e9", "id": "x1", "energy": -1.5e3, "lineage": [], "tags": {}}], "graveyard": [], "ledger": {"history": {"x1": [{"tick": 1, "evidence": null, "ok": true}]}}}`,
		`[1, 2.5, NaN, -Infinity, "s", {"k": [[], {}]}, true, false, null]`,
		`{"id": "a", "id": "b", "x": {"id": "c"}}`,
		`{"question": "q", "answer": "a"}`,
		`{"é": 1, "id": "z"}`,
		`{"k\u00e9y": 1, "id": "z"}`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "{}[]\",:\\ \n0-1.eENaIy\x01\xc3\xa9tfu"
	for _, doc := range docs {
		for n := 0; n < 4000; n++ {
			b := []byte(doc)
			if n > 0 {
				for k := 0; k < 1+r.IntN(3); k++ {
					i := r.IntN(len(b))
					switch r.IntN(3) {
					case 0:
						b[i] = alphabet[r.IntN(len(alphabet))]
					case 1:
						b = append(b[:i], b[i+1:]...)
					default:
						b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
					}
					if len(b) == 0 {
						b = []byte("0")
					}
				}
			}
			checkEntryIDQuick(t, b)
		}
	}
}

// storeObject reads what rawObject and entryIndex read, errors included, and the ledger and
// its history as rawObject reads them.
func TestStoreObjectAgreesWithRawObject(t *testing.T) {
	doc := `{"config": {"max_energy": 5.0}, "entries": [{"question": "q", "answer": "a", "id": "x1"}, {"id": "x2", "energy": 1}], "graveyard": [{"id": "x1", "answer": "dead"}], ` +
		`"ledger": {"tick_count": 3, "history": {"x1": [{"tick": 1}], "x2": []}, "pending": []}, "action": {"a": [1]}}`
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "{}[]\",:\\ \n0-1.eidx\x01\xc3"
	same := func(a, b *rawObj) bool {
		if len(a.keys) != len(b.keys) {
			return false
		}
		for i, k := range a.keys {
			if b.keys[i] != k || string(a.vals[k]) != string(b.vals[k]) {
				return false
			}
		}
		return true
	}
	for n := 0; n < 20000; n++ {
		b := []byte(doc)
		if n > 0 {
			for k := 0; k < 1+r.IntN(2); k++ {
				i := r.IntN(len(b))
				switch r.IntN(3) {
				case 0:
					b[i] = alphabet[r.IntN(len(alphabet))]
				case 1:
					b = append(b[:i], b[i+1:]...)
				default:
					b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
				}
			}
		}
		want, werr := rawObject(b)
		got, gerr := storeObject(b)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%q: storeObject %v, rawObject %v", b, gerr, werr)
		}
		if werr != nil {
			continue
		}
		if !same(got, want) {
			t.Fatalf("%q: members differ", b)
		}
		wi, wl, wd, wierr := entryIndex(want)
		gi, gl, gd, gierr := entryIndex(got)
		if fmt.Sprint(wierr) != fmt.Sprint(gierr) || fmt.Sprint(wl, wd) != fmt.Sprint(gl, gd) || len(wi) != len(gi) {
			t.Fatalf("%q: entryIndex %v %v %v, want %v %v %v", b, gierr, gl, gd, wierr, wl, wd)
		}
		for id, e := range wi {
			if g := gi[id]; g.place != e.place || string(g.raw) != string(e.raw) {
				t.Fatalf("%q: entry %s differs", b, id)
			}
		}
		if l := got.obj("ledger"); l != nil {
			wl, err := rawObject(got.vals["ledger"])
			if err != nil || !same(l, wl) {
				t.Fatalf("%q: ledger read differs (%v)", b, err)
			}
			if h := l.obj("history"); h != nil {
				wh, err := rawObject(l.vals["history"])
				if err != nil || !same(h, wh) {
					t.Fatalf("%q: history read differs (%v)", b, err)
				}
			}
		}
	}
}

// SameExcept compares two stores as they are written, ignoring the keys named: equal,
// different early or late, one a prefix of the other, the same store, and the extensions
// restored after.
func TestSameExcept(t *testing.T) {
	mk := func(extra string, n int) *Store {
		s := New("s", Options{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
		for i := 0; i < n; i++ {
			if _, err := s.Add(NewLesson{Question: fmt.Sprintf("question %d about the build", i), Answer: fmt.Sprintf("answer %d: run make", i)}); err != nil {
				t.Fatal(err)
			}
		}
		if extra != "" {
			if err := s.SetExtension("x-record", []byte(extra)); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	big := mk(`{"a": 1}`, 3000)
	for _, tt := range []struct {
		a, b *Store
		same bool
	}{
		{big, mk(`{"a": 2}`, 3000), true},
		{big, mk("", 3000), true},
		{big, big, true},
		{big, mk(`{"a": 1}`, 2999), false},
		{mk("", 2999), big, false},
		{mk("", 0), mk("", 1), false},
	} {
		if got := tt.a.SameExcept(tt.b, "x-record"); got != tt.same {
			t.Errorf("SameExcept = %v, want %v", got, tt.same)
		}
	}
	if v, ok := big.Extension("x-record"); !ok || string(v) != `{"a": 1}` {
		t.Fatalf("extension not restored: %s %v", v, ok)
	}
	if mk(`{"a": 1}`, 3).SameExcept(mk(`{"a": 2}`, 3)) {
		t.Fatal("the record counts when not named")
	}
	last := mk("", 3000)
	last.Living()[2999].Energy += 1
	if big.SameExcept(last, "x-record") {
		t.Fatal("a change in the last lesson went unseen")
	}
}

// TestMergeStoreMatchesMergeThenParse: MergeStore, which parses the merged document's ledger on
// another core at the offset the merge wrote it, loads the store that parsing Merge's output
// loads, on a store large enough for the concurrent reads (storeObjects, speculate); and
// a wrong offset only costs the speculation.
func TestMergeStoreMatchesMergeThenParse(t *testing.T) {
	base := benchStoreBytes(t, 2000)
	fixed := fixedClock()
	side := func(edit func(*Store)) []byte { return editedDoc(t, base, edit) }
	ours := side(func(s *Store) {
		p := s.Pending()[0]
		if r := s.Settle(p.ID, 1, SettleOptions{Source: "ci"}); !r.Landed {
			t.Fatalf("settle: %+v", r)
		}
		s.Tick(TickOptions{})
	})
	theirs := side(func(s *Store) {
		s.Pin(s.Living()[7].ID)
		s.Forget(s.Living()[9].ID)
	})
	doc, at, err := mergeDocs(base, ours, theirs, nil)
	ledgerAt := at.ledgerAt
	if err != nil {
		t.Fatal(err)
	}
	if len(doc) < 1<<20 {
		t.Fatalf("the merged document is %d bytes, below the concurrent paths' 1 MB", len(doc))
	}
	if ledgerAt < 0 || !bytes.HasPrefix(doc[ledgerAt:], []byte("{")) || !bytes.HasSuffix(doc[:ledgerAt], []byte(`"ledger":`)) {
		t.Fatalf("ledger offset %d does not point at the ledger's value", ledgerAt)
	}
	want := func(s *Store, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	merged, err := Merge(base, ours, theirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := want(ParseWith("x", merged, fixed))
	for name, got := range map[string][]byte{
		"MergeStore":          want(MergeStore("x", base, ours, theirs, nil, fixed)),
		"parseAt offsets":     want(parseAt("x", doc, fixed, at)),
		"parseAt ledger":      want(parseAt("x", doc, fixed, parseHints{ledgerAt: ledgerAt, entryAt: noOffset})),
		"parseAt wrong guess": want(parseAt("x", doc, fixed, parseHints{ledgerAt: ledgerAt - 3, entryAt: at.entryAt + 1})),
		"parseAt no guess":    want(parseAt("x", doc, fixed, unknownOffsets())),
		"parseAt sequential":  want(parseAt("x", doc, fixed, parseHints{ledgerAt: ledgerAt, entryAt: at.entryAt, mode: specOff})),
	} {
		if !bytes.Equal(got, ref) {
			t.Errorf("%s: the store differs from parsing Merge's document", name)
		}
	}
}

// fixedClock is the options the merge's tests and benchmarks load stores with: a fixed clock,
// so the documents they edit are the same on every run.
func fixedClock() Options {
	return Options{Now: func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }}
}

// editedDoc returns doc loaded with fixedClock, changed by edit and written again: one side of
// a merge.
func editedDoc(tb testing.TB, doc []byte, edit func(*Store)) []byte {
	tb.Helper()
	s, err := ParseWith("x", doc, fixedClock())
	if err != nil {
		tb.Fatal(err)
	}
	edit(s)
	out, err := s.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
