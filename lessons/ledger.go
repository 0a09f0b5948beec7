package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// NewLesson is a lesson to add to the store.
type NewLesson struct {
	Question string
	Answer   string
	Kind     Kind     // default explicit
	Sources  []string // provenance labels, e.g. "pr#123", "path:src/x.go"
	// RecordedTS is when the lesson was recorded (UTC ISO-8601 to the
	// second). Default: the injected clock.
	RecordedTS string
}

// Validate reports what Add would refuse: an empty question or answer, or an
// unknown kind (empty means explicit).
func (l NewLesson) Validate() error {
	if strings.TrimSpace(l.Question) == "" || strings.TrimSpace(l.Answer) == "" {
		return errors.New("a lesson needs a non-empty question and answer")
	}
	if l.Kind != "" && !validKind(string(l.Kind)) {
		return fmt.Errorf("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", l.Kind)
	}
	return nil
}

// Add creates a living entry with spawn energy at the current tick, as
// darwin-memo's Ledger.add does (juvenile = admission_window).
func (s *Store) Add(l NewLesson) (*Entry, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if l.Kind == "" {
		l.Kind = KindExplicit
	}
	ts := l.RecordedTS
	if ts == "" {
		ts = s.nowISO()
	}
	e := &Entry{
		Question:      l.Question,
		Answer:        l.Answer,
		Kind:          l.Kind,
		Sources:       append([]string{}, l.Sources...),
		Energy:        SpawnEnergy,
		BornCycle:     s.tick,
		RecordedTS:    ts,
		LastUsedCycle: -1,
		Lineage:       []string{},
		Juvenile:      max(0, s.cfg.AdmissionWindow),
	}
	e.ID = freshID(s.entryIDTaken, "entry", l.Question, l.Answer, string(l.Kind), strconv.Itoa(s.tick))
	e.Sources = s.recordSupersedes(e.Sources, l.Question, l.Answer) // supersede.go
	s.addLiving(e)
	source := strings.Join(e.Sources, ", ")
	if source == "" {
		source = "agent" // darwin-memo's Ledger.add default
	}
	window := ""
	if e.Juvenile > 0 {
		window = fmt.Sprintf(", juvenile window %d", e.Juvenile)
	}
	s.note(e.ID, s.structured(fmt.Sprintf("born at tick %d (source %s, stake %s%s)", s.tick, source, strconv.FormatFloat(e.Energy, 'g', -1, 64), window),
		"birth", pyjson.Pair("source", pyjson.String(source)), pyjson.Pair("stake", pyjson.Float(e.Energy))))
	s.log("add", pyjson.Pair("entry", pyjson.String(e.ID)), pyjson.Pair("kind", pyjson.String(string(e.Kind))), pyjson.Pair("source", pyjson.String(source)), pyjson.Pair("stake", pyjson.Float(e.Energy)))
	return e, nil
}

// freshID derives an id from parts (ContentID), with a counter appended
// to them until taken says the id is free.
func freshID(taken func(id string) bool, parts ...string) string {
	for n := 0; ; n++ {
		p := parts
		if n > 0 {
			p = append(append([]string{}, parts...), strconv.Itoa(n))
		}
		if id := ContentID(p...); !taken(id) {
			return id
		}
	}
}

// entryIDTaken reports whether a living or dead entry has id.
func (s *Store) entryIDTaken(id string) bool {
	_, live := s.byID[id]
	_, dead := s.deadIDs[id]
	return live || dead
}

func (s *Store) addLiving(e *Entry) {
	s.byID[e.ID] = e
	s.living = append(s.living, e)
	if s.lib != nil {
		s.lib.Add(e)
	}
}

// bury moves living entries to the graveyard in the given order, with
// balance min(energy, 0), and compacts the living list once.
func (s *Store) bury(es ...*Entry) {
	if len(es) == 0 {
		return
	}
	for _, e := range es {
		s.markDead(e)
	}
	s.compactLiving()
}

