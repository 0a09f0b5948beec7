package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// storeFlag adds --store to fs.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", lessons.DefaultPath, "path of the lesson store")
}

// opts are the store options of every command. Options.Config applies only
// to a store the CLI creates (add or import on a missing file): it starts
// with lessons.RecommendedConfig. A loaded store keeps its persisted
// ledger.config, or gets darwin-memo's defaults when it has none.
func opts(io *IO) lessons.Options {
	cfg := lessons.RecommendedConfig()
	return lessons.Options{Now: io.Now, Config: &cfg}
}

// defaultScale is settle's --scale default: the action's scale input
// default, so the CLI and the action credit the same delta alike.
const defaultScale = 1.5

// writeTarget is the store a changing command writes: --store and how long
// to wait for another writer's lock (--lock-wait).
type writeTarget struct {
	path string
	wait time.Duration
}

// writeFlags adds --store and --lock-wait to a command that changes the store.
func writeFlags(fs *flag.FlagSet) *writeTarget {
	t := &writeTarget{}
	fs.StringVar(&t.path, "store", lessons.DefaultPath, "path of the lesson store")
	fs.DurationVar(&t.wait, "lock-wait", lessons.DefaultLockWait, "how long to wait for another darwin-memo holding the store's lock (0: fail at once)")
	return t
}

// storeMode says whether a changing command may create a missing store.
type storeMode int

const (
	mustExist storeMode = iota // a missing store is an error (a mistyped --store creates nothing)
	mayCreate                  // add and import start a new store
)

// readStore loads a store read-only; a missing file gives an empty store.
func readStore(ctx context.Context, io *IO, path string) (*lessons.Store, error) {
	s, err := lessons.LoadOrNew(ctx, path, opts(io))
	if err != nil {
		return nil, explainLoad(err)
	}
	return s, nil
}

// readAgentStore loads the store an agent consults, read-only; a missing
// file gives an empty store and missing=true, so the command can say "no
// store" rather than "nothing relevant".
func readAgentStore(ctx context.Context, io *IO, path string) (s *lessons.Store, missing bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		missing = true
	}
	s, err = readStore(ctx, io, path)
	return s, missing, err
}

// locateStore is the store path of a consulting command: --store when it was
// given, else the first .darwin-memo/lessons.json in the working directory
// or a parent up to the repository root (findStore), so an agent working in
// a subdirectory still finds the repository's lessons.
func locateStore(fs *flag.FlagSet, path string) string {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "store" })
	if given {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if found := findStore(wd); found != "" {
		if rel, err := filepath.Rel(wd, found); err == nil {
			return rel
		}
		return found
	}
	return path
}

func noStoreNote(path string) string {
	return fmt.Sprintf("no store at %s (looked in the working directory and its parents up to the repository root): this repository has no lessons yet, so nothing can answer; proceed without stored guidance", path)
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
func silenceReason(io *IO, path string, missing bool, d *lessons.Decision) (string, []withheld) {
	switch {
	case missing:
		fmt.Fprintln(io.Stderr, noStoreNote(path))
		return "no_store", nil
	case len(d.Withheld) > 0:
		var out []withheld
		for _, h := range d.Hits {
			if !h.Entry.MayDecide() {
				out = append(out, withheld{h.Entry.ID, h.Entry.Question, h.Entry.Probation})
			}
		}
		fmt.Fprintf(io.Stderr, "silent: %d matching lesson(s) were imported and are on probation, so they may not decide until CI has credited them "+
			"as supporters of other lessons' tickets (darwin-memo's rule; `darwin-memo import --probation 0` trusts an import at once). They are listed under withheld.\n", len(out))
		return "probation", out
	default:
		return "nothing_relevant", nil
	}
}

// loadStore loads an existing store read-only, explaining format errors.
func loadStore(ctx context.Context, io *IO, path string) (*lessons.Store, error) {
	s, err := lessons.LoadWith(ctx, path, opts(io))
	if err != nil {
		return nil, explainLoad(err)
	}
	return s, nil
}

// explainLoad adds what to do next to a load error.
func explainLoad(err error) error {
	var fe *lessons.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("%w\nthe store was not changed; fix the file (or restore it with git) and retry", err)
	}
	return err
}

