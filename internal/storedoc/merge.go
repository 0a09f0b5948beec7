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

// KeyMerger merges one top-level key other than entries and graveyard whose rule the caller
// knows better (for example the action's record of processed pull requests). Its arguments
// are the JSON of the key's value on each side as the documents spell it, nil when absent; it
// returns the merged value's JSON (any formatting), or nil to leave the key out.
type KeyMerger func(base, ours, theirs []byte) ([]byte, error)

// sideNames name the three sides of a merge in errors, in the order base, ours, theirs.
var sideNames = [3]string{"merge base store", "bot branch store", "base branch store"}

// Merge returns the three-way merge of three store documents, compact: each value as one of
// the sides spelled it, darwin-memo's keys config, entries and graveyard first (a store loads
// it, lessons.ParseWith, and writes it in darwin-memo's layout). base may be nil (no common
// ancestor known: everything on either side counts as added). custom maps top-level keys but
// entries and graveyard to their own merge rule. Entries without an "id" (lessons added by
// hand) are matched by the content-derived id every load gives them.
func Merge(base, ours, theirs []byte, custom map[string]KeyMerger) ([]byte, error) {
	var sides [3]*storeDoc
	for i, doc := range [3][]byte{orEmptyJSON(base), ours, theirs} {
		d, err := readStore(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sideNames[i], err)
		}
		sides[i] = d
	}
	b, o, t := sides[0], sides[1], sides[2]
	var err error
	out := newRawObj()
	for _, k := range rawUnionKeys(o.top, t.top, b.top) {
		bv, ov, tv := b.top.vals[k], o.top.vals[k], t.top.vals[k]
		var v []byte
		switch {
		case k == "entries", k == "graveyard":
			continue // merged together below
		case custom[k] != nil:
			v, err = custom[k](bv, ov, tv)
		case k == "ledger":
			v = mergeLedger(b, o, t)
		case k == "config":
			v = mergeObjectByKey(bv, ov, tv)
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
	living, dead := mergeEntries(b.entrySide(), o.entrySide(), t.entrySide())
	// Keep darwin-memo's key order: config, entries, graveyard first. The document is written
	// in one buffer, the entries straight from the sides' bytes.
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
	buf = appendRawList(buf, living)
	buf = append(buf, `,"graveyard":`...)
	buf = appendRawList(buf, dead)
	for _, k := range out.keys {
		if k != "config" {
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
func rawObject(data []byte) (*rawObj, error) {
	p := pyjson.NewDecoder("store", data)
	if err := isObject(p); err != nil {
		return nil, err
	}
	o, err := objectAt(p, nil)
	if err == nil {
		err = p.End()
	}
	return o, err
}

func isObject(p *pyjson.Decoder) error {
	k, err := p.Peek()
	if err != nil {
		return err
	}
	if k != pyjson.KindObject {
		return fmt.Errorf("not a JSON object (a %s)", k)
	}
	return nil
}

// objectAt reads the object at p as rawObject does. in, when not nil, reads each member's
// value at p instead of skipping it (the member's bytes are kept all the same).
func objectAt(p *pyjson.Decoder, in func(key string) error) (*rawObj, error) {
	data := p.Data()
	o := newRawObj()
	err := p.Object(func(key string) error {
		start := p.Pos()
		var err error
		if in != nil {
			err = in(key)
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

// storeDoc is one side's store document as the merge reads it, in one pass: its top-level
// members as bytes, its entry lists by id, and its ledger and the ledger's history as objects
// (nil when absent or not an object).
type storeDoc struct {
	top                *rawObj
	entries, graveyard *entryList
	ledger, history    *rawObj
}

// entryList is an entries list read by id: each entry's id and bytes, in order.
type entryList struct {
	ids  []string
	raws [][]byte
}

// readStore reads a store document. An entry list that is not a list of entries with ids
// is an error; a ledger or history that is not an object is left to mergeLedger, which keeps
// the bot's.
func readStore(data []byte) (*storeDoc, error) {
	p := pyjson.NewDecoder("store", data)
	if err := isObject(p); err != nil {
		return nil, err
	}
	d := &storeDoc{}
	objectOrNil := func(in func(key string) error) (*rawObj, error) {
		if k, err := p.Peek(); err != nil || k != pyjson.KindObject {
			return nil, p.Skip()
		}
		return objectAt(p, in)
	}
	var err error
	d.top, err = objectAt(p, func(key string) error {
		var err error
		switch key {
		case "entries":
			d.entries, err = entryListAt(p, key)
		case "graveyard":
			d.graveyard, err = entryListAt(p, key)
		case "ledger":
			d.history = nil // a repeated key: the last value counts
			d.ledger, err = objectOrNil(func(key string) error {
				if key != "history" {
					return p.Skip()
				}
				var err error
				d.history, err = objectOrNil(nil)
				return err
			})
		default:
			err = p.Skip()
		}
		return err
	})
	if err == nil {
		err = p.End()
	}
	return d, err
}

// entryListAt reads the list of entries at p (the value of key) by id.
func entryListAt(p *pyjson.Decoder, key string) (*entryList, error) {
	if k, err := p.Peek(); err != nil || k != pyjson.KindArray {
		return nil, fmt.Errorf("%s is not a list", key)
	}
	l := &entryList{}
	err := p.Array(func(i int) error {
		id, raw, err := entryAt(p)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		l.ids, l.raws = append(l.ids, id), append(l.raws, raw)
		return nil
	})
	return l, err
}

// entryAt reads the entry at p and returns its id and its bytes. An entry without an id (a
// lesson added by hand) gets the content-derived id every load gives it, and is returned with
// it.
func entryAt(p *pyjson.Decoder) (string, []byte, error) {
	if k, err := p.Peek(); err != nil || k != pyjson.KindObject {
		return "", nil, errors.New("not an object")
	}
	start := p.Pos()
	var id string
	var has, notString bool
	err := p.Object(func(key string) error {
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
	raw := p.Data()[start:p.Pos()]
	switch {
	case err != nil:
		return "", nil, err
	case notString || has && id == "":
		return "", nil, errors.New("has no string id")
	case has:
		return id, raw, nil
	}
	v, err := pyjson.Parse("entry", raw)
	if err != nil {
		return "", nil, err
	}
	q, qok := v.Get("question")
	a, aok := v.Get("answer")
	if !qok || !aok || q.Kind() != pyjson.KindString || a.Kind() != pyjson.KindString {
		return "", nil, errors.New("has no string id, and no question and answer to derive one from")
	}
	id = ContentID("entry", q.Str(), a.Str())
	v.Set("id", pyjson.String(id))
	return id, pyjson.Compact(v), nil
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
	if rawEqual(theirs, base) {
		return ours
	}
	return theirs
}

// pickOurs is pickChanged with the bot winning when both changed the value.
func pickOurs(base, ours, theirs []byte) []byte {
	if rawEqual(ours, base) {
		return theirs
	}
	return ours
}

// mergedWhole reports whether an object is merged whole, by pickChanged, rather than member
// by member: when one side lacks it, or both hold it byte for byte (rebuilt member by member,
// a key written raw would be re-escaped and spaces and repeated keys dropped, so a merge of a
// merge would differ).
func mergedWhole(ours, theirs []byte) bool {
	return ours == nil || theirs == nil || bytes.Equal(ours, theirs)
}

// mergeObjectByKey merges an object key by key with pickChanged; values that are not objects
// on each side are merged as opaque values, and an object is merged whole when mergedWhole
// says so.
func mergeObjectByKey(base, ours, theirs []byte) []byte {
	if mergedWhole(ours, theirs) {
		return pickChanged(base, ours, theirs)
	}
	b, o, t, err := parseThree(base, ours, theirs)
	if err != nil {
		return pickChanged(base, ours, theirs)
	}
	return mergeMembers(b, o, t, func(_ string, bv, ov, tv []byte) []byte { return pickChanged(bv, ov, tv) })
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

// state returns the entry of id, absent when the side has none.
func (s *entrySide) state(id string) entryState {
	if k, ok := s.pos[id]; ok {
		return s.states[k]
	}
	return entryState{}
}

// entrySide indexes the document's entries and graveyard by id.
func (d *storeDoc) entrySide() *entrySide {
	n := 0
	for _, l := range [2]*entryList{d.entries, d.graveyard} {
		if l != nil {
			n += len(l.ids)
		}
	}
	s := &entrySide{ids: make([]string, 0, n), states: make([]entryState, 0, n), pos: make(map[string]int, n)}
	for i, l := range [2]*entryList{d.entries, d.graveyard} {
		if l == nil {
			continue
		}
		place := placeLiving
		if i == 1 {
			place = placeDead
		}
		for j, id := range l.ids {
			st := entryState{place: place, raw: l.raws[j]}
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
	return s
}

// mergeEntries returns the merged entries and graveyard as lists of entries' bytes: each id
// of ours or theirs merged once (mergeEntry), living entries in ours' order then theirs',
// dead ones likewise, and entries that changed place (a living entry of ours that people
// buried) last.
func mergeEntries(base, ours, theirs *entrySide) (living, dead [][]byte) {
	// merged holds the merge of each of ours' ids, at its index in ours.ids, then of each of
	// theirs' ids that ours lacks; at is where each of theirs' ids is merged.
	merged := make([]entryState, 0, len(ours.ids)+len(theirs.ids))
	for k, id := range ours.ids {
		merged = append(merged, mergeEntry(base.state(id), ours.states[k], theirs.state(id)))
	}
	at := make([]int, len(theirs.ids))
	for k, id := range theirs.ids {
		if j, ok := ours.pos[id]; ok {
			at[k] = j
			continue
		}
		at[k] = len(merged)
		merged = append(merged, mergeEntry(base.state(id), entryState{}, theirs.states[k]))
	}
	seq := func(lo, hi int) []int {
		s := make([]int, hi-lo)
		for i := range s {
			s[i] = lo + i
		}
		return s
	}
	oursLiving, oursDead := seq(0, ours.nLiving), seq(ours.nLiving, len(ours.ids))
	theirsLiving, theirsDead := at[:theirs.nLiving], at[theirs.nLiving:]
	emitted := make([]bool, len(merged))
	emit := func(want entryPlace, lists ...[]int) [][]byte {
		out := make([][]byte, 0, len(merged))
		for _, l := range lists {
			for _, j := range l {
				if r := merged[j]; r.place == want && !emitted[j] {
					emitted[j] = true
					out = append(out, r.raw)
				}
			}
		}
		return out
	}
	return emit(placeLiving, oursLiving, theirsLiving, oursDead, theirsDead), emit(placeDead, oursDead, theirsDead, oursLiving, theirsLiving)
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
	raw := mergeMembers(bo, oo, to, func(k string, bv, ov, tv []byte) []byte {
		switch k {
		case "energy", "uses", "last_used_cycle", "born_cycle", "lineage", "probation", "juvenile":
			return pickOurs(bv, ov, tv)
		}
		return pickChanged(bv, ov, tv)
	})
	return entryState{place: o.place, raw: raw}
}

// mergeLedger merges darwin-memo's ledger block, the value of "ledger" in the three store
// documents.
func mergeLedger(docB, docO, docT *storeDoc) []byte {
	base, ours, theirs := docB.top.vals["ledger"], docO.top.vals["ledger"], docT.top.vals["ledger"]
	if mergedWhole(ours, theirs) {
		return pickChanged(base, ours, theirs)
	}
	b, o, t, err := threeObjects(base, docB.ledger, docO.ledger, docT.ledger)
	if err != nil {
		// A malformed ledger block is loaded fail-soft by the store; keep the bot's.
		return ours
	}
	return mergeMembers(b, o, t, func(k string, bv, ov, tv []byte) []byte {
		var v []byte
		var err error
		switch k {
		case "tick_count":
			v = mergeTick(bv, ov, tv)
		case "pending":
			v, err = mergeByID(bv, ov, tv, "id", true)
		case "settled_runs":
			v, err = mergeByID(bv, ov, tv, "", false)
		case "history":
			v, err = mergeHistory(threeObjects(bv, docB.history, docO.history, docT.history))
		case "damaged":
			v, err = unionStrings(ov, tv)
		case "config":
			v = mergeObjectByKey(bv, ov, tv)
		default:
			v = pickChanged(bv, ov, tv)
		}
		if err != nil {
			return pickOurs(bv, ov, tv)
		}
		return v
	})
}

// threeObjects returns the objects readStore read on the three sides: an error when ours or
// theirs is not one, or base is present and not one (an absent base is empty).
func threeObjects(baseRaw []byte, b, o, t *rawObj) (*rawObj, *rawObj, *rawObj, error) {
	if b == nil && baseRaw == nil {
		b = newRawObj()
	}
	if b == nil || o == nil || t == nil {
		return nil, nil, nil, errors.New("not an object")
	}
	return b, o, t, nil
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
func mergeHistory(b, o, t *rawObj, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return mergeMembers(b, o, t, func(_ string, bv, ov, tv []byte) []byte {
		switch {
		case rawEqual(tv, bv), rawEqual(ov, tv):
			return ov
		case rawEqual(ov, bv):
			return tv
		}
		bl, _ := rawArray(orEmptyList(bv))
		ol, err1 := rawArray(orEmptyList(ov))
		tl, err2 := rawArray(orEmptyList(tv))
		if err1 != nil || err2 != nil {
			return ov
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
		return rawList(ol)
	}), nil
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

// mergeMembers merges three objects member by member, each key of ours, theirs and base once
// in that order of appearance: rule returns the merged value of a key, or nil to leave it out.
func mergeMembers(b, o, t *rawObj, rule func(key string, base, ours, theirs []byte) []byte) []byte {
	out := newRawObj()
	for _, k := range rawUnionKeys(o, t, b) {
		if v := rule(k, b.vals[k], o.vals[k], t.vals[k]); v != nil {
			out.set(k, v)
		}
	}
	return out.bytes()
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
