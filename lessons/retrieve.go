package lessons

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// RetrieveOptions tune retrieval (semantics §4.2).
type RetrieveOptions struct {
	K        int     // hits to keep; default 3
	Kind     Kind    // only entries of this kind ("" for all)
	Source   string  // only entries carrying this source label ("" for all)
	HalfLife float64 // > 0 decays scores by age in ticks; 0 is off
	// Retrieval is the ranking; "" is the store's default (Store.Retrieval).
	Retrieval Retrieval
	// Once says the store is consulted once (a process that loads it, asks
	// one question and exits): rank without building the store's
	// retrieval index, by a pass over the lessons for the query's terms
	// alone. The results are identical; an index already built is used,
	// and none is kept, so repeated queries are faster without Once.
	Once bool
}

// Hit is one retrieved entry with its relevance score.
type Hit struct {
	Entry *Entry
	Score float64
	// Coverage is the weighted share of the query the entry contains, in
	// [0, 1] (darwin-memo: score / idf mass; BM25F: over rank.BM25F's
	// weights).
	Coverage float64
	// Confidence in [0, 1]: darwin-memo's ranking, Coverage; BM25F, the
	// calibrated probability that the lesson answers the query
	// (rank.Confidence of its coverage and, for the first lesson that may
	// decide, its margin over the next). Decide answers with BM25F only
	// from DecideThreshold.
	Confidence float64
	// SupersededBy is the living lesson that replaces this one by record
	// ("" when none does): it is listed just before, and this one does not
	// decide.
	SupersededBy string
}

// DecideThreshold is the confidence from which a BM25F hit may decide:
// below it decide is silent. The confidence is a probability calibrated on
// the development sets (rank.Confidence), so the threshold that maximises
// expected accuracy is 0.5; the sweep over the development sets agrees
// (docs/retrieval.md, "Abstention").
const DecideThreshold = 0.5

// Retrieve ranks the living entries for query with opts.Retrieval (the
// store's default when empty). darwin-memo's ranking is smoothed IDF with
// the 0.25 coverage floor, energy only breaking ties; BM25F lists up to K
// lessons sharing a term with the query (retrieveBM25F). It returns nil
// when nothing qualifies.
func (s *Store) Retrieve(query string, opts RetrieveOptions) ([]Hit, error) {
	if opts.K <= 0 {
		opts.K = DefaultK
	}
	if opts.Kind != "" && !validKind(string(opts.Kind)) {
		return nil, fmt.Errorf("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", opts.Kind)
	}
	if opts.HalfLife < 0 || math.IsNaN(opts.HalfLife) {
		return nil, errors.New("half-life must be positive (or 0 to disable decay)")
	}
	switch opts.Retrieval = s.resolveRetrieval(opts.Retrieval); opts.Retrieval {
	case RetrievalDarwinMemo:
	case RetrievalBM25F:
		return s.retrieveBM25F(query, opts), nil
	default:
		return nil, fmt.Errorf("unknown retrieval %q; use bm25f or darwin-memo", opts.Retrieval)
	}
	q := rank.Tokens(query)
	if len(q) == 0 || len(s.living) == 0 {
		return nil, nil
	}
	var x *rank.Index
	var docs []*Entry
	if opts.Kind == "" && opts.Source == "" {
		if opts.Once && (s.idx == nil || s.idx.x == nil) {
			x, docs = projectedIndex(q, s.living), s.living
		}
		if x == nil {
			ix := s.ensureIndex()
			x, docs = ix.x, ix.docs
		}
	} else {
		// A filtered query is its own corpus (df over the filtered population).
		for _, e := range s.living {
			if opts.Kind != "" && e.Kind != opts.Kind {
				continue
			}
			if opts.Source != "" && !slices.Contains(e.Sources, opts.Source) {
				continue
			}
			docs = append(docs, e)
		}
		if len(docs) == 0 {
			return nil, nil
		}
		if opts.Once {
			x = projectedIndex(q, docs)
		}
		if x == nil {
			sets := make([][]uint32, len(docs))
			for i, e := range docs {
				sets[i] = s.tokenSet(e)
			}
			x = rank.NewIndexIDs(s.tokenDict(), sets)
		}
	}
	byEnergy := func(a, b int) bool { return docs[a].Energy > docs[b].Energy }
	var raw []rank.Hit
	if opts.HalfLife > 0 {
		raw = x.RankTop(q, MinCoverage, 0, nil)
		for i := range raw {
			raw[i].Score = s.decayed(docs[raw[i].Doc], raw[i].Score, opts.HalfLife)
		}
		slices.SortStableFunc(raw, func(a, b rank.Hit) int {
			switch {
			case a.Score > b.Score:
				return -1
			case a.Score < b.Score:
				return 1
			case byEnergy(a.Doc, b.Doc):
				return -1
			case byEnergy(b.Doc, a.Doc):
				return 1
			}
			return a.Doc - b.Doc
		})
		if len(raw) > opts.K {
			raw = raw[:opts.K]
		}
	} else {
		raw = x.RankTop(q, MinCoverage, opts.K, byEnergy)
	}
	hits := make([]Hit, len(raw))
	mass := 0.0
	if len(raw) > 0 {
		mass = x.Mass(q)
	}
	for i, h := range raw {
		cov := 0.0
		if mass > 0 {
			cov = min(1, h.Score/mass)
		}
		hits[i] = Hit{Entry: docs[h.Doc], Score: h.Score, Coverage: cov, Confidence: cov}
	}
	return hits, nil
}

