package pyjson

import (
	"fmt"
	"strings"
	"testing"
)

// keyByStrBytes is what rawKey reads, without its shared key strings.
func keyByStrBytes(data []byte) (string, int, error) {
	d := NewDecoder("t", data)
	b, err := d.StrBytes()
	if err != nil {
		return "", d.pos, err
	}
	return string(b), d.pos, nil
}

func checkKey(t *testing.T, b []byte) {
	if len(b) == 0 || b[0] != '"' {
		b = append([]byte{'"'}, b...)
	}
	want, wpos, werr := keyByStrBytes(b)
	d := NewDecoder("t", b)
	got, err := d.rawKey()
	if fmt.Sprint(err) != fmt.Sprint(werr) || err == nil && (got != want || d.pos != wpos) {
		t.Fatalf("rawKey(%q) = %q at %d (%v), StrBytes gives %q at %d (%v)", b, got, d.pos, err, want, wpos, werr)
	}
}

// rawKey reads what StrBytes reads, with the same errors, for store keys,
// other plain keys, and keys with escapes or bytes that are not plain.
func TestRawKey(t *testing.T) {
	for _, k := range []string{"tick", "ts", "text", "event", "ticket", "credit", "delta", "detail", "source", "evidence", "cause", "uses",
		"last_used_tick", "question", "answer", "kind", "sources", "energy", "born_cycle", "recorded_ts", "last_used_cycle", "lineage", "id",
		"", "x", "tickz", "t\\u0073", "qu\\\"estion", "\\u0069d", "caf\xc3\xa9", "caf\xc3", "a\x00b", "a\x7fb", "\\ud800", "\\x"} {
		checkKey(t, []byte(`"`+k+`": 1`))
		checkKey(t, []byte(`"`+k))
		checkKey(t, []byte(`"`+k+`"`))
	}
}

func FuzzKey(f *testing.F) {
	f.Add([]byte(`"question": "x"`))
	f.Add([]byte(`"last_used_cycle\u0041"`))
	f.Add([]byte("\"caf\xc3\xa9\" x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkKey(t, b)
	})
}

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
