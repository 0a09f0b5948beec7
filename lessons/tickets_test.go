package lessons

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func ticketStore(t *testing.T) (*Store, *Entry, *Entry, *Entry) {
	t.Helper()
	s := newTestStore()
	a := mustAdd(t, s, "How do I run the postgres migrations?", "Run make migrate before the tests.")
	b := mustAdd(t, s, "Postgres migrations lock timeout", "Set lock_timeout to 5s in migrations.")
	c := mustAdd(t, s, "Which linter config do we use?", "golangci-lint with .golangci.yml at the root.")
	s.tick = 12
	return s, a, b, c
}

func TestFreeTicketLineRoundTrip(t *testing.T) {
	ft := FreeTicket{Tick: 49, Decider: "053a99cf0a4c", Supporting: []string{"52867957f4d5", "7af78c536de1"}, Query: "Is it safe to run LLM suites in CI? ünïcode / +"}
	line := ft.Line()
	if !strings.HasPrefix(line, "darwin-memo: v1 t=49 d=053a99cf0a4c s=52867957f4d5,7af78c536de1 q=") {
		t.Fatalf("line %q", line)
	}
	for _, body := range []string{
		line,
		"Fixes #12\n\n" + line + "\n",
		"consulted: `" + line + "`.",
		"<!-- " + line + " -->",
		"> " + line,
		"- " + line + "\r\n- other",
		"```\n" + line + "\n```",
		"**Memory**: " + line + ")",
	} {
		got, errs := ParseTickets(body)
		if len(errs) != 0 || len(got) != 1 || got[0].Form != FormStoreFree {
			t.Errorf("body %q: %v %v", body, got, errs)
			continue
		}
		g := got[0].Free
		if g.Tick != ft.Tick || g.Decider != ft.Decider || !slices.Equal(g.Supporting, ft.Supporting) || g.Query != ft.Query || got[0].ID != ft.ID() {
			t.Errorf("body %q parsed to %+v", body, g)
		}
	}
}

// An HTML comment closed right after the ticket ("...q=XXXX-->", no space) ends the ticket
// at "-->": "-" is a base64url character, so without this the query would read "XXXX--"
// (refused as malformed, or decoded to a different query that names a different ticket).
func TestParseTicketsCommentClosedWithoutSpace(t *testing.T) {
	for _, ft := range []FreeTicket{
		{Version: 2, Tick: 49, Decider: "053a99cf0a4c", Query: "Are LLM benchmark arms safe to run in CI?"},
		{Version: 2, Tick: 3, Decider: "053a99cf0a4c", Query: "abc"}, // "YWJj--" would decode
		{Version: 1, Tick: 7, Supporting: []string{"52867957f4d5"}, Query: "how do I release"},
	} {
		line := ft.Line()
		for _, body := range []string{
			"<!--" + line + "-->",
			"<!-- " + line + "-->\nmore text",
			"<!-- darwin-memo: v" + strconv.Itoa(ft.Version) + " q=" + line[strings.Index(line, "q=")+2:] + " t=" + strconv.Itoa(ft.Tick) + " s=" + strings.Join(append([]string{}, ft.Supporting...), ",") + dashIfEmpty(ft.Supporting) + " d=" + dashIfEmptyS(ft.Decider) + "-->",
		} {
			got, errs := ParseTickets(body)
			if len(errs) != 0 || len(got) != 1 || got[0].ID != ft.ID() || got[0].Free.Query != ft.Query {
				t.Errorf("body %q: %+v %v", body, got, errs)
			}
		}
	}
}

func dashIfEmpty(l []string) string {
	if len(l) == 0 {
		return "-"
	}
	return ""
}

