package lessons

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// v2Store has an old lesson, its update, a sibling and an unrelated one.
func v2Store(t *testing.T) (s *Store, old, upd, sib *Entry) {
	t.Helper()
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s = New("lessons.json", Options{Now: func() time.Time { clock = clock.Add(time.Minute); return clock }})
	old = mustAdd(t, s, "Which port does the staging API listen on?", "8080, plain HTTP behind the load balancer.")
	sib = mustAdd(t, s, "Which port does the billing API listen on?", "7070 inside the mesh.")
	mustAdd(t, s, "How do I regenerate the protobuf code?", "Run buf generate from the repository root.")
	upd = mustAdd(t, s, "Which port does the staging API listen on?", "9443 since TLS terminates in the pod.")
	s.tick = 5
	return s, old, upd, sib
}

func TestV2IsTheDefaultAndConfigurable(t *testing.T) {
	s := New("x", Options{})
	if s.Retrieval() != RetrievalV3 {
		t.Fatalf("default %q", s.Retrieval())
	}
	s.SetRetrieval(RetrievalDarwinMemo)
	p, err := Parse("x", mustMarshal(t, s))
	if err != nil || p.Retrieval() != RetrievalDarwinMemo {
		t.Fatalf("config round trip: %v %q", err, p.Retrieval())
	}
	if !strings.Contains(string(mustMarshal(t, p)), `"retrieval": "darwin-memo"`) {
		t.Error("config key not written")
	}
	if New("y", Options{Retrieval: RetrievalDarwinMemo}).Retrieval() != RetrievalDarwinMemo {
		t.Error("Options.Retrieval ignored")
	}
	for in, want := range map[string]Retrieval{"v1": RetrievalDarwinMemo, "darwin-memo": RetrievalDarwinMemo, "V2": RetrievalV2} {
		if r, err := ParseRetrieval(in); err != nil || r != want {
			t.Errorf("ParseRetrieval(%q) = %q, %v", in, r, err)
		}
	}
	if _, err := ParseRetrieval("v9"); err == nil {
		t.Error("v9 accepted")
	}
	if _, err := s.Retrieve("x", RetrieveOptions{Retrieval: "bogus"}); err == nil {
		t.Error("unknown retrieval accepted")
	}
}

func TestAddRecordsSupersession(t *testing.T) {
	s, old, upd, sib := v2Store(t)
	if got := upd.Supersedes(); !slices.Equal(got, []string{old.ID}) {
		t.Fatalf("update supersedes %v, want [%s] (not the sibling %s)", got, old.ID, sib.ID)
	}
	if len(sib.Supersedes()) != 0 {
		t.Errorf("sibling records %v", sib.Supersedes())
	}
	// The same advice again is a duplicate, not an update.
	dup := mustAdd(t, s, "Which port does the staging API listen on?", "9443 since TLS terminates in the pod.")
	if slices.Contains(dup.Supersedes(), upd.ID) {
		t.Errorf("duplicate of %s records superseding it: %v", upd.ID, dup.Supersedes())
	}
	// A store kept on darwin-memo's ranking gets no labels.
	dm := New("dm", Options{Retrieval: RetrievalDarwinMemo})
	mustAdd(t, dm, "Which port does the staging API listen on?", "8080")
	e := mustAdd(t, dm, "Which port does the staging API listen on?", "9443")
	if len(e.Supersedes()) != 0 {
		t.Errorf("darwin-memo store records %v", e.Sources)
	}
}

func TestV2NewestDecidesAndStaleLeaves(t *testing.T) {
	for _, recorded := range []bool{true, false} {
		s, old, upd, _ := v2Store(t)
		if !recorded {
			for _, e := range s.living {
				e.Sources = slices.DeleteFunc(e.Sources, func(x string) bool { return strings.HasPrefix(x, SupersedesPrefix) })
			}
			s = mustReparse(t, s)
		}
		d, err := s.Decide("which port is the staging API listening on right now?", DecideOptions{})
		if err != nil || d.Silent {
			t.Fatalf("recorded=%v: %v %+v", recorded, err, d)
		}
		// The stale lesson leaves the ranking's list (a ticket still names it as
		// supporter by darwin-memo's rule: ticketSupporters).
		if d.Decider != upd.ID || slices.ContainsFunc(d.Hits, func(h Hit) bool { return h.Entry == old }) {
			t.Errorf("recorded=%v: decider %s hits %d; want %s without %s", recorded, d.Decider, len(d.Hits), upd.ID, old.ID)
		}
		if strings.Contains(d.Answer, "conflicting") || !strings.HasPrefix(d.Answer, "9443") {
			t.Errorf("answer %q", d.Answer)
		}
		// darwin-memo's ranking still sees both, store order breaking the tie.
		dm, _ := s.Decide("which port is the staging API listening on right now?", DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: RetrievalDarwinMemo}})
		if dm.Decider != old.ID {
			t.Errorf("darwin-memo decider %s, want the old %s", dm.Decider, old.ID)
		}
	}
}

