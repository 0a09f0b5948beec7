package lessons

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// FormatError reports a store file that is not valid JSON or not shaped like a
// darwin-memo store. Line and Col are set (1-based) for syntax errors; Path is
// the JSON path ($.entries[3].energy) for structural errors.
type FormatError struct {
	File string
	Line int
	Col  int
	Path string
	Msg  string
}

func (e *FormatError) Error() string {
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

// parser is a streaming recursive-descent JSON parser that accepts exactly
// what Python's json.loads accepts (including NaN and ±Infinity) and reports
// errors with line:column or JSON path.
type parser struct {
	file string
	data []byte
	pos  int
	path []pathElem
	// scratch buffer for strings with escapes
	scratch []byte
	// keys of the objects reformat is inside (for duplicate detection)
	keys []string
}

func (p *parser) pushKey(k string) { p.path = append(p.path, pathElem{key: k, index: -1}) }
func (p *parser) pushIndex(i int)  { p.path = append(p.path, pathElem{index: i}) }
func (p *parser) pop()             { p.path = p.path[:len(p.path)-1] }

func (p *parser) pathString() string {
	var sb strings.Builder
	sb.WriteByte('$')
	for _, e := range p.path {
		if e.index >= 0 {
			fmt.Fprintf(&sb, "[%d]", e.index)
			continue
		}
		if isIdent(e.key) {
			sb.WriteByte('.')
			sb.WriteString(e.key)
		} else {
			sb.WriteByte('[')
			sb.Write(appendPyString(nil, e.key))
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

// structErr is an error about the shape of the document at the current path.
func (p *parser) structErr(format string, args ...any) error {
	return &FormatError{File: p.file, Path: p.pathString(), Msg: fmt.Sprintf(format, args...)}
}

// syntaxErr is a JSON syntax error at byte offset off.
func (p *parser) syntaxErr(off int, format string, args ...any) error {
	line, col := 1, 1
	if off > len(p.data) {
		off = len(p.data)
	}
	for i := 0; i < off; i++ {
		if p.data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &FormatError{File: p.file, Line: line, Col: col, Msg: "invalid JSON: " + fmt.Sprintf(format, args...)}
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peekKind returns the kind of the next value without consuming it.
func (p *parser) peekKind() (kind, error) {
	p.ws()
	if p.pos >= len(p.data) {
		return 0, p.syntaxErr(p.pos, "unexpected end of input, expected a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return kObject, nil
	case c == '[':
		return kArray, nil
	case c == '"':
		return kString, nil
	case c == 't' || c == 'f':
		return kBool, nil
	case c == 'n':
		return kNull, nil
	case c == '-' || c >= '0' && c <= '9' || c == 'N' || c == 'I':
		return kNumber, nil
	default:
		return 0, p.syntaxErr(p.pos, "unexpected character %q, expected a value", rune(c))
	}
}

// expectKind checks the next value's kind, giving a structural error if it
// differs. want names what was expected ("a number").
func (p *parser) expectKind(k kind, want string) error {
	got, err := p.peekKind()
	if err != nil {
		return err
	}
	if got != k {
		return p.structErr("expected %s, got %s", want, got)
	}
	return nil
}

// object iterates the members of an object, calling fn with the parser
// positioned at each value; fn must consume the value. Duplicate keys are
// passed through (callers keep the last, as Python does).
func (p *parser) object(fn func(key string) error) error {
	p.ws()
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return p.syntaxErr(p.pos, "expected '{'")
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.syntaxErr(p.pos, "expected a double-quoted property name")
		}
		key, err := p.rawKey()
		if err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.syntaxErr(p.pos, "expected ':' after property name")
		}
		p.pos++
		p.pushKey(key)
		if _, err := p.peekKind(); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		p.pop()
		p.ws()
		if p.pos >= len(p.data) {
			return p.syntaxErr(p.pos, "unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.syntaxErr(p.pos, "expected ',' or '}' in object")
		}
	}
}

// array iterates the elements of an array.
func (p *parser) array(fn func(i int) error) error {
	p.ws()
	if p.pos >= len(p.data) || p.data[p.pos] != '[' {
		return p.syntaxErr(p.pos, "expected '['")
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		p.pushIndex(i)
		if _, err := p.peekKind(); err != nil {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
		p.pop()
		p.ws()
		if p.pos >= len(p.data) {
			return p.syntaxErr(p.pos, "unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return p.syntaxErr(p.pos, "expected ',' or ']' in array")
		}
	}
}

// rawString parses a string token at p.pos.
func (p *parser) rawString() (string, error) {
	b, err := p.rawBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// rawKey parses an object key, returning shared strings for the keys of
// the store format so they are not allocated per object.
func (p *parser) rawKey() (string, error) {
	b, err := p.rawBytes()
	if err != nil {
		return "", err
	}
	switch string(b) {
	case "tick":
		return "tick", nil
	case "ts":
		return "ts", nil
	case "text":
		return "text", nil
	case "event":
		return "event", nil
	case "ticket":
		return "ticket", nil
	case "credit":
		return "credit", nil
	case "delta":
		return "delta", nil
	case "detail":
		return "detail", nil
	case "source":
		return "source", nil
	case "evidence":
		return "evidence", nil
	case "cause":
		return "cause", nil
	case "uses":
		return "uses", nil
	case "last_used_tick":
		return "last_used_tick", nil
	case "question":
		return "question", nil
	case "answer":
		return "answer", nil
	case "kind":
		return "kind", nil
	case "sources":
		return "sources", nil
	case "energy":
		return "energy", nil
	case "born_cycle":
		return "born_cycle", nil
	case "recorded_ts":
		return "recorded_ts", nil
	case "last_used_cycle":
		return "last_used_cycle", nil
	case "lineage":
		return "lineage", nil
	case "id":
		return "id", nil
	}
	return string(b), nil
}

// rawBytes parses a string token at p.pos and returns its decoded bytes,
// valid until the next call (no allocation on the fast path).
// plainWord reports whether none of the eight bytes of w is a quote, a
// backslash, a control character or a non-ASCII byte (exact SWAR tests:
// a byte b is below n <= 0x80 iff (b-n) borrows with b's top bit clear).
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(x uint64, n uint64) uint64 { return (x - ones*n) & ^x & highs }
	return (below(w^(ones*'"'), 1) | below(w^(ones*'\\'), 1) | below(w, 0x20) | w&highs) == 0
}

func (p *parser) rawBytes() ([]byte, error) {
	start := p.pos
	p.pos++ // opening quote
	s := p.pos
	ascii := true
	// fast path: no escapes
	for p.pos < len(p.data) {
		// Skip eight plain bytes (printable ASCII, no quote or backslash)
		// at a time.
		for p.pos+8 <= len(p.data) && plainWord(binary.LittleEndian.Uint64(p.data[p.pos:])) {
			p.pos += 8
		}
		if p.pos >= len(p.data) {
			break
		}
		c := p.data[p.pos]
		if c == '"' {
			b := p.data[s:p.pos]
			p.pos++
			if !ascii && !utf8.Valid(b) {
				return nil, p.syntaxErr(start, "string is not valid UTF-8")
			}
			return b, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, p.syntaxErr(p.pos, "invalid control character in string")
		}
		if c >= 0x80 {
			ascii = false
		}
		p.pos++
	}
	buf := append(p.scratch[:0], p.data[s:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return nil, p.syntaxErr(start, "unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			p.scratch = buf
			if !utf8.Valid(stripWTF8(buf)) {
				return nil, p.syntaxErr(start, "string is not valid UTF-8")
			}
			return buf, nil
		case c < 0x20:
			return nil, p.syntaxErr(p.pos, "invalid control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		// escape
		if p.pos+1 >= len(p.data) {
			return nil, p.syntaxErr(start, "unterminated string")
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, p.syntaxErr(p.pos-2, "invalid \\uXXXX escape")
			}
			if utf16.IsSurrogate(r) && r < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				r2, ok := p.hex4()
				if ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
					buf = utf8.AppendRune(buf, utf16.DecodeRune(r, r2))
					continue
				}
				p.pos = save
			}
			if utf16.IsSurrogate(r) {
				// lone surrogate: keep it in WTF-8 form so it round-trips.
				buf = append(buf, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
				continue
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, p.syntaxErr(p.pos-2, "invalid escape '\\%c'", e)
		}
	}
}

// stripWTF8 returns b with WTF-8 surrogate triples removed, for validation.
func stripWTF8(b []byte) []byte {
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF {
			out := make([]byte, 0, len(b))
			for j := 0; j < len(b); j++ {
				if j+2 < len(b) && b[j] == 0xED && b[j+1] >= 0xA0 && b[j+1] <= 0xBF && b[j+2] >= 0x80 && b[j+2] <= 0xBF {
					j += 2
					continue
				}
				out = append(out, b[j])
			}
			return out
		}
	}
	return b
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := p.data[p.pos+i]
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
	p.pos += 4
	return r, true
}

// str parses a string value, with a structural error if it is not one.
func (p *parser) str() (string, error) {
	if err := p.expectKind(kString, "a string"); err != nil {
		return "", err
	}
	return p.rawString()
}

// strOrNull parses a string or null.
func (p *parser) strOrNull() (string, bool, error) {
	k, err := p.peekKind()
	if err != nil {
		return "", false, err
	}
	if k == kNull {
		_, err := p.literal()
		return "", false, err
	}
	if k != kString {
		return "", false, p.structErr("expected a string or null, got %s", k)
	}
	s, err := p.rawString()
	return s, true, err
}

// strList parses an array of strings.
func (p *parser) strList() ([]string, error) {
	if err := p.expectKind(kArray, "a list of strings"); err != nil {
		return nil, err
	}
	var out []string
	err := p.array(func(int) error {
		s, err := p.str()
		out = append(out, s)
		return err
	})
	if out == nil {
		out = []string{}
	}
	return out, err
}

// literal parses true/false/null.
func (p *parser) literal() (value, error) {
	for _, lit := range [...]struct {
		s string
		v value
	}{{"true", vBool(true)}, {"false", vBool(false)}, {"null", vNull()}} {
		if strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+5)]), lit.s) {
			p.pos += len(lit.s)
			return lit.v, nil
		}
	}
	return value{}, p.syntaxErr(p.pos, "invalid literal")
}

// numberSpan scans a number token (Python's grammar, plus NaN and
// ±Infinity) and returns its text and whether it is a float.
func (p *parser) numberSpan() ([]byte, bool, error) {
	start := p.pos
	d := p.data
	if c := d[p.pos]; c == 'N' || c == 'I' || c == '-' && p.pos+1 < len(d) && d[p.pos+1] == 'I' {
		for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(d[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				return d[start:p.pos], true, nil
			}
		}
	}
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
		return nil, false, p.syntaxErr(start, "invalid number")
	}
	if d[p.pos] == '0' {
		p.pos++
	} else {
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	}
	isF := false
	if p.pos+1 < len(d) && d[p.pos] == '.' && d[p.pos+1] >= '0' && d[p.pos+1] <= '9' {
		isF = true
		p.pos++
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		q := p.pos + 1
		if q < len(d) && (d[q] == '+' || d[q] == '-') {
			q++
		}
		if q < len(d) && d[q] >= '0' && d[q] <= '9' {
			isF = true
			for q < len(d) && d[q] >= '0' && d[q] <= '9' {
				q++
			}
			p.pos = q
		}
	}
	return d[start:p.pos], isF, nil
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
func (p *parser) numberToken() (string, bool, error) {
	b, isF, err := p.numberSpan()
	if err != nil {
		return "", false, err
	}
	if !isF {
		if string(b) == "-0" {
			return "0", false, nil
		}
		return string(b), false, nil
	}
	return pyFloat(spanFloat(b)), true, nil
}

// float parses a number (int or float, not bool) as float64.
func (p *parser) float() (float64, error) {
	if err := p.expectKind(kNumber, "a number"); err != nil {
		return 0, err
	}
	b, _, err := p.numberSpan()
	if err != nil {
		return 0, err
	}
	return spanFloat(b), nil
}

// int parses an integer (a JSON number without fraction or exponent).
func (p *parser) int() (int, error) {
	if err := p.expectKind(kNumber, "an integer"); err != nil {
		return 0, err
	}
	b, isF, err := p.numberSpan()
	if err != nil {
		return 0, err
	}
	if isF {
		return 0, p.structErr("expected an integer, got the float %s", pyFloat(spanFloat(b)))
	}
	i, err := strconv.Atoi(unsafe.String(&b[0], len(b)))
	if err != nil {
		return 0, p.structErr("integer %s is out of range", b)
	}
	return i, nil
}

// bool parses true or false.
func (p *parser) boolean() (bool, error) {
	if err := p.expectKind(kBool, "true or false"); err != nil {
		return false, err
	}
	v, err := p.literal()
	return v.b, err
}

// value parses any JSON value into a generic value. Duplicate object keys
// keep the first position and the last value, as a Python dict does.
func (p *parser) value(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, p.syntaxErr(p.pos, "nesting too deep")
	}
	k, err := p.peekKind()
	if err != nil {
		return value{}, err
	}
	switch k {
	case kString:
		s, err := p.rawString()
		return vStr(s), err
	case kNumber:
		s, isF, err := p.numberToken()
		return value{k: kNumber, s: s, isF: isF}, err
	case kBool, kNull:
		return p.literal()
	case kArray:
		v := value{k: kArray, arr: []value{}}
		err := p.array(func(int) error {
			x, err := p.value(depth + 1)
			v.arr = append(v.arr, x)
			return err
		})
		return v, err
	default:
		v := value{k: kObject, obj: []member{}}
		var seen map[string]int // built lazily for large objects
		err := p.object(func(key string) error {
			x, err := p.value(depth + 1)
			if err != nil {
				return err
			}
			if len(v.obj) < 16 {
				v.obj = setMember(v.obj, key, x)
				return nil
			}
			if seen == nil {
				seen = make(map[string]int, 32)
				for i, m := range v.obj {
					seen[m.key] = i
				}
			}
			if i, ok := seen[key]; ok {
				v.obj[i].val = x
				return nil
			}
			seen[key] = len(v.obj)
			v.obj = append(v.obj, member{key, x})
			return nil
		})
		return v, err
	}
}

// setMember replaces key's value in place, or appends it.
func setMember(ms []member, key string, v value) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = v
			return ms
		}
	}
	return append(ms, member{key, v})
}

