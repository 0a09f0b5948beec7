package lessons

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// A ticket reaches the bot through the merged PR's body, in one of two forms
// (see docs/tickets.md):
//
//   - compat: "darwin-memo-ticket: <12 hex>", naming a ticket pending in
//     ledger.pending (darwin-memo's form; the agent's PR must commit it);
//   - store-free: "darwin-memo: v1 t=<tick> d=<decider> s=<supporters>
//     q=<base64url query>", carrying everything needed, so the agent's PR
//     never edits lessons.json.

// Ticket forms.
const (
	FormCompat    = "compat"
	FormStoreFree = "store-free"
)

// Limits of a store-free ticket.
const (
	MaxTicketQuery      = 4096 // bytes of decoded query
	MaxTicketSupporters = 8
)

// FreeTicket is the content of a store-free ticket.
type FreeTicket struct {
	// Version is the ticket's vN: the ranking it was minted with and is
	// verified with (1: darwin-memo's, 2: BM25F; see Retrieval). 0 means 1.
	Version    int
	Tick       int
	Decider    string   // "" for none
	Supporting []string // in rank order
	Query      string
}

var b64 = base64.RawURLEncoding

// Line renders the canonical ticket line.
func (t FreeTicket) Line() string {
	d := t.Decider
	if d == "" {
		d = "-"
	}
	sup := strings.Join(t.Supporting, ",")
	if sup == "" {
		sup = "-"
	}
	return fmt.Sprintf("darwin-memo: v%d t=%d d=%s s=%s q=%s", max(1, t.Version), t.Tick, d, sup, b64.EncodeToString([]byte(t.Query)))
}

// ID is the store-free ticket's id: a content hash of its canonical line.
func (t FreeTicket) ID() string { return ContentID(t.Line()) }

// Named returns the supporters followed by the decider.
func (t FreeTicket) Named() []string {
	out := append([]string(nil), t.Supporting...)
	if t.Decider != "" {
		out = append(out, t.Decider)
	}
	return out
}

// BodyTicket is one ticket found in a PR body.
type BodyTicket struct {
	Form string // FormCompat or FormStoreFree
	ID   string // compat: the pending ticket id; store-free: FreeTicket.ID()
	Free FreeTicket
}

// ticketRe finds a compat ticket (its id in group 1) or the start of a store-free one (its
// version in group 2).
var ticketRe = regexp.MustCompile(`darwin-memo-ticket:\s*([0-9a-f]{12})|darwin-memo:[ \t]*(v[0-9]+)\b`)

// ticketError is a malformed store-free ticket line at byte at of a PR body.
func ticketError(at int, msg string) error {
	return fmt.Errorf("ticket at byte %d of the PR body: %s", at, msg)
}

func isHex12(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

func isFieldByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ',' || c == '='
}