// markDead moves e to the graveyard; the living list keeps it until
// compactLiving runs.
func (s *Store) markDead(e *Entry) {
	if e.dead {
		return
	}
	e.dead = true
	delete(s.byID, e.ID)
	e.Energy = math.Min(e.Energy, 0)
	s.deadIDs[e.ID] = len(s.graveyard)
	s.graveyard = append(s.graveyard, e)
	if s.lib != nil {
		s.lib.Remove(e)
	}
	s.dropRetrieverVector(e.ID)
}

// compactLiving drops dead entries from the living list, keeping order.
func (s *Store) compactLiving() {
	out := s.living[:0]
	for _, e := range s.living {
		if !e.dead {
			out = append(out, e)
		}
	}
	clear(s.living[len(out):])
	s.living = out
}

// dropRetrieverVector removes id's cached vector from carried retriever
// state of the shape {"vectors": {id: [...]}} (store.py bury).
func (s *Store) dropRetrieverVector(id string) {
	if s.layout.retriever == nil || s.layout.retriever.Kind() != pyjson.KindObject {
		return
	}
	for i, mb := range s.layout.retriever.Members() {
		if mb.Key != "vectors" || mb.Value.Kind() != pyjson.KindObject {
			continue
		}
		vs := mb.Value.Members()
		if j := slices.IndexFunc(vs, func(v pyjson.Member) bool { return v.Key == id }); j >= 0 {
			s.layout.retriever.Members()[i].Value = pyjson.Object(append(vs[:j:j], vs[j+1:]...)...)
		}
	}
}

// note appends a history note for id, keeping at most HistoryCap.
func (s *Store) note(id string, v pyjson.Value) {
	s.loadHistory()
	h := append(s.notes.byID[id], renderNote(v))
	if len(h) > HistoryCap {
		h = append([]string(nil), h[len(h)-HistoryCap:]...)
	}
	s.notes.set(id, h)
}

// structured builds a note {"tick","ts","text","event",...}.
func (s *Store) structured(text, event string, extra ...pyjson.Member) pyjson.Value {
	ms := make([]pyjson.Member, 0, 4+len(extra))
	ms = append(ms, pyjson.Pair("tick", pyjson.Int(s.tick)), pyjson.Pair("ts", pyjson.String(s.nowISO())), pyjson.Pair("text", pyjson.String(text)), pyjson.Pair("event", pyjson.String(event)))
	return pyjson.Object(append(ms, extra...)...)
}

// ---------------------------------------------------------------------------
// Settle

// Evidence identifies the measurement behind a settlement. Fields are
// written in this order and only when set. Repository and Run together make
// the settlement a durable replay-guard record in ledger.settled_runs.
type Evidence struct {
	Mode       string // "junit", "pass-counts", "checks"
	Identity   string // "unverified", "verified"
	Repository string // owner/name
	Run        string // CI run identity, e.g. "123456:1" or "pr#42"
	PR         int
	BaseSHA    string
	HeadSHA    string
	URL        string
}

func (ev *Evidence) members() []pyjson.Member {
	if ev == nil {
		return nil
	}
	var ms []pyjson.Member
	add := func(k, v string) {
		if v != "" {
			ms = append(ms, pyjson.Pair(k, pyjson.String(v)))
		}
	}
	add("mode", ev.Mode)
	add("identity", ev.Identity)
	add("repository", ev.Repository)
	add("run", ev.Run)
	if ev.PR != 0 {
		ms = append(ms, pyjson.Pair("pr", pyjson.Int(ev.PR)))
	}
	add("base_sha", ev.BaseSHA)
	add("head_sha", ev.HeadSHA)
	add("url", ev.URL)
	return ms
}

func (ev *Evidence) value() pyjson.Value {
	if ev == nil {
		return pyjson.Null()
	}
	return pyjson.Object(ev.members()...)
}

// MaxSettledRuns caps ledger.settled_runs (darwin-memo lets it grow without
// bound): a settlement that appends to a full list drops the oldest records.
// The list is a replay guard keyed by ticket, repository and run; 2000 covers
// several tickets for each of the 500 merged pull requests the action's own
// record remembers, and a run is retried within hours, not thousands of
// settlements later. A loaded list longer than the cap is kept as it is
// until the next settlement appends to it (stores round-trip unchanged).
const MaxSettledRuns = 2000

