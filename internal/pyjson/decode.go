package pyjson

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Error reports a document that is not valid JSON (json.loads would refuse
// it) or not shaped as its reader expects. Line and Col are set (1-based) for
// syntax errors; Path is the JSON path ($.entries[3].energy) for structural
// errors.
type Error struct {
	File string
	Line int
	Col  int
	Path string
	Msg  string
}

func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&sb, ":%d:%d", e.Line, e.Col)
	}
	sb.WriteString(": ")
	if e.Path != "" {
		sb.WriteString(e.Path)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// pathElem is one step of a JSON path: an object key or an array index.
type pathElem struct {
	key   string
	index int // -1 for keys
}

// Decoder is a streaming recursive-descent JSON reader that accepts exactly
// what Python's json.loads accepts (including NaN and ±Infinity) and reports
// errors with line:column or JSON path. Its methods read the value at the
// current position: Peek tells its kind, Object and Array walk containers,
// Str, Float, Int, Bool, Value and the Skip methods consume it.
type Decoder struct {
	file string
	data []byte
	pos  int
	path []pathElem
	// scratch buffer for strings with escapes
	scratch []byte
	// members is the stack of the members of the objects value is reading: each object's
	// members are gathered here and copied out once, at their number, when it ends.
	members []Member
}

// NewDecoder returns a decoder at the start of data; name labels its errors
// (usually the file name).
func NewDecoder(name string, data []byte) *Decoder {
	return &Decoder{file: name, data: data}
}

// Pos returns the byte offset the decoder is at.
func (d *Decoder) Pos() int { return d.pos }

// Data returns the document.
func (d *Decoder) Data() []byte { return d.data }

func (d *Decoder) pushKey(k string) { d.path = append(d.path, pathElem{key: k, index: -1}) }
func (d *Decoder) pushIndex(i int)  { d.path = append(d.path, pathElem{index: i}) }
func (d *Decoder) pop()             { d.path = d.path[:len(d.path)-1] }

func (d *Decoder) pathString() string {
	var sb strings.Builder
	sb.WriteByte('$')
	for _, e := range d.path {
		if e.index >= 0 {
			fmt.Fprintf(&sb, "[%d]", e.index)
			continue
		}
		if isIdent(e.key) {
			sb.WriteByte('.')
			sb.WriteString(e.key)
		} else {
			sb.WriteByte('[')
			sb.Write(AppendString(nil, e.key))
			sb.WriteByte(']')
		}
	}
	return sb.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Errorf returns an *Error about the shape of the document at the current
// JSON path.
func (d *Decoder) Errorf(format string, args ...any) error {
	return &Error{File: d.file, Path: d.pathString(), Msg: fmt.Sprintf(format, args...)}
}

// SyntaxErrorAt returns an *Error for invalid JSON at byte offset off, with
// its line and column.
func (d *Decoder) SyntaxErrorAt(off int, format string, args ...any) error {
	line, col := 1, 1
	if off > len(d.data) {
		off = len(d.data)
	}
	for i := 0; i < off; i++ {
		if d.data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &Error{File: d.file, Line: line, Col: col, Msg: "invalid JSON: " + fmt.Sprintf(format, args...)}
}

// SkipSpace passes over whitespace.
func (d *Decoder) SkipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// Peek returns the kind of the next value without consuming it.
func (d *Decoder) Peek() (Kind, error) {
	d.SkipSpace()
	if d.pos >= len(d.data) {
		return 0, d.SyntaxErrorAt(d.pos, "unexpected end of input, expected a value")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return KindObject, nil
	case c == '[':
		return KindArray, nil
	case c == '"':
		return KindString, nil
	case c == 't' || c == 'f':
		return KindBool, nil
	case c == 'n':
		return KindNull, nil
	case c == '-' || c >= '0' && c <= '9' || c == 'N' || c == 'I':
		return KindNumber, nil
	default:
		return 0, d.SyntaxErrorAt(d.pos, "unexpected character %q, expected a value", rune(c))
	}
}

// Expect checks the next value's kind, giving a structural error if it
// differs. want names what was expected ("a number").
func (d *Decoder) Expect(k Kind, want string) error {
	got, err := d.Peek()
	if err != nil {
		return err
	}
	if got != k {
		return d.Errorf("expected %s, got %s", want, got)
	}
	return nil
}

// Object iterates the members of an object, calling fn with the decoder
// positioned at each value; fn must consume the value. Duplicate keys are
// passed through (callers keep the last, as Python does).
func (d *Decoder) Object(fn func(key string) error) error {
	d.SkipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return d.SyntaxErrorAt(d.pos, "expected '{'")
	}
	d.pos++
	d.SkipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		d.SkipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.SyntaxErrorAt(d.pos, "expected a double-quoted property name")
		}
		key, err := d.rawString()
		if err != nil {
			return err
		}
		d.SkipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.SyntaxErrorAt(d.pos, "expected ':' after property name")
		}
		d.pos++
		d.pushKey(key)
		if _, err := d.Peek(); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		d.pop()
		d.SkipSpace()
		if d.pos >= len(d.data) {
			return d.SyntaxErrorAt(d.pos, "unexpected end of input in object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.SyntaxErrorAt(d.pos, "expected ',' or '}' in object")
		}
	}
}

