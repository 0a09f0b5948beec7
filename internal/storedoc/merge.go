package storedoc

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// This file three-way merges darwin-memo lesson stores: the store on the open bot branch
// ("ours", which carries the bot's settlements, ticks, births and deaths), the store on the
// base branch now ("theirs", which carries what people changed: compat tickets, hand edits,
// pins, forgets) and the store both started from ("base").
//
// The merge reads the three documents with the store's own Python-compatible reader, so the
// merge and the store agree on what a store is (NaN and Infinity included), numbers keep their
// spelling and keys nobody here knows survive. It keeps each value as its bytes in the
// document and parses a value only where the three sides disagree about it, so a merge holds
// little beyond the three documents. The rules are documented in docs/merge.md; in one line:
// for every pyjson.Value, the side that changed it wins, people win conflicts on text and trust
// fields, the bot wins conflicts on its economics, and lists of tickets, notes and runs are
// merged by identity.

// KeyMerger merges one top-level key whose rule the caller knows better (for example the
// action's record of processed pull requests). Its arguments are the JSON of the key's value
// on each side as the documents spell it, nil when absent; it returns the merged value's JSON
// (any formatting), or nil to leave the key out.
type KeyMerger func(base, ours, theirs []byte) ([]byte, error)

// Merge returns the three-way merge of three store documents, written as darwin-memo writes a
// store. base may be nil (no common ancestor known: everything on either side counts as
// added). custom maps top-level keys to their own merge rule. Entries without an "id" (lessons
// added by hand) are matched by the content-derived id every load gives them.
func Merge(base, ours, theirs []byte, custom map[string]KeyMerger) ([]byte, error) {
	doc, err := mergeDocs(base, ours, theirs, custom)
	if err != nil {
		return nil, err
	}
	return pyjson.Indent("merged store", doc)
}

// MergeCompact is Merge without the darwin-memo layout: the merged document compact, each
// value as one of the sides spelled it, for a reader that parses it at once (lessons.MergeStore).
func MergeCompact(base, ours, theirs []byte, custom map[string]KeyMerger) ([]byte, error) {
	return mergeDocs(base, ours, theirs, custom)
}

// sideNames name the three sides of a merge in errors, in the order base, ours, theirs.
var sideNames = [3]string{"merge base store", "bot branch store", "base branch store"}