// SettleOptions describe where a settlement's delta came from.
type SettleOptions struct {
	Detail   string
	Source   string // "ci", "operator", ...; default "unknown"
	Evidence *Evidence
	// Bundle is how many tickets one merged PR's delta settles, this one
	// included (0 or 1: alone). Above 1 it is recorded in the settle notes
	// ("bundle"), and a bundled gain earns no tenure (Store.Tenured).
	Bundle int
	// Regressions, when set, is how many tests the delta counts as
	// regressions (delta = improvements − regressions, quarantined tests
	// left out), as a per-test measurement knows them. With
	// segregate_losses they are assessed apart from the improvements
	// (Config.creditAmount); nil (a pass-count or checks measurement, an
	// operator's delta) keeps the net rule. Recorded in the settle notes.
	Regressions *float64

	// moved holds the entries an earlier ticket of the same merged pull
	// request already moved (SettleBody): a settlement neither credits them
	// nor counts a use, so one pull request moves each lesson at most once.
	moved map[string]bool
	// Scale, when positive, is the tanh normaliser of this settlement only,
	// overriding the persisted resource_scale without changing it (the
	// action's scale input, the CLI's --scale). Zero: Config().Scale().
	Scale float64
	// Economics, when set, is the store whose economics the settlement
	// applies (its ledger.config and max_energy) instead of the receiver's:
	// the store at the merged pull request's base, so a pull request that
	// edits them in its own changes does not settle by its edits.
	Economics *Store
}

// Settle statuses.
const (
	StatusSettled  = "settle"
	StatusAbandon  = "abandon"
	StatusExpired  = "expired"
	StatusDropped  = "dropped"  // unknown, duplicate or expired ticket
	StatusRejected = "rejected" // non-finite delta
)

// Credit is the energy one settlement moved for one entry.
type Credit struct {
	Entry  string
	Amount float64
}

// SettleResult reports what one settlement did.
type SettleResult struct {
	Ticket  string
	Landed  bool   // darwin-memo's settle() return value
	Status  string // StatusSettled, StatusAbandon, ...
	Applied []Credit
	Buried  []string
}

// Settle applies an outcome delta to a pending ticket's provenance
// (semantics §5). A non-finite delta is rejected and the ticket stays
// pending; an unknown or already settled ticket is dropped. Neither is an
// error: duplicate delivery is expected.
func (s *Store) Settle(ticketID string, delta float64, opts SettleOptions) SettleResult {
	if !s.admit(ticketID, delta, &opts) {
		return SettleResult{Ticket: ticketID, Status: StatusRejected}
	}
	at := slices.IndexFunc(s.pending, func(t *Ticket) bool { return t.ID == ticketID })
	if at < 0 {
		s.log("settle_dropped", pyjson.Pair("ticket", pyjson.String(ticketID)), pyjson.Pair("delta", pyjson.Float(delta)), pyjson.Pair("detail", pyjson.String(opts.Detail)))
		return SettleResult{Ticket: ticketID, Status: StatusDropped}
	}
	t := s.pending[at]
	s.pending = append(s.pending[:at:at], s.pending[at+1:]...)
	return s.apply(t, delta, opts)
}

// admit defaults opts.Source to "unknown" and reports whether a settlement of ticket id may
// take delta: a non-finite one is logged as rejected.
func (s *Store) admit(id string, delta float64, opts *SettleOptions) bool {
	if opts.Source == "" {
		opts.Source = "unknown"
	}
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		s.log("settle_rejected", pyjson.Pair("ticket", pyjson.String(id)), pyjson.Pair("detail", pyjson.String("non-finite delta")), pyjson.Pair("source", pyjson.String(opts.Source)))
		return false
	}
	return true
}