// Array iterates the elements of an array, calling fn with the decoder
// positioned at each; fn must consume it.
func (d *Decoder) Array(fn func(i int) error) error {
	d.SkipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '[' {
		return d.SyntaxErrorAt(d.pos, "expected '['")
	}
	d.pos++
	d.SkipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		d.pushIndex(i)
		if _, err := d.Peek(); err != nil {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
		d.pop()
		d.SkipSpace()
		if d.pos >= len(d.data) {
			return d.SyntaxErrorAt(d.pos, "unexpected end of input in array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.SyntaxErrorAt(d.pos, "expected ',' or ']' in array")
		}
	}
}

// rawString parses a string token (a value or an object key) at d.pos.
func (d *Decoder) rawString() (string, error) {
	b, err := d.strBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// strBytes parses the string token at the decoder's position (the caller
// has seen its kind) and returns its decoded bytes, valid until the next
// call: a slice of the document when the string has no escape, else the
// decoder's scratch buffer.
func (d *Decoder) strBytes() ([]byte, error) {
	start := d.pos
	d.pos++ // opening quote
	s := d.pos
	ascii := true
	var buf []byte // the bytes decoded so far, once the string has an escape
	escaped := false
	for {
		// Skip the plain bytes (printable ASCII, no quote or backslash).
		d.pos = skipPlain(d.data, d.pos)
		if d.pos >= len(d.data) {
			return nil, d.SyntaxErrorAt(start, "unterminated string")
		}
		switch c := d.data[d.pos]; {
		case c == '"':
			// The document's bytes must be UTF-8; only an escape may give a lone
			// surrogate (an escape is ASCII, so the bytes around escapes are checked
			// at once, and raw WTF-8 surrogate bytes are refused as json.loads does).
			if !ascii && !utf8.Valid(d.data[start+1:d.pos]) {
				return nil, d.SyntaxErrorAt(start, "string is not valid UTF-8")
			}
			b := d.data[s:d.pos]
			d.pos++
			if escaped {
				buf = append(buf, b...)
				d.scratch = buf
				return buf, nil
			}
			return b, nil
		case c < 0x20:
			return nil, d.SyntaxErrorAt(d.pos, "invalid control character in string")
		case c != '\\':
			ascii = false // a byte of a UTF-8 sequence, checked at the end
			d.pos++
		default:
			if !escaped {
				buf, escaped = d.scratch[:0], true
			}
			var err error
			if buf, err = d.unescape(append(buf, d.data[s:d.pos]...), start); err != nil {
				return nil, err
			}
			s = d.pos
		}
	}
}

// unescape appends the character of the escape at the decoder's position
// (a backslash) to buf, reading a surrogate pair as one character and
// keeping a lone surrogate in WTF-8 form so it round-trips. start is the
// string's, for errors.
func (d *Decoder) unescape(buf []byte, start int) ([]byte, error) {
	if d.pos+1 >= len(d.data) {
		return nil, d.SyntaxErrorAt(start, "unterminated string")
	}
	e := d.data[d.pos+1]
	d.pos += 2
	switch e {
	case '"', '\\', '/':
		return append(buf, e), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
	default:
		return nil, d.SyntaxErrorAt(d.pos-2, "invalid escape '\\%c'", e)
	}
	r, ok := d.hex4()
	if !ok {
		return nil, d.SyntaxErrorAt(d.pos-2, "invalid \\uXXXX escape")
	}
	if utf16.IsSurrogate(r) && r < 0xDC00 && d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
		save := d.pos
		d.pos += 2
		r2, ok := d.hex4()
		if ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
			return utf8.AppendRune(buf, utf16.DecodeRune(r, r2)), nil
		}
		d.pos = save
	}
	if utf16.IsSurrogate(r) {
		return append(buf, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F)), nil
	}
	return utf8.AppendRune(buf, r), nil
}

