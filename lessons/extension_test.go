package lessons

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// MarshalSame compares two stores as they are written, ignoring the keys named: equal,
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
	n := exhaustive.Or(300, 3000) // lessons in the large stores
	big := mk(`{"a": 1}`, n)
	for _, tt := range []struct {
		a, b *Store
		same bool
	}{
		{big, mk(`{"a": 2}`, n), true},
		{big, mk("", n), true},
		{big, big, true},
		{big, mk(`{"a": 1}`, n-1), false},
		{mk("", n-1), big, false},
		{mk("", 0), mk("", 1), false},
	} {
		if got := sameExcept(tt.a, tt.b, "x-record"); got != tt.same {
			t.Errorf("same = %v, want %v", got, tt.same)
		}
	}
	if v, ok := big.Extension("x-record"); !ok || string(v) != `{"a": 1}` {
		t.Fatalf("extension not restored: %s %v", v, ok)
	}
	if sameExcept(mk(`{"a": 1}`, 3), mk(`{"a": 2}`, 3)) {
		t.Fatal("the record counts when not named")
	}
	last := mk("", n)
	last.Living()[n-1].Energy += 1
	if sameExcept(big, last, "x-record") {
		t.Fatal("a change in the last lesson went unseen")
	}
}

// A lazy store, which renders its notes while it is written, is the same as itself.
func TestSameExceptLazyStoreWithItself(t *testing.T) {
	data := benchStoreBytes(t, 50)
	s, err := ParseWith("x", data, Options{LazyHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.notes.kept == nil {
		t.Fatal("the lazy load kept no history bytes")
	}
	if !sameExcept(s, s) {
		t.Fatal("a store differs from itself")
	}
}

// MarshalSame returns Marshal's bytes, and the answer sameExcept gives with the stores swapped.
func TestMarshalSame(t *testing.T) {
	data := benchStoreBytes(t, 50)
	load := func(record string) *Store {
		s, err := ParseWith("x", data, Options{LazyHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		if record != "" {
			if err := s.SetExtension("x-record", []byte(record)); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	changed := load("")
	changed.Living()[40].Energy += 1
	for _, tt := range []struct {
		name string
		s, o *Store
		keys []string
		same bool
	}{
		{"records differ, left out", load(`{"a": 1}`), load(`{"a": 2}`), []string{"x-record"}, true},
		{"records differ, counted", load(`{"a": 1}`), load(`{"a": 2}`), nil, false},
		{"one has no record", load(`{"a": 1}`), load(""), []string{"x-record"}, true},
		{"a lesson differs", load(`{"a": 1}`), changed, []string{"x-record"}, false},
		{"other is longer", load(""), load(`{"a": 1}`), nil, false},
		{"other is shorter", load(`{"a": 1}`), load(""), nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tt.s.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			doc, same, err := tt.s.MarshalSame(tt.o, tt.keys...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(doc, want) {
				t.Error("MarshalSame's document is not Marshal's")
			}
			if same != tt.same || sameExcept(tt.o, tt.s, tt.keys...) != tt.same {
				t.Errorf("same = %v, want %v", same, tt.same)
			}
		})
	}
}

// sameExcept reports whether a and b write the same bytes once the extension keys named are
// left out of both (MarshalSame's answer).
func sameExcept(a, b *Store, keys ...string) bool {
	_, same, err := b.MarshalSame(a, keys...)
	return err == nil && same
}