// Abandon closes a pending ticket without an outcome: no energy moves and
// escrow is released. It reports whether the ticket was pending.
func (s *Store) Abandon(ticketID string) SettleResult {
	return s.Settle(ticketID, 0, SettleOptions{Detail: "abandoned: not acted on", Source: "abandon"})
}

// assignCredit is survival.py assign_credit.
// delta is the PR's whole delta; regs and bundle are SettleOptions'
// Regressions and Bundle (Config.creditAmount).
func (s *Store) assignCredit(t *Ticket, delta float64, regs *float64, bundle int, scale float64, c Config) []Credit {
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = c.Scale()
	}
	credit := c.creditAmount(delta, regs, bundle, scale)
	if credit == 0 || math.IsNaN(credit) {
		return nil
	}
	var out []Credit
	if t.DecidingEntry != "" {
		w := 1.0
		if e, ok := s.byID[t.DecidingEntry]; ok && e.Juvenile > 0 {
			w = c.SupportingShare
		}
		out = append(out, Credit{t.DecidingEntry, credit * w})
		for _, id := range t.SupportingEntries {
			out = append(out, Credit{id, credit * c.SupportingShare})
		}
		return out
	}
	n := float64(len(t.SupportingEntries))
	for _, id := range t.SupportingEntries {
		amt := credit / n
		if e, ok := s.byID[id]; ok && !e.MayDecide() {
			amt *= c.SupportingShare
		}
		out = append(out, Credit{id, amt})
	}
	return out
}

