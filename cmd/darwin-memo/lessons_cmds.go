package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// findHit is the entry of d's hit with id (nil when none).
func findHit(d *lessons.Decision, id string) *lessons.Entry {
	for _, h := range d.Hits {
		if h.Entry.ID == id {
			return h.Entry
		}
	}
	return nil
}

// The consulting commands: decide and query (what agents run), with what they share.

// noStoreNote says that there is no store at path; searched says it was looked for (no
// --store), so the note names where.
func noStoreNote(path string, searched bool) string {
	where := ""
	if searched {
		where = " (looked in the working directory and its parents up to the repository root, or up to the home directory outside a repository)"
	}
	return fmt.Sprintf("no store at %s%s: this repository has no lessons yet, so nothing can answer; proceed without stored guidance", path, where)
}

// withheld is a lesson that matched a silent decide but may not decide yet.
type withheld struct {
	ID        string `json:"id"`
	Question  string `json:"question"`
	Probation int    `json:"probation"`
}

// silenceReason says why a decide was silent, on stderr for the agent and as
// the JSON reason: no_store, probation (every match is an import still on
// probation) or nothing_relevant.
func silenceReason(sio *IO, path string, searched, missing bool, d *lessons.Decision) (string, []withheld) {
	switch {
	case missing:
		fmt.Fprintln(sio.Stderr, noStoreNote(path, searched))
		return "no_store", nil
	case len(d.Withheld) > 0:
		var out []withheld
		for _, h := range d.Hits {
			if !h.Entry.MayDecide() {
				out = append(out, withheld{h.Entry.ID, h.Entry.Question, h.Entry.Probation})
			}
		}
		fmt.Fprintf(sio.Stderr, "silent: %d matching lesson(s) were imported and are on probation, so they may not decide until CI has credited them "+
			"as supporters of other lessons' tickets (darwin-memo's rule; `darwin-memo import --probation 0` trusts an import at once). They are listed under withheld; `decide --provisional` answers with the best of them, marked provisional, and a ticket that lets CI measure it.\n", len(out))
		return "probation", out
	default:
		return "nothing_relevant", nil
	}
}

// retrieveFlags adds the flags decide and query share (--top, --kind, --source, --retrieval).
// Once: the process asks one question, so no index is built (the same answer, sooner).
func retrieveFlags(fs *flag.FlagSet) *lessons.RetrieveOptions {
	o := &lessons.RetrieveOptions{Once: true}
	fs.IntVar(&o.K, "top", lessons.DefaultK, "number of lessons to retrieve")
	fs.Var((*kindValue)(&o.Kind), "kind", "only lessons of this kind: explicit, inferred, entity, cross_doc, experience, consolidated")
	fs.StringVar(&o.Source, "source", "", "only lessons with this source label")
	fs.Var((*retrievalValue)(&o.Retrieval), "retrieval", "ranking: bm25f (the default; tickets v2) or darwin-memo (darwin-memo's ranking byte for byte; tickets v1); default: the store's config \"retrieval\", else bm25f")
	return o
}

// kindValue is a --kind flag: one of the lesson kinds the store knows.
type kindValue lessons.Kind

func (v *kindValue) String() string { return string(*v) }

func (v *kindValue) Set(s string) error {
	// The kind rule of a new lesson, applied to the kind alone.
	if err := (lessons.NewLesson{Question: "-", Answer: "-", Kind: lessons.Kind(s)}).Validate(); err != nil || s == "" {
		return fmt.Errorf("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", s)
	}
	*v = kindValue(s)
	return nil
}

// retrievalValue is --retrieval: a ranking lessons.ParseRetrieval knows.
type retrievalValue lessons.Retrieval

func (v *retrievalValue) String() string { return string(*v) }

func (v *retrievalValue) Set(s string) error {
	r, err := lessons.ParseRetrieval(s)
	if err != nil {
		return err
	}
	*v = retrievalValue(r)
	return nil
}