func TestV2SiblingAndAbstention(t *testing.T) {
	s, _, _, sib := v2Store(t)
	d, _ := s.Decide("Which port does the billing API listen on?", DecideOptions{})
	if d.Decider != sib.ID || len(d.Hits) != 1 {
		t.Errorf("billing: decider %s, %d hits", d.Decider, len(d.Hits))
	}
	for _, q := range []string{
		"Which port does the Grafana API listen on?",   // unseen name
		"What caused incident 9981?",                   // unseen number
		"Which port does the inventory API listen on?", // unseen content word, siblings name others
	} {
		if d, _ := s.Decide(q, DecideOptions{}); !d.Silent {
			t.Errorf("%q answered by %s", q, d.Answer)
		}
	}
}

func TestTicketsVerifyWithTheirOwnRanking(t *testing.T) {
	s, old, upd, _ := v2Store(t)
	q := "which port does the staging API listen on"
	v2, _ := s.Decide(q, DecideOptions{})
	v1, _ := s.Decide(q, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: RetrievalDarwinMemo}})
	old2, _ := s.Decide(q, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: RetrievalV2}})
	if !strings.HasPrefix(v2.StoreFreeLine(), "darwin-memo: v3 ") || !strings.HasPrefix(v1.StoreFreeLine(), "darwin-memo: v1 ") ||
		!strings.HasPrefix(old2.StoreFreeLine(), "darwin-memo: v2 ") {
		t.Fatalf("lines %q %q %q", v2.StoreFreeLine(), v1.StoreFreeLine(), old2.StoreFreeLine())
	}
	body := "<!-- " + v2.StoreFreeLine() + " -->\n`" + v1.StoreFreeLine() + "`\n" + old2.StoreFreeLine() + "\n"
	tickets, errs := ParseTickets(body)
	if len(errs) != 0 || len(tickets) != 3 || tickets[0].Free.Version != 3 || tickets[1].Free.Version != 1 || tickets[2].Free.Version != 2 {
		t.Fatalf("%+v %v", tickets, errs)
	}
	base := mustReparse(t, s)
	for _, tk := range tickets {
		if err := base.VerifyTicket(tk, VerifyOptions{}); err != nil {
			t.Errorf("v%d ticket refused: %v", tk.Free.Version, err)
		}
	}
	// v1 names the stale lesson, which v2 no longer retrieves: the same
	// content as a v2 ticket is refused.
	if !slices.Contains(v1.Hits[0:len(v1.Hits)], v1.Hits[0]) || !slices.ContainsFunc(v1.Hits, func(h Hit) bool { return h.Entry == old }) {
		t.Fatalf("darwin-memo ranking should retrieve the stale lesson: %v", v1.Hits)
	}
	stale := FreeTicket{Version: 3, Tick: 5, Decider: old.ID, Query: q}
	if err := base.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: stale.ID(), Free: stale}, VerifyOptions{}); err == nil {
		t.Error("v2 ticket naming a superseded lesson verified")
	}
	stale.Version = 1
	if err := base.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: stale.ID(), Free: stale}, VerifyOptions{}); err != nil && !strings.Contains(err.Error(), "ranks above") {
		t.Errorf("v1 ticket naming a lesson darwin-memo retrieves refused: %v", err)
	}
	if v2.Decider != upd.ID {
		t.Errorf("v2 decider %s, want %s", v2.Decider, upd.ID)
	}
	// Settling the whole body through SettleBody lands both.
	rep := s.SettleBody(base, body, 1, SettleOptions{Source: "ci"}, TickOptions{})
	for _, o := range rep.Tickets {
		if o.Refused != "" {
			t.Errorf("refused: %s", o.Refused)
		}
	}
}