// apply runs steps 3-9 of settle for a ticket already removed from pending
// (or a store-free ticket that was never pending).
func (s *Store) apply(t *Ticket, delta float64, opts SettleOptions) SettleResult {
	event := StatusSettled
	if opts.Source == "abandon" || opts.Source == "expired" {
		event = opts.Source
	}
	res := SettleResult{Ticket: t.ID, Landed: true, Status: event}
	if ev := opts.Evidence; ev != nil && ev.Repository != "" && ev.Run != "" {
		ms := []pyjson.Member{pyjson.Pair("ticket", pyjson.String(t.ID)), pyjson.Pair("source", pyjson.String(opts.Source)), pyjson.Pair("delta", pyjson.Float(delta))}
		s.settledRuns = append(s.settledRuns, newSettledRun(pyjson.Object(append(ms, ev.members()...)...)))
		if over := len(s.settledRuns) - MaxSettledRuns; over > 0 {
			s.settledRuns = append([]settledRun(nil), s.settledRuns[over:]...)
		}
	}
	srcLabel := opts.Source
	if srcLabel == "measured" {
		srcLabel = "legacy measured claim"
	}
	detail := ""
	if opts.Detail != "" {
		detail = ", " + opts.Detail
	}
	rules, maxEnergy := s.cfg, s.MaxEnergy
	if r := opts.Economics; r != nil {
		rules, maxEnergy = r.cfg, r.MaxEnergy
	}
	applied := s.assignCredit(t, delta, opts.Regressions, opts.Bundle, opts.Scale, rules)
	if len(opts.moved) > 0 {
		kept := applied[:0:0]
		for _, c := range applied {
			if !opts.moved[c.Entry] {
				kept = append(kept, c)
			}
		}
		applied = kept
	}
	credited := map[string]bool{}
	for _, c := range applied {
		credited[c.Entry] = true
		if e, ok := s.byID[c.Entry]; ok {
			e.Energy = math.Min(maxEnergy, e.Energy+c.Amount)
			e.Uses++
			e.LastUsedCycle = s.tick
		}
		if c.Amount < damageThreshold {
			s.damaged[c.Entry] = true
		}
		text := fmt.Sprintf("tick %d: credit %s (%s delta %s%s)", s.tick, fmt.Sprintf("%+.3f", c.Amount), srcLabel, pyG(delta), detail)
		extra := []pyjson.Member{pyjson.Pair("ticket", pyjson.String(t.ID)), pyjson.Pair("credit", pyjson.Float(pyRound(c.Amount, 6))), pyjson.Pair("delta", pyjson.Float(delta)),
			pyjson.Pair("detail", pyjson.String(opts.Detail)), pyjson.Pair("source", pyjson.String(opts.Source)), pyjson.Pair("evidence", opts.Evidence.value())}
		if opts.Bundle > 1 {
			extra = append(extra, pyjson.Pair("bundle", pyjson.Int(opts.Bundle)))
		}
		if opts.Regressions != nil {
			extra = append(extra, pyjson.Pair("regressions", pyjson.Float(*opts.Regressions)))
		}
		s.note(c.Entry, s.structured(text, "settle", extra...))
		if e, ok := s.byID[c.Entry]; ok {
			s.noteCredit(e, c.Amount, opts.Bundle)
		}
	}
	res.Applied = applied
	prov := t.Provenance()
	if event == StatusSettled {
		s.chargeRetrieval(prov, opts.moved, rules)
	}
	for _, id := range prov {
		if credited[id] || opts.moved[id] {
			continue
		}
		e, ok := s.byID[id]
		if event == StatusSettled && ok {
			e.Uses++
			e.LastUsedCycle = s.tick
			text := fmt.Sprintf("tick %d: outcome moved no credit (%s delta %s%s)", s.tick, srcLabel, pyG(delta), detail)
			s.note(id, s.structured(text, "settle", pyjson.Pair("ticket", pyjson.String(t.ID)), pyjson.Pair("credit", pyjson.Float(0)), pyjson.Pair("delta", pyjson.Float(delta)),
				pyjson.Pair("detail", pyjson.String(opts.Detail)), pyjson.Pair("source", pyjson.String(opts.Source)), pyjson.Pair("evidence", opts.Evidence.value())))
		} else if event != StatusSettled {
			// darwin-memo notes an abandoned or expired ticket on every entry it names,
			// buried ones included (a juvenile decider denied admission by another ticket).
			text := fmt.Sprintf("tick %d: no outcome observed (%s%s)", s.tick, event, detail)
			s.note(id, s.structured(text, event, pyjson.Pair("ticket", pyjson.String(t.ID)), pyjson.Pair("detail", pyjson.String(opts.Detail))))
		}
	}
	// Lifecycle: probation graduation, admission window.
	denied := map[string]bool{}
	for _, c := range applied {
		e, ok := s.byID[c.Entry]
		if !ok {
			continue
		}
		// A positive outcome counts toward graduation even where the supporter's share
		// of it is 0 (stores this project creates): otherwise an import could never
		// graduate there. Where the share is positive this is darwin-memo's rule (the
		// credit is positive exactly when the delta is).
		if e.Probation > 0 && (c.Amount > 0 || c.Amount == 0 && delta > 0) {
			e.Probation--
			if e.Probation == 0 {
				s.note(e.ID, s.structured(fmt.Sprintf("tick %d: graduated from probation", s.tick), "graduated", pyjson.Pair("lifecycle", pyjson.String("probation"))))
				s.log("graduate", pyjson.Pair("entry", pyjson.String(e.ID)), pyjson.Pair("lifecycle", pyjson.String("probation")))
			}
		}
		if e.Juvenile > 0 {
			if delta < 0 && e.ID == t.DecidingEntry {
				e.Energy = 0
				e.Juvenile = 0
				s.damaged[e.ID] = true
				denied[e.ID] = true
				s.note(e.ID, s.structured(fmt.Sprintf("tick %d: admission denied (juvenile decider on a negative outcome)", s.tick), "admission_denied", pyjson.Pair("ticket", pyjson.String(t.ID))))
				s.log("admission_denied", pyjson.Pair("entry", pyjson.String(e.ID)), pyjson.Pair("ticket", pyjson.String(t.ID)))
			} else {
				e.Juvenile--
				if e.Juvenile == 0 {
					s.note(e.ID, s.structured(fmt.Sprintf("tick %d: admitted", s.tick), "graduated", pyjson.Pair("lifecycle", pyjson.String("admission"))))
					s.log("graduate", pyjson.Pair("entry", pyjson.String(e.ID)), pyjson.Pair("lifecycle", pyjson.String("admission")))
				}
			}
		}
	}
	// Burial sweep over the provenance.
	escrow := s.escrowed()
	var dead []*Entry
	for _, id := range prov {
		e, ok := s.byID[id]
		if !ok || e.dead {
			continue
		}
		if e.Pinned {
			e.Energy = math.Max(e.Energy, 0)
			continue
		}
		if !e.Alive() && (!escrow[id] || denied[id]) {
			cause := s.cause(id)
			s.note(id, s.structured(fmt.Sprintf("buried at tick %d on settle", s.tick), "buried", pyjson.Pair("via", pyjson.String("settle")), pyjson.Pair("cause", pyjson.String(cause)),
				pyjson.Pair("uses", pyjson.Int(e.Uses)), pyjson.Pair("last_used_tick", pyjson.Int(e.LastUsedCycle))))
			dead = append(dead, e)
			e.dead = true // keep duplicates in prov from double-burying
			res.Buried = append(res.Buried, id)
		}
	}
	for _, e := range dead {
		e.dead = false
	}
	s.bury(dead...)
	ap := make([]pyjson.Value, len(applied))
	for i, c := range applied {
		ap[i] = pyjson.Object(pyjson.Pair("entry", pyjson.String(c.Entry)), pyjson.Pair("credit", pyjson.Float(pyRound(c.Amount, 6))))
	}
	s.log(event, pyjson.Pair("ticket", pyjson.String(t.ID)), pyjson.Pair("delta", pyjson.Float(delta)), pyjson.Pair("detail", pyjson.String(opts.Detail)), pyjson.Pair("source", pyjson.String(opts.Source)),
		pyjson.Pair("evidence", opts.Evidence.value()), pyjson.Pair("applied", pyjson.Array(ap...)), pyjson.Pair("buried", pyjson.Strings(res.Buried)))
	return res
}