// mutate runs fn under the store lock and saves the result. A command that
// fails changes nothing: when the store is missing (mode mustExist), the
// load fails, fn fails or nothing changed, no store, event log or lock
// sidecar is left behind.
func mutate(ctx context.Context, io *IO, t *writeTarget, mode storeMode, fn func(s *lessons.Store) error) error {
	fi, err := os.Stat(t.path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("store %s is a directory; pass the lessons.json file with --store", t.path)
	case errors.Is(err, os.ErrNotExist) && mode == mustExist:
		return fmt.Errorf("store %s not found; nothing was changed (check --store, or create the store with darwin-memo add --store %s ...)", t.path, t.path)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("could not read store %s: %w", t.path, err)
	}
	o := opts(io)
	o.LockWait = t.wait
	if t.wait == 0 {
		o.LockWait = -1
	}
	s, err := lessons.LoadLocked(ctx, t.path, o)
	if err != nil {
		return explainLoad(err)
	}
	if err := fn(s); err != nil {
		s.Discard()
		return err
	}
	if dirty, err := s.Dirty(); err != nil || !dirty {
		s.Discard()
		return err
	}
	defer s.Close()
	if err := s.Save(ctx); err != nil {
		return fmt.Errorf("could not save %s: %w", t.path, err)
	}
	return nil
}

// checkFinite refuses a store whose balances are not finite numbers before
// a command does arithmetic on them (darwin-memo's parser accepts NaN).
func checkFinite(s *lessons.Store) error {
	for _, e := range s.Living() {
		if math.IsNaN(e.Energy) || math.IsInf(e.Energy, 0) {
			return fmt.Errorf("lesson %s has energy %v in %s, so no balance can be computed; fix the number in the file (or restore it with git) and retry; nothing was changed", e.ID, e.Energy, s.Name())
		}
	}
	return nil
}

// writeJSON prints v as compact JSON followed by a newline (HTML not escaped).
func writeJSON(io *IO, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.Stdout.Write(buf.Bytes())
	return err
}

// jsonFloat marshals non-finite floats as null instead of failing.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

func retrieveFlags(fs *flag.FlagSet) (*int, *string, *string) {
	top := fs.Int("top", lessons.DefaultK, "number of lessons to retrieve")
	kind := fs.String("kind", "", "only lessons of this kind")
	source := fs.String("source", "", "only lessons with this source label")
	return top, kind, source
}

