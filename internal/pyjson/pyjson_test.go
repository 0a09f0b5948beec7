package pyjson

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestFloatString(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1, "1.0"}, {1e-05, "1e-05"}, {0.0001, "0.0001"}, {-3.191891195797325e-16, "-3.191891195797325e-16"},
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {123456789012345678, "1.2345678901234568e+17"},
		{0.1, "0.1"}, {5, "5.0"}, {math.Copysign(0, -1), "-0.0"}, {0.2772703, "0.2772703"}, {1.5e300, "1.5e+300"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"}, {2.5, "2.5"},
		{0.049999999999999684, "0.049999999999999684"}, {1234.5, "1234.5"}, {9999999999999998, "9999999999999998.0"},
	}
	for _, tt := range tests {
		if got := FloatString(tt.in); got != tt.want {
			t.Errorf("FloatString(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"é", `"\u00e9"`},
		{"😀", `"\ud83d\ude00"`},
		{"a\"b\\c\n\t\r\b\f", `"a\"b\\c\n\t\r\b\f"`},
		{"\x01\x7f", `"\u0001\u007f"`},
		{"/", `"/"`},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("escape(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseKeepsPythonSpelling(t *testing.T) {
	in := `{"b": [1, 2.50, -0, 1E3, 1e400, NaN, -Infinity, "\ud800x\u00e9\ud83d\ude00"], "a": {}, "c": [], "d": null, "e": true, "b": false}`
	v, err := Parse("t", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b": false, "a": {}, "c": [], "d": null, "e": true}`
	if got := string(Compact(v)); got != want {
		t.Errorf("Compact = %s\nwant      %s", got, want)
	}
	v, err = Parse("t", []byte(`[1, 2.50, -0, 1E3, 1e400, NaN, -Infinity, "\ud800x\u00e9\ud83d\ude00"]`))
	if err != nil {
		t.Fatal(err)
	}
	want = `[1, 2.5, 0, 1000.0, Infinity, NaN, -Infinity, "\ud800x\u00e9\ud83d\ude00"]`
	if got := string(Compact(v)); got != want {
		t.Errorf("Compact = %s\nwant      %s", got, want)
	}
	if i, ok := v.Elems()[0].Int(); !ok || i != 1 {
		t.Errorf("Int() = %d, %v", i, ok)
	}
	if _, ok := v.Elems()[1].Int(); ok || !v.Elems()[1].IsFloat() {
		t.Errorf("2.50 reads as an int")
	}
	if f, ok := v.Elems()[5].Num(); !ok || !math.IsNaN(f) {
		t.Errorf("NaN reads as %v, %v", f, ok)
	}
}

func TestIndent(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":[1,{"b":[]}],"c":{}}`, "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    }\n  ],\n  \"c\": {}\n}"},
		// A repeated key keeps its first place and its last value, as json.loads does.
		{`{"a": 1, "b": {"x": 1, "x": 2}, "a": 3}`, "{\n  \"a\": 3,\n  \"b\": {\n    \"x\": 2\n  }\n}"},
		{` "\u00e9" `, `"\u00e9"`},
	} {
		got, err := indent("t", []byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("indent(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := indent("t", []byte(`{"a": 1} x`)); err == nil {
		t.Error("Indent accepted extra data")
	}
}

func TestErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\"a\": [1,\n  2,, 3]}", "t:2:5: invalid JSON: unexpected character ',', expected a value"},
		{`{"a": "abc`, "t:1:7: invalid JSON: unterminated string"},
		{`{"a": "\x"}`, `t:1:8: invalid JSON: invalid escape '\x'`},
		{`{"a": 1} 2`, "t:1:10: invalid JSON: extra data after the JSON value"},
		{`[01]`, "t:1:3: invalid JSON: expected ',' or ']' in array"},
		// Surrogates come from escapes only: their UTF-8 form in the document is refused as
		// json.loads refuses it, with an escape in the string or without (with one, the
		// bytes were once accepted, and "\ud800" then read back as the pair "\ud800\udc00").
		{`["` + "\xed\xa0\x80" + `"]`, "t:1:2: invalid JSON: string is not valid UTF-8"},
		{`["\n` + "\xed\xa0\x80" + `"]`, "t:1:2: invalid JSON: string is not valid UTF-8"},
		{`["\ud800` + "\xed\xb0\x80" + `"]`, "t:1:2: invalid JSON: string is not valid UTF-8"},
		{`["\u00e9` + "\xc3" + `\n` + "\xa9" + `"]`, "t:1:2: invalid JSON: string is not valid UTF-8"},
	} {
		_, err := Parse("t", []byte(tt.in))
		var e *Error
		if !errors.As(err, &e) || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, want %s", tt.in, err, tt.want)
		}
	}
	d := NewDecoder("t", []byte(`{"a": {"b c": [0, "x"]}}`))
	err := d.Object(func(string) error {
		return d.Object(func(string) error {
			return d.Array(func(i int) error {
				if i == 0 {
					return d.Skip()
				}
				_, err := d.Int()
				return err
			})
		})
	})
	if want := `t: $.a["b c"][1]: expected an integer, got string`; err == nil || err.Error() != want {
		t.Errorf("structural error = %v, want %s", err, want)
	}
}