func (s *Store) cause(id string) string {
	if s.damaged[id] {
		return "executed"
	}
	return "starved"
}

// escrowed returns the provenance ids of all pending tickets.
func (s *Store) escrowed() map[string]bool {
	out := make(map[string]bool, 2*len(s.pending))
	for _, t := range s.pending {
		for _, id := range t.SupportingEntries {
			out[id] = true
		}
		if t.DecidingEntry != "" {
			out[t.DecidingEntry] = true
		}
	}
	return out
}

// pyG formats a finite delta as Python's '%+g' (Settle and SettleFree
// reject the others).
func pyG(f float64) string { return fmt.Sprintf("%+.6g", f) }

// ---------------------------------------------------------------------------
// Tick

// TickOptions tune one tick.
type TickOptions struct {
	// ExpireAfter closes pending tickets older than this many ticks at delta
	// 0. Zero means the default (50); negative disables expiry.
	ExpireAfter int
}

// expireAfter is an ExpireAfter option in effect: 0 means DefaultExpire, negative never.
func expireAfter(n int) int {
	if n == 0 {
		return DefaultExpire
	}
	return n
}

// TickStats is what one tick did (darwin-memo's tick log record).
type TickStats struct {
	Tick          int      `json:"tick"`
	Population    int      `json:"population"`
	Deaths        int      `json:"deaths"`
	Merges        int      `json:"merges"`
	Pending       int      `json:"pending"`
	Expired       int      `json:"expired"`
	TotalEnergy   float64  `json:"total_energy"`
	UpkeepCharged float64  `json:"upkeep_charged"`
	DeadEntries   []string `json:"-"`
}

// MarshalJSON writes the stats as darwin-memo prints its tick record: the
// energies are floats, written as Python writes them ("upkeep_charged":
// 50.0, not 50).
func (st TickStats) MarshalJSON() ([]byte, error) {
	type plain TickStats // without this method
	return json.Marshal(struct {
		plain
		TotalEnergy   pyjson.JSONFloat `json:"total_energy"`
		UpkeepCharged pyjson.JSONFloat `json:"upkeep_charged"`
	}{plain(st), pyjson.JSONFloat(st.TotalEnergy), pyjson.JSONFloat(st.UpkeepCharged)})
}