func TestV2ConfidenceAndCut(t *testing.T) {
	s, _, upd, _ := v2Store(t)
	hits, err := s.Retrieve("staging API port", RetrieveOptions{K: 9})
	if err != nil || len(hits) == 0 || hits[0].Entry != upd {
		t.Fatalf("%v %v", hits, err)
	}
	for i, h := range hits {
		if h.Confidence < 0 || h.Confidence > 1 || (i > 0 && h.Confidence > hits[0].Confidence+1e-12) {
			t.Errorf("hit %d confidence %v", i, h.Confidence)
		}
		if h.Score < v2Drop*hits[0].Score {
			t.Errorf("hit %d score %v under the cut", i, h.Score)
		}
	}
	dm, _ := s.Retrieve("staging API port", RetrieveOptions{K: 9, Retrieval: RetrievalDarwinMemo})
	for _, h := range dm {
		if h.Confidence != h.Coverage || h.Coverage <= 0 || h.Coverage > 1 {
			t.Errorf("darwin-memo hit coverage %v confidence %v", h.Coverage, h.Confidence)
		}
	}
}

func TestV2FilteredAndIncremental(t *testing.T) {
	s, _, upd, _ := v2Store(t)
	if h, _ := s.Retrieve("staging port", RetrieveOptions{Kind: KindExplicit}); len(h) == 0 || h[0].Entry != upd {
		t.Errorf("kind filter: %v", h)
	}
	if h, _ := s.Retrieve("staging port", RetrieveOptions{Source: "nope"}); h != nil {
		t.Errorf("source filter: %v", h)
	}
	// Burying the update brings the old lesson back.
	s.Forget(upd.ID)
	h, _ := s.Retrieve("staging port", RetrieveOptions{})
	if len(h) == 0 || !strings.HasPrefix(h[0].Entry.Answer, "8080") {
		t.Errorf("after forgetting the update: %v", h)
	}
	fresh := mustReparse(t, s)
	h2, _ := fresh.Retrieve("staging port", RetrieveOptions{})
	if len(h2) != len(h) || h2[0].Score != h[0].Score {
		t.Errorf("incremental %v, fresh %v", h, h2)
	}
}

func mustReparse(t *testing.T, s *Store) *Store {
	t.Helper()
	p, err := ParseWith(s.Name(), mustMarshal(t, s), Options{Now: s.opts.Now})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConsolidationDropsSupersededAnswers(t *testing.T) {
	s, old, upd, _ := v2Store(t)
	if !slices.Contains(upd.Supersedes(), old.ID) {
		t.Fatal("no record")
	}
	heir := s.merge([]*Entry{old, upd})
	if heir.Answer != upd.Answer {
		t.Errorf("heir answer %q, want only the update's %q", heir.Answer, upd.Answer)
	}
}

// Stores of statements (the statement as question and answer) and of notes
// (a generic question over statements) rank like stores of questions.
func TestV2StatementsAndNotes(t *testing.T) {
	facts := []string{
		"The staging API listens on port 8080.",
		"The billing service is restarted with kubectl rollout restart deploy/billing.",
		"The payments service is restarted with kubectl rollout restart deploy/payments.",
		"Incident 4121 was caused by an expired TLS certificate on the gateway.",
		"Incident 4127 was caused by a full disk on the CI runner.",
		"The staging API listens on port 8443 now that TLS terminates in the pod.",
		"We use sqlmock fakes for repository tests.",
		"The CI test job times out after 10 minutes.",
		"The search service is restarted by scaling deploy/search to zero and back.",
		"The CI test job timeout was raised to 30 minutes.",
		"Repository tests no longer mock the database; they run against a real Postgres in testcontainers.",
		"The staging API listens on port 9443 since the mesh sidecar took 8443.",
	}
	probes := map[string]int{ // query -> fact index that must decide (-1: silence)
		"Which port does the staging API listen on?":   11,
		"How do I restart the payments service?":       2,
		"What caused incident 4127?":                   4,
		"What is the CI test job timeout?":             9,
		"Do we mock the database in repository tests?": 10,
		"How do I restart the inventory service?":      -1,
		"what caused the expired certificate incident": 3,
	}
	for _, mode := range []string{"statements", "notes"} {
		clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		s := New("x", Options{Now: func() time.Time { clock = clock.Add(time.Minute); return clock }})
		ids := make([]string, len(facts))
		for i, f := range facts {
			q := f
			if mode == "notes" {
				q = "Note"
			}
			ids[i] = mustAdd(t, s, q, f).ID
			if e, _ := s.Entry(ids[i]); len(e.Supersedes()) != 0 {
				t.Errorf("%s: %q records %v", mode, f, e.Supersedes())
			}
		}
		for q, want := range probes {
			d, _ := s.Decide(q, DecideOptions{})
			switch {
			case want < 0 && !d.Silent:
				t.Errorf("%s: %q answered %q", mode, q, d.Answer)
			case want >= 0 && d.Decider != ids[want]:
				t.Errorf("%s: %q decided %q, want %q", mode, q, d.Answer, facts[want])
			}
		}
	}
}
