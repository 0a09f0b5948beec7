// Package storemerge three-way merges darwin-memo lesson stores at the JSON level: the store on
// the open bot branch ("ours", which carries the bot's settlements, ticks, births and deaths),
// the store on the base branch now ("theirs", which carries what people changed: compat
// tickets, hand edits, pins, forgets) and the store both started from ("base").
//
// The merge works on raw JSON values, so numbers keep their exact text and keys the package
// does not know survive; callers re-parse the result with the lessons package, which also
// normalises the formatting. The rules are documented in docs/merge.md; in one line: for every
// value, the side that changed it wins, people win conflicts on text and trust fields, the bot
// wins conflicts on its economics, and lists of tickets, notes and runs are merged by identity.
package storemerge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// KeyMerger merges one top-level key whose rule the caller knows better (for example the
// action's record of processed pull requests). Absent values are nil.
type KeyMerger func(base, ours, theirs json.RawMessage) (json.RawMessage, error)

// Merge returns the three-way merge of three store documents. base may be nil (no common
// ancestor known: everything on either side counts as added). custom maps top-level keys to
// their own merge rule.
func Merge(base, ours, theirs []byte, custom map[string]KeyMerger) ([]byte, error) {
	b, err := parseObject(orEmpty(base))
	if err != nil {
		return nil, fmt.Errorf("merge base store: %w", err)
	}
	o, err := parseObject(ours)
	if err != nil {
		return nil, fmt.Errorf("bot branch store: %w", err)
	}
	t, err := parseObject(theirs)
	if err != nil {
		return nil, fmt.Errorf("base branch store: %w", err)
	}
	out := &object{vals: map[string]json.RawMessage{}}
	for _, k := range unionKeys(o, t, b) {
		bv, ov, tv := b.vals[k], o.vals[k], t.vals[k]
		var v json.RawMessage
		switch {
		case custom[k] != nil:
			v, err = custom[k](bv, ov, tv)
		case k == "entries":
			continue // merged together with the graveyard below
		case k == "graveyard":
			continue
		case k == "ledger":
			v, err = mergeLedger(bv, ov, tv)
		case k == "config":
			v, err = mergeObjectByKey(bv, ov, tv)
		default:
			v = pick(bv, ov, tv)
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
	// Keep darwin-memo's key order: config, entries, graveyard first.
	final := &object{vals: map[string]json.RawMessage{}}
	if v, ok := out.vals["config"]; ok {
		final.set("config", v)
	}
	final.set("entries", living)
	final.set("graveyard", dead)
	for _, k := range out.keys {
		if k != "config" {
			final.set(k, out.vals[k])
		}
	}
	return final.marshal()
}

func orEmpty(b []byte) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("{}")
	}
	return b
}

// pick is the three-way rule for one opaque value: the side that changed it wins; when both
// changed it, theirs (people on the base branch) wins.
func pick(base, ours, theirs json.RawMessage) json.RawMessage {
	switch {
	case equal(theirs, base):
		return ours
	case equal(ours, base):
		return theirs
	default:
		return theirs
	}
}

// pickOurs is pick with the bot winning when both changed the value.
func pickOurs(base, ours, theirs json.RawMessage) json.RawMessage {
	if equal(ours, base) {
		return theirs
	}
	return ours
}

func equal(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func mergeObjectByKey(base, ours, theirs json.RawMessage) (json.RawMessage, error) {
	if ours == nil || theirs == nil {
		return pick(base, ours, theirs), nil
	}
	b, o, t, err := parseThree(base, ours, theirs)
	if err != nil {
		return pick(base, ours, theirs), nil // not objects: treat as opaque values
	}
	out := &object{vals: map[string]json.RawMessage{}}
	for _, k := range unionKeys(o, t, b) {
		if v := pick(b.vals[k], o.vals[k], t.vals[k]); v != nil {
			out.set(k, v)
		}
	}
	return out.marshal()
}

// Entries: each id is living, dead or absent on each side.
type place int

const (
	absent place = iota
	living
	dead
)

type entryState struct {
	place place
	raw   json.RawMessage
	obj   *object
}

func entryIndex(doc *object) (map[string]entryState, []string, []string, error) {
	idx := map[string]entryState{}
	var livingOrder, deadOrder []string
	for _, sec := range []struct {
		key   string
		place place
		order *[]string
	}{{"entries", living, &livingOrder}, {"graveyard", dead, &deadOrder}} {
		raw := doc.vals[sec.key]
		if raw == nil {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, nil, nil, fmt.Errorf("%s is not a list: %w", sec.key, err)
		}
		for i, r := range list {
			o, err := parseObject(r)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s[%d]: %w", sec.key, i, err)
			}
			var id string
			if err := json.Unmarshal(o.vals["id"], &id); err != nil || id == "" {
				return nil, nil, nil, fmt.Errorf("%s[%d] has no string id", sec.key, i)
			}
			// A later duplicate (a graveyard copy of a living id) overrides; darwin-memo keeps
			// ids unique across both lists.
			if _, seen := idx[id]; !seen {
				*sec.order = append(*sec.order, id)
			}
			idx[id] = entryState{place: sec.place, raw: r, obj: o}
		}
	}
	return idx, livingOrder, deadOrder, nil
}