// DecideOptions tune Decide.
type DecideOptions struct {
	RetrieveOptions
	// Register records the ticket in ledger.pending (darwin-memo's compat
	// ticket, named in a PR body as "darwin-memo-ticket: <id>"). Without it
	// the store is not modified and the caller hands out the store-free
	// ticket line instead.
	Register bool
	// Provisional lets imported lessons still on probation answer when every
	// hit is one (darwin-memo is silent then, so a store of imports is never
	// consulted and never measured): the best such hit's answer is returned,
	// marked provisional, with a ticket naming the probationary hits as
	// supporters and no decider. Settling it moves their probation (a
	// supporter's share of the credit) without letting them decide.
	Provisional bool
	// Exclude, when set, names a reason a hit may neither decide nor support
	// ("" to keep it): decide passes over it to the next candidate, and the
	// ticket does not name it, so CI, which does not ask, still verifies the
	// ticket. The reasons are in Decision.Excluded.
	Exclude func(*Entry) string
}

// ProvisionalNote starts the answer of a provisional decide.
const ProvisionalNote = "(provisional: imported lesson on probation, not yet measured in this repository) "

// Decision is the outcome of one consult.
type Decision struct {
	Query  string
	Answer string // annotated answer; "" when silent
	Silent bool
	// Provisional is set when the answer comes from imported lessons on
	// probation (DecideOptions.Provisional): no decider, they support.
	Provisional bool
	Decider     string   // "" for none
	Supporting  []string // other hits in rank order
	Hits        []Hit
	Withheld    []string    // probationary ids withheld from a silent answer
	Excluded    []Exclusion // hits DecideOptions.Exclude passed over, in rank order
	Tick        int
	Retrieval   Retrieval // the ranking used; the ticket's version follows it
	// Ticket is the record of this consult. It is nil when silent. When
	// Register was set it is also pending in the ledger.
	Ticket *Ticket
}

// StoreFreeLine returns the store-free ticket line for this decision ("" when
// silent).
func (d *Decision) StoreFreeLine() string {
	if d.Silent || d.Ticket == nil {
		return ""
	}
	return d.FreeTicket().Line()
}

// FreeTicket returns the store-free ticket of this decision, versioned by
// the ranking that made it (v1 darwin-memo, v2 BM25F).
func (d *Decision) FreeTicket() FreeTicket {
	return FreeTicket{Version: d.Retrieval.TicketVersion(), Tick: d.Tick, Decider: d.Decider, Supporting: d.Supporting, Query: d.Query}
}

