package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// Consulting is ranking (internal/rank: Library.Search and Library.Decide
// over the living entries, read through source) and economics, here: the
// ticket a decide mints, and its record in the ledger.

// RetrieveOptions tune retrieval (semantics §4.2).
type RetrieveOptions struct {
	K      int    // hits to keep; default 3
	Kind   Kind   // only entries of this kind ("" for all)
	Source string // only entries carrying this source label ("" for all)
	// Retrieval is the ranking; "" is the store's default (Store.Retrieval).
	Retrieval Retrieval
	// Once says the store is consulted once (rank.Query.Once): no index is
	// built, the results are identical; repeated queries are faster
	// without it.
	Once bool
}

// Hit is one retrieved entry with its relevance (rank.Result).
type Hit struct {
	Entry      *Entry
	Score      float64
	Coverage   float64
	Confidence float64
	// Margin is rank.Result.Margin: the first BM25F hit that may decide,
	// its margin over the next distinct one; 0 otherwise.
	Margin       float64
	SupersededBy string
}

// Retrieve ranks the living entries for query with opts.Retrieval (the
// store's default when empty). It returns nil when nothing qualifies.
func (s *Store) Retrieve(query string, opts RetrieveOptions) ([]Hit, error) {
	q, err := s.rankQuery(query, opts)
	if err != nil {
		return nil, err
	}
	rs, err := s.library().Search(s.living, q)
	return hitsOf(rs), err
}

// rankQuery is opts as internal/rank asks it.
func (s *Store) rankQuery(query string, opts RetrieveOptions) (rank.Query[*Entry], error) {
	if opts.Kind != "" && !validKind(string(opts.Kind)) {
		return rank.Query[*Entry]{}, fmt.Errorf("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", opts.Kind)
	}
	q := rank.Query[*Entry]{Text: query, Ranking: s.resolveRetrieval(opts.Retrieval), K: opts.K, Once: opts.Once, NearDuplicate: s.cfg.MergeThreshold}
	if q.K <= 0 {
		q.K = DefaultK
	}
	if opts.Kind != "" || opts.Source != "" {
		q.Keep = func(e *Entry) bool {
			return (opts.Kind == "" || e.Kind == opts.Kind) && (opts.Source == "" || slices.Contains(e.Sources, opts.Source))
		}
	}
	return q, nil
}

func hitsOf(rs []rank.Result[*Entry]) []Hit {
	if rs == nil {
		return nil
	}
	hits := make([]Hit, len(rs))
	for i, r := range rs {
		hits[i] = Hit{Entry: r.Lesson, Score: r.Score, Coverage: r.Coverage, Confidence: r.Confidence, Margin: r.Margin, SupersededBy: r.SupersededBy}
	}
	return hits
}

// DecideOptions tune Decide.
type DecideOptions struct {
	RetrieveOptions
	// Register records the ticket in ledger.pending (darwin-memo's compat
	// ticket, named in a PR body as "darwin-memo-ticket: <id>"). Without it
	// the store is not modified and the caller hands out the store-free
	// ticket line instead.
	Register bool
	// Provisional lets imported lessons still on probation answer when
	// every hit is one (rank.Consult.Provisional); settling the ticket moves
	// their probation without letting them decide.
	Provisional bool
	// Exclude, when set, names a reason a hit may neither decide nor support
	// ("" to keep it); the ticket does not name it, so CI, which does not
	// ask, still verifies the ticket. The reasons are in Decision.Excluded.
	Exclude func(*Entry) string
}

// Exclusion is a hit DecideOptions.Exclude passed over, and why.
type Exclusion = rank.Exclusion

// Decision is the outcome of one consult (rank.Verdict) and its ticket.
type Decision struct {
	Query       string
	Answer      string // annotated answer; "" when silent
	Silent      bool
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
	return FreeTicket{Version: ticketVersion(d.Retrieval), Tick: d.Tick, Decider: d.Decider, Supporting: d.Supporting, Query: d.Query}
}

// Decide consults the store (rank.Library.Decide) and mints the ticket that
// records the provenance (semantics §4.3, §4.4).
func (s *Store) Decide(query string, opts DecideOptions) (*Decision, error) {
	q, err := s.rankQuery(query, opts.RetrieveOptions)
	if err != nil {
		return nil, err
	}
	c := rank.Consult[*Entry]{Query: q, Exclude: opts.Exclude, Provisional: opts.Provisional, MaxSupporters: MaxTicketSupporters, Conflict: s.cfg.conflictThreshold()}
	v, err := s.library().Decide(s.living, c)
	if err != nil {
		return nil, err
	}
	d := &Decision{Query: query, Answer: v.Answer, Silent: v.Silent, Provisional: v.Provisional, Decider: v.Decider, Supporting: v.Supporting,
		Hits: hitsOf(v.Hits), Withheld: v.Withheld, Excluded: v.Excluded, Tick: s.tick, Retrieval: q.Ranking}
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

// freshTicketID is t's id: derived from its content, unused by the pending tickets.
func (s *Store) freshTicketID(t *Ticket) string {
	return freshID(func(id string) bool { return s.pendingTicket(id) != nil },
		"ticket", t.Query, strconv.Itoa(t.BornTick), t.DecidingEntry, strings.Join(t.SupportingEntries, ","))
}
