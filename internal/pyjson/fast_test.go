package pyjson

import (
	"strings"
	"testing"
)

// checkSkipStrict: Skip accepts what Value accepts, and ends where it ends.
func checkSkipStrict(t *testing.T, b []byte) {
	s := NewDecoder("t", b)
	serr := s.Skip()
	v := NewDecoder("t", b)
	_, verr := v.Value()
	if (serr == nil) != (verr == nil) || serr == nil && s.pos != v.pos {
		t.Fatalf("%q: Skip %v at %d, Value %v at %d", b, serr, s.pos, verr, v.pos)
	}
}

func TestSkipStrictQuick(t *testing.T) {
	for _, doc := range []string{
		`{"a": "x\"y\u00e9\ud800\ud83d\ude00", "b": ["caf` + "\xc3\xa9" + `", "\x"], "c": 1}`,
		`["\u12G4"]`, `["` + "\xed\xa0\x80" + `"]`, `["` + "\xed\xa0\x80" + `\n"]`, `["\ud800` + "\xed\xb0\x80" + `"]`,
		`["ok", "bad` + "\xff" + `"]`, `{"k": "v` + "\x01" + `"}`, `{"k\u0041": "v\n"}`, `{"a": [1, 2.5e3, NaN, -Infinity, true, null, {}]}`,
		`"\\\/\b\f\n\r\t"`, `"unterminated \"`, `["a\"]`, `[` + strings.Repeat(`[`, 70) + `"\n"` + strings.Repeat(`]`, 70) + `]`,
	} {
		checkSkipStrict(t, []byte(doc))
	}
	checkSkipStrict(t, storeLikeDoc(20))
}