func mergeEntries(b, o, t *object) (json.RawMessage, json.RawMessage, error) {
	bi, _, _, err := entryIndex(b)
	if err != nil {
		return nil, nil, fmt.Errorf("merge base store: %w", err)
	}
	oi, oLiving, oDead, err := entryIndex(o)
	if err != nil {
		return nil, nil, fmt.Errorf("bot branch store: %w", err)
	}
	ti, tLiving, tDead, err := entryIndex(t)
	if err != nil {
		return nil, nil, fmt.Errorf("base branch store: %w", err)
	}
	result := map[string]entryState{}
	for _, id := range unionIDs(oLiving, oDead, tLiving, tDead) {
		result[id] = mergeEntry(bi[id], oi[id], ti[id])
	}
	var livingOut, deadOut []json.RawMessage
	emitted := map[string]bool{}
	emit := func(order []string, want place, out *[]json.RawMessage) {
		for _, id := range order {
			r := result[id]
			if r.place == want && !emitted[id] {
				emitted[id] = true
				*out = append(*out, r.raw)
			}
		}
	}
	emit(oLiving, living, &livingOut)
	emit(tLiving, living, &livingOut)
	emit(oDead, dead, &deadOut)
	emit(tDead, dead, &deadOut)
	// Entries that changed place (a living entry of ours that people buried) come last.
	emit(oLiving, dead, &deadOut)
	emit(tLiving, dead, &deadOut)
	emit(oDead, living, &livingOut)
	emit(tDead, living, &livingOut)
	lj, err := marshalList(livingOut)
	if err != nil {
		return nil, nil, err
	}
	dj, err := marshalList(deadOut)
	return lj, dj, err
}

// mergeEntry applies the entry rules of docs/merge.md.
func mergeEntry(b, o, t entryState) entryState {
	switch {
	case t.place == b.place && equal(t.raw, b.raw):
		return o // people did not touch it
	case o.place == b.place && equal(o.raw, b.raw):
		return t // the bot did not touch it
	case o.place == absent:
		return t
	case t.place == absent:
		// Deleted from the file on the base branch by hand while the bot changed it: the
		// deletion wins (a person removed the lesson on purpose).
		if b.place != absent {
			return t
		}
		return o
	case t.place == dead && b.place == living:
		return t // forgotten or buried by a person on the base branch
	case o.place == dead && b.place == living:
		return o // died by measurement on the bot branch
	}
	// Both changed a living (or both a dead) entry: merge field by field. Text and trust
	// fields follow people; the economics follow the bot.
	if o.obj == nil || t.obj == nil {
		return o
	}
	var bo *object
	if b.obj != nil {
		bo = b.obj
	} else {
		bo = &object{vals: map[string]json.RawMessage{}}
	}
	out := &object{vals: map[string]json.RawMessage{}}
	for _, k := range unionKeys(o.obj, t.obj, bo) {
		bv, ov, tv := bo.vals[k], o.obj.vals[k], t.obj.vals[k]
		var v json.RawMessage
		switch k {
		case "energy", "uses", "last_used_cycle", "born_cycle", "lineage", "probation", "juvenile":
			v = pickOurs(bv, ov, tv)
		default:
			v = pick(bv, ov, tv)
		}
		if v != nil {
			out.set(k, v)
		}
	}
	raw, err := out.marshal()
	if err != nil {
		return o
	}
	return entryState{place: o.place, raw: raw, obj: out}
}