// end checks that only whitespace follows the top-level value.
func (p *parser) end() error {
	p.ws()
	if p.pos != len(p.data) {
		return p.syntaxErr(p.pos, "extra data after the JSON value")
	}
	return nil
}

// parseValue parses a whole document as a generic value.
func parseValue(file string, data []byte) (value, error) {
	p := &parser{file: file, data: data}
	v, err := p.value(0)
	if err != nil {
		return v, err
	}
	return v, p.end()
}

// maxDepth bounds nesting in carried-through values; Python's json module
// gives up near 1000 levels, and darwin-memo stores nest only a few levels.
const maxDepth = 512

// errDupKey makes reformat fall back to the generic path, which applies
// Python's last-value-wins rule for repeated object keys.
var errDupKey = errors.New("duplicate key")

// reformat streams the next value into w in Python's formatting without
// building a value tree (the fast path for history notes).
func (p *parser) reformat(w *pyWriter, depth int) error {
	if depth > maxDepth {
		return p.syntaxErr(p.pos, "nesting too deep")
	}
	k, err := p.peekKind()
	if err != nil {
		return err
	}
	switch k {
	case kString:
		b, err := p.rawBytes()
		if err != nil {
			return err
		}
		if len(b) == 0 {
			w.buf = append(w.buf, '"', '"')
		} else {
			w.buf = appendPyString(w.buf, unsafe.String(&b[0], len(b)))
		}
	case kNumber:
		b, isF, err := p.numberSpan()
		if err != nil {
			return err
		}
		switch {
		case isF:
			w.buf = appendPyFloat(w.buf, spanFloat(b))
		case string(b) == "-0":
			w.buf = append(w.buf, '0')
		default:
			w.buf = append(w.buf, b...)
		}
	case kBool, kNull:
		v, err := p.literal()
		if err != nil {
			return err
		}
		w.value(v)
	case kArray:
		n := 0
		err := p.array(func(int) error {
			if n == 0 {
				w.open('[')
			} else {
				w.sep()
			}
			n++
			return p.reformat(w, depth+1)
		})
		if err != nil {
			return err
		}
		if n == 0 {
			w.buf = append(w.buf, '[', ']')
		} else {
			w.close(']')
		}
	default:
		base := len(p.keys) // keys of this object live in p.keys[base:]
		err := p.object(func(key string) error {
			for _, k := range p.keys[base:] {
				if k == key {
					return errDupKey
				}
			}
			if len(p.keys) == base {
				w.open('{')
			} else {
				w.sep()
			}
			p.keys = append(p.keys, key)
			w.key(key)
			return p.reformat(w, depth+1)
		})
		n := len(p.keys) - base
		p.keys = p.keys[:base]
		if err != nil {
			return err
		}
		if n == 0 {
			w.buf = append(w.buf, '{', '}')
		} else {
			w.close('}')
		}
	}
	return nil
}

// renderValue formats the next value at indentation depth indent and
// returns the bytes, falling back to the generic path on repeated keys.
func (p *parser) renderValue(w *pyWriter, indent int) (string, error) {
	start, pathLen := p.pos, len(p.path)
	p.keys = p.keys[:0]
	w.buf, w.indent = w.buf[:0], indent
	err := p.reformat(w, 0)
	if errors.Is(err, errDupKey) {
		p.pos, p.path = start, p.path[:pathLen]
		w.buf, w.indent = w.buf[:0], indent
		var v value
		if v, err = p.value(0); err == nil {
			w.value(v)
		}
	}
	if err != nil {
		return "", err
	}
	return string(w.buf), nil
}
