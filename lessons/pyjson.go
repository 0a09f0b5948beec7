package lessons

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// This file holds the byte-level JSON layer: a writer that reproduces Python's
// json.dumps(obj, indent=2) (ensure_ascii, float repr) and a small generic value
// type for the parts of a store that are carried through untouched.

// kind is the JSON type of a value.
type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

func (k kind) String() string {
	switch k {
	case kNull:
		return "null"
	case kBool:
		return "bool"
	case kNumber:
		return "number"
	case kString:
		return "string"
	case kArray:
		return "array"
	default:
		return "object"
	}
}

// value is a generic JSON value that keeps object key order and the Python
// spelling of numbers, so it re-serialises exactly as darwin-memo would.
type value struct {
	k   kind
	b   bool
	s   string // string contents, or the number's Python spelling
	isF bool   // number is a float (has fraction or exponent)
	arr []value
	obj []member
}

// member is one key of an object value.
type member struct {
	key string
	val value
}

func vNull() value                 { return value{k: kNull} }
func vBool(b bool) value           { return value{k: kBool, b: b} }
func vStr(s string) value          { return value{k: kString, s: s} }
func vInt(i int) value             { return value{k: kNumber, s: strconv.Itoa(i)} }
func vFloat(f float64) value       { return value{k: kNumber, s: pyFloat(f), isF: true} }
func vObj(ms ...member) value      { return value{k: kObject, obj: ms} }
func vArr(vs ...value) value       { return value{k: kArray, arr: vs} }
func m(key string, v value) member { return member{key, v} }

func vStrs(ss []string) value {
	vs := make([]value, len(ss))
	for i, s := range ss {
		vs[i] = vStr(s)
	}
	return value{k: kArray, arr: vs}
}

// get returns the member named key of an object value.
func (v value) get(key string) (value, bool) {
	if v.k != kObject {
		return value{}, false
	}
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].key == key {
			return v.obj[i].val, true
		}
	}
	return value{}, false
}

func (v value) str(key string) string {
	x, ok := v.get(key)
	if !ok || x.k != kString {
		return ""
	}
	return x.s
}

// intField returns an integer member (Python int, not bool).
func (v value) intField(key string) (int, bool) {
	x, ok := v.get(key)
	if !ok || x.k != kNumber || x.isF {
		return 0, false
	}
	i, err := strconv.Atoi(x.s)
	return i, err == nil
}

// numField returns a numeric member as float64.
func (v value) numField(key string) (float64, bool) {
	x, ok := v.get(key)
	if !ok || x.k != kNumber {
		return 0, false
	}
	return x.float(), true
}

func (v value) float() float64 {
	switch v.s {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(v.s, 64)
	return f
}

// pyFloat formats f exactly as Python's repr(float) does (and so json.dumps).
func pyFloat(f float64) string { return string(appendPyFloat(nil, f)) }

// appendPyFloat appends Python's repr(float) of f.
func appendPyFloat(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(buf, "-0.0"...)
		}
		return append(buf, "0.0"...)
	}
	// Shortest round-trip digits and decimal exponent.
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // e.g. -3.191891195797325e-16
	if e[0] == '-' {
		buf = append(buf, '-')
		e = e[1:]
	}
	ep := bytes.IndexByte(e, 'e')
	mant, exp := e[:ep], e[ep+1:]
	var dbuf [24]byte
	digits := append(dbuf[:0], mant[0])
	if len(mant) > 2 {
		digits = append(digits, mant[2:]...)
	}
	x := 0
	neg := exp[0] == '-'
	for _, c := range exp[1:] {
		x = x*10 + int(c-'0')
	}
	if neg {
		x = -x
	}
	decpt := x + 1 // position of the decimal point relative to digits
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			buf = append(buf, '0', '.')
			for i := 0; i < -decpt; i++ {
				buf = append(buf, '0')
			}
			buf = append(buf, digits...)
		case decpt >= len(digits):
			buf = append(buf, digits...)
			for i := len(digits); i < decpt; i++ {
				buf = append(buf, '0')
			}
			buf = append(buf, '.', '0')
		default:
			buf = append(buf, digits[:decpt]...)
			buf = append(buf, '.')
			buf = append(buf, digits[decpt:]...)
		}
		return buf
	}
	buf = append(buf, digits[0])
	if len(digits) > 1 {
		buf = append(buf, '.')
		buf = append(buf, digits[1:]...)
	}
	buf = append(buf, 'e')
	if x < 0 {
		buf = append(buf, '-')
		x = -x
	} else {
		buf = append(buf, '+')
	}
	if x < 10 {
		buf = append(buf, '0')
	}
	return strconv.AppendInt(buf, int64(x), 10)
}

// round6 is Python's round(x, 6) for finite x.
func round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 6, 64), 64)
	return r
}