func unionIDs(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, id := range l {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// mergeLedger merges darwin-memo's ledger block.
func mergeLedger(base, ours, theirs json.RawMessage) (json.RawMessage, error) {
	if ours == nil || theirs == nil {
		return pick(base, ours, theirs), nil
	}
	b, o, t, err := parseThree(base, ours, theirs)
	if err != nil {
		// A malformed ledger block is loaded fail-soft by the store; keep the bot's.
		return ours, nil
	}
	out := &object{vals: map[string]json.RawMessage{}}
	for _, k := range unionKeys(o, t, b) {
		bv, ov, tv := b.vals[k], o.vals[k], t.vals[k]
		var v json.RawMessage
		switch k {
		case "tick_count":
			v = mergeTick(bv, ov, tv)
		case "pending":
			v, err = mergeByID(bv, ov, tv, "id", true)
		case "settled_runs":
			v, err = mergeByID(bv, ov, tv, "", false)
		case "history":
			v, err = mergeHistory(bv, ov, tv)
		case "damaged":
			v, err = unionStrings(ov, tv)
		case "config":
			v, err = mergeObjectByKey(bv, ov, tv)
		default:
			v = pick(bv, ov, tv)
		}
		if err != nil {
			return pickOurs(bv, ov, tv), nil
		}
		if v != nil {
			out.set(k, v)
		}
	}
	return out.marshal()
}

// mergeTick adds ticks people ran on the base branch to the bot's count.
func mergeTick(base, ours, theirs json.RawMessage) json.RawMessage {
	if equal(ours, theirs) {
		return ours
	}
	var b, o, t int
	if json.Unmarshal(ours, &o) != nil {
		return pick(base, ours, theirs)
	}
	if json.Unmarshal(theirs, &t) != nil {
		return ours
	}
	if json.Unmarshal(base, &b) != nil {
		// No common ancestor: both counted the same history; keep the larger count.
		if t > o {
			o = t
		}
		r, _ := json.Marshal(o)
		return r
	}
	if t > b {
		o += t - b
	}
	r, _ := json.Marshal(o)
	return r
}

// mergeByID merges lists of objects by identity (the idKey field, or the whole value). With
// removals, an item present at base and missing on either side is dropped (settled by the bot,
// or abandoned by a person); otherwise every item of either side is kept.
func mergeByID(base, ours, theirs json.RawMessage, idKey string, removals bool) (json.RawMessage, error) {
	key := func(r json.RawMessage) string {
		if idKey != "" {
			if o, err := parseObject(r); err == nil {
				var id string
				if json.Unmarshal(o.vals[idKey], &id) == nil && id != "" {
					return id
				}
			}
		}
		var c bytes.Buffer
		if json.Compact(&c, r) != nil {
			return string(r)
		}
		return c.String()
	}
	lists := make([][]json.RawMessage, 3)
	for i, raw := range []json.RawMessage{base, ours, theirs} {
		if raw == nil {
			continue
		}
		if err := json.Unmarshal(raw, &lists[i]); err != nil {
			return nil, err
		}
	}
	inBase := map[string]bool{}
	for _, r := range lists[0] {
		inBase[key(r)] = true
	}
	inTheirs := map[string]bool{}
	for _, r := range lists[2] {
		inTheirs[key(r)] = true
	}
	var out []json.RawMessage
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
	return marshalList(out)
}

// mergeHistory keeps the bot's notes per entry and appends the notes people's tools added on
// the base branch since base, capped at darwin-memo's 100 notes per entry.
func mergeHistory(base, ours, theirs json.RawMessage) (json.RawMessage, error) {
	b, o, t, err := parseThree(base, ours, theirs)
	if err != nil {
		return nil, err
	}
	out := &object{vals: map[string]json.RawMessage{}}
	for _, id := range unionKeys(o, t, b) {
		bv, ov, tv := b.vals[id], o.vals[id], t.vals[id]
		var v json.RawMessage
		switch {
		case equal(tv, bv), equal(ov, tv):
			v = ov
		case equal(ov, bv):
			v = tv
		default:
			var bl, ol, tl []json.RawMessage
			_ = json.Unmarshal(bv, &bl)
			if json.Unmarshal(ov, &ol) != nil || json.Unmarshal(tv, &tl) != nil {
				v = ov
				break
			}
			have := map[string]bool{}
			for _, n := range append(append([]json.RawMessage{}, bl...), ol...) {
				have[compact(n)] = true
			}
			for _, n := range tl {
				if !have[compact(n)] {
					ol = append(ol, n)
					have[compact(n)] = true
				}
			}
			if len(ol) > 100 {
				ol = ol[len(ol)-100:]
			}
			if v, err = marshalList(ol); err != nil {
				return nil, err
			}
		}
		if v != nil {
			out.set(id, v)
		}
	}
	return out.marshal()
}

func compact(r json.RawMessage) string {
	var c bytes.Buffer
	if json.Compact(&c, r) != nil {
		return string(r)
	}
	return c.String()
}

func unionStrings(ours, theirs json.RawMessage) (json.RawMessage, error) {
	set := map[string]bool{}
	for _, raw := range []json.RawMessage{ours, theirs} {
		if raw == nil {
			continue
		}
		var l []string
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		for _, s := range l {
			set[s] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return json.Marshal(out)
}

func marshalList(l []json.RawMessage) (json.RawMessage, error) {
	if l == nil {
		return json.RawMessage("[]"), nil
	}
	return json.Marshal(l)
}

// object is a JSON object that remembers its key order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) marshal() (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// parseThree parses the base (absent counts as empty), ours and theirs sides of a merge as
// objects, joining whatever errors the three sides give.
func parseThree(base, ours, theirs []byte) (b, o, t *object, err error) {
	b, err1 := parseObject(orEmpty(base))
	o, err2 := parseObject(ours)
	t, err3 := parseObject(theirs)
	return b, o, t, errors.Join(err1, err2, err3)
}

func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the JSON object")
	}
	return o, nil
}

func unionKeys(objs ...*object) []string {
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