func (d *Decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := d.data[d.pos+i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	d.pos += 4
	return r, true
}

// Str parses a string value, with a structural error if it is not one.
func (d *Decoder) Str() (string, error) {
	if err := d.Expect(KindString, "a string"); err != nil {
		return "", err
	}
	return d.rawString()
}

// StrOrNull parses a string or null; ok is false for null.
func (d *Decoder) StrOrNull() (string, bool, error) {
	k, err := d.Peek()
	if err != nil {
		return "", false, err
	}
	if k == KindNull {
		_, err := d.literal()
		return "", false, err
	}
	if k != KindString {
		return "", false, d.Errorf("expected a string or null, got %s", k)
	}
	s, err := d.rawString()
	return s, true, err
}

// Strings parses an array of strings (never nil).
func (d *Decoder) Strings() ([]string, error) {
	if err := d.Expect(KindArray, "a list of strings"); err != nil {
		return nil, err
	}
	var out []string
	err := d.Array(func(int) error {
		s, err := d.Str()
		out = append(out, s)
		return err
	})
	if out == nil {
		out = []string{}
	}
	return out, err
}

// literal parses true/false/null.
func (d *Decoder) literal() (Value, error) {
	for _, lit := range [...]struct {
		s string
		v Value
	}{{"true", Bool(true)}, {"false", Bool(false)}, {"null", Null()}} {
		if strings.HasPrefix(string(d.data[d.pos:min(len(d.data), d.pos+5)]), lit.s) {
			d.pos += len(lit.s)
			return lit.v, nil
		}
	}
	return Value{}, d.SyntaxErrorAt(d.pos, "invalid literal")
}

// numberSpan scans a number token (Python's grammar, plus NaN and
// ±Infinity) and returns its text and whether it is a float.
func (d *Decoder) numberSpan() ([]byte, bool, error) {
	start := d.pos
	data := d.data
	if c := data[d.pos]; c == 'N' || c == 'I' || c == '-' && d.pos+1 < len(data) && data[d.pos+1] == 'I' {
		for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(data[d.pos:], []byte(lit)) {
				d.pos += len(lit)
				return data[start:d.pos], true, nil
			}
		}
	}
	if d.pos < len(data) && data[d.pos] == '-' {
		d.pos++
	}
	if d.pos >= len(data) || data[d.pos] < '0' || data[d.pos] > '9' {
		return nil, false, d.SyntaxErrorAt(start, "invalid number")
	}
	if data[d.pos] == '0' {
		d.pos++
	} else {
		for d.pos < len(data) && data[d.pos] >= '0' && data[d.pos] <= '9' {
			d.pos++
		}
	}
	isF := false
	if d.pos+1 < len(data) && data[d.pos] == '.' && data[d.pos+1] >= '0' && data[d.pos+1] <= '9' {
		isF = true
		d.pos++
		for d.pos < len(data) && data[d.pos] >= '0' && data[d.pos] <= '9' {
			d.pos++
		}
	}
	if d.pos < len(data) && (data[d.pos] == 'e' || data[d.pos] == 'E') {
		q := d.pos + 1
		if q < len(data) && (data[q] == '+' || data[q] == '-') {
			q++
		}
		if q < len(data) && data[q] >= '0' && data[q] <= '9' {
			isF = true
			for q < len(data) && data[q] >= '0' && data[q] <= '9' {
				q++
			}
			d.pos = q
		}
	}
	return data[start:d.pos], isF, nil
}