func FuzzSkip(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2.5e-3, NaN, "x\"y", {"b": null}], "c": true}`))
	f.Add([]byte(`[{"id": "a\u00e9"}, -Infinity, -0, "\ud800"]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSkipStrict(t, b)
	})
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"b": [1, 2.50, -0, 1E3, 1e400, NaN, -Infinity, "\ud800x\u00e9\ud83d\ude00"], "a": {}, "b": false}`))
	f.Add([]byte(`[[], {}, "", 0, 1e-7, -1.5E+300, true, null, "\\\/\b\f\n\r\t"]`))
	f.Add([]byte(`{"x": {"x": {"x": [1, {"y": 2, "y": 3}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse("t", b)
		if err != nil {
			return
		}
		// Compact and Indent write what reads back as the same value, and the two agree.
		c := Compact(v)
		vc, err := Parse("t", c)
		if err != nil || !vc.Equal(v) {
			t.Fatalf("Compact gives %s (%v), which does not read back as the value of %q", c, err, b)
		}
		ind, err := indent("t", b)
		if err != nil {
			t.Fatalf("Indent of a valid document: %v", err)
		}
		vi, err := Parse("t", ind)
		if err != nil || !vi.Equal(v) {
			t.Fatalf("Indent gives %s (%v), which does not read back as the value of %q", ind, err, b)
		}
		w := NewWriter(nil, 0)
		w.Value(v)
		if !bytes.Equal(w.Bytes(), ind) {
			t.Fatalf("Indent and Writer.Value disagree:\n%s\n---\n%s", ind, w.Bytes())
		}
		again, _ := indent("t", ind)
		if !bytes.Equal(again, ind) {
			t.Fatalf("Indent is not stable:\n%s\n---\n%s", ind, again)
		}
		// Render at a depth agrees with the generic path.
		d := NewDecoder("t", b)
		r, err := d.Render(NewWriter(nil, 0), 3)
		w = NewWriter(nil, 3)
		w.Value(v)
		if err != nil || r != string(w.Bytes()) {
			t.Fatalf("Render gives %q (%v), the generic path %q", r, err, w.Bytes())
		}
	})
}

func TestStreamWriter(t *testing.T) {
	v := Array(Strings([]string{strings.Repeat("x", 1<<17), "é"}), Float(0.1), Int(-3), Bool(true), Null(),
		Object(Pair("k", String("v")), Pair("n", Object())))
	var out bytes.Buffer
	w := NewStreamWriter(&out, 16)
	w.Open('[')
	for i, x := range v.Elems() {
		if i > 0 {
			w.Sep()
		}
		w.Value(x)
		w.Flush()
	}
	w.Close(']')
	n, err := w.Done()
	want := NewWriter(nil, 0)
	want.Value(v)
	if err != nil || n != int64(out.Len()) || !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Errorf("stream wrote %d bytes (%v), want the %d bytes of Value", n, err, len(want.Bytes()))
	}
}

// indent rewrites the JSON document doc as Python's json.dumps(indent=2) writes what
// json.loads reads from it. name labels errors.
func indent(name string, doc []byte) ([]byte, error) {
	v, err := Parse(name, doc)
	if err != nil {
		return nil, err
	}
	w := NewWriter(nil, 0)
	w.Value(v)
	return w.Bytes(), nil
}
