package lessons

import (
	"io"
	"maps"
	"slices"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Marshal returns the store as darwin-memo writes it: Python json.dumps with
// indent=2, ensure_ascii, no trailing newline. The same store state always
// gives the same bytes.
func (s *Store) Marshal() ([]byte, error) {
	if s.opts.ConsultOnly {
		return nil, errConsultOnly
	}
	w := pyjson.NewWriter(make([]byte, 0, s.marshalSize()), 0)
	s.marshal(w, nil)
	return w.Bytes(), nil
}

// marshalSize is the capacity Marshal starts its buffer with: about the document's size.
func (s *Store) marshalSize() int {
	return max(s.layout.sizeHint+s.layout.sizeHint/8, 4096+600*(len(s.living)+len(s.graveyard)))
}

// WriteTo streams the bytes Marshal returns to out, without holding the
// whole document in memory.
func (s *Store) WriteTo(out io.Writer) (int64, error) { return s.writeTo(out, nil) }

// writeTo is WriteTo with the extension keys in skip left out.
func (s *Store) writeTo(out io.Writer, skip []string) (int64, error) {
	if s.opts.ConsultOnly {
		return 0, errConsultOnly
	}
	w := pyjson.NewStreamWriter(out, 1<<17)
	s.marshal(w, skip)
	return w.Done()
}

// marshal writes the store to w, leaving out the extension keys in skip.
func (s *Store) marshal(w *pyjson.Writer, skip []string) {
	s.marshalHead(w)
	s.marshalTail(w, skip)
}

// marshalTail writes the end of the store after marshalHead: the extension keys but those in
// skip, and the closing brace. It writes at depth 1, so a writer of its own
// (pyjson.NewWriter(buf, 1)) gives the bytes it would append to the head.
func (s *Store) marshalTail(w *pyjson.Writer, skip []string) {
	s.layout.extensions.Write(w, skip)
	w.Close('}')
}

// marshalHead writes the store up to its extension keys.
func (s *Store) marshalHead(w *pyjson.Writer) {
	w.Open('{')
	w.Key("config")
	w.Open('{')
	w.Key("max_energy")
	w.Float(s.MaxEnergy)
	w.Field("upkeep")
	w.Float(s.Upkeep)
	for _, mb := range s.layout.extraCfg {
		w.Field(mb.Key)
		w.Value(mb.Value)
	}
	w.Close('}')
	w.Field("entries")
	writeEntries(w, s.living)
	w.Field("graveyard")
	writeEntries(w, s.graveyard)
	if s.layout.retriever != nil {
		w.Field("retriever")
		w.Value(*s.layout.retriever)
	}
	if s.layout.hasLedger {
		w.Field("ledger")
		s.writeLedger(w)
	}
}

func writeEntries(w *pyjson.Writer, es []*Entry) {
	if len(es) == 0 {
		w.Raw("[]")
		return
	}
	w.Open('[')
	for i, e := range es {
		if i > 0 {
			w.Sep()
		}
		writeEntry(w, e)
		w.Flush()
		if w.Stopped() {
			return
		}
	}
	w.Close(']')
}

func writeEntry(w *pyjson.Writer, e *Entry) {
	w.Open('{')
	w.Key("question")
	w.String(e.Question)
	w.Field("answer")
	w.String(e.Answer)
	w.Field("kind")
	w.String(string(e.Kind))
	w.Field("sources")
	w.Value(pyjson.Strings(e.Sources))
	w.Field("energy")
	w.Float(e.Energy)
	w.Field("born_cycle")
	w.Int(e.BornCycle)
	w.Field("recorded_ts")
	w.String(e.RecordedTS)
	w.Field("last_used_cycle")
	w.Int(e.LastUsedCycle)
	w.Field("uses")
	w.Int(e.Uses)
	w.Field("lineage")
	w.Value(pyjson.Strings(e.Lineage))
	if e.Pinned {
		w.Field("pinned")
		w.Bool(true)
	}
	if e.Probation != 0 {
		w.Field("probation")
		w.Int(e.Probation)
	}
	if e.Juvenile != 0 {
		w.Field("juvenile")
		w.Int(e.Juvenile)
	}
	if e.ImportedFrom != nil {
		w.Field("imported_from")
		w.String(*e.ImportedFrom)
	}
	if e.ImportedAt != nil {
		w.Field("imported_at")
		w.String(*e.ImportedAt)
	}
	w.Field("id")
	w.String(e.ID)
	w.Close('}')
}

func (s *Store) writeLedger(w *pyjson.Writer) {
	w.Open('{')
	w.Key("tick_count")
	w.Int(s.tick)
	w.Field("pending")
	pending := make([]pyjson.Value, len(s.pending))
	for i, t := range s.pending {
		pending[i] = t.toValue()
	}
	w.Value(pyjson.Array(pending...))
	w.Field("history")
	if s.notes.kept != nil {
		// Rendered here, not before, and only once what precedes them has
		// been sent: a write that fails earlier renders no notes.
		w.Send()
		if w.Stopped() {
			return
		}
		s.loadHistory()
	}
	if len(s.notes.ids) == 0 {
		w.Raw("{}")
	} else {
		w.Open('{')
		for i, id := range s.notes.ids {
			if i > 0 {
				w.Sep()
			}
			w.Key(id)
			notes := s.notes.byID[id]
			if len(notes) == 0 {
				w.Raw("[]")
				continue
			}
			w.Open('[')
			for j, raw := range notes {
				if j > 0 {
					w.Sep()
				}
				w.Raw(raw)
			}
			w.Close(']')
			w.Flush()
			if w.Stopped() {
				return
			}
		}
		w.Close('}')
	}
	w.Field("damaged")
	w.Value(pyjson.Strings(slices.Sorted(maps.Keys(s.damaged))))
	if s.layout.hasSettledRuns || len(s.settledRuns) > 0 {
		w.Field("settled_runs")
		records := make([]pyjson.Value, len(s.settledRuns))
		for i, r := range s.settledRuns {
			records[i] = r.record
		}
		w.Value(pyjson.Array(records...))
	}
	if s.layout.hasLedgerCfg {
		w.Field("config")
		w.Value(s.configValue())
	}
	for _, mb := range s.layout.extraLedger {
		w.Field(mb.Key)
		w.Value(mb.Value)
	}
	w.Close('}')
}

func (t *Ticket) toValue() pyjson.Value {
	if t.raw.Kind() == pyjson.KindObject {
		return t.raw
	}
	d := pyjson.Null()
	if t.DecidingEntry != "" {
		d = pyjson.String(t.DecidingEntry)
	}
	return pyjson.Object(
		pyjson.Pair("query", pyjson.String(t.Query)),
		pyjson.Pair("answer", pyjson.String(t.Answer)),
		pyjson.Pair("deciding_entry", d),
		pyjson.Pair("supporting_entries", pyjson.Strings(t.SupportingEntries)),
		pyjson.Pair("born_tick", pyjson.Int(t.BornTick)),
		pyjson.Pair("id", pyjson.String(t.ID)),
		pyjson.Pair("binding", pyjson.Null()),
	)
}

// configValue renders the config in the loaded key order, then any missing
// keys in darwin-memo's field order, then the extension keys that are set.
func (s *Store) configValue() pyjson.Value {
	var ms []pyjson.Member
	seen := map[string]bool{}
	for _, k := range s.layout.cfgOrder {
		if f := configFieldOf(k); f != nil && !seen[k] {
			seen[k] = true
			ms = append(ms, pyjson.Pair(k, f.value(s.cfg)))
		}
	}
	for i := range configFields {
		f := &configFields[i]
		if !seen[f.key] && (!f.ext || f.isSet(s.cfg)) {
			ms = append(ms, pyjson.Pair(f.key, f.value(s.cfg)))
		}
	}
	return pyjson.Object(ms...)
}
