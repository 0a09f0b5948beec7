package lessons

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// The merge passes over every value of three store documents (SkipFast) and reads the id of
// every entry (entryID). These are the fast paths of the id reads: flat loops over the bytes,
// without the decoder's callbacks and JSON path. A fast path accepts only what the decoder's
// own walk accepts, and ends where it ends; anything it is not sure of (an escape in a key, a
// non-ASCII key, deep nesting, any error) makes it give up and leave the position as it was,
// so the decoder's walk runs and gives its own answer, error messages included.

// entryIDQuick reads the id of the entry object at p's position as entryID does when the
// entry has one: a plain ASCII string without escapes (the last one, if repeated). ok is
// false, and the position unchanged, for anything else.
func entryIDQuick(p *pyjson.Decoder) (id string, ok bool) {
	d := p.Data()
	start := p.Pos()
	i := start
	ws := func() { i = skipSpace(d, i) }
	fail := func() (string, bool) { p.SetPos(start); return "", false }
	// plain passes over a string of plain ASCII without escapes and returns its contents.
	plain := func() ([]byte, bool) {
		j, ok := pyjson.ScanPlain(d, i)
		if !ok {
			return nil, false
		}
		s := d[i+1 : j]
		i = j + 1
		return s, true
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
			p.SetPos(i)
			if !p.SkipQuick() {
				return fail()
			}
			i = p.Pos()
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
	p.SetPos(i)
	return string(last), true
}

// obj returns the member key as the top-level pass read it, nil when it did not.
func (o *rawObj) obj(key string) *rawObj {
	if o == nil {
		return nil
	}
	return o.objs[key]
}

// storeObjects reads the three sides of a merge (storeObject), on as many cores as there are
// when the documents are large (each is read on its own; only the goroutines differ), and
// returns the first error in the order base, ours, theirs.
func storeObjects(base, ours, theirs []byte) (b, o, t *rawObj, err error) {
	size := len(base) + len(ours) + len(theirs)
	objs, err := onSides([3][]byte{base, ours, theirs}, size >= 1<<20 && runtime.GOMAXPROCS(0) >= 2, storeObject)
	if err != nil {
		return nil, nil, nil, err
	}
	return objs[0], objs[1], objs[2], nil
}

// onSides applies read to the three sides of a merge (base, bot branch, base branch), each on
// its own goroutine when concurrent, and returns the first error in that order, named by its
// side, as reading them one by one would.
func onSides[In, Out any](sides [3]In, concurrent bool, read func(In) (Out, error)) ([3]Out, error) {
	var outs [3]Out
	var errs [3]error
	if concurrent {
		var wg sync.WaitGroup
		for i, in := range sides {
			wg.Go(func() { outs[i], errs[i] = read(in) })
		}
		wg.Wait()
	} else {
		for i, in := range sides {
			if outs[i], errs[i] = read(in); errs[i] != nil {
				break
			}
		}
	}
	for i, what := range [3]string{"merge base store", "bot branch store", "base branch store"} {
		if errs[i] != nil {
			return outs, fmt.Errorf("%s: %w", what, errs[i])
		}
	}
	return outs, nil
}

// storeObject is rawObject for a store document, reading on its way (fast paths only) the
// entries of "entries" and "graveyard" by id and the "ledger" object with its "history": the
// merge needs them, and would otherwise pass over their bytes again. A part the fast paths do
// not take is left to be read later, as before, so errors are the same.
func storeObject(data []byte) (*rawObj, error) {
	p := pyjson.NewDecoder("store", data)
	k, err := p.Peek()
	if err != nil {
		return nil, err
	}
	if k != pyjson.KindObject {
		return nil, fmt.Errorf("not a JSON object (a %s)", k)
	}
	o := newRawObj()
	err = p.Object(func(key string) error {
		start := p.Pos()
		delete(o.sections, key)
		delete(o.objs, key)
		switch key {
		case "entries", "graveyard":
			if l, ok := entriesQuick(p); ok {
				if o.sections == nil {
					o.sections = map[string]*entryList{}
				}
				o.sections[key] = l
				o.set(key, data[start:p.Pos()])
				return nil
			}
		case "ledger":
			if r, ok := objectQuick(p, func(k string) bool { return k == "history" }); ok {
				if o.objs == nil {
					o.objs = map[string]*rawObj{}
				}
				o.objs[key] = r
				o.set(key, data[start:p.Pos()])
				return nil
			}
		}
		if err := p.SkipFast(); err != nil {
			return err
		}
		o.set(key, data[start:p.Pos()])
		return nil
	})
	if err == nil {
		err = p.End()
	}
	return o, err
}

// entriesQuick reads a list of entries that all have a plain id (entryIDQuick), or reports
// false with p's position unchanged.
func entriesQuick(p *pyjson.Decoder) (*entryList, bool) {
	d := p.Data()
	start := p.Pos()
	fail := func() (*entryList, bool) { p.SetPos(start); return nil, false }
	i := skipSpace(d, start)
	if i >= len(d) || d[i] != '[' {
		return fail()
	}
	l := &entryList{}
	if i = skipSpace(d, i+1); i < len(d) && d[i] == ']' {
		p.SetPos(i + 1)
		return l, true
	}
	for {
		from := skipSpace(d, i)
		p.SetPos(from)
		id, ok := entryIDQuick(p)
		if !ok {
			return fail()
		}
		i = p.Pos()
		l.ids, l.raws = append(l.ids, id), append(l.raws, d[from:i])
		if i = skipSpace(d, i); i >= len(d) {
			return fail()
		}
		switch d[i] {
		case ',':
			i++
		case ']':
			p.SetPos(i + 1)
			return l, true
		default:
			return fail()
		}
	}
}

// objectQuick reads an object with plain member names as rawObject does, reading the members
// nested names as objects the same way; false, with p's position unchanged, for anything else.
func objectQuick(p *pyjson.Decoder, nested func(string) bool) (*rawObj, bool) {
	d := p.Data()
	start := p.Pos()
	fail := func() (*rawObj, bool) { p.SetPos(start); return nil, false }
	i := skipSpace(d, start)
	if i >= len(d) || d[i] != '{' {
		return fail()
	}
	o := newRawObj()
	if i = skipSpace(d, i+1); i < len(d) && d[i] == '}' {
		p.SetPos(i + 1)
		return o, true
	}
	for {
		i = skipSpace(d, i)
		j, ok := pyjson.ScanPlain(d, i)
		if !ok {
			return fail()
		}
		key := string(d[i+1 : j])
		if i = skipSpace(d, j+1); i >= len(d) || d[i] != ':' {
			return fail()
		}
		from := skipSpace(d, i+1)
		p.SetPos(from)
		delete(o.objs, key)
		if nested != nil && nested(key) {
			r, ok := objectQuick(p, nil)
			if !ok {
				return fail()
			}
			if o.objs == nil {
				o.objs = map[string]*rawObj{}
			}
			o.objs[key] = r
		} else if !p.SkipQuick() {
			return fail()
		}
		i = p.Pos()
		o.set(key, d[from:i])
		if i = skipSpace(d, i); i >= len(d) {
			return fail()
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			p.SetPos(i + 1)
			return o, true
		default:
			return fail()
		}
	}
}

// skipSpace returns the index of the first byte at or after i in d that is not JSON
// whitespace.
func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}