// spanFloat converts a float token to float64 (overflow gives ±Inf, as in
// Python).
func spanFloat(b []byte) float64 {
	switch string(b) {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return f
}

// numberToken parses a number token and returns its Python spelling and
// whether it is a float.
func (d *Decoder) numberToken() (string, bool, error) {
	b, isF, err := d.numberSpan()
	if err != nil {
		return "", false, err
	}
	if !isF {
		if string(b) == "-0" {
			return "0", false, nil
		}
		return string(b), false, nil
	}
	return FloatString(spanFloat(b)), true, nil
}

// Float parses a number (int or float, not bool) as float64.
func (d *Decoder) Float() (float64, error) {
	if err := d.Expect(KindNumber, "a number"); err != nil {
		return 0, err
	}
	b, _, err := d.numberSpan()
	if err != nil {
		return 0, err
	}
	return spanFloat(b), nil
}

// Int parses an integer (a JSON number without fraction or exponent).
func (d *Decoder) Int() (int, error) {
	if err := d.Expect(KindNumber, "an integer"); err != nil {
		return 0, err
	}
	b, isF, err := d.numberSpan()
	if err != nil {
		return 0, err
	}
	if isF {
		return 0, d.Errorf("expected an integer, got the float %s", FloatString(spanFloat(b)))
	}
	i, err := strconv.Atoi(unsafe.String(&b[0], len(b)))
	if err != nil {
		return 0, d.Errorf("integer %s is out of range", b)
	}
	return i, nil
}

// Bool parses true or false.
func (d *Decoder) Bool() (bool, error) {
	if err := d.Expect(KindBool, "true or false"); err != nil {
		return false, err
	}
	v, err := d.literal()
	return v.b, err
}

// Value parses the next value, whatever its kind. Duplicate object keys keep
// the first position and the last value, as a Python dict does.
func (d *Decoder) Value() (Value, error) { return d.value(0) }

// value parses any JSON value into a generic value. Duplicate object keys
// keep the first position and the last value, as a Python dict does.
func (d *Decoder) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, d.SyntaxErrorAt(d.pos, "nesting too deep")
	}
	k, err := d.Peek()
	if err != nil {
		return Value{}, err
	}
	switch k {
	case KindString:
		s, err := d.rawString()
		return String(s), err
	case KindNumber:
		s, isF, err := d.numberToken()
		return Value{k: KindNumber, s: s, isF: isF}, err
	case KindBool, KindNull:
		return d.literal()
	case KindArray:
		v := Value{k: KindArray, arr: []Value{}}
		err := d.Array(func(int) error {
			x, err := d.value(depth + 1)
			v.arr = append(v.arr, x)
			return err
		})
		return v, err
	default:
		base := len(d.members)
		var seen map[string]int // built lazily for large objects
		err := d.Object(func(key string) error {
			x, err := d.value(depth + 1)
			if err != nil {
				return err
			}
			if len(d.members)-base < 16 {
				for i := base; i < len(d.members); i++ {
					if d.members[i].Key == key {
						d.members[i].Value = x
						return nil
					}
				}
				d.members = append(d.members, Member{key, x})
				return nil
			}
			if seen == nil {
				seen = make(map[string]int, 32)
				for i, m := range d.members[base:] {
					seen[m.Key] = i
				}
			}
			if i, ok := seen[key]; ok {
				d.members[base+i].Value = x
				return nil
			}
			seen[key] = len(d.members) - base
			d.members = append(d.members, Member{key, x})
			return nil
		})
		v := Value{k: KindObject, obj: append([]Member{}, d.members[base:]...)}
		clear(d.members[base:]) // the stack does not keep the values alive
		d.members = d.members[:base]
		return v, err
	}
}

// End checks that only whitespace follows the top-level value.
func (d *Decoder) End() error {
	d.SkipSpace()
	if d.pos != len(d.data) {
		return d.SyntaxErrorAt(d.pos, "extra data after the JSON value")
	}
	return nil
}

// Parse reads a whole document as json.loads does. Duplicate object keys
// keep the first position and the last value, as a Python dict does.
func Parse(name string, data []byte) (Value, error) {
	d := NewDecoder(name, data)
	v, err := d.value(0)
	if err != nil {
		return v, err
	}
	return v, d.End()
}

// maxDepth bounds nesting in carried-through values; Python's json module
// gives up near 1000 levels, and darwin-memo stores nest only a few levels.
const maxDepth = 512

// Render formats the next value as json.dumps(indent=2) writes it at
// nesting depth indent and returns it. w is scratch space, a writer from
// NewWriter.
func (d *Decoder) Render(w *Writer, indent int) (string, error) {
	v, err := d.value(0)
	if err != nil {
		return "", err
	}
	w.buf, w.indent = w.buf[:0], indent
	w.Value(v)
	return string(w.buf), nil
}

// skipPlain returns the index of the first byte at or after i that is not a
// plain string byte: printable ASCII other than the quote and the backslash.
func skipPlain(data []byte, i int) int {
	for i < len(data) {
		if c := data[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			break
		}
		i++
	}
	return i
}