func dashIfEmptyS(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func TestParseTicketsMixedAndErrors(t *testing.T) {
	ft := FreeTicket{Tick: 3, Decider: "aaaaaaaaaaaa", Query: "q"}
	body := "darwin-memo-ticket: bbbbbbbbbbbb\n" + ft.Line() + "\n" + ft.Line() + "\nI like darwin-memo: it is neat\n"
	got, errs := ParseTickets(body)
	if len(errs) != 0 || len(got) != 2 || got[0].Form != FormCompat || got[1].Form != FormStoreFree {
		t.Fatalf("%+v %v", got, errs)
	}
	for _, tc := range []struct{ line, want string }{
		{"darwin-memo: v4 t=1 d=- s=- q=cQ", "unsupported ticket version v4"},
		// v3 named a ranking removed before any release (issue 24).
		{"darwin-memo: v3 t=1 d=- s=- q=cQ", "unsupported ticket version v3"},
		{"darwin-memo: v1 t=1 d=aaaaaaaaaaaa s=-", "missing field q="},
		{"darwin-memo: v1 t=1 d=AAAAAAAAAAAA s=- q=cQ", "not an entry id"},
		{"darwin-memo: v1 t=x d=aaaaaaaaaaaa s=- q=cQ", "not a tick number"},
		{"darwin-memo: v1 t=1 d=aaaaaaaaaaaa s=- q=c", "not unpadded base64url"},
		{"darwin-memo: v1 t=1 d=- s=- q=cQ", "names no entries"},
		{"darwin-memo: v1 t=1 t=2 d=aaaaaaaaaaaa s=- q=cQ", "appears twice"},
		{"darwin-memo: v1 t=1 d=aaaaaaaaaaaa s=aaaaaaaaaaaa q=cQ", "twice"},
		{"darwin-memo: v1 t=1 d=aaaaaaaaaaaa s=- q=cQ z=1", "unknown field z="},
		{"darwin-memo: v1 t=01 d=aaaaaaaaaaaa s=- q=cQ", "not a tick number"},
	} {
		got, errs := ParseTickets("text " + tc.line + " more")
		if len(got) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%q: got %v errs %v, want error containing %q", tc.line, got, errs, tc.want)
		}
	}
}