// Tick advances time by one tick: expiry, upkeep and deaths, and every
// consolidate_every ticks consolidation (semantics §6).
func (s *Store) Tick(opts TickOptions) TickStats {
	s.tick++
	expire := expireAfter(opts.ExpireAfter)
	st := TickStats{Tick: s.tick}
	if expire > 0 {
		var old []string
		for _, t := range s.pending {
			if s.tick-t.BornTick > expire {
				old = append(old, t.ID)
			}
		}
		for _, id := range old {
			if s.Settle(id, 0, SettleOptions{Detail: "expired unsettled", Source: "expired"}).Landed {
				st.Expired++
			}
		}
	}
	escrow := s.escrowed()
	// Upkeep.
	var dead []*Entry
	charged := 0.0
	for _, e := range s.living {
		before := e.Energy
		e.Energy -= s.idleUpkeep(e)
		if e.Pinned {
			e.Energy = math.Max(e.Energy, 0)
		} else if !e.Alive() && !escrow[e.ID] {
			dead = append(dead, e)
		}
		charged += before - e.Energy
	}
	for _, e := range dead {
		cause := s.cause(e.ID)
		why := "starved: never earned its upkeep"
		if cause == "executed" {
			why = "executed: negative outcomes drained it"
		}
		text := fmt.Sprintf("died at tick %d (%s; uses=%d, last_used_tick=%d)", s.tick, why, e.Uses, e.LastUsedCycle)
		s.note(e.ID, s.structured(text, "death", pyjson.Pair("cause", pyjson.String(cause)), pyjson.Pair("uses", pyjson.Int(e.Uses)), pyjson.Pair("last_used_tick", pyjson.Int(e.LastUsedCycle))))
		st.DeadEntries = append(st.DeadEntries, e.ID)
	}
	s.bury(dead...)
	st.Deaths = len(dead)
	st.UpkeepCharged = pyRound(charged, 6)
	if ce := s.cfg.ConsolidateEvery; ce != 0 && s.tick%ce == 0 { // Python: truthy and tick % ce == 0
		st.Merges = s.consolidate(escrow)
	}
	st.Population = len(s.living)
	st.Pending = len(s.pending)
	total := 0.0
	for _, e := range s.living {
		total += e.Energy
	}
	st.TotalEnergy = pyRound(total, 3)
	s.log("tick", pyjson.Pair("population", pyjson.Int(st.Population)), pyjson.Pair("deaths", pyjson.Int(st.Deaths)), pyjson.Pair("merges", pyjson.Int(st.Merges)),
		pyjson.Pair("pending", pyjson.Int(st.Pending)), pyjson.Pair("expired", pyjson.Int(st.Expired)), pyjson.Pair("total_energy", pyjson.Float(st.TotalEnergy)),
		pyjson.Pair("upkeep_charged", pyjson.Float(st.UpkeepCharged)), pyjson.Pair("dead_entries", pyjson.Strings(st.DeadEntries)))
	return st
}

// ---------------------------------------------------------------------------
// Pin, unpin, forget

// Pin marks a living entry as pinned (floored at 0, never merged, never
// forgotten). It returns false for ids that are not living; pinning a pinned
// entry is a no-op.
func (s *Store) Pin(id string) bool { return s.setPinned(id, true) }

// Unpin clears the pin. It returns false for ids that are not living.
func (s *Store) Unpin(id string) bool { return s.setPinned(id, false) }

func (s *Store) setPinned(id string, pin bool) bool {
	e, ok := s.byID[id]
	if !ok {
		return false
	}
	if e.Pinned == pin {
		return true
	}
	e.Pinned = pin
	// darwin-memo's note events are "pinned" / "unpinned", its log events "pin" / "unpin".
	ev, noteEv := "pin", "pinned"
	text := fmt.Sprintf("tick %d: pinned by an operator", s.tick)
	if !pin {
		ev, noteEv = "unpin", "unpinned"
		text = fmt.Sprintf("tick %d: unpinned by an operator", s.tick)
	}
	s.note(id, s.structured(text, noteEv))
	s.log(ev, pyjson.Pair("entry", pyjson.String(id)))
	return true
}