// pyWriter appends Python-formatted JSON to a byte slice.
type pyWriter struct {
	buf    []byte
	indent int // current depth
	pretty bool
	out    io.Writer // if set, flush sends buf here in chunks
	n      int64     // bytes flushed
	err    error     // first write error
}

// flush sends the buffer to out once it holds a chunk (or always if force).
// After a write error the rest is dropped as it comes, so it is not held.
// stopped reports that a streaming writer's output failed: what follows would be discarded,
// so long loops stop writing.
func (w *pyWriter) stopped() bool { return w.out != nil && w.err != nil }

func (w *pyWriter) flush(force bool) {
	if w.out != nil && w.err != nil {
		w.buf = w.buf[:0]
		return
	}
	if w.out == nil || (!force && len(w.buf) < 1<<16) {
		return
	}
	n, err := w.out.Write(w.buf)
	w.n += int64(n)
	w.err = err
	w.buf = w.buf[:0]
}

const hexdigits = "0123456789abcdef"

// str writes s as a JSON string with Python's ensure_ascii escaping. Lone
// surrogates carried in WTF-8 form (ED A0..BF xx) are written back as \udXXX.
func (w *pyWriter) str(s string) {
	w.buf = appendPyString(w.buf, s)
}

func appendPyString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		if c < 0x80 {
			switch c {
			case '"':
				buf = append(buf, '\\', '"')
			case '\\':
				buf = append(buf, '\\', '\\')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				buf = appendU(buf, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			// WTF-8 surrogate (only produced by our parser for \udXXX escapes).
			if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
				r = rune(0xD000) | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				size = 3
			} else {
				r, size = utf8.RuneError, 1
			}
		}
		if r >= 0x10000 {
			r -= 0x10000
			buf = appendU(buf, 0xD800+(r>>10))
			buf = appendU(buf, 0xDC00+(r&0x3FF))
		} else {
			buf = appendU(buf, r)
		}
		i += size
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

func appendU(buf []byte, r rune) []byte {
	return append(buf, '\\', 'u', hexdigits[(r>>12)&0xF], hexdigits[(r>>8)&0xF], hexdigits[(r>>4)&0xF], hexdigits[r&0xF])
}

func (w *pyWriter) nl() {
	if !w.pretty {
		return
	}
	w.buf = append(w.buf, '\n')
	for i := 0; i < w.indent; i++ {
		w.buf = append(w.buf, ' ', ' ')
	}
}

// open starts a container; close ends it. Empty containers are written by
// the callers as "[]" / "{}".
func (w *pyWriter) open(c byte) { w.buf = append(w.buf, c); w.indent++; w.nl() }
func (w *pyWriter) close(c byte) {
	w.indent--
	w.nl()
	w.buf = append(w.buf, c)
}
func (w *pyWriter) sep() {
	w.buf = append(w.buf, ',')
	if !w.pretty {
		w.buf = append(w.buf, ' ')
	}
	w.nl()
}
func (w *pyWriter) key(k string) {
	w.str(k)
	w.buf = append(w.buf, ':', ' ')
}

// field separates the next object member from the previous one and writes its key.
func (w *pyWriter) field(k string) {
	w.sep()
	w.key(k)
}

func (w *pyWriter) float(f float64) { w.buf = appendPyFloat(w.buf, f) }
func (w *pyWriter) int(i int)       { w.buf = strconv.AppendInt(w.buf, int64(i), 10) }
func (w *pyWriter) bool(b bool) {
	if b {
		w.buf = append(w.buf, "true"...)
	} else {
		w.buf = append(w.buf, "false"...)
	}
}
func (w *pyWriter) strs(ss []string) {
	if len(ss) == 0 {
		w.buf = append(w.buf, '[', ']')
		return
	}
	w.open('[')
	for i, s := range ss {
		if i > 0 {
			w.sep()
		}
		w.str(s)
	}
	w.close(']')
}

// value writes a generic value.
func (w *pyWriter) value(v value) {
	switch v.k {
	case kNull:
		w.buf = append(w.buf, "null"...)
	case kBool:
		w.bool(v.b)
	case kNumber:
		w.buf = append(w.buf, v.s...)
	case kString:
		w.str(v.s)
	case kArray:
		if len(v.arr) == 0 {
			w.buf = append(w.buf, '[', ']')
			return
		}
		w.open('[')
		for i, x := range v.arr {
			if i > 0 {
				w.sep()
			}
			w.value(x)
		}
		w.close(']')
	case kObject:
		if len(v.obj) == 0 {
			w.buf = append(w.buf, '{', '}')
			return
		}
		w.open('{')
		for i, x := range v.obj {
			if i > 0 {
				w.sep()
			}
			w.key(x.key)
			w.value(x.val)
		}
		w.close('}')
	}
}

// compactPy renders v as Python's json.dumps(v) with default separators.
func compactPy(v value) []byte {
	w := pyWriter{}
	w.value(v)
	return w.buf
}