func runDecide(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "decide", "decide [--store PATH] [--register] QUERY...")
	store := writeFlags(fs)
	top, kind, source := retrieveFlags(fs)
	register := fs.Bool("register", false, "record the ticket in ledger.pending (darwin-memo compat ticket; the PR must commit the store)")
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
	if *top < 1 || *top > lessons.MaxTicketSupporters+1 {
		return usagef("--top must be between 1 and %d", lessons.MaxTicketSupporters+1)
	}
	dopts := lessons.DecideOptions{RetrieveOptions: lessons.RetrieveOptions{K: *top, Kind: lessons.Kind(*kind), Source: *source}, Register: *register}
	var d *lessons.Decision
	decide := func(s *lessons.Store) error {
		var err error
		d, err = s.Decide(query, dopts)
		return err
	}
	if !*register {
		store.path = locateStore(fs, store.path)
	}
	missing := false
	if *register {
		err = mutate(ctx, io, store, mustExist, decide)
	} else {
		var s *lessons.Store
		if s, missing, err = readAgentStore(ctx, io, store.path); err == nil {
			err = decide(s)
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
	}{Silent: d.Silent}
	if d.Silent {
		out.Reason, out.Withheld = silenceReason(io, store.path, missing, d)
	}
	if d.Ticket != nil {
		out.Answer, out.TicketID = &d.Answer, &d.Ticket.ID
		line := d.StoreFreeLine()
		if *register {
			line = "darwin-memo-ticket: " + d.Ticket.ID
		} else {
			id := lessons.FreeTicket{Tick: d.Tick, Decider: d.Decider, Supporting: d.Supporting, Query: d.Query}.ID()
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
	top, kind, source := retrieveFlags(fs)
	asJSON := fs.Bool("json", false, "print a JSON array of {id, score, question, answer, energy}")
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
	if *top < 1 {
		return usagef("--top must be at least 1")
	}
	*store = locateStore(fs, *store)
	s, missing, err := readAgentStore(ctx, io, *store)
	if err != nil {
		return err
	}
	if missing {
		fmt.Fprintln(io.Stderr, noStoreNote(*store))
	}
	hits, err := s.Retrieve(query, lessons.RetrieveOptions{K: *top, Kind: lessons.Kind(*kind), Source: *source})
	if err != nil {
		return usagef("%v", err)
	}
	type hit struct {
		ID       string    `json:"id"`
		Score    jsonFloat `json:"score"`
		Question string    `json:"question"`
		Answer   string    `json:"answer"`
		Energy   jsonFloat `json:"energy"`
	}
	out := []hit{}
	for _, h := range hits {
		out = append(out, hit{h.Entry.ID, jsonFloat(h.Score), h.Entry.Question, h.Entry.Answer, jsonFloat(h.Entry.Energy)})
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
		fmt.Fprintf(io.Stdout, "%s  score %.3f  energy %.3f  %s\n  %s\n", h.ID, float64(h.Score), float64(h.Energy), h.Question, h.Answer)
	}
	return nil
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func runAdd(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "add", "add [--store PATH] [--kind K] [--source LABEL]... QUESTION ANSWER")
	store := writeFlags(fs)
	kind := fs.String("kind", "explicit", "lesson kind: explicit, inferred, entity, cross_doc, experience, consolidated")
	var sources multi
	fs.Var(&sources, "source", "provenance label, repeatable (e.g. pr#123, path:src/x.go)")
	ts := fs.String("recorded-ts", "", "when the lesson was recorded (UTC ISO-8601, default now)")
	q := fs.String("question", "", "the question (instead of the first argument)")
	a := fs.String("answer", "", "the answer (instead of the second argument)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *q == "" && len(pos) > 0 {
		*q, pos = pos[0], pos[1:]
	}
	if *a == "" && len(pos) > 0 {
		*a, pos = pos[0], pos[1:]
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q; quote the question and the answer", pos[0])
	}
	if strings.TrimSpace(*q) == "" || strings.TrimSpace(*a) == "" {
		return usagef("need a QUESTION and an ANSWER, e.g. darwin-memo add \"How do I run the tests?\" \"make test; it needs docker\"")
	}
	lesson := lessons.NewLesson{Question: *q, Answer: *a, Kind: lessons.Kind(*kind), Sources: sources, RecordedTS: *ts}
	if err := lesson.Validate(); err != nil { // before touching the disk
		return usagef("%v", err)
	}
	return mutate(ctx, io, store, mayCreate, func(s *lessons.Store) error {
		e, err := s.Add(lesson)
		if err != nil {
			return usagef("%v", err)
		}
		fmt.Fprintln(io.Stdout, e.ID)
		return nil
	})
}

func parseDelta(s string) (float64, error) {
	d, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, usagef("DELTA %q is not a number; pass the change in passing tests, e.g. 2 or -1", s)
	}
	return d, nil
}

func printSettle(io *IO, r lessons.SettleResult) error {
	type credit struct {
		Entry  string    `json:"entry"`
		Credit jsonFloat `json:"credit"`
	}
	out := struct {
		Ticket  string   `json:"ticket"`
		Settled bool     `json:"settled"`
		Status  string   `json:"status"`
		Applied []credit `json:"applied"`
		Buried  []string `json:"buried"`
	}{r.Ticket, r.Landed, r.Status, []credit{}, r.Buried}
	for _, c := range r.Applied {
		out.Applied = append(out.Applied, credit{c.Entry, jsonFloat(c.Amount)})
	}
	if out.Buried == nil {
		out.Buried = []string{}
	}
	return writeJSON(io, out)
}

func runSettle(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "settle", "settle [--store PATH] [--detail TEXT] [--source operator] TICKET DELTA\n"+
		"       darwin-memo settle [--store PATH] --body FILE|- [--base STORE] [--repository O/R --run ID] DELTA")
	store := writeFlags(fs)
	detail := fs.String("detail", "", "free text recorded with the settlement (e.g. a CI run URL)")
	source := fs.String("source", "operator", "who measured the delta (ci, operator)")
	scale := fs.Float64("scale", defaultScale, "tanh normaliser of this settlement: credit = 0.6·tanh(DELTA/scale). Like the action's scale input it overrides the store's persisted resource_scale for this settlement only and is not saved; darwin-memo's CLI default is 1.0")
	body := fs.String("body", "", "settle every ticket in this PR body (file, or - for stdin) instead of one TICKET")
	base := fs.String("base", "", "with --body: the store as it was at the PR's base commit; store-free tickets are verified against it and compat tickets already pending there are refused (default: verify store-free tickets against --store, compat tickets unverified)")
	repo := fs.String("repository", "", "with --body: owner/name, recorded with --run as the replay guard")
	runID := fs.String("run", "", "with --body: CI run or PR identity (e.g. pr#42); the same ticket is not settled twice for it")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if !(*scale > 0) || math.IsInf(*scale, 0) {
		return usagef("--scale must be a positive number")
	}
	if *body != "" {
		if len(pos) != 1 {
			return usagef("with --body, give only DELTA, e.g. darwin-memo settle --body pr.md 2")
		}
		delta, err := parseDelta(pos[0])
		if err != nil {
			return err
		}
		return settleBody(ctx, io, store, *body, *base, delta, lessons.SettleOptions{Detail: *detail, Source: *source,
			Evidence: evidence(*repo, *runID), Scale: *scale})
	}
	if len(pos) != 2 {
		return usagef("need TICKET and DELTA, e.g. darwin-memo settle 0123456789ab 2")
	}
	delta, err := parseDelta(pos[1])
	if err != nil {
		return err
	}
	var r lessons.SettleResult
	err = mutate(ctx, io, store, mustExist, func(s *lessons.Store) error {
		if err := checkFinite(s); err != nil {
			return err
		}
		r = s.Settle(pos[0], delta, lessons.SettleOptions{Detail: *detail, Source: *source, Scale: *scale})
		switch r.Status {
		case lessons.StatusRejected:
			return fmt.Errorf("DELTA %s is not finite; nothing was settled and the ticket stays pending", pos[1])
		case lessons.StatusDropped:
			return fmt.Errorf("ticket %s is not pending (unknown, already settled or expired); nothing changed — check the id with darwin-memo stats --json", pos[0])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return printSettle(io, r)
}

func evidence(repo, run string) *lessons.Evidence {
	if repo == "" && run == "" {
		return nil
	}
	return &lessons.Evidence{Repository: repo, Run: run}
}

// settleBody settles every ticket in a PR body, then ticks once if any
// settlement landed.
func settleBody(ctx context.Context, io *IO, store *writeTarget, bodyPath, basePath string, delta float64, sopts lessons.SettleOptions) error {
	var text []byte
	var err error
	if bodyPath == "-" {
		text, err = readAll(io.Stdin)
	} else {
		text, err = os.ReadFile(bodyPath)
	}
	if err != nil {
		return fmt.Errorf("could not read the PR body: %w", err)
	}
	var baseStore *lessons.Store
	if basePath != "" {
		if baseStore, err = lessons.LoadWith(ctx, basePath, opts(io)); err != nil {
			return &abstainError{fmt.Sprintf("the base store %s is unreadable, so tickets cannot be verified (%v); nothing was settled", basePath, err)}
		}
	}
	type outcome struct {
		Form         string   `json:"form"`
		ID           string   `json:"id"`
		Refused      string   `json:"refused,omitempty"`
		Settled      bool     `json:"settled"`
		Status       string   `json:"status,omitempty"`
		AlreadyMoved []string `json:"already_moved,omitempty"`
	}
	out := struct {
		Tickets []outcome          `json:"tickets"`
		Errors  []string           `json:"errors"`
		Tick    *lessons.TickStats `json:"tick"`
	}{Tickets: []outcome{}, Errors: []string{}}
	err = mutate(ctx, io, store, mustExist, func(s *lessons.Store) error {
		if err := checkFinite(s); err != nil {
			return err
		}
		// The action's rule, lessons.Store.SettleBody: verify each ticket at the base, settle
		// in body order (a pull request moves each lesson once), tick once if one landed.
		base := baseStore
		if base == nil {
			var err error
			if base, err = s.CurrentAsBase(); err != nil {
				return err
			}
		}
		rep := s.SettleBody(base, string(text), delta, sopts, lessons.TickOptions{})
		for _, e := range rep.Errors {
			out.Errors = append(out.Errors, e.Error())
		}
		for _, t := range rep.Tickets {
			o := outcome{Form: t.Form, ID: t.ID, AlreadyMoved: t.AlreadyMoved}
			if t.Refused != "" {
				o.Refused = (&lessons.RefusedError{Ticket: t.ID, Reason: t.Refused}).Error()
			} else if t.Result != nil {
				o.Settled, o.Status = t.Result.Landed, t.Result.Status
			}
			out.Tickets = append(out.Tickets, o)
		}
		out.Tick = rep.Tick
		if rep.Tick == nil && (len(out.Tickets) > 0 || len(out.Errors) > 0) {
			return errNothingLanded
		}
		return nil
	})
	if errors.Is(err, errNothingLanded) {
		if werr := writeJSON(io, out); werr != nil {
			return werr
		}
		return fmt.Errorf("the body names tickets but none was settled (see \"refused\" and \"errors\" above); the store was not changed")
	}
	if err != nil {
		return err
	}
	return writeJSON(io, out)
}

// errNothingLanded aborts a body settlement that settled no ticket.
var errNothingLanded = errors.New("no ticket landed")

func readAll(r interface{ Read([]byte) (int, error) }) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

func runAbandon(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "abandon", "abandon [--store PATH] TICKET")
	store := writeFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need one TICKET id")
	}
	var r lessons.SettleResult
	err = mutate(ctx, io, store, mustExist, func(s *lessons.Store) error {
		if r = s.Abandon(pos[0]); !r.Landed {
			return fmt.Errorf("ticket %s is not pending; nothing to abandon (see darwin-memo stats --json for the pending ids)", pos[0])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return printSettle(io, r)
}

func runTick(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "tick", "tick [--store PATH] [--expire-after N] [--count N]")
	store := writeFlags(fs)
	expire := fs.Int("expire-after", lessons.DefaultExpire, "close pending tickets older than N ticks at delta 0 (negative: never)")
	count := fs.Int("count", 1, "number of ticks to run")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *count < 1 {
		return usagef("--count must be at least 1")
	}
	if *expire == 0 {
		return usagef("--expire-after 0 would expire every ticket at once; use a positive number, or -1 to disable expiry")
	}
	var ticks []lessons.TickStats
	err := mutate(ctx, io, store, mustExist, func(s *lessons.Store) error {
		if err := checkFinite(s); err != nil {
			return err
		}
		for i := 0; i < *count; i++ {
			ticks = append(ticks, s.Tick(lessons.TickOptions{ExpireAfter: *expire}))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, st := range ticks {
		if err := writeJSON(io, st); err != nil {
			return err
		}
	}
	return nil
}

func runStats(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "stats", "stats [--store PATH] [--json]")
	store := storeFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadStore(ctx, io, *store)
	if err != nil {
		return err
	}
	total, damaged, pinned, probation := 0.0, 0, 0, 0
	for _, e := range s.Living() {
		total += e.Energy
		if s.Damaged(e.ID) {
			damaged++
		}
		if e.Pinned {
			pinned++
		}
		if e.Probation > 0 {
			probation++
		}
	}
	pend := []string{}
	for _, t := range s.Pending() {
		pend = append(pend, t.ID)
	}
	out := struct {
		Store       string    `json:"store"`
		Living      int       `json:"living"`
		Dead        int       `json:"dead"`
		Tick        int       `json:"tick"`
		Pending     int       `json:"pending"`
		PendingIDs  []string  `json:"pending_ids"`
		TotalEnergy jsonFloat `json:"total_energy"`
		Pinned      int       `json:"pinned"`
		Probation   int       `json:"probation"`
		Damaged     int       `json:"damaged_living"`
		Warnings    []string  `json:"warnings"`
	}{*store, len(s.Living()), len(s.Graveyard()), s.TickCount(), len(pend), pend, jsonFloat(math.Round(total*1000) / 1000), pinned, probation, damaged, s.Warnings()}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	if *asJSON {
		return writeJSON(io, out)
	}
	fmt.Fprintf(io.Stdout, "%s: %d living, %d dead, tick %d, %d pending, total energy %.3f\n", *store, out.Living, out.Dead, out.Tick, out.Pending, float64(out.TotalEnergy))
	for _, w := range out.Warnings {
		fmt.Fprintf(io.Stdout, "warning: %s\n", w)
	}
	return nil
}

func runTop(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "top", "top [--store PATH] [-n N] [--json]")
	store := storeFlag(fs)
	n := fs.Int("n", 10, "how many lessons")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadStore(ctx, io, *store)
	if err != nil {
		return err
	}
	living := append([]*lessons.Entry(nil), s.Living()...)
	sortByEnergy(living)
	if *n >= 0 && len(living) > *n {
		living = living[:*n]
	}
	type row struct {
		ID       string     `json:"id"`
		Energy   jsonFloat  `json:"energy"`
		Uses     int        `json:"uses"`
		Runway   *jsonFloat `json:"ticks_to_starvation"`
		Pinned   bool       `json:"pinned"`
		Question string     `json:"question"`
	}
	rows := []row{}
	for _, e := range living {
		r := row{ID: e.ID, Energy: jsonFloat(e.Energy), Uses: e.Uses, Pinned: e.Pinned, Question: e.Question}
		if t := s.TicksToStarvation(e); t != nil {
			v := jsonFloat(*t)
			r.Runway = &v
		}
		rows = append(rows, r)
	}
	if *asJSON {
		return writeJSON(io, rows)
	}
	for _, r := range rows {
		runway := "pinned"
		if r.Runway != nil {
			runway = fmt.Sprintf("%.1f ticks", float64(*r.Runway))
		}
		fmt.Fprintf(io.Stdout, "%s  %6.3f  uses %-3d  runway %-12s %s\n", r.ID, float64(r.Energy), r.Uses, runway, r.Question)
	}
	return nil
}

func sortByEnergy(es []*lessons.Entry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && (es[j].Energy > es[j-1].Energy || es[j].Energy == es[j-1].Energy && es[j].ID < es[j-1].ID); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

func runWhy(ctx context.Context, io *IO, args []string) error { return lifeStory(ctx, io, "why", args) }

func runObituary(ctx context.Context, io *IO, args []string) error {
	return lifeStory(ctx, io, "obituary", args)
}

// lifeStory is why and obituary: one lesson's life, exit 1 for an id the
// store never knew.
func lifeStory(ctx context.Context, io *IO, name string, args []string) error {
	fs := newFlags(io, name, name+" [--store PATH] ID")
	store := storeFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need one entry ID (see darwin-memo top)")
	}
	s, err := loadStore(ctx, io, *store)
	if err != nil {
		return err
	}
	story := s.Obituary(pos[0])
	_, living := s.Entry(pos[0])
	_, dead := s.Dead(pos[0])
	if !living && !dead && !strings.Contains(story, ": merged into ") {
		return fmt.Errorf("%s is unknown to this store (see darwin-memo top for living ids, darwin-memo stats --json for the rest)", pos[0])
	}
	fmt.Fprintln(io.Stdout, story)
	return nil
}

func idCommand(name string, do func(s *lessons.Store, id string) error) func(context.Context, *IO, []string) error {
	return func(ctx context.Context, io *IO, args []string) error {
		fs := newFlags(io, name, name+" [--store PATH] ID")
		store := writeFlags(fs)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("need one entry ID (see darwin-memo top)")
		}
		return mutate(ctx, io, store, mustExist, func(s *lessons.Store) error { return do(s, pos[0]) })
	}
}

var (
	runForget = idCommand("forget", func(s *lessons.Store, id string) error {
		switch r := s.Forget(id); r {
		case lessons.ForgetBuried:
			return nil
		case lessons.ForgetPinned:
			return fmt.Errorf("%s is pinned; unpin it first (darwin-memo unpin %s)", id, id)
		case lessons.ForgetEscrowed:
			return fmt.Errorf("%s is named by a pending ticket; settle or abandon that ticket first", id)
		default:
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top, or darwin-memo why %s)", id, id)
		}
	})
	runPin = idCommand("pin", func(s *lessons.Store, id string) error {
		if !s.Pin(id) {
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top)", id)
		}
		return nil
	})
	runUnpin = idCommand("unpin", func(s *lessons.Store, id string) error {
		if !s.Unpin(id) {
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top)", id)
		}
		return nil
	})
)