// Forget results.
const (
	ForgetBuried   = "buried"
	ForgetUnknown  = "unknown"
	ForgetPinned   = "pinned"
	ForgetEscrowed = "escrowed"
)

// Forget buries a living entry explicitly (cause "forgotten"). It refuses
// pinned and escrowed entries.
func (s *Store) Forget(id string) string {
	// darwin-memo's order: escrow first (even for an id that is not
	// living), then existence, then pin.
	if s.escrowed()[id] {
		s.log("forget_refused", pyjson.Pair("entry", pyjson.String(id)), pyjson.Pair("reason", pyjson.String(ForgetEscrowed)))
		return ForgetEscrowed
	}
	e, ok := s.byID[id]
	if !ok {
		return ForgetUnknown
	}
	if e.Pinned {
		s.log("forget_refused", pyjson.Pair("entry", pyjson.String(id)), pyjson.Pair("reason", pyjson.String(ForgetPinned)))
		return ForgetPinned
	}
	s.note(id, s.structured(fmt.Sprintf("buried at tick %d (forgotten)", s.tick), "buried", pyjson.Pair("via", pyjson.String("forget")), pyjson.Pair("cause", pyjson.String("forgotten"))))
	s.bury(e)
	s.log("forget", pyjson.Pair("entry", pyjson.String(id)))
	return ForgetBuried
}

// ---------------------------------------------------------------------------
// Import

// ImportOptions tune Import.
type ImportOptions struct {
	// Label is recorded as imported_from (e.g. the foreign store's path).
	Label string
	// Probation is how many positive settlements an import must ride along
	// on before it may decide. Nil means the default (3); values are
	// clamped at 0.
	Probation *int
}

// Import copies the living entries of another store, keeping their ids,
// text, kind and sources, at spawn energy and on probation. Ids already
// living or buried here are skipped, so imports are idempotent and dead
// poison is not resurrected. It returns the imported ids.
func (s *Store) Import(from *Store, opts ImportOptions) []string {
	prob := DefaultProbation
	if opts.Probation != nil {
		prob = max(0, *opts.Probation)
	}
	label := opts.Label
	if label == "" {
		label = from.name
	}
	at := s.nowISO()
	var out []string
	for _, f := range from.living {
		if !f.Alive() {
			continue
		}
		if _, ok := s.byID[f.ID]; ok {
			continue
		}
		if _, ok := s.deadIDs[f.ID]; ok {
			continue
		}
		lf, la := label, at
		e := &Entry{
			Question: f.Question, Answer: f.Answer, Kind: f.Kind,
			Sources: append([]string{}, f.Sources...), Energy: SpawnEnergy, BornCycle: s.tick,
			RecordedTS: f.RecordedTS, LastUsedCycle: -1, Lineage: []string{}, Probation: prob,
			ImportedFrom: &lf, ImportedAt: &la, ID: f.ID,
		}
		s.addLiving(e)
		s.note(e.ID, s.structured(fmt.Sprintf("tick %d: imported from %s (probation %d)", s.tick, label, prob), "import",
			pyjson.Pair("imported_from", pyjson.String(label))))
		out = append(out, e.ID)
	}
	if len(out) > 0 { // an import that copies nothing changes nothing
		s.log("import", pyjson.Pair("from", pyjson.String(label)), pyjson.Pair("entries", pyjson.Strings(out)))
	}
	return out
}

// TicksToStarvation is round(energy / upkeep, 1), or nil for pinned entries
// or when upkeep <= 0.
func (s *Store) TicksToStarvation(e *Entry) *float64 {
	u := s.idleUpkeep(e)
	if e.Pinned || u <= 0 {
		return nil
	}
	r := pyRound(e.Energy/u, 1)
	return &r
}

// pyRound is Python's round(x, digits) (NaN and the infinities as they are:
// ParseFloat reads back what FormatFloat writes for them).
func pyRound(x float64, digits int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return r
}
