package lessons

import (
	"encoding/binary"
	"fmt"
)

// The merge passes over every value of three store documents (skipFast) and reads the id of
// every entry (entryID). These are their fast paths: flat loops over the bytes, without the
// parser's callbacks and JSON path. A fast path accepts only what the parser's own walk
// accepts, and ends where it ends; anything it is not sure of (an escape in a key, a non-ASCII
// key, deep nesting, any error) makes it give up and leave the position as it was, so the
// parser's walk runs and gives its own answer, error messages included.

// quickDepth is the nesting the fast skip handles; deeper values take the parser's walk.
const quickDepth = 64

// skipQuick passes over the next value as skipFast does and reports true, or reports false
// with p.pos unchanged. One loop without calls on the common path: most values of a store are
// short.
func (p *parser) skipQuick() bool {
	d := p.data
	i := p.pos
	n := len(d)
	var stack [quickDepth]byte
	depth := 0
	c := byte(0)
	start := p.pos
value:
	for i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	if i >= n {
		return false
	}
	switch c = d[i]; c {
	case '"':
		goto str
	case '{', '[':
		if depth == quickDepth {
			return false
		}
		i++
		for i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
			i++
		}
		if i < n && d[i] == c+2 { // '{'+2 == '}', '['+2 == ']'
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
		p.pos = i
		if _, err := p.literal(); err != nil {
			p.pos = start
			return false
		}
		i, p.pos = p.pos, start
		goto after
	default:
		if c == '-' || c >= '0' && c <= '9' || c == 'N' || c == 'I' {
			p.pos = i
			if _, _, err := p.numberSpan(); err != nil {
				p.pos = start
				return false
			}
			i, p.pos = p.pos, start
			goto after
		}
		return false
	}
str: // a value string at d[i]: escapes are not checked, control characters are refused
	for j := i + 1; ; {
		for j+8 <= n && plainWord(binary.LittleEndian.Uint64(d[j:])) {
			j += 8
		}
		if j >= n {
			return false
		}
		switch b := d[j]; {
		case b == '"':
			i = j + 1
			goto after
		case b == '\\':
			j += 2
		case b < 0x20:
			return false
		default:
			j++
		}
	}
key: // a member name (plain ASCII, no escapes: the parser decodes names strictly) and its colon
	for i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	if i >= n || d[i] != '"' {
		return false
	}
	for j := i + 1; ; {
		for j+8 <= n && plainWord(binary.LittleEndian.Uint64(d[j:])) {
			j += 8
		}
		if j >= n {
			return false
		}
		if b := d[j]; b == '"' {
			i = j + 1
			break
		} else if b < 0x20 || b == '\\' || b >= 0x80 {
			return false
		}
		j++
	}
	for i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	if i >= n || d[i] != ':' {
		return false
	}
	i++
	goto value
after: // after a value: close containers or go on to the next member
	if depth == 0 {
		p.pos = i
		return true
	}
	for i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	if i >= n {
		return false
	}
	if c = d[i]; c == stack[depth-1] {
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

// entryIDQuick reads the id of the entry object at p.pos as entryID does when the entry has
// one: a plain ASCII string without escapes (the last one, if repeated). ok is false, and
// p.pos unchanged, for anything else.
func (p *parser) entryIDQuick() (id string, ok bool) {
	d := p.data
	start := p.pos
	i := start
	ws := func() {
		for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
			i++
		}
	}
	fail := func() (string, bool) { p.pos = start; return "", false }
	// plain passes over a string of plain ASCII without escapes and returns its contents.
	plain := func() ([]byte, bool) {
		if i >= len(d) || d[i] != '"' {
			return nil, false
		}
		j := i + 1
		for {
			for j+8 <= len(d) && plainWord(binary.LittleEndian.Uint64(d[j:])) {
				j += 8
			}
			if j >= len(d) {
				return nil, false
			}
			c := d[j]
			if c == '"' {
				s := d[i+1 : j]
				i = j + 1
				return s, true
			}
			if c < 0x20 || c == '\\' || c >= 0x80 {
				return nil, false
			}
			j++
		}
	}
	ws()
	if i >= len(d) || d[i] != '{' {
		return fail()
	}
	i++
	ws()
	if i < len(d) && d[i] == '}' {
		return fail() // no id
	}
	var last []byte
	for {
		ws()
		k, ok := plain()
		if !ok {
			return fail()
		}
		ws()
		if i >= len(d) || d[i] != ':' {
			return fail()
		}
		i++
		ws()
		if string(k) == "id" {
			v, ok := plain()
			if !ok {
				return fail()
			}
			last = v
		} else {
			p.pos = i
			if !p.skipQuick() {
				return fail()
			}
			i = p.pos
		}
		ws()
		if i >= len(d) {
			return fail()
		}
		if d[i] == '}' {
			i++
			break
		}
		if d[i] != ',' {
			return fail()
		}
		i++
	}
	if len(last) == 0 {
		return fail()
	}
	p.pos = i
	return string(last), true
}

// obj returns the member key as the top-level pass read it, nil when it did not.
func (o *rawObj) obj(key string) *rawObj {
	if o == nil {
		return nil
	}
	return o.objs[key]
}

// storeObject is rawObject for a store document, reading on its way (fast paths only) the
// entries of "entries" and "graveyard" by id and the "ledger" object with its "history": the
// merge needs them, and would otherwise pass over their bytes again. A part the fast paths do
// not take is left to be read later, as before, so errors are the same.
func storeObject(data []byte) (*rawObj, error) {
	p := &parser{file: "store", data: data}
	k, err := p.peekKind()
	if err != nil {
		return nil, err
	}
	if k != kObject {
		return nil, fmt.Errorf("not a JSON object (a %s)", k)
	}
	o := newRawObj()
	err = p.object(func(key string) error {
		start := p.pos
		delete(o.sections, key)
		delete(o.objs, key)
		switch key {
		case "entries", "graveyard":
			if l, ok := p.entriesQuick(); ok {
				if o.sections == nil {
					o.sections = map[string]*entryList{}
				}
				o.sections[key] = l
				o.set(key, data[start:p.pos])
				return nil
			}
		case "ledger":
			if r, ok := p.objectQuick(func(k string) bool { return k == "history" }); ok {
				if o.objs == nil {
					o.objs = map[string]*rawObj{}
				}
				o.objs[key] = r
				o.set(key, data[start:p.pos])
				return nil
			}
		}
		if err := p.skipFast(); err != nil {
			return err
		}
		o.set(key, data[start:p.pos])
		return nil
	})
	if err == nil {
		err = p.end()
	}
	return o, err
}

// entriesQuick reads a list of entries that all have a plain id (entryIDQuick), or reports
// false with p.pos unchanged.
func (p *parser) entriesQuick() (*entryList, bool) {
	d := p.data
	start := p.pos
	fail := func() (*entryList, bool) { p.pos = start; return nil, false }
	p.ws()
	if p.pos >= len(d) || d[p.pos] != '[' {
		return fail()
	}
	p.pos++
	l := &entryList{}
	p.ws()
	if p.pos < len(d) && d[p.pos] == ']' {
		p.pos++
		return l, true
	}
	for {
		p.ws()
		from := p.pos
		id, ok := p.entryIDQuick()
		if !ok {
			return fail()
		}
		l.ids, l.raws = append(l.ids, id), append(l.raws, d[from:p.pos])
		p.ws()
		if p.pos >= len(d) {
			return fail()
		}
		switch d[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return l, true
		default:
			return fail()
		}
	}
}

// objectQuick reads an object with plain member names as rawObject does, reading the members
// nested names as objects the same way; false, with p.pos unchanged, for anything else.
func (p *parser) objectQuick(nested func(string) bool) (*rawObj, bool) {
	d := p.data
	start := p.pos
	fail := func() (*rawObj, bool) { p.pos = start; return nil, false }
	p.ws()
	if p.pos >= len(d) || d[p.pos] != '{' {
		return fail()
	}
	p.pos++
	o := newRawObj()
	p.ws()
	if p.pos < len(d) && d[p.pos] == '}' {
		p.pos++
		return o, true
	}
	for {
		p.ws()
		if p.pos >= len(d) || d[p.pos] != '"' {
			return fail()
		}
		j := p.pos + 1
		for j < len(d) && d[j] != '"' {
			if c := d[j]; c < 0x20 || c == '\\' || c >= 0x80 {
				return fail()
			}
			j++
		}
		if j >= len(d) {
			return fail()
		}
		key := string(d[p.pos+1 : j])
		p.pos = j + 1
		p.ws()
		if p.pos >= len(d) || d[p.pos] != ':' {
			return fail()
		}
		p.pos++
		p.ws()
		from := p.pos
		delete(o.objs, key)
		if nested != nil && nested(key) {
			r, ok := p.objectQuick(nil)
			if !ok {
				return fail()
			}
			if o.objs == nil {
				o.objs = map[string]*rawObj{}
			}
			o.objs[key] = r
		} else if !p.skipQuick() {
			return fail()
		}
		o.set(key, d[from:p.pos])
		p.ws()
		if p.pos >= len(d) {
			return fail()
		}
		switch d[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return o, true
		default:
			return fail()
		}
	}
}