// Decide consults the store: the best-ranked hit that may decide answers,
// the other hits support it, and a ticket records the provenance
// (semantics §4.3, §4.4).
func (s *Store) Decide(query string, opts DecideOptions) (*Decision, error) {
	opts.Retrieval = s.resolveRetrieval(opts.Retrieval)
	hits, err := s.Retrieve(query, opts.RetrieveOptions)
	if err != nil {
		return nil, err
	}
	d := &Decision{Query: query, Hits: hits, Tick: s.tick, Retrieval: opts.Retrieval}
	bm25 := opts.Retrieval == RetrievalBM25F
	hits = d.exclude(hits, opts.Exclude)
	if bm25 {
		// Only confident hits take part, and a superseded lesson does not.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h Hit) bool { return h.Confidence < DecideThreshold || h.SupersededBy != "" })
	}
	var decider *Entry
	for _, h := range hits {
		if h.Entry.MayDecide() {
			decider = h.Entry
			break
		}
	}
	if decider == nil {
		for _, h := range hits {
			d.Withheld = append(d.Withheld, h.Entry.ID)
		}
	} else {
		d.Decider = decider.ID
		if d.Supporting, err = s.ticketSupporters(query, decider, hits, opts.RetrieveOptions); err != nil {
			return nil, err
		}
		d.Supporting = slices.DeleteFunc(d.Supporting, d.excluded)
		if bm25 {
			// Conflicts are resolved by recorded supersession: the decider speaks alone.
			d.Answer = decider.Answer + "\n" + ageLine(decider)
		} else {
			d.Answer = s.annotate(decider, hits)
		}
	}
	if decider == nil && opts.Provisional && len(hits) > 0 {
		top := hits[0].Entry
		d.Answer = ProvisionalNote + top.Answer + "\n" + ageLine(top)
		d.Supporting, d.Withheld, d.Provisional = d.Withheld[:min(len(d.Withheld), MaxTicketSupporters)], nil, true
	}
	d.Silent = d.Answer == "" || (d.Decider == "" && len(d.Supporting) == 0)
	if d.Silent {
		d.Answer, d.Decider, d.Supporting = "", "", nil
	}
	if d.Supporting == nil {
		d.Supporting = []string{}
	}
	if !d.Silent {
		t := &Ticket{Query: query, Answer: d.Answer, DecidingEntry: d.Decider, SupportingEntries: d.Supporting, BornTick: s.tick}
		t.ID = s.freshTicketID(t)
		d.Ticket = t
		if opts.Register {
			s.pending = append(s.pending, t)
		}
	}
	if opts.Register {
		tid := pyjson.Null()
		if d.Ticket != nil {
			tid = pyjson.String(d.Ticket.ID)
		}
		s.log("decide", pyjson.Pair("ticket", tid), pyjson.Pair("query", pyjson.String(query)), pyjson.Pair("silent", pyjson.Bool(d.Silent)),
			pyjson.Pair("decider", pyjson.String(d.Decider)), pyjson.Pair("supporting", pyjson.Strings(d.Supporting)), pyjson.Pair("withheld", pyjson.Strings(d.Withheld)))
	}
	return d, nil
}

// Exclusion is a hit DecideOptions.Exclude passed over, and why.
type Exclusion struct {
	ID     string
	Reason string
}

// exclude drops the hits ex names a reason for, recording them in d.Excluded.
func (d *Decision) exclude(hits []Hit, ex func(*Entry) string) []Hit {
	if ex == nil {
		return hits
	}
	var kept []Hit
	for _, h := range hits {
		if why := ex(h.Entry); why != "" {
			d.Excluded = append(d.Excluded, Exclusion{h.Entry.ID, why})
			continue
		}
		kept = append(kept, h)
	}
	return kept
}

func (d *Decision) excluded(id string) bool {
	return slices.ContainsFunc(d.Excluded, func(x Exclusion) bool { return x.ID == id })
}

func (s *Store) freshTicketID(t *Ticket) string {
	parts := []string{"ticket", t.Query, fmt.Sprint(t.BornTick), t.DecidingEntry, strings.Join(t.SupportingEntries, ",")}
	for n := 0; ; n++ {
		p := parts
		if n > 0 {
			p = append(append([]string{}, parts...), fmt.Sprint(n))
		}
		id := s.opts.NewID(p...)
		if !slices.ContainsFunc(s.pending, func(x *Ticket) bool { return x.ID == id }) {
			return id
		}
	}
}

// ageLine is "[recorded <ts>; born tick B; last settled tick L]".
func ageLine(e *Entry) string {
	rec := "age unknown"
	if e.RecordedTS != "" {
		rec = "recorded " + e.RecordedTS
	}
	settled := "never settled"
	if e.LastUsedCycle >= 0 {
		settled = fmt.Sprintf("last settled tick %d", e.LastUsedCycle)
	}
	return fmt.Sprintf("[%s; born tick %d; %s]", rec, e.BornCycle, settled)
}

// annotate renders the decider's answer, or a conflict block when other hits
// overlap it at conflict_threshold (temporal.py render_consult).
func (s *Store) annotate(decider *Entry, hits []Hit) string {
	thr := s.cfg.conflictThreshold()
	cluster := []*Entry{decider}
	ds := s.tokenSet(decider)
	for _, h := range hits {
		if h.Entry != decider && rank.JaccardIDs(ds, s.tokenSet(h.Entry)) >= thr {
			cluster = append(cluster, h.Entry)
		}
	}
	if len(cluster) == 1 {
		return decider.Answer + "\n" + ageLine(decider)
	}
	slices.SortStableFunc(cluster, func(a, b *Entry) int {
		if c := strings.Compare(b.RecordedTS, a.RecordedTS); c != 0 {
			return c
		}
		return b.BornCycle - a.BornCycle
	})
	var sb strings.Builder
	sb.WriteString("conflicting/overlapping advice, newest first:")
	for _, e := range cluster {
		sb.WriteString("\n- ")
		sb.WriteString(e.Answer)
		sb.WriteByte(' ')
		sb.WriteString(ageLine(e))
	}
	return sb.String()
}

