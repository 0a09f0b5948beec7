package pyjson

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// storeLikeDoc is a document shaped like a lesson store's entries: long
// plain strings (questions and answers), short keys, numbers.
func storeLikeDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"question": "How do I make the flaky retry tests in the scheduler pass again after the timeout change?", "answer": "`)
		b.WriteString(strings.Repeat("Set the retry budget in scheduler/config.go and rerun with -count=1; the timeout is read once at start. ", 9))
		b.WriteString(`", "kind": "explicit", "sources": ["pr:1234"], "energy": 1.2345, "born_cycle": 12, "id": "abcdef012345"}`)
	}
	b.WriteString("]")
	return []byte(b.String())
}

func BenchmarkSkipStrictStore(b *testing.B) {
	doc := storeLikeDoc(2000)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		d := NewDecoder("x", doc)
		if err := d.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkipStrictIndented is BenchmarkSkipStrictStore on the document
// as a store is written (indent=2): whitespace before most tokens.
func BenchmarkSkipStrictIndented(b *testing.B) {
	doc, err := indent("x", storeLikeDoc(2000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		d := NewDecoder("x", doc)
		if err := d.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}

// AppendString writes only printable ASCII (json.dumps's ensure_ascii: DEL
// and everything from 0x80 escaped), and what it writes reads back as the
// string, long plain runs around every kind of byte included.
func FuzzAppendString(f *testing.F) {
	f.Add(strings.Repeat("plain text ", 4) + "\x7f" + strings.Repeat("more text ", 4) + "é\"\\\n")
	f.Add("\xed\xa0\x80" + strings.Repeat("x", 40) + "\U0001F600")
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		for _, c := range out {
			if c < 0x20 || c >= 0x7f {
				t.Fatalf("AppendString(%q) = %q: byte %#x written as it is", s, out, c)
			}
		}
		if !utf8.ValidString(s) {
			return // invalid UTF-8 is written as U+FFFD (a lone surrogate kept), so it does not read back
		}
		d := NewDecoder("t", out)
		got, err := d.strBytes()
		if err != nil || string(got) != s || d.pos != len(out) {
			t.Fatalf("AppendString(%q) = %q reads back as %q (%v)", s, out, got, err)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("Set the retry budget in scheduler/config.go and rerun with -count=1; the timeout is read once at start. ", 10)
	buf := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}
