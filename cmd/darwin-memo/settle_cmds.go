package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Settling: settle (one ticket, or every ticket of a pull request body) and abandon.

// defaultScale is settle's --scale default: the action's scale input
// default, so the CLI and the action credit the same delta alike.
const defaultScale = 1.5

func parseDelta(s string) (float64, error) {
	d, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, usagef("DELTA %q is not a number; pass the change in passing tests, e.g. 2 or -1", s)
	}
	return d, nil
}

func printSettle(sio *IO, r lessons.SettleResult) error {
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
	return writeJSON(sio, out)
}

func runSettle(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "settle", "settle [--store PATH] [--detail TEXT] [--source operator] TICKET DELTA\n"+
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
	if strings.TrimSpace(*source) == "" || strings.ContainsFunc(*source, unicode.IsControl) {
		return usagef("--source %q: name who measured the delta, e.g. ci or operator", *source)
	}
	if *repo != "" && !validRepository(*repo) {
		return usagef("--repository %q is not owner/name, e.g. acme/widgets", *repo)
	}
	if *body == "" {
		for _, f := range []struct{ name, v string }{{"base", *base}, {"repository", *repo}, {"run", *runID}} {
			if f.v != "" {
				return usagef("--%s applies to --body only; a single TICKET is settled without it", f.name)
			}
		}
	}
	if (*repo == "") != (*runID == "") {
		return usagef("--repository and --run go together: the replay guard records the ticket for both, e.g. --repository acme/widgets --run pr#42")
	}
	if *body != "" {
		if len(pos) != 1 {
			return usagef("with --body, give only DELTA, e.g. darwin-memo settle --body pr.md 2")
		}
		delta, err := parseDelta(pos[0])
		if err != nil {
			return err
		}
		if math.IsNaN(delta) || math.IsInf(delta, 0) {
			return fmt.Errorf("DELTA %s is not finite; nothing was settled", pos[0])
		}
		return settleBody(ctx, sio, store, *body, *base, delta, lessons.SettleOptions{Detail: *detail, Source: *source,
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
	err = mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error {
		if err := s.CheckBalances(); err != nil {
			return err
		}
		r = s.Settle(pos[0], delta, lessons.SettleOptions{Detail: *detail, Source: *source, Scale: *scale})
		switch r.Status {
		case lessons.StatusRejected:
			return fmt.Errorf("DELTA %s is not finite; nothing was settled and the ticket stays pending", pos[1])
		case lessons.StatusDropped:
			if tick, how, ok := settledAt(store.path, pos[0]); ok {
				return &alreadySettled{tick, how}
			}
			return fmt.Errorf("ticket %s is not pending (unknown, already settled elsewhere or expired); nothing changed — check the id with darwin-memo stats --json", pos[0])
		}
		return nil
	})
	var done *alreadySettled
	if errors.As(err, &done) {
		// A rerun: the ticket was settled before (the event log says when), so nothing is to do.
		fmt.Fprintf(sio.Stderr, "ticket %s was already %s at tick %d; nothing changed\n", pos[0], done.how, done.tick)
		return printSettle(sio, r)
	}
	if err != nil {
		return err
	}
	return printSettle(sio, r)
}

// validRepository reports whether s is owner/name.
func validRepository(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && owner != "" && name != "" && !strings.ContainsAny(s, " \t\n") && !strings.Contains(name, "/")
}

// alreadySettled stops a settle of a ticket the store settled before.
type alreadySettled struct {
	tick int
	how  string // settled or abandoned
}

func (a *alreadySettled) Error() string { return fmt.Sprintf("already %s at tick %d", a.how, a.tick) }

// settledAt looks the ticket up in the store's event log: the tick of the
// settlement or abandonment that closed it, and which of the two it was.
func settledAt(store, ticket string) (tick int, how string, ok bool) {
	events, err := storedoc.ReadEvents(storedoc.EventsPath(store))
	if err != nil {
		return 0, "", false
	}
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if ev.Name() != "settle" && ev.Name() != "abandon" {
			continue
		}
		if v, ok := ev.Get("ticket"); ok && v.Str() == ticket {
			how = "settled"
			if ev.Name() == "abandon" {
				how = "abandoned"
			}
			return ev.Tick(), how, true
		}
	}
	return 0, "", false
}

func evidence(repo, run string) *lessons.Evidence {
	if repo == "" && run == "" {
		return nil
	}
	return &lessons.Evidence{Repository: repo, Run: run}
}

// settleBody settles every ticket in a PR body, then ticks once if any
// settlement landed.
func settleBody(ctx context.Context, sio *IO, store *writeTarget, bodyPath, basePath string, delta float64, sopts lessons.SettleOptions) error {
	var text []byte
	var err error
	if bodyPath == "-" {
		text, err = io.ReadAll(sio.Stdin)
	} else {
		text, err = os.ReadFile(bodyPath)
	}
	if err != nil {
		return fmt.Errorf("could not read the PR body: %w", err)
	}
	var baseStore *lessons.Store
	if basePath != "" {
		if baseStore, err = lessons.LoadWith(ctx, basePath, opts(sio)); err != nil {
			return &abstainError{fmt.Sprintf("the base store %s is unreadable, so tickets cannot be verified (%v); nothing was settled", basePath, err)}
		}
	}
	type outcome struct {
		Form         string   `json:"form"`
		ID           string   `json:"id"`
		Refused      string   `json:"refused,omitempty"`
		Settled      bool     `json:"settled"`
		Status       string   `json:"status,omitempty"`
		Reason       string   `json:"reason,omitempty"` // why a ticket that was not refused did not land
		AlreadyMoved []string `json:"already_moved,omitempty"`
	}
	out := struct {
		Tickets []outcome          `json:"tickets"`
		Errors  []string           `json:"errors"`
		Tick    *lessons.TickStats `json:"tick"`
	}{Tickets: []outcome{}, Errors: []string{}}
	replayed := 0 // tickets the replay guard dropped: already settled for this run
	err = mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error {
		if err := s.CheckBalances(); err != nil {
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
				o.Reason = droppedReason(t, sopts.Evidence)
				if o.Reason != "" && t.Form == lessons.FormStoreFree {
					replayed++
				}
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
		if werr := writeJSON(sio, out); werr != nil {
			return werr
		}
		if replayed == len(out.Tickets) && len(out.Errors) == 0 {
			fmt.Fprintf(sio.Stderr, "every ticket in the body was already settled for %s run %s; nothing changed\n", sopts.Evidence.Repository, sopts.Evidence.Run)
			return nil // a rerun: idempotent, not a failure
		}
		return fmt.Errorf("the body names tickets but none was settled (each ticket's \"refused\" or \"reason\" above, and \"errors\", say why); the store was not changed")
	}
	if err != nil {
		return err
	}
	return writeJSON(sio, out)
}

// droppedReason says why a verified ticket did not land ("" when it did):
// a store-free ticket is dropped only by the replay guard (settled_runs), a
// compat ticket when the store holds no such pending ticket.
func droppedReason(t lessons.TicketOutcome, ev *lessons.Evidence) string {
	if t.Result == nil || t.Result.Status != lessons.StatusDropped {
		return ""
	}
	if t.Form == lessons.FormStoreFree && ev != nil {
		return fmt.Sprintf("already settled for %s run %s (settled_runs): settling it again would count the same CI result twice", ev.Repository, ev.Run)
	}
	return "not pending in this store: unknown, already settled or expired"
}

// errNothingLanded aborts a body settlement that settled no ticket.
var errNothingLanded = errors.New("no ticket landed")

func runAbandon(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "abandon", "abandon [--store PATH] TICKET")
	store := writeFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need one TICKET id")
	}
	var r lessons.SettleResult
	err = mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error {
		if r = s.Abandon(pos[0]); !r.Landed {
			return fmt.Errorf("ticket %s is not pending; nothing to abandon (see darwin-memo stats --json for the pending ids)", pos[0])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return printSettle(sio, r)
}