func runImport(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "import", "import [--store PATH] [--probation N] [--label TEXT] SOURCE_STORE")
	store := writeFlags(fs)
	probation := fs.Int("probation", lessons.DefaultProbation, "positive settlements an import must ride along on before it may decide")
	label := fs.String("label", "", "imported_from label (default: SOURCE_STORE)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need the SOURCE_STORE path to import from")
	}
	from, err := loadStore(ctx, io, pos[0])
	if err != nil {
		return err
	}
	return mutate(ctx, io, store, mayCreate, func(s *lessons.Store) error {
		lbl := *label
		if lbl == "" {
			lbl = pos[0]
		}
		ids := s.Import(from, lessons.ImportOptions{Label: lbl, Probation: probation})
		fmt.Fprintf(io.Stdout, "imported %d lessons from %s on probation %d\n", len(ids), pos[0], max(0, *probation))
		return nil
	})
}

func runRender(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "render", "render [--store PATH] [-o FILE] [--budget 25kb] [--max-lines 200] [--answers-only]")
	store := storeFlag(fs)
	outPath := fs.String("o", "", "output file, - for stdout (default: LESSONS.md next to the store, where the action's render input writes it)")
	budgetS := fs.String("budget", "25kb", "hard byte budget (b, kb, mb)")
	maxLines := fs.Int("max-lines", 200, "hard line cap")
	answersOnly := fs.Bool("answers-only", false, "darwin-memo's format: each lesson's answer without its question, and no note about tickets")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	budget, err := lessons.ParseBudget(*budgetS)
	if err != nil {
		return usagef("%v", err)
	}
	if *maxLines < 1 {
		return usagef("--max-lines must be at least 1")
	}
	if *outPath == "" {
		*outPath = filepath.Join(filepath.Dir(*store), "LESSONS.md")
	}
	var doc []byte
	s, err := lessons.LoadWith(ctx, *store, opts(io))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if doc = lessons.RenderMissing(*store); len(doc) > budget {
			return usagef("--budget %d bytes cannot hold even the one-line note for a missing store (%d bytes)", budget, len(doc))
		}
	case err != nil:
		return fmt.Errorf("%w\n%s was left untouched", explainLoad(err), *outPath)
	default:
		doc, err = s.Render(lessons.RenderOptions{Budget: budget, MaxLines: *maxLines, Label: filepath.Base(*store), Questions: !*answersOnly})
		if errors.Is(err, lessons.ErrBudgetTooSmall) {
			return usagef("%v; raise --budget", err)
		}
		if err != nil {
			return err
		}
	}
	if *outPath == "-" {
		_, err := io.Stdout.Write(doc)
		return err
	}
	if err := lessons.WriteFileAtomic(*outPath, doc, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(io.Stdout, "rendered %s: %d bytes, %d lines\n", *outPath, len(doc), bytes.Count(doc, []byte("\n")))
	return nil
}