func TestVerifyStoreFreeTicket(t *testing.T) {
	s, a, b, c := ticketStore(t)
	d, err := s.Decide("postgres migrations", DecideOptions{})
	if err != nil || d.Silent {
		t.Fatal(d, err)
	}
	if len(s.pending) != 0 || len(s.events) != 3 {
		t.Errorf("store-free decide modified the store: pending %d events %d", len(s.pending), len(s.events))
	}
	line := d.StoreFreeLine()
	got, _ := ParseTickets(line)
	ok := got[0]
	if err := s.VerifyTicket(ok, VerifyOptions{}); err != nil {
		t.Fatalf("genuine ticket refused: %v", err)
	}
	other := b
	if d.Decider == b.ID {
		other = a
	}
	tests := []struct {
		name string
		ft   FreeTicket
		want string
	}{
		{"aimed at an entry the query does not retrieve", FreeTicket{Tick: 12, Decider: d.Decider, Supporting: []string{c.ID}, Query: "postgres migrations"}, "does not retrieve entry " + c.ID},
		{"query swapped", FreeTicket{Tick: 12, Decider: c.ID, Query: "postgres migrations"}, "does not retrieve"},
		{"decider and supporter swapped", FreeTicket{Tick: 12, Decider: other.ID, Supporting: []string{d.Decider}, Query: "postgres migrations"}, "ranks above decider"},
		{"future tick", FreeTicket{Tick: 13, Decider: d.Decider, Query: "postgres migrations"}, "claims tick 13"},
		{"expired", FreeTicket{Tick: 0, Decider: d.Decider, Query: "postgres migrations"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: tc.ft.ID(), Free: tc.ft}, VerifyOptions{ExpireAfter: 5})
			if tc.want == "" {
				var re *RefusedError
				if !errors.As(err, &re) || !strings.Contains(re.Reason, "expired") {
					t.Errorf("err %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSettleBodyStoreFree(t *testing.T) {
	s, _, _, _ := ticketStore(t)
	base, err := Parse("base", mustMarshal(t, s))
	if err != nil {
		t.Fatal(err)
	}
	base.tick = s.tick
	d, _ := s.Decide("postgres migrations", DecideOptions{})
	dec, _ := s.Entry(d.Decider)
	before := dec.Energy
	body := "Adds the migration.\n\n<!-- " + d.StoreFreeLine() + " -->\n"
	ev := &Evidence{Mode: "checks", Repository: "o/r", Run: "pr#7"}
	rep := s.SettleBody(base, body, 1, SettleOptions{Source: "ci", Evidence: ev}, TickOptions{})
	if len(rep.Tickets) != 1 || rep.Tickets[0].Result == nil || !rep.Tickets[0].Result.Landed || rep.Tick == nil {
		t.Fatalf("%+v", rep)
	}
	if dec.Energy <= before-s.Upkeep {
		t.Errorf("decider not credited: %v -> %v", before, dec.Energy)
	}
	// rerun of the same PR: dropped by the settled_runs guard, no tick
	rep = s.SettleBody(base, body, 1, SettleOptions{Source: "ci", Evidence: ev}, TickOptions{})
	if rep.Tickets[0].Result.Landed || rep.Tick != nil {
		t.Errorf("replay landed: %+v", rep.Tickets[0].Result)
	}
	// no base store: store-free tickets are refused
	rep = s.SettleBody(nil, body, 1, SettleOptions{}, TickOptions{})
	if rep.Tickets[0].Refused == "" {
		t.Error("ticket verified against a missing base")
	}
}

func FuzzParseTickets(f *testing.F) {
	f.Add("darwin-memo-ticket: abcdef123456")
	f.Add(FreeTicket{Tick: 3, Decider: "aaaaaaaaaaaa", Supporting: []string{"bbbbbbbbbbbb"}, Query: "how do I"}.Line())
	f.Add(FreeTicket{Version: 2, Tick: 3, Decider: "aaaaaaaaaaaa", Query: "how do I"}.Line())
	f.Add("<!-- darwin-memo: v1 t=1 d=- s=aaaaaaaaaaaa q=cQ --> darwin-memo: v9")
	f.Fuzz(func(t *testing.T, body string) {
		got, _ := ParseTickets(body)
		for _, bt := range got {
			if bt.Form != FormStoreFree {
				if !isHex12(bt.ID) {
					t.Fatalf("compat id %q", bt.ID)
				}
				continue
			}
			// a parsed ticket re-renders to a line that parses to the same ticket
			again, errs := ParseTickets(bt.Free.Line())
			if len(errs) != 0 || len(again) != 1 || again[0].ID != bt.ID {
				t.Fatalf("re-parse of %q: %v %v", bt.Free.Line(), again, errs)
			}
		}
	})
}

// Issue 9, finding 1: rewording the query mints a new distinct ticket for the same lesson. Six
// of them in one body must move the lesson once, not six times (which killed a healthy lesson
// with delta -1 in one merge).
func TestSettleBodyMovesEachLessonOnce(t *testing.T) {
	s, a, b, _ := ticketStore(t)
	base, err := Parse("base", mustMarshal(t, s))
	if err != nil {
		t.Fatal(err)
	}
	base.tick = s.tick
	var body strings.Builder
	for _, q := range []string{"postgres migrations", "run postgres migrations", "how do I run postgres migrations",
		"migrations postgres run", "postgres migrations please", "the postgres migrations"} {
		ft := FreeTicket{Tick: 12, Decider: a.ID, Query: q}
		if err := base.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: ft.ID(), Free: ft}, VerifyOptions{}); err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		body.WriteString("<!-- " + ft.Line() + " -->\n")
	}
	// A seventh names the lesson as supporter next to another decider: b still moves, a does not.
	seventh := FreeTicket{Tick: 12, Decider: b.ID, Supporting: []string{a.ID}, Query: "postgres migrations lock timeout"}
	if err := base.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: seventh.ID(), Free: seventh}, VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	body.WriteString(seventh.Line() + "\n")
	before, beforeB := a.Energy, b.Energy
	rep := s.SettleBody(base, body.String(), -1, SettleOptions{Source: "ci", Evidence: &Evidence{Repository: "o/r", Run: "pr#9"}}, TickOptions{})
	if len(rep.Tickets) != 7 || rep.Tick == nil {
		t.Fatalf("report %+v", rep)
	}
	credit := s.cfg.CreditGain * math.Tanh(-1/s.cfg.Scale())
	if got, want := a.Energy, before+credit-s.Upkeep; math.Abs(got-want) > 1e-9 || !a.Alive() {
		t.Errorf("lesson a moved more than once: %v -> %v, want %v", before, got, want)
	}
	if a.Uses != 1 {
		t.Errorf("uses %d, want 1", a.Uses)
	}
	if got, want := b.Energy, beforeB+credit-s.Upkeep; math.Abs(got-want) > 1e-9 {
		t.Errorf("lesson b: %v -> %v, want %v", beforeB, got, want)
	}
	for i, to := range rep.Tickets[1:] {
		if !slices.Equal(to.AlreadyMoved, []string{a.ID}) {
			t.Errorf("ticket %d: already moved %v", i+1, to.AlreadyMoved)
		}
	}
}

// Finding 1 across the two forms: a compat ticket and a store-free ticket naming the same
// decider move it once.
func TestSettleBodyCompatAndFreeSameLesson(t *testing.T) {
	s, a, _, _ := ticketStore(t)
	base, err := Parse("base", mustMarshal(t, s))
	if err != nil {
		t.Fatal(err)
	}
	base.tick = s.tick
	id := pendQuery(s, "postgres migrations", a.ID)
	ft := FreeTicket{Tick: 12, Decider: a.ID, Query: "postgres migrations"}
	before := a.Energy
	rep := s.SettleBody(base, "darwin-memo-ticket: "+id+"\n"+ft.Line(), 1, SettleOptions{Source: "ci"}, TickOptions{})
	if len(rep.Tickets) != 2 || rep.Tickets[0].Result == nil || !rep.Tickets[0].Result.Landed {
		t.Fatalf("%+v", rep.Tickets)
	}
	credit := s.cfg.CreditGain * math.Tanh(1/s.cfg.Scale())
	if got, want := a.Energy, math.Min(s.MaxEnergy, before+credit)-s.Upkeep; math.Abs(got-want) > 1e-9 {
		t.Errorf("energy %v -> %v, want %v", before, got, want)
	}
}

// Issue 9 finding 10 (part): ledger.settled_runs is capped; the newest records (the replay
// guard of recent runs) are kept.
func TestSettledRunsCapped(t *testing.T) {
	s, a, _, _ := ticketStore(t)
	ft := FreeTicket{Tick: 12, Decider: a.ID, Query: "postgres migrations"}
	run := func(i int) *Evidence { return &Evidence{Repository: "o/r", Run: "pr#" + strconv.Itoa(i)} }
	for i := 0; i < MaxSettledRuns+7; i++ {
		if r := s.SettleFree(ft, 0, SettleOptions{Source: "ci", Evidence: run(i)}); !r.Landed {
			t.Fatalf("settlement %d did not land", i)
		}
	}
	if len(s.settledRuns) != MaxSettledRuns {
		t.Fatalf("settled_runs has %d records, want %d", len(s.settledRuns), MaxSettledRuns)
	}
	if !s.settledRun(ft.ID(), run(MaxSettledRuns+6)) || !s.settledRun(ft.ID(), run(7)) || s.settledRun(ft.ID(), run(6)) {
		t.Fatal("the cap did not drop exactly the oldest records")
	}
	// The capped list loads and round-trips unchanged.
	b := mustMarshal(t, s)
	again, err := Parse("s", b)
	if err != nil || len(again.settledRuns) != MaxSettledRuns || string(mustMarshal(t, again)) != string(b) {
		t.Fatalf("round trip: %v", err)
	}
}

// With bundle_split a pull request's delta is divided among the tickets it settles: tickets
// that settle nothing (refused at the base, compat tickets not pending, reworded tickets whose
// lessons an earlier ticket already moved) must not count, or a pull request that broke tests
// shields the lesson it used by padding its body with them (delta -2 split 21 ways).
func TestBundleCountsOnlyTicketsThatSettle(t *testing.T) {
	s0, a, _, _ := ticketStore(t)
	base, err := Parse("base", mustMarshal(t, s0))
	if err != nil {
		t.Fatal(err)
	}
	base.tick = s0.tick
	valid := FreeTicket{Tick: 12, Decider: a.ID, Query: "postgres migrations"}
	var refused, compat, reworded strings.Builder
	for i := 0; i < 20; i++ {
		junk := FreeTicket{Tick: 12, Decider: "00000000000" + strconv.Itoa(i%10), Query: "junk " + strconv.Itoa(i)}
		refused.WriteString(junk.Line() + "\n")
		compat.WriteString("darwin-memo-ticket: " + fmt.Sprintf("%012x", 0xabc000+i) + "\n")
	}
	for _, q := range []string{"run postgres migrations", "how do I run postgres migrations", "migrations postgres run", "the postgres migrations"} {
		ft := FreeTicket{Tick: 12, Decider: a.ID, Query: q}
		if err := base.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: ft.ID(), Free: ft}, VerifyOptions{}); err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		reworded.WriteString(ft.Line() + "\n")
	}
	energyAfter := func(body string) float64 {
		s, err := Parse("s", mustMarshal(t, s0))
		if err != nil {
			t.Fatal(err)
		}
		s.tick, s.cfg.BundleSplit = s0.tick, true
		rep := s.SettleBody(base, body, -2, SettleOptions{Source: "ci"}, TickOptions{})
		if rep.Tick == nil {
			t.Fatalf("nothing landed: %+v", rep)
		}
		e, _ := s.Entry(a.ID)
		return e.Energy
	}
	want := energyAfter(valid.Line())
	for name, pad := range map[string]string{"refused": refused.String(), "compat not pending": compat.String(), "reworded": reworded.String()} {
		if got := energyAfter(valid.Line() + "\n" + pad); math.Abs(got-want) > 1e-12 {
			t.Errorf("padded with %s tickets: energy %v, want %v as with the one ticket alone", name, got, want)
		}
	}
}