func runDecide(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "decide", "decide [--store PATH] [--register] QUERY...")
	store := writeFlags(fs)
	ropts := retrieveFlags(fs)
	register := fs.Bool("register", false, "record the ticket in ledger.pending (darwin-memo compat ticket; the PR must commit the store)")
	provisional := fs.Bool("provisional", false, "when every match is an import still on probation, answer with the best one, marked provisional, and a ticket that lets CI measure it")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usagef("missing QUERY; ask about the task at hand, e.g. darwin-memo decide \"how do I run the integration tests\"")
	}
	if len(query) > lessons.MaxTicketQuery {
		return usagef("QUERY is %d bytes; a ticket carries at most %d, so CI would refuse it: ask about the task in fewer words", len(query), lessons.MaxTicketQuery)
	}
	if ropts.K < 1 || ropts.K > lessons.MaxTicketSupporters+1 {
		return usagef("--top must be between 1 and %d", lessons.MaxTicketSupporters+1)
	}
	cites := citation.OpenFor(store.path)
	defer cites.Close()
	dopts := lessons.DecideOptions{RetrieveOptions: *ropts, Register: *register, Provisional: *provisional, Exclude: staleCitation(cites)}
	var d *lessons.Decision
	decide := func(s *lessons.Store) error {
		var err error
		d, err = s.Decide(query, dopts)
		return err
	}
	missing := false
	var unverifiable error
	if *register {
		err = mutate(ctx, io, store, mustExist, decide)
	} else {
		var s *lessons.Store
		if s, missing, err = readAgentStore(ctx, io, store.path); err == nil {
			err = decide(s)
		}
		if err == nil && d.Ticket != nil && (ropts.Kind != "" || ropts.Source != "") {
			// CI re-runs the ticket's query over every lesson, without the filters: a
			// lesson only the filters brought up would be refused there.
			ft := d.FreeTicket()
			unverifiable = s.VerifyTicket(lessons.BodyTicket{Form: lessons.FormStoreFree, ID: ft.ID(), Free: ft}, lessons.VerifyOptions{Once: true})
		}
	}
	if err != nil {
		return err
	}
	out := struct {
		Answer   *string    `json:"answer"`
		TicketID *string    `json:"ticket_id"`
		Silent   bool       `json:"silent"`
		Ticket   *string    `json:"ticket"`
		Reason   string     `json:"reason,omitempty"`
		Withheld []withheld `json:"withheld,omitempty"`
		// Stale names the lessons passed over because every file they cite is gone.
		Stale     []string          `json:"stale,omitempty"`
		Citations []citation.Result `json:"citations,omitempty"` // the decider's, checked
	}{Silent: d.Silent}
	for _, x := range d.Excluded {
		out.Stale = append(out.Stale, x.ID)
		for _, r := range cites.Check(findHit(d, x.ID).Sources) {
			fmt.Fprintf(io.Stderr, "lesson %s %s; it does not decide\n", x.ID, termSafe(r.Text()))
		}
	}
	if d.Silent {
		out.Reason, out.Withheld = silenceReason(io, store.path, !storeGiven(fs), missing, d)
		if out.Reason == "nothing_relevant" && len(d.Excluded) > 0 {
			out.Reason = staleCitations
		}
	} else if d.Decider != "" {
		out.Citations = cites.Check(findHit(d, d.Decider).Sources)
	}
	if unverifiable != nil {
		out.Answer, out.Reason = &d.Answer, "unverifiable_ticket"
		fmt.Fprintf(io.Stderr, "no ticket: --kind and --source narrow this search, but CI verifies a ticket by re-running its query over all lessons and would refuse this one (%v); "+
			"ask without the filters for an answer whose ticket CI can settle\n", unverifiable)
	} else if d.Ticket != nil {
		out.Answer, out.TicketID = &d.Answer, &d.Ticket.ID
		line := d.StoreFreeLine()
		if *register {
			line = "darwin-memo-ticket: " + d.Ticket.ID
		} else {
			id := d.FreeTicket().ID()
			out.TicketID = &id
		}
		out.Ticket = &line
		fmt.Fprintf(io.Stderr, "put this line in your PR body (an HTML comment is fine) so CI can credit or debit these lessons:\n%s\n", line)
	}
	return writeJSON(io, out)
}

func runQuery(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "query", "query [--store PATH] [--json] [--top K] QUERY...")
	store := storeFlag(fs)
	ropts := retrieveFlags(fs)
	asJSON := fs.Bool("json", false, "print a JSON array of {id, score, confidence, question, answer, energy, superseded_by}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usagef("missing QUERY, e.g. darwin-memo query --json \"flaky tests\"")
	}
	if len(query) > lessons.MaxTicketQuery {
		return usagef("QUERY is %d bytes; at most %d", len(query), lessons.MaxTicketQuery)
	}
	if ropts.K < 1 {
		return usagef("--top must be at least 1")
	}
	s, missing, err := readAgentStore(ctx, io, *store)
	if err != nil {
		return err
	}
	if missing {
		fmt.Fprintln(io.Stderr, noStoreNote(*store, !storeGiven(fs)))
	}
	hits, err := s.Retrieve(query, *ropts)
	if err != nil {
		return usagef("%v", err)
	}
	type hit struct {
		ID         string    `json:"id"`
		Score      jsonFloat `json:"score"`
		Confidence jsonFloat `json:"confidence"` // in [0, 1]; abstain below a threshold of your own
		Question   string    `json:"question"`
		Answer     string    `json:"answer"`
		Energy     jsonFloat `json:"energy"`
		// SupersededBy names the lesson that replaced this one by record: it
		// is listed just before and this one never decides.
		SupersededBy string `json:"superseded_by,omitempty"`
		// Citations are the files the lesson cites, checked against the working tree.
		Citations []citation.Result `json:"citations,omitempty"`
	}
	cites := citation.OpenFor(*store)
	defer cites.Close()
	out := []hit{}
	for _, h := range hits {
		out = append(out, hit{h.Entry.ID, jsonFloat(h.Score), jsonFloat(h.Confidence), h.Entry.Question, h.Entry.Answer, jsonFloat(h.Entry.Energy), h.SupersededBy, cites.Check(h.Entry.Sources)})
	}
	if *asJSON {
		return writeJSON(io, out)
	}
	if len(out) == 0 && missing {
		fmt.Fprintf(io.Stdout, "(silent: no store at %s)\n", *store)
		return nil
	}
	if len(out) == 0 {
		fmt.Fprintln(io.Stdout, "(silent: no lesson qualifies for this query)")
		return nil
	}
	for _, h := range out {
		sup := ""
		if h.SupersededBy != "" {
			sup = "  superseded by " + h.SupersededBy
		}
		fmt.Fprintf(io.Stdout, "%s  score %.3f  confidence %.2f  energy %.3f%s  %s\n  %s\n", h.ID, float64(h.Score), float64(h.Confidence), float64(h.Energy), sup, termSafe(h.Question), termSafe(h.Answer))
		for _, r := range h.Citations {
			if t := r.Text(); t != "" {
				fmt.Fprintf(io.Stdout, "  (%s)\n", termSafe(t))
			}
		}
	}
	return nil
}
