package lessons

import (
	"bytes"
	"fmt"
	"runtime"
)

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
	s.sizeHint = len(data)
	s.hasLedger, s.hasSettledRuns, s.hasLedgerCfg = false, false, false
	// Options.Config is the config of a store New creates: a loaded store
	// without a ledger.config gets darwin-memo's defaults, as in darwin-memo.
	s.cfg = DefaultConfig()
	p := &parser{file: name, data: data}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.syntaxErr(0, "unexpected UTF-8 byte-order mark; save the file as UTF-8 without BOM")
	}
	if err := p.expectKind(kObject, "a JSON object with config, entries and graveyard"); err != nil {
		return nil, err
	}
	var haveCfg, haveEntries, haveGrave bool
	var ledgerVal *value
	spec := speculateLedger(name, data, opts)
	err := p.object(func(key string) error {
		switch key {
		case "config":
			haveCfg = true
			return s.parseStoreConfig(p)
		case "entries":
			haveEntries = true
			s.living = s.living[:0]
			clear(s.byID)
			return p.entryList(func(e *Entry, i int) error {
				if _, dup := s.byID[e.ID]; dup {
					return p.structErr("duplicate living entry id %q; each living id must be unique", e.ID)
				}
				s.byID[e.ID] = e
				s.living = append(s.living, e)
				return nil
			}, s.opts.NewID)
		case "graveyard":
			haveGrave = true
			s.graveyard = s.graveyard[:0]
			clear(s.deadIDs)
			return p.entryList(func(e *Entry, i int) error {
				s.deadIDs[e.ID] = len(s.graveyard)
				s.graveyard = append(s.graveyard, e)
				return nil
			}, s.opts.NewID)
		case "retriever":
			v, err := p.value(0)
			if err != nil {
				return err
			}
			s.retriever = &v
			return nil
		case "ledger":
			if r := spec.result(p.pos); r != nil {
				s.history, s.historyIDs = r.store.history, r.store.historyIDs
				s.warnings = append(s.warnings, r.store.warnings...)
				p.pos = r.end
				ledgerVal = &r.v
				return nil
			}
			v, err := s.parseLedger(p)
			if err != nil {
				return err
			}
			ledgerVal = &v
			return nil
		default:
			v, err := p.value(0)
			if err != nil {
				return err
			}
			s.extraTop = setMember(s.extraTop, key, v)
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
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

func (s *Store) parseStoreConfig(p *parser) error {
	if err := p.expectKind(kObject, "an object with max_energy and upkeep"); err != nil {
		return err
	}
	return p.object(func(key string) error {
		switch key {
		case "max_energy":
			f, err := p.float()
			s.MaxEnergy = f
			return err
		case "upkeep":
			f, err := p.float()
			s.Upkeep = f
			return err
		default:
			v, err := p.value(0)
			s.extraCfg = setMember(s.extraCfg, key, v)
			return err
		}
	})
}

// entryList parses an array of entry objects.
func (p *parser) entryList(add func(*Entry, int) error, newID func(...string) string) error {
	if err := p.expectKind(kArray, "a list of entries"); err != nil {
		return err
	}
	return p.array(func(i int) error {
		e, err := p.entry(newID)
		if err != nil {
			return err
		}
		return add(e, i)
	})
}

// entry parses one entry object, refusing unknown keys as darwin-memo does.
func (p *parser) entry(newID func(...string) string) (*Entry, error) {
	if err := p.expectKind(kObject, "an entry object"); err != nil {
		return nil, err
	}
	e := &Entry{Kind: KindExplicit, Energy: SpawnEnergy, LastUsedCycle: -1}
	var haveQ, haveA, haveID bool
	err := p.object(func(key string) error {
		var err error
		switch key {
		case "question":
			e.Question, err = p.str()
			haveQ = true
		case "answer":
			e.Answer, err = p.str()
			haveA = true
		case "kind":
			if err = p.expectKind(kString, "a string"); err != nil {
				return err
			}
			var b []byte
			if b, err = p.rawBytes(); err != nil {
				return err
			}
			k, ok := internKind(b)
			if !ok {
				return p.structErr("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", b)
			}
			e.Kind = k
		case "sources":
			e.Sources, err = p.strList()
		case "energy":
			e.Energy, err = p.float()
		case "born_cycle":
			e.BornCycle, err = p.int()
		case "recorded_ts":
			var s string
			var ok bool
			s, ok, err = p.strOrNull()
			if ok {
				e.RecordedTS = s
			}
		case "last_used_cycle":
			e.LastUsedCycle, err = p.int()
		case "uses":
			e.Uses, err = p.int()
		case "lineage":
			e.Lineage, err = p.strList()
		case "pinned":
			e.Pinned, err = p.boolean()
		case "probation":
			e.Probation, err = p.int()
		case "juvenile":
			e.Juvenile, err = p.int()
		case "imported_from":
			var s string
			var ok bool
			s, ok, err = p.strOrNull()
			if ok {
				e.ImportedFrom = &s
			} else {
				e.ImportedFrom = nil
			}
		case "imported_at":
			var s string
			var ok bool
			s, ok, err = p.strOrNull()
			if ok {
				e.ImportedAt = &s
			} else {
				e.ImportedAt = nil
			}
		case "id":
			e.ID, err = p.str()
			haveID = true
		default:
			return p.structErr("unknown entry key %q; darwin-memo refuses unknown entry keys, so keep extra metadata in sources labels", key)
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
		return nil, p.structErr("entry is missing required key %q", missing)
	}
	if e.Sources == nil {
		e.Sources = []string{}
	}
	if e.Lineage == nil {
		e.Lineage = []string{}
	}
	if !haveID {
		e.ID = newID("entry", e.Question, e.Answer)
	}
	return e, nil
}

// ledgerSpec is a ledger block parsed concurrently with the entries.
type ledgerSpec struct {
	start int
	done  chan ledgerResult
}

type ledgerResult struct {
	store *Store // holds history, historyIDs and warnings
	v     value
	end   int
	err   error
}

// speculateLedger starts parsing the ledger block of a large store on
// another core while the caller parses the entries. Python's indent=2
// output puts the top-level key at "\n  \"ledger\": " (a raw newline can
// only be whitespace between tokens, so the first match is normally the
// one key; a forward search is several times faster than a backward one
// at 100 MB); the result is used only if the sequential parser reaches a
// top-level "ledger" value at exactly that offset, so a wrong guess costs
// time, never correctness.
func speculateLedger(name string, data []byte, opts Options) *ledgerSpec {
	const marker = "\n  \"ledger\": "
	if len(data) < 1<<20 || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	i := bytes.Index(data, []byte(marker))
	if i < 0 {
		return nil
	}
	sp := &ledgerSpec{start: i + len(marker), done: make(chan ledgerResult, 1)}
	go func() {
		tmp := New(name, opts)
		p := &parser{file: name, data: data, pos: sp.start, path: []pathElem{{key: "ledger", index: -1}}}
		v, err := tmp.parseLedger(p)
		sp.done <- ledgerResult{store: tmp, v: v, end: p.pos, err: err}
	}()
	return sp
}

// result returns the speculative parse if it started at pos and succeeded.
func (sp *ledgerSpec) result(pos int) *ledgerResult {
	if sp == nil || sp.start != pos {
		return nil
	}
	r := <-sp.done
	sp.start = -1 // a repeated "ledger" key is parsed sequentially
	if r.err != nil {
		return nil
	}
	return &r
}

// parseLedger streams the ledger block: history notes are rendered straight
// into their output form; the other keys are collected for loadLedger.
func (s *Store) parseLedger(p *parser) (value, error) {
	k, err := p.peekKind()
	if err != nil {
		return value{}, err
	}
	if k != kObject {
		return p.value(0) // loadLedger reports the wrong type
	}
	v := value{k: kObject}
	w := &pyWriter{pretty: true}
	err = p.object(func(key string) error {
		if key != "history" {
			x, err := p.value(0)
			v.obj = setMember(v.obj, key, x)
			return err
		}
		v.obj = setMember(v.obj, key, vNull()) // keeps the key's position
		clear(s.history)
		s.historyIDs = s.historyIDs[:0]
		if k, err := p.peekKind(); err != nil {
			return err
		} else if k != kObject {
			s.warn("$.ledger.history is not an object; ignored")
			_, err := p.value(0)
			return err
		}
		return p.object(func(id string) error {
			if k, err := p.peekKind(); err != nil {
				return err
			} else if k != kArray {
				s.warn(fmt.Sprintf("$.ledger.history[%q] is not a list; dropped", id))
				_, err := p.value(0)
				return err
			}
			notes := []string{}
			err := p.array(func(int) error {
				raw, err := p.renderValue(w, noteIndent)
				notes = append(notes, raw)
				return err
			})
			if err != nil {
				return err
			}
			if _, ok := s.history[id]; !ok {
				s.historyIDs = append(s.historyIDs, id)
			}
			s.history[id] = notes
			return nil
		})
	})
	return v, err
}

// loadLedger applies the fail-soft ledger load of semantics §2.3.
func (s *Store) loadLedger(v value) error {
	if v.k != kObject {
		return &FormatError{File: s.name, Path: "$.ledger", Msg: fmt.Sprintf("expected an object, got %s", v.k)}
	}
	s.hasLedger = true
	for _, mb := range v.obj {
		switch mb.key {
		case "tick_count":
			if mb.val.k == kNumber && !mb.val.isF {
				if t, ok := v.intField("tick_count"); ok {
					s.tick = t
					continue
				}
			}
			s.warn("$.ledger.tick_count is not an integer; starting at tick 0")
		case "pending":
			if mb.val.k != kArray {
				s.warn("$.ledger.pending is not a list; ignored")
				continue
			}
			for i, tv := range mb.val.arr {
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
			if mb.val.k != kArray {
				s.warn("$.ledger.damaged is not a list; ignored")
				continue
			}
			for _, d := range mb.val.arr {
				if d.k == kString {
					s.damaged[d.s] = true
				}
			}
		case "settled_runs":
			s.hasSettledRuns = true
			if mb.val.k != kArray {
				s.warn("$.ledger.settled_runs is not a list; ignored")
				continue
			}
			for _, r := range mb.val.arr {
				if r.k == kObject {
					s.settledRuns = append(s.settledRuns, r)
				}
			}
		case "config":
			s.hasLedgerCfg = true
			s.cfg = s.configFromValue(mb.val)
		default:
			s.extraLedger = append(s.extraLedger, mb)
		}
	}
	return nil
}

var ticketKeys = map[string]bool{"query": true, "answer": true, "deciding_entry": true, "supporting_entries": true, "born_tick": true, "id": true, "binding": true}

// ticketFromValue builds a ticket, or returns why it was skipped.
func ticketFromValue(v value) (*Ticket, string) {
	if v.k != kObject {
		return nil, "not an object"
	}
	for _, mb := range v.obj {
		if !ticketKeys[mb.key] {
			return nil, fmt.Sprintf("unknown key %q", mb.key)
		}
	}
	t := &Ticket{raw: v}
	for _, req := range []string{"query", "answer", "deciding_entry", "supporting_entries", "born_tick", "id"} {
		if _, ok := v.get(req); !ok {
			return nil, fmt.Sprintf("missing key %q", req)
		}
	}
	q, _ := v.get("query")
	a, _ := v.get("answer")
	d, _ := v.get("deciding_entry")
	sup, _ := v.get("supporting_entries")
	id, _ := v.get("id")
	bt, ok := v.intField("born_tick")
	if q.k != kString || a.k != kString || id.k != kString || !ok || sup.k != kArray || (d.k != kString && d.k != kNull) {
		return nil, "a field has the wrong type"
	}
	t.Query, t.Answer, t.ID, t.BornTick = q.s, a.s, id.s, bt
	if d.k == kString {
		t.DecidingEntry = d.s
	}
	t.SupportingEntries = []string{}
	for _, x := range sup.arr {
		if x.k != kString {
			return nil, "supporting_entries holds a non-string"
		}
		t.SupportingEntries = append(t.SupportingEntries, x.s)
	}
	return t, ""
}

// configFromValue rebuilds the config field by field (fail-soft).
func (s *Store) configFromValue(v value) Config {
	c := DefaultConfig()
	if v.k != kObject {
		s.warn("$.ledger.config is not an object; using defaults")
		return c
	}
	s.cfgOrder = s.cfgOrder[:0]
	isFloat := func(x value) bool { return x.k == kNumber }
	for _, mb := range v.obj {
		x := mb.val
		bad := false
		switch mb.key {
		case "credit_gain", "supporting_share", "merge_threshold", "experience_min_delta", "experience_dedup_threshold":
			if !isFloat(x) {
				bad = true
				break
			}
			f := x.float()
			switch mb.key {
			case "credit_gain":
				c.CreditGain = f
			case "supporting_share":
				c.SupportingShare = f
			case "merge_threshold":
				c.MergeThreshold = f
			case "experience_min_delta":
				c.ExperienceMinDelta = f
			case "experience_dedup_threshold":
				c.ExperienceDedupThreshold = f
			}
		case "resource_scale", "conflict_threshold":
			var fp *float64
			switch {
			case x.k == kNull:
			case isFloat(x):
				f := x.float()
				fp = &f
			default:
				bad = true
			}
			if !bad {
				if mb.key == "resource_scale" {
					c.ResourceScale = fp
				} else {
					c.ConflictThreshold = fp
				}
			}
		case "consolidate_every", "admission_window":
			i, ok := v.intField(mb.key)
			if !ok || x.isF {
				bad = true
				break
			}
			if mb.key == "consolidate_every" {
				c.ConsolidateEvery = i
			} else {
				c.AdmissionWindow = i
			}
		case "write_experience", "upkeep_requires_settlement":
			if x.k != kBool {
				bad = true
				break
			}
			if mb.key == "write_experience" {
				c.WriteExperience = x.b
			} else {
				c.UpkeepRequiresSettlement = x.b
			}
		case "merge_source_policy":
			if x.k != kString || (x.s != "off" && x.s != "shared" && x.s != "identical") {
				bad = true
				break
			}
			c.MergeSourcePolicy = x.s
		default:
			known, wrong := c.setExtConfig(mb.key, x)
			if !known {
				s.warn(fmt.Sprintf("$.ledger.config.%s is not a known setting; dropped", mb.key))
				continue
			}
			bad = wrong
		}
		if bad {
			s.warn(fmt.Sprintf("$.ledger.config.%s has the wrong type; using the default", mb.key))
		}
		s.cfgOrder = append(s.cfgOrder, mb.key)
	}
	return c
}