// Issue 22, item 5: a compat ticket settles by the pending record the pull request committed,
// so a pull request could change its deciding_entry to any lesson. The record is verified at
// the base as a store-free ticket is: its query must retrieve what it names.
func TestVerifyCompatTicketByItsPendingRecord(t *testing.T) {
	s, a, _, c := ticketStore(t)
	base, err := Parse("base", mustMarshal(t, s))
	if err != nil {
		t.Fatal(err)
	}
	base.tick = s.tick
	honest := pendQuery(s, "postgres migrations", a.ID)
	forged := pendQuery(s, "postgres migrations", c.ID) // the linter lesson: never retrieved
	future := pendQuery(s, "postgres migrations", a.ID)
	s.pendingTicket(future).BornTick = s.tick + 1
	for _, tc := range []struct {
		id, want string
	}{
		{honest, ""},
		{forged, "does not retrieve entry " + c.ID},
		{future, "claims tick 13"},
		{"000000000000", ""}, // pending nowhere: it settles nothing
	} {
		err := base.VerifyTicket(BodyTicket{Form: FormCompat, ID: tc.id}, VerifyOptions{Settling: s})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.id, err, tc.want)
		}
	}
	before := c.Energy
	rep := s.SettleBody(base, "darwin-memo-ticket: "+forged, -5, SettleOptions{Source: "ci"}, TickOptions{})
	if len(rep.Tickets) != 1 || rep.Tickets[0].Refused == "" || c.Energy != before {
		t.Fatalf("the forged record settled: %+v, energy %v -> %v", rep.Tickets, before, c.Energy)
	}
}

