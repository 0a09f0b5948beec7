package pyjson

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// FloatString formats f exactly as Python's repr(float) does (and so
// json.dumps).
func FloatString(f float64) string { return string(AppendFloat(nil, f)) }

// AppendFloat appends Python's repr(float) of f.
func AppendFloat(buf []byte, f float64) []byte {
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

// Writer appends JSON in Python's formatting to a buffer: json.dumps with
// indent=2 (NewWriter, NewStreamWriter) or with default separators
// (Compact). Containers are written with Open, Sep and Close; empty ones by
// the caller as "[]" or "{}" (Raw), as json.dumps writes them.
type Writer struct {
	buf    []byte
	indent int // current depth
	pretty bool
	out    io.Writer // if set, Flush sends buf here in chunks
	n      int64     // bytes flushed
	err    error     // first write error
}

// NewWriter returns a json.dumps(indent=2) writer appending to buf, at
// nesting depth depth (0 for a document).
func NewWriter(buf []byte, depth int) *Writer {
	return &Writer{buf: buf, indent: depth, pretty: true}
}

// NewStreamWriter returns a json.dumps(indent=2) writer that sends its
// output to out in chunks of about size bytes: call Flush between parts of
// the document and Done at its end.
func NewStreamWriter(out io.Writer, size int) *Writer {
	return &Writer{buf: make([]byte, 0, size), pretty: true, out: out}
}

// Bytes returns what has been written (and not yet flushed).
func (w *Writer) Bytes() []byte { return w.buf }

// Stopped reports that a stream writer's output failed: what follows would
// be discarded, so long loops may stop writing.
func (w *Writer) Stopped() bool { return w.out != nil && w.err != nil }

// Flush sends the buffer of a stream writer to its output once it holds a
// chunk. After a write error the rest is dropped as it comes, so it is not
// held.
func (w *Writer) Flush() { w.flush(false) }

// Send sends everything a stream writer holds to its output now, however
// little (a writer of a buffer keeps it): a caller about to do costly work
// for the rest of a document lets the reader stop it first (Stopped).
func (w *Writer) Send() { w.flush(true) }

// Done sends what is left to a stream writer's output and returns the bytes
// sent and the first write error.
func (w *Writer) Done() (int64, error) {
	w.flush(true)
	return w.n, w.err
}

func (w *Writer) flush(force bool) {
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

// String writes s as a JSON string with Python's ensure_ascii escaping.
func (w *Writer) String(s string) {
	w.buf = AppendString(w.buf, s)
}

// AppendString appends s as a JSON string with Python's ensure_ascii
// escaping. Lone surrogates carried in WTF-8 form (ED A0..BF xx, as the
// Decoder reads \udXXX escapes) are written back as \udXXX.
func AppendString(buf []byte, s string) []byte {
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
			// WTF-8 surrogate (only produced by the Decoder for \udXXX escapes).
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

func (w *Writer) nl() {
	if !w.pretty {
		return
	}
	w.buf = append(w.buf, '\n')
	for i := 0; i < w.indent; i++ {
		w.buf = append(w.buf, ' ', ' ')
	}
}

// Open starts a non-empty container ('[' or '{').
func (w *Writer) Open(c byte) { w.buf = append(w.buf, c); w.indent++; w.nl() }

// Close ends a container (']' or '}').
func (w *Writer) Close(c byte) {
	w.indent--
	w.nl()
	w.buf = append(w.buf, c)
}

// Sep separates two elements or members.
func (w *Writer) Sep() {
	w.buf = append(w.buf, ',')
	if !w.pretty {
		w.buf = append(w.buf, ' ')
	}
	w.nl()
}

// Key writes an object member's key and its colon.
func (w *Writer) Key(k string) {
	w.String(k)
	w.buf = append(w.buf, ':', ' ')
}

// Field separates the next object member from the previous one and writes
// its key.
func (w *Writer) Field(k string) {
	w.Sep()
	w.Key(k)
}

// Raw appends s as it is: JSON the caller formatted (for example a value
// Render returned at the same depth).
func (w *Writer) Raw(s string) { w.buf = append(w.buf, s...) }

// Float writes f as Python's repr(f).
func (w *Writer) Float(f float64) { w.buf = AppendFloat(w.buf, f) }

// Int writes the integer i.
func (w *Writer) Int(i int) { w.buf = strconv.AppendInt(w.buf, int64(i), 10) }

// Bool writes true or false.
func (w *Writer) Bool(b bool) {
	if b {
		w.buf = append(w.buf, "true"...)
	} else {
		w.buf = append(w.buf, "false"...)
	}
}

// Value writes v.
func (w *Writer) Value(v Value) {
	switch v.k {
	case KindNull:
		w.buf = append(w.buf, "null"...)
	case KindBool:
		w.Bool(v.b)
	case KindNumber:
		w.buf = append(w.buf, v.s...)
	case KindString:
		w.String(v.s)
	case KindArray:
		if len(v.arr) == 0 {
			w.buf = append(w.buf, '[', ']')
			return
		}
		w.Open('[')
		for i, x := range v.arr {
			if i > 0 {
				w.Sep()
			}
			w.Value(x)
		}
		w.Close(']')
	case KindObject:
		if len(v.obj) == 0 {
			w.buf = append(w.buf, '{', '}')
			return
		}
		w.Open('{')
		for i, x := range v.obj {
			if i > 0 {
				w.Sep()
			}
			w.Key(x.Key)
			w.Value(x.Value)
		}
		w.Close('}')
	}
}

// Compact renders v as Python's json.dumps(v) with default separators
// (", " and ": ", on one line).
func Compact(v Value) []byte {
	w := Writer{}
	w.Value(v)
	return w.buf
}
