package lessons

import "io"

// Marshal returns the store as darwin-memo writes it: Python json.dumps with
// indent=2, ensure_ascii, no trailing newline. The same store state always
// gives the same bytes.
func (s *Store) Marshal() ([]byte, error) {
	w := &pyWriter{pretty: true, buf: make([]byte, 0, max(s.sizeHint+s.sizeHint/8, 4096+600*(len(s.living)+len(s.graveyard))))}
	s.marshal(w)
	return w.buf, nil
}

// WriteTo streams the bytes Marshal returns to out, without holding the
// whole document in memory.
func (s *Store) WriteTo(out io.Writer) (int64, error) {
	w := &pyWriter{pretty: true, buf: make([]byte, 0, 1<<17), out: out}
	s.marshal(w)
	w.flush(true)
	return w.n, w.err
}

func (s *Store) marshal(w *pyWriter) {
	w.open('{')
	w.key("config")
	w.open('{')
	w.key("max_energy")
	w.float(s.MaxEnergy)
	w.field("upkeep")
	w.float(s.Upkeep)
	for _, mb := range s.extraCfg {
		w.field(mb.key)
		w.value(mb.val)
	}
	w.close('}')
	w.field("entries")
	w.entries(s.living)
	w.field("graveyard")
	w.entries(s.graveyard)
	if s.retriever != nil {
		w.field("retriever")
		w.value(*s.retriever)
	}
	if s.hasLedger {
		w.field("ledger")
		s.writeLedger(w)
	}
	for _, mb := range s.extraTop {
		w.field(mb.key)
		w.value(mb.val)
	}
	w.close('}')
}

func (w *pyWriter) entries(es []*Entry) {
	if len(es) == 0 {
		w.buf = append(w.buf, '[', ']')
		return
	}
	w.open('[')
	for i, e := range es {
		if i > 0 {
			w.sep()
		}
		w.entry(e)
		w.flush(false)
		if w.stopped() {
			return
		}
	}
	w.close(']')
}

func (w *pyWriter) entry(e *Entry) {
	w.open('{')
	w.key("question")
	w.str(e.Question)
	w.field("answer")
	w.str(e.Answer)
	w.field("kind")
	w.str(string(e.Kind))
	w.field("sources")
	w.strs(e.Sources)
	w.field("energy")
	w.float(e.Energy)
	w.field("born_cycle")
	w.int(e.BornCycle)
	w.field("recorded_ts")
	w.str(e.RecordedTS)
	w.field("last_used_cycle")
	w.int(e.LastUsedCycle)
	w.field("uses")
	w.int(e.Uses)
	w.field("lineage")
	w.strs(e.Lineage)
	if e.Pinned {
		w.field("pinned")
		w.bool(true)
	}
	if e.Probation != 0 {
		w.field("probation")
		w.int(e.Probation)
	}
	if e.Juvenile != 0 {
		w.field("juvenile")
		w.int(e.Juvenile)
	}
	if e.ImportedFrom != nil {
		w.field("imported_from")
		w.str(*e.ImportedFrom)
	}
	if e.ImportedAt != nil {
		w.field("imported_at")
		w.str(*e.ImportedAt)
	}
	w.field("id")
	w.str(e.ID)
	w.close('}')
}

func (s *Store) writeLedger(w *pyWriter) {
	w.open('{')
	w.key("tick_count")
	w.int(s.tick)
	w.field("pending")
	if len(s.pending) == 0 {
		w.buf = append(w.buf, "[]"...)
	} else {
		w.open('[')
		for i, t := range s.pending {
			if i > 0 {
				w.sep()
			}
			w.value(t.toValue())
		}
		w.close(']')
	}
	w.field("history")
	if len(s.historyIDs) == 0 {
		w.buf = append(w.buf, "{}"...)
	} else {
		w.open('{')
		for i, id := range s.historyIDs {
			if i > 0 {
				w.sep()
			}
			w.key(id)
			notes := s.history[id]
			if len(notes) == 0 {
				w.buf = append(w.buf, "[]"...)
				continue
			}
			w.open('[')
			for j, raw := range notes {
				if j > 0 {
					w.sep()
				}
				w.buf = append(w.buf, raw...)
			}
			w.close(']')
			w.flush(false)
			if w.stopped() {
				return
			}
		}
		w.close('}')
	}
	w.field("damaged")
	w.strs(sortedKeys(s.damaged))
	if s.hasSettledRuns || len(s.settledRuns) > 0 {
		w.field("settled_runs")
		w.value(value{k: kArray, arr: s.settledRuns})
	}
	if s.hasLedgerCfg {
		w.field("config")
		w.value(s.configValue())
	}
	for _, mb := range s.extraLedger {
		w.field(mb.key)
		w.value(mb.val)
	}
	w.close('}')
}

func (t *Ticket) toValue() value {
	if t.raw.k == kObject {
		return t.raw
	}
	d := vNull()
	if t.DecidingEntry != "" {
		d = vStr(t.DecidingEntry)
	}
	return vObj(
		m("query", vStr(t.Query)),
		m("answer", vStr(t.Answer)),
		m("deciding_entry", d),
		m("supporting_entries", vStrs(t.SupportingEntries)),
		m("born_tick", vInt(t.BornTick)),
		m("id", vStr(t.ID)),
		m("binding", vNull()),
	)
}

func optFloat(f *float64) value {
	if f == nil {
		return vNull()
	}
	return vFloat(*f)
}

// configValue renders the config in the loaded key order, then any missing
// keys in darwin-memo's field order.
func (s *Store) configValue() value {
	c := s.cfg
	field := func(k string) value {
		switch k {
		case "credit_gain":
			return vFloat(c.CreditGain)
		case "supporting_share":
			return vFloat(c.SupportingShare)
		case "consolidate_every":
			return vInt(c.ConsolidateEvery)
		case "merge_threshold":
			return vFloat(c.MergeThreshold)
		case "write_experience":
			return vBool(c.WriteExperience)
		case "experience_min_delta":
			return vFloat(c.ExperienceMinDelta)
		case "experience_dedup_threshold":
			return vFloat(c.ExperienceDedupThreshold)
		case "resource_scale":
			return optFloat(c.ResourceScale)
		case "admission_window":
			return vInt(c.AdmissionWindow)
		case "upkeep_requires_settlement":
			return vBool(c.UpkeepRequiresSettlement)
		case "merge_source_policy":
			return vStr(c.MergeSourcePolicy)
		case "conflict_threshold":
			return optFloat(c.ConflictThreshold)
		default:
			return c.extConfigValue(k)
		}
	}
	var ms []member
	seen := map[string]bool{}
	for _, k := range s.cfgOrder {
		if !seen[k] {
			seen[k] = true
			ms = append(ms, m(k, field(k)))
		}
	}
	for _, k := range configKeys {
		if !seen[k] {
			ms = append(ms, m(k, field(k)))
		}
	}
	for _, k := range extConfigKeys {
		if !seen[k] && c.extConfigSet(k) {
			ms = append(ms, m(k, field(k)))
		}
	}
	return vObj(ms...)
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