// Issue 22: a pull request that edits the store's economics (here credit_gain) in its own
// lessons.json does not settle by its edit: SettleBody applies the base's.
func TestSettleBodyAppliesTheBasesEconomics(t *testing.T) {
	s, a, _, _ := ticketStore(t)
	base, err := Parse("base", mustMarshal(t, s))
	if err != nil {
		t.Fatal(err)
	}
	base.tick = s.tick
	c := s.Config()
	c.CreditGain = 3
	s.SetConfig(c)
	before := a.Energy
	ft := FreeTicket{Tick: 12, Decider: a.ID, Query: "postgres migrations"}
	rep := s.SettleBody(base, ft.Line(), 1, SettleOptions{Source: "ci"}, TickOptions{})
	if len(rep.Tickets) != 1 || rep.Tickets[0].Result == nil || !rep.Tickets[0].Result.Landed {
		t.Fatalf("%+v", rep.Tickets)
	}
	credit := base.cfg.CreditGain * math.Tanh(1/base.cfg.Scale())
	if got, want := a.Energy, math.Min(base.MaxEnergy, before+credit)-s.Upkeep; math.Abs(got-want) > 1e-9 {
		t.Errorf("energy %v -> %v, want %v (the base's credit_gain %v, not the edited 3)", before, got, want, base.cfg.CreditGain)
	}
}