// mergeDocs returns the merged document, compact: each value as one of the sides spelled it.
func mergeDocs(base, ours, theirs []byte, custom map[string]KeyMerger) ([]byte, error) {
	var sides [3]*rawObj
	for i, doc := range [3][]byte{orEmptyJSON(base), ours, theirs} {
		o, err := storeObject(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sideNames[i], err)
		}
		sides[i] = o
	}
	b, o, t := sides[0], sides[1], sides[2]
	var err error
	out := newRawObj()
	for _, k := range rawUnionKeys(o, t, b) {
		bv, ov, tv := b.vals[k], o.vals[k], t.vals[k]
		var v []byte
		switch {
		case custom[k] != nil:
			v, err = custom[k](bv, ov, tv)
		case k == "entries", k == "graveyard":
			continue // merged together below
		case k == "ledger":
			v, err = mergeLedger(b, o, t)
		case k == "config":
			v, err = mergeObjectByKey(bv, ov, tv)
		default:
			v = pickChanged(bv, ov, tv)
		}
		if err != nil {
			return nil, fmt.Errorf("merging %q: %w", k, err)
		}
		if v != nil {
			out.set(k, v)
		}
	}
	living, dead, err := mergeEntries(b, o, t)
	if err != nil {
		return nil, err
	}
	// Keep darwin-memo's key order: config, entries, graveyard first. The document is written
	// in one buffer, the entries straight from the sides' bytes (rawObj.bytes with the entry
	// lists as rawList gives the same bytes).
	n := 64 + rawListLen(living) + rawListLen(dead)
	for _, k := range out.keys {
		n += len(k) + 8 + len(out.vals[k])
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '{')
	if v, ok := out.vals["config"]; ok {
		buf = pyjson.AppendString(buf, "config")
		buf = append(append(buf, ':'), v...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"entries":`...)
	if v, ok := out.vals["entries"]; ok { // a custom rule's value
		buf = append(buf, v...)
	} else {
		buf = appendRawList(buf, living)
	}
	buf = append(buf, `,"graveyard":`...)
	if v, ok := out.vals["graveyard"]; ok {
		buf = append(buf, v...)
	} else {
		buf = appendRawList(buf, dead)
	}
	for _, k := range out.keys {
		if k != "config" && k != "entries" && k != "graveyard" {
			buf = pyjson.AppendString(append(buf, ','), k)
			buf = append(buf, ':')
			buf = append(buf, out.vals[k]...)
		}
	}
	return append(buf, '}'), nil
}

func orEmptyJSON(b []byte) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("{}")
	}
	return b
}

// rawObj is a JSON object as the bytes of its values, in key order. A repeated key keeps its
// first place and its last pyjson.Value, as a Python dict does.
type rawObj struct {
	keys []string
	vals map[string][]byte
	// lists are the entry lists ("entries", "graveyard") storeObject read by id while it
	// passed over them, and objs the objects it read as rawObj ("ledger", the ledger's
	// "history"); a value absent here is read from its bytes when needed.
	lists map[string]*entryList
	objs  map[string]*rawObj
}

// entryList is an entries list read by id: each entry's id and bytes, in order.
type entryList struct {
	ids  []string
	raws [][]byte
}

func newRawObj() *rawObj { return &rawObj{vals: map[string][]byte{}} }

func (o *rawObj) set(k string, v []byte) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// bytes writes the object compactly, each value as its bytes.
func (o *rawObj) bytes() []byte {
	n := 2
	for _, k := range o.keys {
		n += len(k) + 4 + len(o.vals[k])
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '{')
	for i, k := range o.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = pyjson.AppendString(buf, k)
		buf = append(buf, ':')
		buf = append(buf, o.vals[k]...)
	}
	return append(buf, '}')
}

// rawList writes a list of values given as bytes.
func rawList(items [][]byte) []byte {
	return appendRawList(make([]byte, 0, rawListLen(items)), items)
}

func rawListLen(items [][]byte) int {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	return n
}

// appendRawList appends rawList(items) to buf.
func appendRawList(buf []byte, items [][]byte) []byte {
	buf = append(buf, '[')
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, it...)
	}
	return append(buf, ']')
}

// rawObject reads a JSON object's members as the bytes of their values.
func rawObject(data []byte) (*rawObj, error) { return readRawObject(data, false) }

// storeObject is rawObject of a whole store document that also reads, in the same pass, what
// the merge reads next: the entry lists by id (rawObj.lists) and the ledger and its history as
// objects (rawObj.objs), so that mergeEntries, mergeLedger and mergeHistory do not pass over
// them again. A value that is not what the merge expects (a list with an entry that has no
// usable id, a ledger that is not an object) is left to them, which read its bytes and report
// it or fall back as they always do.
func storeObject(data []byte) (*rawObj, error) { return readRawObject(data, true) }

func readRawObject(data []byte, store bool) (*rawObj, error) {
	p := pyjson.NewDecoder("store", data)
	k, err := p.Peek()
	if err != nil {
		return nil, err
	}
	if k != pyjson.KindObject {
		return nil, fmt.Errorf("not a JSON object (a %s)", k)
	}
	var in func(o *rawObj, key string) error
	if store {
		history := func(o *rawObj, key string) error {
			if key == "history" {
				return o.readObjectAt(p, key, nil)
			}
			return p.Skip()
		}
		in = func(o *rawObj, key string) error {
			switch key {
			case "entries", "graveyard":
				l, err := entryListAt(p)
				if err != nil {
					return err
				}
				if l == nil {
					delete(o.lists, key) // a repeated key: the last value counts
					return nil
				}
				if o.lists == nil {
					o.lists = map[string]*entryList{}
				}
				o.lists[key] = l
				return nil
			case "ledger":
				return o.readObjectAt(p, key, history)
			}
			return p.Skip()
		}
	}
	o, err := objectAt(p, in)
	if err == nil {
		err = p.End()
	}
	return o, err
}

// objectAt reads the object at p as rawObject does. in, when not nil, reads each member's
// value at p instead of skipping it (the member's bytes are kept all the same).
func objectAt(p *pyjson.Decoder, in func(o *rawObj, key string) error) (*rawObj, error) {
	data := p.Data()
	o := newRawObj()
	err := p.Object(func(key string) error {
		start := p.Pos()
		var err error
		if in != nil {
			err = in(o, key)
		} else {
			err = p.Skip()
		}
		if err != nil {
			return err
		}
		o.set(key, data[start:p.Pos()])
		return nil
	})
	return o, err
}

// readObjectAt reads the value of key at p into o.objs when it is an object (with in, as
// objectAt), and skips it otherwise.
func (o *rawObj) readObjectAt(p *pyjson.Decoder, key string, in func(o *rawObj, key string) error) error {
	if k, err := p.Peek(); err != nil || k != pyjson.KindObject {
		delete(o.objs, key) // a repeated key: the last value counts
		return p.Skip()
	}
	sub, err := objectAt(p, in)
	if err != nil {
		return err
	}
	if o.objs == nil {
		o.objs = map[string]*rawObj{}
	}
	o.objs[key] = sub
	return nil
}

// objectsOf returns the value of key on the three sides of a merge as objects: those
// storeObject read, or else parseThree of their bytes.
func objectsOf(b, o, t *rawObj, key string) (*rawObj, *rawObj, *rawObj, error) {
	bo, oo, to := b.objs[key], o.objs[key], t.objs[key]
	if bo == nil && b.vals[key] == nil {
		bo = newRawObj() // absent from the base: empty, as parseThree reads it
	}
	if bo != nil && oo != nil && to != nil {
		return bo, oo, to, nil
	}
	return parseThree(b.vals[key], o.vals[key], t.vals[key])
}

// rawArray reads a JSON array's elements as their bytes.
func rawArray(data []byte) ([][]byte, error) {
	p := pyjson.NewDecoder("store", data)
	k, err := p.Peek()
	if err != nil {
		return nil, err
	}
	if k != pyjson.KindArray {
		return nil, fmt.Errorf("not a list (a %s)", k)
	}
	var out [][]byte
	err = p.Array(func(int) error {
		start := p.Pos()
		if err := p.Skip(); err != nil {
			return err
		}
		out = append(out, data[start:p.Pos()])
		return nil
	})
	if err == nil {
		err = p.End()
	}
	return out, err
}

// rawEqual reports whether two values (nil: absent) are the same JSON: the same bytes, or
// the same value once read (keys in the same order, numbers by their Python spelling).
func rawEqual(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if bytes.Equal(a, b) {
		return true
	}
	va, err := pyjson.Parse("", a)
	if err != nil {
		return false
	}
	vb, err := pyjson.Parse("", b)
	return err == nil && va.Equal(vb)
}

// canonicalJSON is a value's compact Python spelling, its identity in lists merged by value.
func canonicalJSON(b []byte) string {
	v, err := pyjson.Parse("", b)
	if err != nil {
		return string(b)
	}
	return string(pyjson.Compact(v))
}

// pickChanged is the three-way rule for one opaque value: the side that changed it wins; when both
// changed it, theirs (people on the base branch) wins.
func pickChanged(base, ours, theirs []byte) []byte {
	switch {
	case rawEqual(theirs, base):
		return ours
	case rawEqual(ours, base):
		return theirs
	default:
		return theirs
	}
}

// pickOurs is pickChanged with the bot winning when both changed the value.
func pickOurs(base, ours, theirs []byte) []byte {
	if rawEqual(ours, base) {
		return theirs
	}
	return ours
}

func mergeObjectByKey(base, ours, theirs []byte) ([]byte, error) {
	if ours == nil || theirs == nil {
		return pickChanged(base, ours, theirs), nil
	}
	b, o, t, err := parseThree(base, ours, theirs)
	if err != nil {
		return pickChanged(base, ours, theirs), nil // not objects: treat as opaque values
	}
	out := newRawObj()
	for _, k := range rawUnionKeys(o, t, b) {
		if v := pickChanged(b.vals[k], o.vals[k], t.vals[k]); v != nil {
			out.set(k, v)
		}
	}
	return out.bytes(), nil
}

// Entries: each id is living, dead or absent on each side.
type entryPlace int

const (
	placeAbsent entryPlace = iota
	placeLiving
	placeDead
)

type entryState struct {
	place entryPlace
	raw   []byte
}

// entrySide is one side's entries and graveyard by id: each id once, in the order of its first
// appearance (the entries', then the graveyard's), with the last entry of that id (a later
// duplicate, such as a graveyard copy of a living id, overrides; darwin-memo keeps ids unique
// across both lists).
type entrySide struct {
	ids     []string
	states  []entryState   // states[k] is the entry of ids[k]
	nLiving int            // ids[:nLiving] first appeared in "entries"
	pos     map[string]int // ids[pos[id]] == id
}

// find returns the index of id in s.ids, -1 when absent.
func (s *entrySide) find(id string) int {
	if k, ok := s.pos[id]; ok {
		return k
	}
	return -1
}

// indexEntries reads the entries and the graveyard of a document by id.
func indexEntries(doc *rawObj) (*entrySide, error) {
	var lists [2]*entryList // entries, graveyard; nil: absent
	for i, key := range [2]string{"entries", "graveyard"} {
		raw := doc.vals[key]
		if raw == nil {
			continue
		}
		l := doc.lists[key]
		if l == nil {
			var err error
			if l, err = readEntryList(key, raw); err != nil {
				return nil, err
			}
		}
		lists[i] = l
	}
	n := 0
	for _, l := range lists {
		if l != nil {
			n += len(l.ids)
		}
	}
	s := &entrySide{ids: make([]string, 0, n), states: make([]entryState, 0, n), pos: make(map[string]int, n)}
	places := [2]entryPlace{placeLiving, placeDead}
	// The ids of a store darwin-memo wrote are unique: index them with one map write each, and
	// only when the map comes out short (a duplicate) index again, looking each id up first.
	for _, l := range lists {
		if l != nil {
			s.ids = append(s.ids, l.ids...)
		}
	}
	for k, id := range s.ids {
		s.pos[id] = k
	}
	if len(s.pos) == len(s.ids) {
		for i, l := range lists {
			if l == nil {
				continue
			}
			for _, r := range l.raws {
				s.states = append(s.states, entryState{place: places[i], raw: r})
			}
			if i == 0 {
				s.nLiving = len(s.states)
			}
		}
		return s, nil
	}
	clear(s.pos)
	s.ids = s.ids[:0]
	for i, l := range lists {
		if l == nil {
			continue
		}
		for j, id := range l.ids {
			st := entryState{place: places[i], raw: l.raws[j]}
			if k, seen := s.pos[id]; seen {
				s.states[k] = st
				continue
			}
			s.pos[id] = len(s.ids)
			s.ids = append(s.ids, id)
			s.states = append(s.states, st)
		}
		if i == 0 {
			s.nLiving = len(s.ids)
		}
	}
	return s, nil
}

// readEntryList reads the list of entries raw (the value of key) by id.
func readEntryList(key string, raw []byte) (*entryList, error) {
	p := pyjson.NewDecoder(key, raw)
	if k, err := p.Peek(); err != nil || k != pyjson.KindArray {
		return nil, fmt.Errorf("%s is not a list", key)
	}
	l := &entryList{}
	err := p.Array(func(i int) error {
		start := p.Pos()
		id, r, err := entryID(p)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		if r == nil {
			r = raw[start:p.Pos()]
		}
		l.ids, l.raws = append(l.ids, id), append(l.raws, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// entryListAt reads the list at p as readEntryList does, in the decoder's pass over the whole
// document. It returns nil, and no error, when the value is not a list or an entry in it has
// no usable id: p is then past the value, which readEntryList reads again to report it. An
// error is the document's (p cannot go on).
func entryListAt(p *pyjson.Decoder) (*entryList, error) {
	if k, err := p.Peek(); err != nil || k != pyjson.KindArray {
		return nil, p.Skip()
	}
	data := p.Data()
	l, usable := &entryList{}, true
	err := p.Array(func(int) error {
		if !usable {
			return p.Skip()
		}
		if k, _ := p.Peek(); k != pyjson.KindObject {
			usable = false
			return p.Skip()
		}
		start := p.Pos()
		id, r, bad, err := entryAt(p)
		switch {
		case err != nil:
			return err
		case bad != nil:
			usable = false
			return nil
		case r == nil:
			r = data[start:p.Pos()]
		}
		l.ids, l.raws = append(l.ids, id), append(l.raws, r)
		return nil
	})
	if err != nil || !usable {
		return nil, err
	}
	return l, nil
}

// entryID reads the entry at p and returns its id, and nil bytes: the entry is as it stands.
// An entry without one (a lesson added by hand) gets the content-derived id every load gives
// it, and is returned with it.
func entryID(p *pyjson.Decoder) (string, []byte, error) {
	if k, err := p.Peek(); err != nil || k != pyjson.KindObject {
		return "", nil, errors.New("not an object")
	}
	id, raw, bad, err := entryAt(p)
	if err == nil {
		err = bad
	}
	return id, raw, err
}

// entryAt is entryID of an object at p, telling apart the entry's fault (bad: it was read
// whole, p is past it) from the document's (err).
func entryAt(p *pyjson.Decoder) (id string, raw []byte, bad, err error) {
	start := p.Pos()
	var has, notString bool
	err = p.Object(func(key string) error {
		if key != "id" {
			return p.Skip()
		}
		has = true
		if k, _ := p.Peek(); k != pyjson.KindString {
			notString = true
			return p.Skip()
		}
		s, err := p.Str()
		id = s
		return err
	})
	if err != nil {
		return "", nil, nil, err
	}
	switch {
	case notString || has && id == "":
		return "", nil, errors.New("has no string id"), nil
	case has:
		return id, nil, nil, nil
	}
	v, perr := pyjson.Parse("entry", p.Data()[start:p.Pos()])
	if perr != nil {
		return "", nil, perr, nil
	}
	q, qok := v.Get("question")
	a, aok := v.Get("answer")
	if !qok || !aok || q.Kind() != pyjson.KindString || a.Kind() != pyjson.KindString {
		return "", nil, errors.New("has no string id, and no question and answer to derive one from"), nil
	}
	id = ContentID("entry", q.Str(), a.Str())
	v.Set("id", pyjson.String(id))
	return id, pyjson.Compact(v), nil, nil
}

// mergeEntries returns the merged entries and graveyard as lists of entries' bytes: each id
// merged once (mergeEntry), in the order of its first appearance.
func mergeEntries(b, o, t *rawObj) ([][]byte, [][]byte, error) {
	var sides [3]*entrySide
	for i, d := range [3]*rawObj{b, o, t} {
		s, err := indexEntries(d)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", sideNames[i], err)
		}
		sides[i] = s
	}
	base, ours, theirs := sides[0], sides[1], sides[2]
	// Each id is merged once, in the order of its first appearance: ours' ids (at their index
	// in ours.ids), then theirs' that ours lacks. tAt is where each of theirs' ids is merged,
	// oToT which of theirs' ids (+1; 0: none) each of ours' is.
	nO := len(ours.ids)
	tAt, oToT := make([]int, len(theirs.ids)), make([]int, nO)
	for i, id := range theirs.ids {
		j := ours.find(id)
		tAt[i] = j
		if j >= 0 {
			oToT[j] = i + 1 // ids are unique: one i per j
		}
	}
	var theirsOnly []int // theirs' index of each id after ours'
	for i, j := range tAt {
		if j < 0 {
			tAt[i] = nO + len(theirsOnly)
			theirsOnly = append(theirsOnly, i)
		}
	}
	result := make([]entryState, nO+len(theirsOnly))
	for j := range result {
		var id string
		var bs, os, ts entryState
		if j < nO {
			id, os = ours.ids[j], ours.states[j]
			if i := oToT[j]; i > 0 {
				ts = theirs.states[i-1]
			}
		} else {
			i := theirsOnly[j-nO]
			id, ts = theirs.ids[i], theirs.states[i]
		}
		if k := base.find(id); k >= 0 {
			bs = base.states[k]
		}
		result[j] = mergeEntry(bs, os, ts)
	}
	nT := len(theirs.ids)
	livingOut := make([][]byte, 0, (nO+nT)/2)
	deadOut := make([][]byte, 0, nO-ours.nLiving+nT-theirs.nLiving)
	emitted := make([]bool, len(result))
	emit := func(j int, want entryPlace, out *[][]byte) {
		if r := result[j]; r.place == want && !emitted[j] {
			emitted[j] = true
			*out = append(*out, r.raw)
		}
	}
	emitOurs := func(lo, hi int, want entryPlace, out *[][]byte) {
		for j := lo; j < hi; j++ {
			emit(j, want, out)
		}
	}
	emitTheirs := func(at []int, want entryPlace, out *[][]byte) {
		for _, j := range at {
			emit(j, want, out)
		}
	}
	tL, tD := tAt[:theirs.nLiving], tAt[theirs.nLiving:]
	emitOurs(0, ours.nLiving, placeLiving, &livingOut)
	emitTheirs(tL, placeLiving, &livingOut)
	emitOurs(ours.nLiving, nO, placeDead, &deadOut)
	emitTheirs(tD, placeDead, &deadOut)
	// Entries that changed place (a living entry of ours that people buried) come last.
	emitOurs(0, ours.nLiving, placeDead, &deadOut)
	emitTheirs(tL, placeDead, &deadOut)
	emitOurs(ours.nLiving, nO, placeLiving, &livingOut)
	emitTheirs(tD, placeLiving, &livingOut)
	return livingOut, deadOut, nil
}

// mergeEntry applies the entry rules of docs/merge.md.
func mergeEntry(b, o, t entryState) entryState {
	switch {
	case t.place == b.place && rawEqual(t.raw, b.raw):
		return o // people did not touch it
	case o.place == b.place && rawEqual(o.raw, b.raw):
		return t // the bot did not touch it
	case o.place == placeAbsent:
		return t
	case t.place == placeAbsent:
		// Deleted from the file on the base branch by hand while the bot changed it: the
		// deletion wins (a person removed the lesson on purpose).
		if b.place != placeAbsent {
			return t
		}
		return o
	case t.place == placeDead && b.place == placeLiving:
		return t // forgotten or buried by a person on the base branch
	case o.place == placeDead && b.place == placeLiving:
		return o // died by measurement on the bot branch
	}
	// Both changed a living (or both a dead) entry: merge field by field. Text and trust
	// fields follow people; the economics follow the bot.
	oo, err1 := rawObject(o.raw)
	to, err2 := rawObject(t.raw)
	if err1 != nil || err2 != nil {
		return o
	}
	bo := newRawObj()
	if b.raw != nil {
		if x, err := rawObject(b.raw); err == nil {
			bo = x
		}
	}
	out := newRawObj()
	for _, k := range rawUnionKeys(oo, to, bo) {
		bv, ov, tv := bo.vals[k], oo.vals[k], to.vals[k]
		var v []byte
		switch k {
		case "energy", "uses", "last_used_cycle", "born_cycle", "lineage", "probation", "juvenile":
			v = pickOurs(bv, ov, tv)
		default:
			v = pickChanged(bv, ov, tv)
		}
		if v != nil {
			out.set(k, v)
		}
	}
	return entryState{place: o.place, raw: out.bytes()}
}

// mergeLedger merges darwin-memo's ledger block, the value of "ledger" in the three store
// documents.
func mergeLedger(docB, docO, docT *rawObj) ([]byte, error) {
	base, ours, theirs := docB.vals["ledger"], docO.vals["ledger"], docT.vals["ledger"]
	if ours == nil || theirs == nil {
		return pickChanged(base, ours, theirs), nil
	}
	b, o, t, err := objectsOf(docB, docO, docT, "ledger")
	if err != nil {
		// A malformed ledger block is loaded fail-soft by the store; keep the bot's.
		return ours, nil
	}
	out := newRawObj()
	for _, k := range rawUnionKeys(o, t, b) {
		bv, ov, tv := b.vals[k], o.vals[k], t.vals[k]
		var v []byte
		switch k {
		case "tick_count":
			v = mergeTick(bv, ov, tv)
		case "pending":
			v, err = mergeByID(bv, ov, tv, "id", true)
		case "settled_runs":
			v, err = mergeByID(bv, ov, tv, "", false)
		case "history":
			v, err = mergeHistory(b, o, t)
		case "damaged":
			v, err = unionStrings(ov, tv)
		case "config":
			v, err = mergeObjectByKey(bv, ov, tv)
		default:
			v = pickChanged(bv, ov, tv)
		}
		if err != nil {
			v, err = pickOurs(bv, ov, tv), nil
		}
		if v != nil {
			out.set(k, v)
		}
	}
	return out.bytes(), nil
}

// rawInt reads an integer value (not a float, not a bool).
func rawInt(b []byte) (int, bool) {
	if b == nil {
		return 0, false
	}
	v, err := pyjson.Parse("", b)
	if err != nil {
		return 0, false
	}
	return v.Int()
}

// mergeTick adds ticks people ran on the base branch to the bot's count.
func mergeTick(base, ours, theirs []byte) []byte {
	if rawEqual(ours, theirs) {
		return ours
	}
	o, ok := rawInt(ours)
	if !ok {
		return pickChanged(base, ours, theirs)
	}
	t, ok := rawInt(theirs)
	if !ok {
		return ours
	}
	b, ok := rawInt(base)
	if !ok {
		// No common ancestor: both counted the same history; keep the larger count.
		return []byte(strconv.Itoa(max(o, t)))
	}
	if t > b {
		o += t - b
	}
	return []byte(strconv.Itoa(o))
}

// mergeByID merges lists of objects by identity (the idKey field, or the whole pyjson.Value). With
// removals, an item present at base and missing on either side is dropped (settled by the bot,
// or abandoned by a person); otherwise every item of either side is kept.
func mergeByID(base, ours, theirs []byte, idKey string, removals bool) ([]byte, error) {
	key := func(r []byte) string {
		if idKey != "" {
			if v, err := pyjson.Parse("", r); err == nil {
				if x, ok := v.Get(idKey); ok && x.Kind() == pyjson.KindString && x.Str() != "" {
					return x.Str()
				}
				return string(pyjson.Compact(v))
			}
		}
		return canonicalJSON(r)
	}
	lists := make([][][]byte, 3)
	for i, raw := range [][]byte{base, ours, theirs} {
		if raw == nil {
			continue
		}
		l, err := rawArray(raw)
		if err != nil {
			return nil, err
		}
		lists[i] = l
	}
	inBase := map[string]bool{}
	for _, r := range lists[0] {
		inBase[key(r)] = true
	}
	inTheirs := map[string]bool{}
	for _, r := range lists[2] {
		inTheirs[key(r)] = true
	}
	var out [][]byte
	seen := map[string]bool{}
	for _, r := range lists[1] {
		k := key(r)
		if seen[k] || (removals && inBase[k] && !inTheirs[k]) {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	for _, r := range lists[2] {
		k := key(r)
		if seen[k] || (removals && inBase[k]) {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return rawList(out), nil
}

// mergeHistory keeps the bot's notes per entry and appends the notes people's tools added on
// the base branch since base, capped at darwin-memo's 100 notes per entry: the value of
// "history" in the three ledgers.
func mergeHistory(ledgerB, ledgerO, ledgerT *rawObj) ([]byte, error) {
	b, o, t, err := objectsOf(ledgerB, ledgerO, ledgerT, "history")
	if err != nil {
		return nil, err
	}
	out := newRawObj()
	for _, id := range rawUnionKeys(o, t, b) {
		bv, ov, tv := b.vals[id], o.vals[id], t.vals[id]
		var v []byte
		switch {
		case rawEqual(tv, bv), rawEqual(ov, tv):
			v = ov
		case rawEqual(ov, bv):
			v = tv
		default:
			bl, _ := rawArray(orEmptyList(bv))
			ol, err1 := rawArray(orEmptyList(ov))
			tl, err2 := rawArray(orEmptyList(tv))
			if err1 != nil || err2 != nil {
				v = ov
				break
			}
			have := map[string]bool{}
			for _, n := range append(append([][]byte{}, bl...), ol...) {
				have[canonicalJSON(n)] = true
			}
			for _, n := range tl {
				if c := canonicalJSON(n); !have[c] {
					ol = append(ol, n)
					have[c] = true
				}
			}
			if len(ol) > 100 {
				ol = ol[len(ol)-100:]
			}
			v = rawList(ol)
		}
		if v != nil {
			out.set(id, v)
		}
	}
	return out.bytes(), nil
}

func orEmptyList(b []byte) []byte {
	if b == nil {
		return []byte("[]")
	}
	return b
}

// unionStrings is the sorted union of two lists of strings.
func unionStrings(ours, theirs []byte) ([]byte, error) {
	set := map[string]bool{}
	for _, raw := range [][]byte{ours, theirs} {
		if raw == nil {
			continue
		}
		v, err := pyjson.Parse("", raw)
		if err != nil {
			return nil, err
		}
		if v.Kind() != pyjson.KindArray {
			return nil, fmt.Errorf("not a list of strings (a %s)", v.Kind())
		}
		for _, x := range v.Elems() {
			if x.Kind() != pyjson.KindString {
				return nil, fmt.Errorf("not a list of strings (holds a %s)", x.Kind())
			}
			set[x.Str()] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return pyjson.Compact(pyjson.Strings(out)), nil
}

// parseThree reads the base (absent counts as empty), ours and theirs sides of a merge as
// objects, joining whatever errors the three sides give.
func parseThree(base, ours, theirs []byte) (b, o, t *rawObj, err error) {
	b, err1 := rawObject(orEmptyJSON(base))
	o, err2 := rawObject(ours)
	t, err3 := rawObject(theirs)
	return b, o, t, errors.Join(err1, err2, err3)
}

func rawUnionKeys(objs ...*rawObj) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range objs {
		for _, k := range o.keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
