package pyjson

// Skip parses the next value without keeping it, checking it as Value
// would (escapes, UTF-8).
func (d *Decoder) Skip() error {
	if d.skipQuick(true) {
		return nil
	}
	return d.skip(0, true)
}

// SkipFast passes over the next value like Skip, without checking what its
// strings hold (escapes, UTF-8): for callers that only compare and copy the
// bytes of values, and read whatever they keep again, strictly.
func (d *Decoder) SkipFast() error {
	if d.SkipQuick() {
		return nil
	}
	return d.skip(0, false)
}

// skip parses the next value without keeping it. strict checks what strings hold (escapes,
// UTF-8) as Value does; otherwise a string is passed over up to its closing quote,
// rejecting only control characters (SkipFast).
func (d *Decoder) skip(depth int, strict bool) error {
	if depth > maxDepth {
		return d.syntaxErr(d.pos, "nesting too deep")
	}
	k, err := d.Peek()
	if err != nil {
		return err
	}
	switch k {
	case KindString:
		if strict {
			_, err = d.StrBytes()
			return err
		}
		data := d.data
		for i := d.pos + 1; i < len(data); {
			i = skipPlain(data, i)
			if i >= len(data) {
				break
			}
			switch c := data[i]; {
			case c == '"':
				d.pos = i + 1
				return nil
			case c == '\\':
				i += 2
			case c < 0x20:
				return d.syntaxErr(i, "invalid control character in string")
			default:
				i++
			}
		}
		return d.syntaxErr(d.pos, "unterminated string")
	case KindNumber:
		_, _, err = d.numberSpan()
	case KindBool, KindNull:
		_, err = d.literal()
	case KindArray:
		err = d.Array(func(int) error { return d.skip(depth+1, strict) })
	default:
		err = d.Object(func(string) error { return d.skip(depth+1, strict) })
	}
	return err
}

// quickDepth is the nesting the fast skip handles; deeper values take the decoder's walk.
const quickDepth = 64

// SkipQuick is the fast path of SkipFast, for scanners of their own: it
// passes over the next value as SkipFast does and reports true, or reports
// false with the position unchanged. It accepts only what the decoder's own
// walk accepts, and ends where it ends; anything it is not sure of (an escape
// in a key, a non-ASCII key, deep nesting, any error) makes it give up, so
// the walk runs and gives its own answer, error messages included. One loop
// without calls on the common path: most values of a store are short.
func (d *Decoder) SkipQuick() bool { return d.skipQuick(false) }

// skipQuick is SkipQuick, and with strict the fast path of Skip: a value
// string with an escape or a byte from 0x80 is then read by StrBytes, which
// checks it as Skip does (giving up if it is refused).
func (d *Decoder) skipQuick(strict bool) bool {
	data := d.data
	i := d.pos
	n := len(data)
	var stack [quickDepth]byte
	depth := 0
	c := byte(0)
	start := d.pos
value:
	for i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i >= n {
		return false
	}
	switch c = data[i]; c {
	case '"':
		goto str
	case '{', '[':
		if depth == quickDepth {
			return false
		}
		i++
		for i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
			i++
		}
		if i < n && data[i] == c+2 { // '{'+2 == '}', '['+2 == ']'
			i++
			goto after
		}
		stack[depth] = c + 2
		depth++
		if c == '{' {
			goto key
		}
		goto value
	case 't', 'f', 'n':
		d.pos = i
		if _, err := d.literal(); err != nil {
			d.pos = start
			return false
		}
		i, d.pos = d.pos, start
		goto after
	default:
		if c == '-' || c >= '0' && c <= '9' || c == 'N' || c == 'I' {
			d.pos = i
			if _, _, err := d.numberSpan(); err != nil {
				d.pos = start
				return false
			}
			i, d.pos = d.pos, start
			goto after
		}
		return false
	}
str: // a value string at data[i]: escapes are not checked (unless strict), control characters are refused
	for j := i + 1; ; {
		j = skipPlain(data, j)
		if j >= n {
			return false
		}
		switch b := data[j]; {
		case b == '"':
			i = j + 1
			goto after
		case b < 0x20:
			return false
		case strict && (b == '\\' || b >= 0x80):
			d.pos = i
			if _, err := d.StrBytes(); err != nil {
				d.pos = start
				return false
			}
			i, d.pos = d.pos, start
			goto after
		case b == '\\':
			j += 2
		default:
			j++
		}
	}
key: // a member name (plain ASCII, no escapes: the decoder decodes names strictly) and its colon
	for i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i >= n || data[i] != '"' {
		return false
	}
	for j := i + 1; ; {
		j = skipPlain(data, j)
		if j >= n {
			return false
		}
		if b := data[j]; b == '"' {
			i = j + 1
			break
		} else if b < 0x20 || b == '\\' || b >= 0x80 {
			return false
		}
		j++
	}
	for i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i >= n || data[i] != ':' {
		return false
	}
	i++
	goto value
after: // after a value: close containers or go on to the next member
	if depth == 0 {
		d.pos = i
		return true
	}
	for i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i >= n {
		return false
	}
	if c = data[i]; c == stack[depth-1] {
		depth--
		i++
		goto after
	}
	if c != ',' {
		return false
	}
	i++
	if stack[depth-1] == '}' {
		goto key
	}
	goto value
}

// ScanPlain reads the string token at data[i] when it holds only printable
// ASCII without escapes, and returns the index of its closing quote; ok is
// false for anything else.
func ScanPlain(data []byte, i int) (end int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return 0, false
	}
	j := i + 1
	for {
		j = skipPlain(data, j)
		if j >= len(data) {
			return 0, false
		}
		c := data[j]
		if c == '"' {
			return j, true
		}
		if c < 0x20 || c == '\\' || c >= 0x80 {
			return 0, false
		}
		j++
	}
}