func runDoctor(ctx context.Context, io *IO, args []string) error {
	fs := newFlags(io, "doctor", "doctor [--store PATH] [--json]")
	store := storeFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadStore(ctx, io, *store)
	if err != nil {
		return err
	}
	events, err := lessons.ReadEvents(lessons.EventsPath(*store))
	if err != nil {
		return err
	}
	d := s.Doctor(events)
	if *asJSON {
		if err := writeJSON(io, d); err != nil {
			return err
		}
	} else if len(d.Findings) == 0 && !d.Diagnosed {
		fmt.Fprintln(io.Stdout, "no evidence yet: nothing has been settled, ticked or buried.")
		fmt.Fprintln(io.Stdout, "agents: run darwin-memo decide \"<task>\" and paste the ticket line into the PR body;")
		fmt.Fprintln(io.Stdout, "CI: run the darwin-memo action on merged PRs so tickets settle with measured deltas.")
	} else if len(d.Findings) == 0 {
		w := d.EvidenceWindow
		fmt.Fprintf(io.Stdout, "healthy: %d events, %d ticks, %d settles, %d alive, %d graves\n", w.Events, w.Ticks, w.Settles, w.Alive, w.Graves)
	} else {
		for _, f := range d.Findings {
			fmt.Fprintf(io.Stdout, "%s %s: %s\n  fix: %s\n", f.Severity, f.Code, f.Summary, f.Fix)
		}
	}
	if d.HasErrors() {
		return errSilentExit
	}
	return nil
}