// ParseTickets finds every ticket in a PR body, in order of first
// appearance, without repeats: compat tickets ("darwin-memo-ticket:" then
// optional whitespace and 12 lowercase hex; a longer hex run matches on its
// first 12) and store-free tickets. Malformed store-free tickets are
// reported as errors and skipped; text that merely mentions "darwin-memo:"
// without a version is ignored.
func ParseTickets(body string) ([]BodyTicket, []error) {
	var out []BodyTicket
	var errs []error
	seen := map[string]bool{}
	for _, mt := range ticketRe.FindAllStringSubmatchIndex(body, -1) {
		at, t := mt[0], BodyTicket{Form: FormCompat}
		if mt[2] >= 0 {
			t.ID = body[mt[2]:mt[3]]
		} else {
			ver := body[mt[4]:mt[5]]
			if ver != "v1" && ver != "v2" {
				errs = append(errs, ticketError(at, fmt.Sprintf("unsupported ticket version %s; this darwin-memo reads v1 (darwin-memo's ranking) and v2 (BM25F)", ver)))
				continue
			}
			ft, err := parseFields(body[mt[1]:])
			if err != nil {
				errs = append(errs, ticketError(at, err.Error()))
				continue
			}
			ft.Version = int(ver[1] - '0')
			t = BodyTicket{Form: FormStoreFree, ID: ft.ID(), Free: ft}
		}
		if k := t.Form + ":" + t.ID; !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out, errs
}

// parseFields reads the key=value fields after "darwin-memo: v1" (or v2).
func parseFields(rest string) (FreeTicket, error) {
	var t FreeTicket
	got := map[byte]bool{}
	i := 0
	for {
		// skip blanks (spaces and tabs only: a ticket is one line)
		j := i
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j == i && i > 0 || j+1 >= len(rest) || rest[j+1] != '=' || rest[j] < 'a' || rest[j] > 'z' {
			break
		}
		k := j
		for k < len(rest) && isFieldByte(rest[k]) {
			k++
		}
		key, val := rest[j], rest[j+2:k]
		if k < len(rest) && rest[k] == '>' && strings.HasSuffix(val, "--") {
			// "...q=XXXX-->": an HTML comment closed without a space; "-" is a
			// base64url character, but "--" before ">" is the comment's end.
			val = val[:len(val)-2]
		}
		i = k
		if got[key] {
			return t, fmt.Errorf("field %c= appears twice", key)
		}
		got[key] = true
		switch key {
		case 't':
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 || val != strconv.Itoa(n) {
				return t, fmt.Errorf("t=%q is not a tick number", val)
			}
			t.Tick = n
		case 'd':
			if val != "-" && !isHex12(val) {
				return t, fmt.Errorf("d=%q is not an entry id (12 lowercase hex) or -", val)
			}
			if val != "-" {
				t.Decider = val
			}
		case 's':
			if val != "-" {
				for _, id := range strings.Split(val, ",") {
					if !isHex12(id) {
						return t, fmt.Errorf("s= holds %q, not an entry id (12 lowercase hex)", id)
					}
					if slices.Contains(t.Supporting, id) || id == t.Decider {
						return t, fmt.Errorf("s= names %s twice", id)
					}
					t.Supporting = append(t.Supporting, id)
				}
			}
			if len(t.Supporting) > MaxTicketSupporters {
				return t, fmt.Errorf("s= names %d entries; at most %d are allowed", len(t.Supporting), MaxTicketSupporters)
			}
		case 'q':
			q, err := b64.DecodeString(val)
			if err != nil {
				return t, fmt.Errorf("q= is not unpadded base64url: %v (was the line cut or reflowed?)", err)
			}
			if len(q) > MaxTicketQuery {
				return t, fmt.Errorf("q= decodes to %d bytes; at most %d are allowed", len(q), MaxTicketQuery)
			}
			t.Query = string(q)
		default:
			return t, fmt.Errorf("unknown field %c=", key)
		}
	}
	for _, k := range []byte{'t', 'd', 's', 'q'} {
		if !got[k] {
			return t, fmt.Errorf("missing field %c= (a v1 ticket has t=, d=, s= and q=; paste the whole line that decide printed)", k)
		}
	}
	if t.Decider == "" && len(t.Supporting) == 0 {
		return t, errors.New("names no entries (d=- and s=-)")
	}
	if slices.Contains(t.Supporting, t.Decider) {
		return t, fmt.Errorf("names %s as decider and supporter", t.Decider)
	}
	if strings.TrimSpace(t.Query) == "" {
		return t, errors.New("q= is empty")
	}
	return t, nil
}

// RefusedError says why a ticket may not be settled.
type RefusedError struct {
	Ticket string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("ticket %s refused: %s", e.Ticket, e.Reason)
}

// VerifyOptions tune VerifyTicket.
type VerifyOptions struct {
	ExpireAfter int // 0 means the default (50); negative disables the check
	// Once re-runs a store-free ticket's query without building the
	// store's index (RetrieveOptions.Once): the same verdicts, cheaper for
	// a store checked against one or two tickets and then dropped (the
	// store at a pull request's base, a ticket just minted).
	Once bool
	// Settling is the store the tickets settle in. A compat ticket is settled by the pending
	// record there (the pull request committed it with the store), so that record is verified
	// at the base like a store-free ticket: its query must retrieve every entry it names. Nil
	// leaves compat tickets to the opened-since rule alone; SettleBody passes its receiver.
	Settling *Store
}

// VerifyTicket checks a ticket against the store at the PR's base commit
// (the receiver). A compat ticket is refused if it was already pending at
// base: only tickets this PR opened may be settled (darwin-memo's
// --opened-since); and the pending record it settles by (in
// opts.Settling), which the PR itself committed, is checked as a store-free
// ticket is. A store-free ticket is refused unless re-running its query
// against the base store retrieves every entry it names, with its decider
// ranked above every named supporter that may decide; so a PR cannot aim
// credit or damage at a lesson it never consulted. It is also refused if it
// claims a tick after the base's or is older than the expiry window.
func (s *Store) VerifyTicket(t BodyTicket, opts VerifyOptions) error {
	switch t.Form {
	case FormCompat:
		if s.pendingTicket(t.ID) != nil {
			return &RefusedError{Ticket: t.ID, Reason: "already pending at the PR's base, so this PR did not open it"}
		}
		if p := opts.Settling.pendingTicket(t.ID); p != nil {
			return s.verifyCompat(t.ID, p, opts)
		}
		return nil // not pending where it would settle: it settles nothing
	case FormStoreFree:
		return s.verifyClaim(t.ID, t.Free, retrievalOfVersion(t.Free.Version), opts)
	}
	return &RefusedError{Ticket: t.ID, Reason: fmt.Sprintf("unknown ticket form %q", t.Form)}
}

// pendingTicket returns the pending ticket id of s; nil when s is nil or holds none.
func (s *Store) pendingTicket(id string) *Ticket {
	if s == nil {
		return nil
	}
	if i := slices.IndexFunc(s.pending, func(p *Ticket) bool { return p.ID == id }); i >= 0 {
		return s.pending[i]
	}
	return nil
}

// verifyCompat checks a compat ticket's pending record at the base (the receiver) as a
// store-free ticket with the same tick, entries and query: the pull request wrote the record,
// so without this it could name any lesson as its decider. The record does not say which
// ranking answered its query (darwin-memo's or BM25F), so it passes if either retrieves
// what it names, the base store's default ranking first; the refusal reported is that one's.
func (s *Store) verifyCompat(id string, p *Ticket, opts VerifyOptions) error {
	claim := FreeTicket{Tick: p.BornTick, Decider: p.DecidingEntry, Supporting: p.SupportingEntries, Query: p.Query}
	first := s.resolveRetrieval("")
	err := s.verifyClaim(id, claim, first, opts)
	for _, r := range []Retrieval{RetrievalBM25F, RetrievalDarwinMemo} {
		if err == nil || r == first {
			continue
		}
		if s.verifyClaim(id, claim, r, opts) == nil {
			err = nil
		}
	}
	return err
}

// verifyClaim checks that re-running f's query against the base store (the receiver) with the
// ranking r retrieves every entry f names, its decider may decide and ranks above every named
// supporter that may, and its tick is neither after the base's nor expired.
func (s *Store) verifyClaim(id string, f FreeTicket, r Retrieval, opts VerifyOptions) error {
	refuse := func(format string, args ...any) error {
		return &RefusedError{Ticket: id, Reason: fmt.Sprintf(format, args...)}
	}
	if f.Tick > s.tick {
		return refuse("claims tick %d but the base store is at tick %d", f.Tick, s.tick)
	}
	if expire := expireAfter(opts.ExpireAfter); expire > 0 && s.tick-f.Tick > expire {
		return refuse("expired: issued at tick %d, base is at tick %d (more than %d ticks)", f.Tick, s.tick, expire)
	}
	named := f.Named()
	if len(named) == 0 {
		return refuse("names no entries")
	}
	hits, err := s.Retrieve(f.Query, RetrieveOptions{K: max(DefaultK, len(named)), Retrieval: r, Once: opts.Once})
	if err != nil {
		return refuse("query could not be re-run: %v", err)
	}
	rank := map[string]int{}
	for i, h := range hits {
		rank[h.Entry.ID] = i
	}
	missing, err := s.unretrieved(f, rank, opts.Once)
	if err != nil {
		return refuse("query could not be re-run: %v", err)
	}
	if missing != "" {
		return refuse("its query does not retrieve entry %s at the PR's base", missing)
	}
	if f.Decider != "" {
		d := hits[rank[f.Decider]].Entry
		if !d.MayDecide() {
			return refuse("decider %s is on probation and may not decide", f.Decider)
		}
		for _, id := range f.Supporting {
			if r, ok := rank[id]; ok && hits[r].Entry.MayDecide() && r < rank[f.Decider] {
				return refuse("supporter %s ranks above decider %s for this query", id, f.Decider)
			}
		}
	}
	return nil
}

// Supporters. Whatever ranking chose a ticket's decider, the ticket names
// its supporters by darwin-memo's rule (semantics §4.3, rank's
// Library.Decide): every other hit of darwin-memo's retrieval for the query
// (top k over the 0.25 coverage floor), in its rank order, probationary ones
// included; otherwise a ranking that drops superseded lessons would name
// fewer, and the lessons darwin-memo credits with supporting_share would
// earn less. A ticket is verified the same way: its decider must be
// retrieved by its own ranking, each supporter by its ranking or by
// darwin-memo's.

// unretrieved returns the first entry f names that its query does not
// retrieve at this store ("" if none): the decider must be among its
// ranking's hits (rank, id to position), a supporter among those or among
// darwin-memo's hits, which are computed only when a
// supporter is not in rank.
func (s *Store) unretrieved(f FreeTicket, rank map[string]int, once bool) (string, error) {
	if _, ok := rank[f.Decider]; f.Decider != "" && !ok {
		return f.Decider, nil
	}
	var dm map[string]bool
	for _, id := range f.Supporting {
		if _, ok := rank[id]; ok {
			continue
		}
		if dm == nil {
			hits, err := s.Retrieve(f.Query, RetrieveOptions{K: max(DefaultK, len(f.Named())), Retrieval: RetrievalDarwinMemo, Once: once})
			if err != nil {
				return "", err
			}
			dm = make(map[string]bool, len(hits))
			for _, h := range hits {
				dm[h.Entry.ID] = true
			}
		}
		if !dm[id] {
			return id, nil
		}
	}
	return "", nil
}

// SettleFree applies a delta to a verified store-free ticket's entries, with
// the same credit rules as a pending ticket. With evidence naming a
// repository and run, a repeat of the same ticket for the same run is
// dropped (the settled_runs replay guard), so reruns are idempotent.
func (s *Store) SettleFree(t FreeTicket, delta float64, opts SettleOptions) SettleResult {
	id := t.ID()
	if !s.admit(id, delta, &opts) {
		return SettleResult{Ticket: id, Status: StatusRejected}
	}
	if s.settledRun(id, opts.Evidence) {
		s.log("settle_dropped", pyjson.Pair("ticket", pyjson.String(id)), pyjson.Pair("delta", pyjson.Float(delta)), pyjson.Pair("detail", pyjson.String(opts.Detail)))
		return SettleResult{Ticket: id, Status: StatusDropped}
	}
	tk := &Ticket{ID: id, Query: t.Query, DecidingEntry: t.Decider, SupportingEntries: t.Supporting, BornTick: t.Tick}
	return s.apply(tk, delta, opts)
}

// settledRun reports whether settled_runs records ticket id for the same
// repository and run.
func (s *Store) settledRun(id string, ev *Evidence) bool {
	if ev == nil || ev.Repository == "" || ev.Run == "" {
		return false
	}
	return slices.ContainsFunc(s.settledRuns, func(r settledRun) bool {
		return r.ticket == id && r.repository == ev.Repository && r.run == ev.Run
	})
}

// A settledRun is one record of ledger.settled_runs: the ticket a
// repository's CI run settled (the replay guard's key), and the record as
// the file holds it, written back unchanged.
type settledRun struct {
	ticket, repository, run string
	record                  pyjson.Value
}

func newSettledRun(record pyjson.Value) settledRun {
	return settledRun{record.Field("ticket").Str(), record.Field("repository").Str(), record.Field("run").Str(), record}
}

// TicketOutcome is what SettleBody did with one ticket.
type TicketOutcome struct {
	BodyTicket
	Refused string        // non-empty when verification refused it
	Result  *SettleResult // nil when refused
	// AlreadyMoved lists the entries this ticket names that an earlier
	// ticket of the same body already moved; this ticket left them alone.
	AlreadyMoved []string
}

// BodyReport is the result of SettleBody.
type BodyReport struct {
	Tickets []TicketOutcome
	Errors  []error    // malformed ticket lines
	Tick    *TickStats // nil unless a settlement landed
}

// SettleBody settles every ticket in a merged PR's body with one delta:
// tickets are parsed, verified against base (the store at the PR's base
// commit; nil means there was none, which refuses store-free tickets),
// settled with base's economics (SettleOptions.Economics, unless set), and
// the ledger ticks once only if at least one settlement landed
// (darwin-memo's tick-only-on-evidence rule).
//
// One merged pull request moves each lesson at most once, whatever the
// number of tickets naming it: tickets settle in body order, and an entry
// an earlier ticket of the body moved (as decider or supporter) is neither
// credited nor counted as used again (TicketOutcome.AlreadyMoved). So
// rewording a query to mint more tickets for the same lesson gains nothing,
// and one pull request moves a lesson by at most one settlement's credit.
func (s *Store) SettleBody(base *Store, body string, delta float64, opts SettleOptions, topts TickOptions) BodyReport {
	if base != nil && opts.Economics == nil {
		opts.Economics = base // the PR's own edits to the economics do not settle it
	}
	v := base.VerifyBody(body, VerifyOptions{ExpireAfter: topts.ExpireAfter, Settling: s})
	return s.SettleVerified(v, delta, opts, topts)
}

// SettleVerified is SettleBody with the verdicts of VerifyBody: the tickets that passed are
// settled in body order (a pull request moves each lesson once), the ledger ticks once if one
// landed.
func (s *Store) SettleVerified(v *VerifiedBody, delta float64, opts SettleOptions, topts TickOptions) BodyReport {
	rep, landed := s.settleTickets(v, delta, opts)
	if landed {
		st := s.Tick(topts)
		rep.Tick = &st
	}
	return rep
}

// SettleFreeBatch settles the store-free tickets of one merged PR with the PR's delta as
// SettleVerified does after verification, without the tick: the selection benchmark, whose
// agents consult the very store they settle, drives the ledger through it, and ticks itself.
func (s *Store) SettleFreeBatch(tickets []FreeTicket, delta float64, opts SettleOptions) BodyReport {
	v := &VerifiedBody{verdicts: make([]error, len(tickets))}
	for _, t := range tickets {
		v.tickets = append(v.tickets, BodyTicket{Form: FormStoreFree, ID: t.ID(), Free: t})
	}
	rep, _ := s.settleTickets(v, delta, opts)
	return rep
}

// settleTickets settles v's tickets that passed, in body order, and reports whether one
// landed.
func (s *Store) settleTickets(v *VerifiedBody, delta float64, opts SettleOptions) (BodyReport, bool) {
	rep, tickets, verdicts := BodyReport{Errors: v.errs}, v.tickets, v.verdicts
	if opts.Bundle == 0 {
		// The PR's delta is split among the tickets that settle something: not those
		// refused at the base, compat tickets not pending here, or tickets whose lessons
		// an earlier ticket already moves (padding a body with them shields a lesson).
		named := make([][]string, len(tickets))
		for i, t := range tickets {
			if verdicts[i] == nil {
				named[i] = s.ticketNames(t)
			}
		}
		opts.Bundle = countBundle(named)
	}
	landed := false
	moved := map[string]bool{}
	for i, t := range tickets {
		out := TicketOutcome{BodyTicket: t}
		if err := verdicts[i]; err != nil {
			var re *RefusedError
			if errors.As(err, &re) {
				out.Refused = re.Reason
			} else {
				out.Refused = err.Error()
			}
			rep.Tickets = append(rep.Tickets, out)
			continue
		}
		named := s.ticketNames(t)
		for _, id := range named {
			if moved[id] && !slices.Contains(out.AlreadyMoved, id) {
				out.AlreadyMoved = append(out.AlreadyMoved, id)
			}
		}
		o := opts
		o.moved = moved
		var r SettleResult
		if t.Form == FormCompat {
			r = s.Settle(t.ID, delta, o)
		} else {
			r = s.SettleFree(t.Free, delta, o)
		}
		if r.Landed {
			for _, id := range named {
				moved[id] = true
			}
		}
		landed = landed || r.Landed
		out.Result = &r
		rep.Tickets = append(rep.Tickets, out)
	}
	return rep, landed
}

// countBundle is how many of the tickets naming named lessons name one that no earlier ticket
// named: the tickets one merged pull request's delta is split among.
func countBundle(named [][]string) int {
	n, fresh := 0, map[string]bool{}
	for _, ids := range named {
		counts := false
		for _, id := range ids {
			if !fresh[id] {
				fresh[id], counts = true, true
			}
		}
		if counts {
			n++
		}
	}
	return n
}

// ticketNames returns the entries a ticket names: a store-free ticket's decider and
// supporters, a compat ticket's pending provenance (none when it is not pending).
func (s *Store) ticketNames(t BodyTicket) []string {
	if t.Form != FormCompat {
		return t.Free.Named()
	}
	if p := s.pendingTicket(t.ID); p != nil {
		return p.Provenance()
	}
	return nil
}
