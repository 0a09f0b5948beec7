package lessons

import (
	"bytes"
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// FormatError reports a store file that is not valid JSON or not shaped like a
// darwin-memo store. Line and Col are set (1-based) for syntax errors; Path is
// the JSON path ($.entries[3].energy) for structural errors.
type FormatError = pyjson.Error

// Parse reads a store from data. name labels errors (usually the file name).
// Malformed JSON or a wrong structure gives a *FormatError naming the JSON
// path; hostile but well-formed ledger fields are handled fail-soft as
// darwin-memo does (they are reported by Warnings).
func Parse(name string, data []byte) (*Store, error) {
	return ParseWith(name, data, Options{})
}

// ParseWith is Parse with injected options.
func ParseWith(name string, data []byte, opts Options) (*Store, error) {
	s := New(name, opts)
	s.layout = layout{sizeHint: len(data)} // no optional section until the file has it
	// Options.Config is the config of a store New creates: a loaded store
	// without a ledger.config gets darwin-memo's defaults, as in darwin-memo.
	s.cfg = DefaultConfig()
	p := pyjson.NewDecoder(name, data)
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.SyntaxErrorAt(0, "unexpected UTF-8 byte-order mark; save the file as UTF-8 without BOM")
	}
	if err := p.Expect(pyjson.KindObject, "a JSON object with config, entries and graveyard"); err != nil {
		return nil, err
	}
	var haveCfg, haveEntries, haveGrave bool
	var ledgerVal *pyjson.Value
	err := p.Object(func(key string) error {
		switch key {
		case "config":
			haveCfg = true
			return s.parseStoreConfig(p)
		case "entries":
			haveEntries = true
			s.living = s.living[:0]
			clear(s.byID)
			return readEntries(p, func(e *Entry, i int) error {
				if _, dup := s.byID[e.ID]; dup {
					return p.Errorf("duplicate living entry id %q; each living id must be unique", e.ID)
				}
				s.byID[e.ID] = e
				s.living = append(s.living, e)
				return nil
			})
		case "graveyard":
			haveGrave = true
			if s.opts.ConsultOnly {
				return p.Skip()
			}
			s.graveyard = s.graveyard[:0]
			clear(s.deadIDs)
			return readEntries(p, func(e *Entry, i int) error {
				s.deadIDs[e.ID] = len(s.graveyard)
				s.graveyard = append(s.graveyard, e)
				return nil
			})
		case "retriever":
			v, err := p.Value()
			if err != nil {
				return err
			}
			s.layout.retriever = &v
			return nil
		case "ledger":
			v, err := s.parseLedger(p)
			if err != nil {
				return err
			}
			ledgerVal = &v
			return nil
		default:
			v, err := p.Value()
			if err != nil {
				return err
			}
			s.layout.extensions.Read(key, v)
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	if err := p.End(); err != nil {
		return nil, err
	}
	for _, k := range []struct {
		ok   bool
		name string
	}{{haveCfg, "config"}, {haveEntries, "entries"}, {haveGrave, "graveyard"}} {
		if !k.ok {
			return nil, &FormatError{File: name, Path: "$", Msg: fmt.Sprintf("missing required key %q; a darwin-memo store has config, entries and graveyard", k.name)}
		}
	}
	if ledgerVal != nil {
		if err := s.loadLedger(*ledgerVal); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) parseStoreConfig(p *pyjson.Decoder) error {
	if err := p.Expect(pyjson.KindObject, "an object with max_energy and upkeep"); err != nil {
		return err
	}
	return p.Object(func(key string) error {
		switch key {
		case "max_energy":
			f, err := p.Float()
			s.MaxEnergy = f
			return err
		case "upkeep":
			f, err := p.Float()
			s.Upkeep = f
			return err
		default:
			v, err := p.Value()
			s.layout.extraCfg = pyjson.SetMember(s.layout.extraCfg, key, v)
			return err
		}
	})
}

// readEntries parses an array of entry objects.
func readEntries(p *pyjson.Decoder, add func(*Entry, int) error) error {
	if err := p.Expect(pyjson.KindArray, "a list of entries"); err != nil {
		return err
	}
	return p.Array(func(i int) error {
		e, err := entry(p)
		if err != nil {
			return err
		}
		return add(e, i)
	})
}

// entry parses one entry object, refusing unknown keys as darwin-memo does. An entry
// without an "id" gets the content-derived id every load gives it.
func entry(p *pyjson.Decoder) (*Entry, error) {
	if err := p.Expect(pyjson.KindObject, "an entry object"); err != nil {
		return nil, err
	}
	e := &Entry{Kind: KindExplicit, Energy: SpawnEnergy, LastUsedCycle: -1}
	var haveQ, haveA, haveID bool
	err := p.Object(func(key string) error {
		var err error
		switch key {
		case "question":
			e.Question, err = p.Str()
			haveQ = true
		case "answer":
			e.Answer, err = p.Str()
			haveA = true
		case "kind":
			var k string
			if k, err = p.Str(); err != nil {
				return err
			}
			if !validKind(k) {
				return p.Errorf("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", k)
			}
			e.Kind = Kind(k)
		case "sources":
			e.Sources, err = p.Strings()
		case "energy":
			e.Energy, err = p.Float()
		case "born_cycle":
			e.BornCycle, err = p.Int()
		case "recorded_ts":
			var s string
			var ok bool
			s, ok, err = p.StrOrNull()
			if ok {
				e.RecordedTS = s
			}
		case "last_used_cycle":
			e.LastUsedCycle, err = p.Int()
		case "uses":
			e.Uses, err = p.Int()
		case "lineage":
			e.Lineage, err = p.Strings()
		case "pinned":
			e.Pinned, err = p.Bool()
		case "probation":
			e.Probation, err = p.Int()
		case "juvenile":
			e.Juvenile, err = p.Int()
		case "imported_from":
			e.ImportedFrom, err = strOrNil(p)
		case "imported_at":
			e.ImportedAt, err = strOrNil(p)
		case "id":
			e.ID, err = p.Str()
			haveID = true
		default:
			return p.Errorf("unknown entry key %q; darwin-memo refuses unknown entry keys, so keep extra metadata in sources labels", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !haveQ || !haveA {
		missing := "question"
		if haveQ {
			missing = "answer"
		}
		return nil, p.Errorf("entry is missing required key %q", missing)
	}
	if e.Sources == nil {
		e.Sources = []string{}
	}
	if e.Lineage == nil {
		e.Lineage = []string{}
	}
	if !haveID {
		e.ID = ContentID("entry", e.Question, e.Answer)
	}
	return e, nil
}

// strOrNil reads a string, or null as nil.
func strOrNil(p *pyjson.Decoder) (*string, error) {
	s, ok, err := p.StrOrNull()
	if !ok {
		return nil, err
	}
	return &s, err
}

// parseLedger streams the ledger block: history notes are rendered straight
// into their output form; the other keys are collected for loadLedger.
func (s *Store) parseLedger(p *pyjson.Decoder) (pyjson.Value, error) {
	k, err := p.Peek()
	if err != nil {
		return pyjson.Value{}, err
	}
	if k != pyjson.KindObject {
		return p.Value() // loadLedger reports the wrong type
	}
	v := pyjson.Object()
	w := pyjson.NewWriter(nil, 0)
	err = p.Object(func(key string) error {
		if key != "history" {
			x, err := p.Value()
			v.Set(key, x)
			return err
		}
		v.Set(key, pyjson.Null()) // keeps the key's position
		if s.opts.ConsultOnly || s.opts.LazyHistory {
			return s.keepNotes(p)
		}
		return s.readHistory(p, w)
	})
	return v, err
}

// readHistory reads ledger.history as a full load does: every lesson's
// notes rendered at their file depth, in the order the file lists them, the
// last of a repeated id kept at its first position; a value of the wrong
// type is dropped with a warning.
func (s *Store) readHistory(p *pyjson.Decoder, w *pyjson.Writer) error {
	clear(s.notes.byID)
	s.notes.ids = s.notes.ids[:0]
	if k, err := p.Peek(); err != nil {
		return err
	} else if k != pyjson.KindObject {
		s.warn("$.ledger.history is not an object; ignored")
		_, err := p.Value()
		return err
	}
	return p.Object(func(id string) error {
		if k, err := p.Peek(); err != nil {
			return err
		} else if k != pyjson.KindArray {
			s.warn(fmt.Sprintf("$.ledger.history[%q] is not a list; dropped", id))
			_, err := p.Value()
			return err
		}
		notes, err := renderNotes(p, w)
		if err != nil {
			return err
		}
		s.notes.set(id, notes)
		return nil
	})
}

// loadHistory renders the kept bytes of a consult-only or lazy load's ledger.history
// (Options.ConsultOnly, Options.LazyHistory) into the store's notes as a full load would have,
// before anything reads, adds or writes notes. The bytes were checked at load as strictly as
// rendering reads them, so it does not fail.
func (s *Store) loadHistory() {
	if s.notes.kept == nil {
		return
	}
	kept := s.notes.kept
	s.notes.kept = nil
	if err := s.readHistory(pyjson.NewDecoder(s.name, kept), pyjson.NewWriter(nil, 0)); err != nil {
		panic(fmt.Sprintf("%s: $.ledger.history, checked at load, does not render: %v", s.name, err))
	}
}

// keepNotes passes over ledger.history for a consult-only or lazy load,
// checking it as JSON and keeping its bytes for loadHistory.
func (s *Store) keepNotes(p *pyjson.Decoder) error {
	p.SkipSpace()
	start := p.Pos()
	if err := p.Skip(); err != nil {
		return err
	}
	s.notes.kept = nil // a repeated key: the last one counts
	switch {
	case p.Data()[start] == '{' && s.opts.LazyHistory:
		// A copy: a lazy store outlives the document it was read from
		// (which is a little more than twice as large) in a long run.
		s.notes.kept = bytes.Clone(p.Data()[start:p.Pos()])
	case p.Data()[start] == '{':
		s.notes.kept = p.Data()[start:p.Pos()]
	case s.opts.LazyHistory: // as the full load warns and ignores it
		s.warn("$.ledger.history is not an object; ignored")
	}
	return nil
}

// notesOf returns id's history notes, rendering a consult-only or lazy load's kept notes first
// (loadHistory).
func (s *Store) notesOf(id string) []string {
	s.loadHistory()
	return s.notes.byID[id]
}

// renderNotes reads the list of notes at p, each rendered at its depth in the file.
func renderNotes(p *pyjson.Decoder, w *pyjson.Writer) ([]string, error) {
	notes := []string{}
	err := p.Array(func(int) error {
		raw, err := p.Render(w, noteIndent)
		notes = append(notes, raw)
		return err
	})
	return notes, err
}

// loadLedger applies the fail-soft ledger load of semantics §2.3.
func (s *Store) loadLedger(v pyjson.Value) error {
	if v.Kind() != pyjson.KindObject {
		return &FormatError{File: s.name, Path: "$.ledger", Msg: fmt.Sprintf("expected an object, got %s", v.Kind())}
	}
	s.layout.hasLedger = true
	for _, mb := range v.Members() {
		switch mb.Key {
		case "tick_count":
			if mb.Value.Kind() == pyjson.KindNumber && !mb.Value.IsFloat() {
				if t, ok := v.Field("tick_count").Int(); ok {
					s.tick = t
					continue
				}
			}
			s.warn("$.ledger.tick_count is not an integer; starting at tick 0")
		case "pending":
			if mb.Value.Kind() != pyjson.KindArray {
				s.warn("$.ledger.pending is not a list; ignored")
				continue
			}
			for i, tv := range mb.Value.Elems() {
				t, why := ticketFromValue(tv)
				if t == nil {
					s.warn(fmt.Sprintf("$.ledger.pending[%d] skipped: %s", i, why))
					continue
				}
				s.pending = append(s.pending, t)
			}
		case "history":
			// streamed by parseLedger
		case "damaged":
			if mb.Value.Kind() != pyjson.KindArray {
				s.warn("$.ledger.damaged is not a list; ignored")
				continue
			}
			for _, d := range mb.Value.Elems() {
				if d.Kind() == pyjson.KindString {
					s.damaged[d.Str()] = true
				}
			}
		case "settled_runs":
			s.layout.hasSettledRuns = true
			if mb.Value.Kind() != pyjson.KindArray {
				s.warn("$.ledger.settled_runs is not a list; ignored")
				continue
			}
			for _, r := range mb.Value.Elems() {
				if r.Kind() == pyjson.KindObject {
					s.settledRuns = append(s.settledRuns, newSettledRun(r))
				}
			}
		case "config":
			s.layout.hasLedgerCfg = true
			s.cfg = s.configFromValue(mb.Value)
		default:
			s.layout.extraLedger = append(s.layout.extraLedger, mb)
		}
	}
	return nil
}

var ticketKeys = map[string]bool{"query": true, "answer": true, "deciding_entry": true, "supporting_entries": true, "born_tick": true, "id": true, "binding": true}

// ticketFromValue builds a ticket, or returns why it was skipped.
func ticketFromValue(v pyjson.Value) (*Ticket, string) {
	if v.Kind() != pyjson.KindObject {
		return nil, "not an object"
	}
	for _, mb := range v.Members() {
		if !ticketKeys[mb.Key] {
			return nil, fmt.Sprintf("unknown key %q", mb.Key)
		}
	}
	t := &Ticket{raw: v}
	for _, req := range []string{"query", "answer", "deciding_entry", "supporting_entries", "born_tick", "id"} {
		if _, ok := v.Get(req); !ok {
			return nil, fmt.Sprintf("missing key %q", req)
		}
	}
	q, _ := v.Get("query")
	a, _ := v.Get("answer")
	d, _ := v.Get("deciding_entry")
	sup, _ := v.Get("supporting_entries")
	id, _ := v.Get("id")
	bt, ok := v.Field("born_tick").Int()
	if q.Kind() != pyjson.KindString || a.Kind() != pyjson.KindString || id.Kind() != pyjson.KindString || !ok || sup.Kind() != pyjson.KindArray || (d.Kind() != pyjson.KindString && d.Kind() != pyjson.KindNull) {
		return nil, "a field has the wrong type"
	}
	t.Query, t.Answer, t.ID, t.BornTick = q.Str(), a.Str(), id.Str(), bt
	if d.Kind() == pyjson.KindString {
		t.DecidingEntry = d.Str()
	}
	t.SupportingEntries = []string{}
	for _, x := range sup.Elems() {
		if x.Kind() != pyjson.KindString {
			return nil, "supporting_entries holds a non-string"
		}
		t.SupportingEntries = append(t.SupportingEntries, x.Str())
	}
	return t, ""
}

// configFromValue rebuilds the config field by field (fail-soft).
func (s *Store) configFromValue(v pyjson.Value) Config {
	c := DefaultConfig()
	if v.Kind() != pyjson.KindObject {
		s.warn("$.ledger.config is not an object; using defaults")
		return c
	}
	s.layout.cfgOrder = s.layout.cfgOrder[:0]
	for _, mb := range v.Members() {
		f := configFieldOf(mb.Key)
		if f == nil {
			s.warn(fmt.Sprintf("$.ledger.config.%s is not a known setting; dropped", mb.Key))
			continue
		}
		if !f.set(&c, mb.Value) {
			s.warn(fmt.Sprintf("$.ledger.config.%s has the wrong type; using the default", mb.Key))
		}
		s.layout.cfgOrder = append(s.layout.cfgOrder, mb.Key)
	}
	return c
}