// retrieveBM25F is Retrieve for RetrievalBM25F: every lesson sharing a term
// with the query (and passing the kind and source filters), by BM25F score
// (then energy, then store order), the first K of them. A lesson some living lesson supersedes by record is
// listed right after the lesson replacing it last, which takes its place
// in the ranking when it ranks lower, so the best match is never hidden
// and never decides past its replacement.
func (s *Store) retrieveBM25F(query string, opts RetrieveOptions) []Hit {
	var raw []rank.Scored
	var docOf func(doc int) *Entry
	if opts.Once && (s.idx == nil || s.idx.bm == nil) {
		// Asked once: no index, the same results (TestOnceMatchesIndex).
		living := s.living
		raw = rank.SearchOnce(query, len(living), func(i int) (string, string) { return living[i].Question, living[i].Answer }, runtime.GOMAXPROCS(0))
		docOf = func(doc int) *Entry { return living[doc] }
	} else {
		bi := s.ensureBM25Index()
		raw = bi.x.Search(query)
		docOf = func(doc int) *Entry { return bi.docs[doc] }
	}
	if opts.Kind != "" || opts.Source != "" {
		// Filters choose among the lessons; term weights stay the whole
		// store's, so a filtered hit's confidence is the one CI sees.
		raw = slices.DeleteFunc(raw, func(r rank.Scored) bool {
			e := docOf(r.Doc)
			return opts.Kind != "" && e.Kind != opts.Kind || opts.Source != "" && !slices.Contains(e.Sources, opts.Source)
		})
	}
	if len(raw) == 0 {
		return nil
	}
	hits := make([]Hit, len(raw))
	at := make(map[*Entry]int, len(raw))
	for i, r := range raw {
		e := docOf(r.Doc)
		hits[i] = Hit{Entry: e, Score: s.decayed(e, r.Score, opts.HalfLife), Coverage: r.Coverage}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Entry.Energy, a.Entry.Energy)
	})
	for i, h := range hits {
		at[h.Entry] = i
	}
	sup := s.supersession()
	// List in order until K are listed and the second lesson that may
	// decide is known (the first one's margin is measured against it).
	out := make([]Hit, 0, min(len(hits), opts.K+1))
	listed := map[*Entry]bool{}
	deciders := 0
	add := func(h Hit) {
		out = append(out, h)
		listed[h.Entry] = true
		if h.SupersededBy == "" {
			deciders++
		}
	}
	for _, h := range hits {
		if len(out) >= opts.K && deciders >= 2 {
			break
		}
		if listed[h.Entry] {
			continue
		}
		if l := sup.latest(h.Entry); l != nil {
			h.SupersededBy = l.ID
			if !listed[l] {
				r := Hit{Entry: l, Score: h.Score, Coverage: h.Coverage}
				if i, ok := at[l]; ok {
					r.Score, r.Coverage = max(r.Score, hits[i].Score), max(r.Coverage, hits[i].Coverage)
				}
				add(r)
			}
		}
		add(h)
	}
	// Confidence (rank.Confidence): the first lesson that may decide has
	// the margin of its score over the next such lesson's; the others 0.
	first, next := -1, 0.0
	for i, h := range out {
		if h.SupersededBy != "" {
			continue
		}
		if first < 0 {
			first = i
		} else {
			next = h.Score
			break
		}
	}
	for i := range out {
		m := 0.0
		if i == first {
			m = rank.Margin(out[i].Score, next)
		}
		out[i].Confidence = rank.Confidence(out[i].Coverage, m)
	}
	return out[:min(len(out), opts.K)]
}

// decayed is score halved every halfLife ticks since e was last settled
// (or born); halfLife 0 is no decay.
func (s *Store) decayed(e *Entry, score, halfLife float64) float64 {
	if halfLife <= 0 {
		return score
	}
	ref := e.BornCycle
	if e.LastUsedCycle >= 0 {
		ref = e.LastUsedCycle
	}
	if age := float64(s.tick - ref); age > 0 {
		score *= math.Pow(0.5, age/halfLife)
	}
	return score
}
