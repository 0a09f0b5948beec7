package lessons

// The 40 load-bearing behaviours of semantics §12, one test per case number.
// Cases 27-32 and 36 (JUnit ids, abstention, delta, flaky quarantine, counts
// mode) are settle-ci behaviours owned by the settle package and are tested
// there; see docs/compat.md.

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

var t0 = time.Date(2026, 6, 13, 12, 43, 53, 0, time.UTC)

func newTestStore() *Store {
	// The semantics cases are darwin-memo's: its ranking, byte for byte.
	return New("lessons.json", Options{Now: func() time.Time { return t0 }, Retrieval: RetrievalDarwinMemo})
}

func mustAdd(t *testing.T, s *Store, q, a string) *Entry {
	t.Helper()
	e, err := s.Add(NewLesson{Question: q, Answer: a, Sources: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// pend registers a pending ticket naming decider and supporters.
func pend(s *Store, decider string, sup ...string) string {
	return pendQuery(s, "q", decider, sup...)
}

// pendQuery registers a pending ticket for query, as decide --register does.
func pendQuery(s *Store, query, decider string, sup ...string) string {
	t := &Ticket{Query: query, Answer: "a", DecidingEntry: decider, SupportingEntries: append([]string{}, sup...), BornTick: s.tick}
	t.ID = s.freshTicketID(t)
	s.pending = append(s.pending, t)
	return t.ID
}

func isPending(s *Store, id string) bool {
	return slices.ContainsFunc(s.pending, func(t *Ticket) bool { return t.ID == id })
}

func lastEvent(s *Store) storedoc.Event { return s.events[len(s.events)-1] }

func lastNote(s *Store, id string) Note {
	h := s.History(id)
	if len(h) == 0 {
		return Note{}
	}
	return h[len(h)-1]
}

func scale(s *Store, f float64) {
	c := s.Config()
	c.ResourceScale = &f
	s.SetConfig(c)
}

func TestCase01SpawnAndStarvation(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "How do I run the tests?", "Use go test ./...")
	for i := 0; i < 19; i++ {
		s.Tick(TickOptions{})
	}
	if !e.Alive() || e.Energy != 0.049999999999999684 {
		t.Fatalf("after 19 ticks: alive=%v energy=%v, want 0.049999999999999684", e.Alive(), e.Energy)
	}
	st := s.Tick(TickOptions{})
	if _, ok := s.Entry(e.ID); ok || st.Deaths != 1 {
		t.Fatal("still living after 20 ticks")
	}
	d, ok := s.Dead(e.ID)
	if !ok || d.Energy != -3.191891195797325e-16 {
		t.Fatalf("graveyard energy = %v, want -3.191891195797325e-16", d.Energy)
	}
	n := lastNote(s, e.ID)
	if n.Event() != "death" || n.Cause() != "starved" || !strings.HasPrefix(n.Text(), "died at tick 20 (starved: never earned its upkeep; uses=0, last_used_tick=-1)") {
		t.Errorf("death note = %s", noteJSON(n))
	}
}

func TestCase02CreditFormula(t *testing.T) {
	s := newTestStore()
	scale(s, 2)
	d := mustAdd(t, s, "q1 alpha", "a1")
	sup := mustAdd(t, s, "q2 beta", "a2")
	s.tick = 7
	id := pend(s, d.ID, sup.ID)
	r := s.Settle(id, 1, SettleOptions{Source: "ci"})
	if !r.Landed {
		t.Fatal("not landed")
	}
	gain := 0.6 * math.Tanh(0.5)
	if math.Abs(gain-0.2772703) > 1e-7 || d.Energy != 1+gain || sup.Energy != 1+gain*0.25 {
		t.Errorf("D=%v S=%v, want 1+%v and 1+%v", d.Energy, sup.Energy, gain, gain*0.25)
	}
	if math.Abs(gain*0.25-0.0693176) > 1e-7 {
		t.Errorf("supporter gain %v", gain*0.25)
	}
	for _, e := range []*Entry{d, sup} {
		if e.Uses != 1 || e.LastUsedCycle != 7 {
			t.Errorf("%s uses=%d last_used=%d", e.ID, e.Uses, e.LastUsedCycle)
		}
	}
	// provenance order: supporters then decider; applied decider first
	if r.Applied[0].Entry != d.ID || r.Applied[1].Entry != sup.ID {
		t.Errorf("applied order %v", r.Applied)
	}
	n := lastNote(s, d.ID)
	if n.Text() != "tick 7: credit +0.277 (ci delta +1)" || n.v.Field("source").Str() != "ci" {
		t.Errorf("note %s", noteJSON(n))
	}
}

func TestCase03SaturationAndCap(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	d.Energy = 4.9
	s.Settle(pend(s, d.ID), 1000, SettleOptions{})
	if d.Energy != 5.0 {
		t.Errorf("energy %v, want 5.0", d.Energy)
	}
}

func TestCase04NegativeCreditNoFloor(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	d.Energy = 0.3
	r := s.Settle(pend(s, d.ID), -1000, SettleOptions{})
	if !s.Damaged(d.ID) {
		t.Error("not damaged")
	}
	g, ok := s.Dead(d.ID)
	if !ok || math.Abs(g.Energy+0.3) > 1e-12 || !slices.Equal(r.Buried, []string{d.ID}) {
		t.Fatalf("not buried at about -0.3: %v %v", ok, g)
	}
	if n := lastNote(s, d.ID); n.Event() != "buried" || n.Cause() != "executed" {
		t.Errorf("note %s", noteJSON(n))
	}
}

func TestCase05EscrowOnSettle(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	d.Energy = 0.3
	first := pend(s, d.ID)
	second := pend(s, d.ID)
	if first == second {
		t.Fatal("ticket ids collide")
	}
	s.Settle(first, -1000, SettleOptions{})
	if _, ok := s.Entry(d.ID); !ok || d.Energy >= 0 {
		t.Fatalf("escrowed D not living and negative: %v", d.Energy)
	}
	s.Settle(second, 0, SettleOptions{})
	if _, ok := s.Dead(d.ID); !ok {
		t.Fatal("D not buried after the second settle")
	}
}

func TestCase06EscrowOnTick(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "how to release the crate", "cargo publish after tagging")
	twin := mustAdd(t, s, "how to release the crate", "cargo publish after tagging")
	d.Energy = 0.01
	pend(s, d.ID)
	s.tick = 4
	st := s.Tick(TickOptions{})
	if math.Abs(d.Energy+0.04) > 1e-12 {
		t.Errorf("energy %v, want -0.04", d.Energy)
	}
	if _, ok := s.Entry(d.ID); !ok {
		t.Error("escrowed entry died")
	}
	if st.Merges != 0 {
		t.Errorf("escrowed entry merged (merges=%d)", st.Merges)
	}
	if _, ok := s.Entry(twin.ID); !ok {
		t.Error("twin merged")
	}
}

func TestCase07ZeroDelta(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	s.tick = 3
	id := pend(s, d.ID)
	r := s.Settle(id, 0, SettleOptions{Source: "ci"})
	if !r.Landed || isPending(s, id) || len(r.Applied) != 0 {
		t.Fatalf("result %+v", r)
	}
	if d.Energy != 1 || d.Uses != 1 || d.LastUsedCycle != 3 {
		t.Errorf("energy=%v uses=%d last=%d", d.Energy, d.Uses, d.LastUsedCycle)
	}
}

func TestCase08Abandon(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	id := pend(s, d.ID)
	if r := s.Abandon(id); !r.Landed || r.Status != StatusAbandon {
		t.Fatalf("abandon %+v", r)
	}
	if d.Uses != 0 || d.LastUsedCycle != -1 {
		t.Error("abandon changed uses")
	}
	if lastEvent(s).Name() != "abandon" {
		t.Errorf("event %s", lastEvent(s).JSON())
	}
	if r := s.Abandon(id); r.Landed || r.Status != StatusDropped || lastEvent(s).Name() != "settle_dropped" {
		t.Errorf("second abandon %+v %s", r, lastEvent(s).JSON())
	}
}

func TestCase09NonFinite(t *testing.T) {
	for _, delta := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		s := newTestStore()
		d := mustAdd(t, s, "q", "a")
		id := pend(s, d.ID)
		r := s.Settle(id, delta, SettleOptions{})
		ev := lastEvent(s)
		if r.Landed || r.Status != StatusRejected || !isPending(s, id) || ev.Name() != "settle_rejected" || eventHas(ev, "delta") {
			t.Errorf("delta %v: %+v %s", delta, r, ev.JSON())
		}
	}
}

func TestCase10DuplicateSettle(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	id := pend(s, d.ID)
	s.Settle(id, 1, SettleOptions{})
	before := d.Energy
	r := s.Settle(id, 1, SettleOptions{})
	if r.Landed || lastEvent(s).Name() != "settle_dropped" || d.Energy != before {
		t.Errorf("%+v energy %v", r, d.Energy)
	}
}

func TestCase11SilentDecide(t *testing.T) {
	s := newTestStore()
	d, err := s.Decide("how do I deploy", DecideOptions{Register: true})
	if err != nil || !d.Silent || d.Answer != "" || d.Ticket != nil || len(s.pending) != 0 {
		t.Fatalf("empty store: %+v %v", d, err)
	}
	mustAdd(t, s, "How do I deploy?", "Run make deploy")
	d, _ = s.Decide("the of is", DecideOptions{Register: true})
	if !d.Silent || len(s.pending) != 0 {
		t.Errorf("stopword query not silent")
	}
	d, _ = s.Decide("zebra", DecideOptions{Register: true})
	if !d.Silent || len(s.pending) != 0 {
		t.Errorf("no-shared-token query not silent")
	}
}

func TestCase12RelevanceFloor(t *testing.T) {
	s := newTestStore()
	for i := 0; i < 9; i++ {
		mustAdd(t, s, "alpha note "+strings.Repeat("x", i+1), "filler")
	}
	weak := s.living[0]
	strong := mustAdd(t, s, "alpha zebra", "strong")
	// N=10, df(alpha)=10, df(zebra)=1, df(yak)=0
	idf := func(df float64) float64 { return math.Log(1 + 10/(1+df)) }
	mass := idf(10) + idf(1) + idf(0)
	if idf(10)/mass >= 0.25 {
		t.Fatalf("test setup: weak coverage %v not below the floor", idf(10)/mass)
	}
	hits, err := s.Retrieve("alpha zebra yak", RetrieveOptions{K: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Entry != strong {
		t.Errorf("hits %v; the alpha-only entry %s (coverage %.3f) must not qualify", hits, weak.ID, idf(10)/mass)
	}
}

func TestCase13Tokenizer(t *testing.T) {
	got := rank.Tokens("Does the files' cache-miss.log exist?")
	if !slices.Equal(got, []string{"file", "cache", "miss.log", "exist"}) {
		t.Errorf("tokens %q", got)
	}
}

func TestCase14EnergyBreaksTiesOnly(t *testing.T) {
	s := newTestStore()
	low := mustAdd(t, s, "flaky network tests", "retry them")
	high := mustAdd(t, s, "flaky network tests", "retry them")
	low.Energy, high.Energy = 0.5, 3.0
	d, _ := s.Decide("flaky network tests", DecideOptions{})
	if d.Decider != high.ID {
		t.Errorf("decider %s, want the 3.0 entry %s", d.Decider, high.ID)
	}
	s2 := newTestStore()
	best := mustAdd(t, s2, "redis cache eviction policy", "allkeys-lru")
	rich := mustAdd(t, s2, "redis cache", "use it")
	best.Energy, rich.Energy = 0.2, 5
	d, _ = s2.Decide("redis cache eviction policy", DecideOptions{})
	if d.Decider != best.ID {
		t.Errorf("decider %s, want the higher-scoring low-energy %s", d.Decider, best.ID)
	}
}

func TestCase15IdsAndProvenanceOrder(t *testing.T) {
	s := newTestStore()
	a := mustAdd(t, s, "postgres migrations order", "run them in order")
	b := mustAdd(t, s, "postgres migrations lock", "use lock_timeout")
	d, _ := s.Decide("postgres migrations", DecideOptions{Register: true})
	hex12 := func(id string) bool { return isHex12(id) }
	if !hex12(a.ID) || !hex12(b.ID) || d.Ticket == nil || !hex12(d.Ticket.ID) {
		t.Fatalf("ids %s %s %+v", a.ID, b.ID, d.Ticket)
	}
	p := d.Ticket.Provenance()
	if len(p) != 2 || p[1] != d.Decider || p[0] != d.Supporting[0] {
		t.Errorf("provenance %v, decider %s", p, d.Decider)
	}
}

func TestCase16Expiry(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	d.Energy = 5
	id := pend(s, d.ID)
	for i := 1; i <= 50; i++ {
		if st := s.Tick(TickOptions{}); st.Expired != 0 || !isPending(s, id) {
			t.Fatalf("tick %d: expired early", i)
		}
	}
	st := s.Tick(TickOptions{})
	if st.Expired != 1 || isPending(s, id) {
		t.Fatalf("tick 51: %+v", st)
	}
	found := false
	for _, ev := range s.events {
		if ev.Name() == "expired" && ev.Source() == "expired" && ev.Tick() == 51 {
			found = true
		}
	}
	if !found {
		t.Error("no expired event at tick 51")
	}
	// settled before upkeep: D's note for the expiry comes before nothing else at tick 51
	if d.Uses != 0 {
		t.Error("expiry counted as a use")
	}
}

func TestCase17Consolidation(t *testing.T) {
	s := newTestStore()
	a, _ := s.Add(NewLesson{Question: "How do I run the integration tests?", Answer: "Run make integration with docker up.", Sources: []string{"pr#1"}, RecordedTS: "2026-01-01T00:00:00+00:00"})
	b, _ := s.Add(NewLesson{Question: "How do I run integration tests?", Answer: "Run make integration with docker up", Sources: []string{"pr#2", "pr#1"}, RecordedTS: "2026-02-01T00:00:00+00:00"})
	if j := rank.JaccardIDs(s.tokenSet(a), s.tokenSet(b)); j < 0.55 {
		t.Fatalf("setup: jaccard %v", j)
	}
	a.Energy, b.Energy = 2.0, 1.0
	var st TickStats
	for i := 0; i < 5; i++ {
		st = s.Tick(TickOptions{})
	}
	if st.Merges != 1 || len(s.living) != 1 {
		t.Fatalf("merges %d living %d", st.Merges, len(s.living))
	}
	h := s.living[0]
	ga, _ := s.Dead(a.ID)
	gb, _ := s.Dead(b.ID)
	if ga == nil || gb == nil || ga.Energy != 0 || gb.Energy != 0 {
		t.Fatal("members not buried at energy 0")
	}
	for _, id := range []string{a.ID, b.ID} { // only the birth note of Add
		if h := s.History(id); len(h) != 1 || h[0].Event() != "birth" {
			t.Errorf("merge wrote a history note: %+v", h)
		}
	}
	// Python gives 2.4999999999999996 for these IEEE balances too
	// (1.7499999999999998 + 0.7499999999999998); the reference rounds it to 2.5.
	want := Entry{Question: a.Question, Kind: KindConsolidated, Energy: 2.4999999999999996, BornCycle: 5, LastUsedCycle: -1, RecordedTS: "2026-02-01T00:00:00+00:00"}
	if h.Question != want.Question || h.Kind != want.Kind || h.Energy != want.Energy || h.BornCycle != 5 || h.LastUsedCycle != -1 || h.RecordedTS != want.RecordedTS {
		t.Errorf("heir %+v", h)
	}
	if !slices.Equal(h.Lineage, []string{a.ID, b.ID}) || !slices.Equal(h.Sources, []string{"pr#1", "pr#2"}) {
		t.Errorf("lineage %v sources %v", h.Lineage, h.Sources)
	}
	if h.Answer != a.Answer+" "+b.Answer {
		t.Errorf("answer %q", h.Answer)
	}
}

func TestCase18MergeCap(t *testing.T) {
	s := newTestStore()
	a := mustAdd(t, s, "release checklist steps", "tag then publish")
	b := mustAdd(t, s, "release checklist steps", "tag then publish")
	s.tick = 4
	a.Energy, b.Energy = 3.55, 3.55
	s.Tick(TickOptions{})
	if len(s.living) != 1 || s.living[0].Energy != 5.0 {
		t.Fatalf("heir %+v", s.living)
	}
}

func TestCase19MergeExclusions(t *testing.T) {
	for _, tc := range []struct {
		name string
		mark func(s *Store, e *Entry)
	}{
		{"pinned", func(s *Store, e *Entry) { s.Pin(e.ID) }},
		{"probation", func(s *Store, e *Entry) { e.Probation = 2 }},
		{"juvenile", func(s *Store, e *Entry) { e.Juvenile = 2 }},
		{"escrowed", func(s *Store, e *Entry) { pend(s, e.ID) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore()
			a := mustAdd(t, s, "release checklist steps", "tag then publish")
			mustAdd(t, s, "release checklist steps", "tag then publish")
			tc.mark(s, a)
			s.tick = 4
			if st := s.Tick(TickOptions{}); st.Merges != 0 {
				t.Errorf("%s entry merged", tc.name)
			}
		})
	}
	// control: without the mark they merge
	s := newTestStore()
	mustAdd(t, s, "release checklist steps", "tag then publish")
	mustAdd(t, s, "release checklist steps", "tag then publish")
	s.tick = 4
	if st := s.Tick(TickOptions{}); st.Merges != 1 {
		t.Error("control pair did not merge")
	}
}

func TestCase20Probation(t *testing.T) {
	foreign := newTestStore()
	p := mustAdd(t, foreign, "kubernetes helm chart values", "pin the chart version")
	s := newTestStore()
	if got := s.Import(foreign, ImportOptions{Label: "other/lessons.json"}); len(got) != 1 {
		t.Fatal("import")
	}
	imp, _ := s.Entry(p.ID)
	if imp.Probation != 3 || *imp.ImportedFrom != "other/lessons.json" {
		t.Fatalf("import %+v", imp)
	}
	d, _ := s.Decide("helm chart values", DecideOptions{Register: true})
	if !d.Silent || len(s.pending) != 0 || !slices.Equal(d.Withheld, []string{p.ID}) {
		t.Fatalf("probationary entry decided: %+v", d)
	}
	dec := mustAdd(t, s, "kubernetes helm chart values override", "use values.yaml per env")
	dec.Energy = 5
	settle := func(delta float64) {
		t.Helper()
		d, _ := s.Decide("kubernetes helm chart values", DecideOptions{Register: true})
		if d.Decider != dec.ID || !slices.Contains(d.Supporting, p.ID) {
			t.Fatalf("decision %+v", d)
		}
		s.Settle(d.Ticket.ID, delta, SettleOptions{})
	}
	settle(1)
	settle(-1)
	if imp.Probation != 2 {
		t.Fatalf("probation %d after +1, -1; want 2", imp.Probation)
	}
	settle(1)
	settle(1)
	if imp.Probation != 0 || lastNote(s, p.ID).Event() != "graduated" {
		t.Fatalf("probation %d note %s", imp.Probation, noteJSON(lastNote(s, p.ID)))
	}
	s.Forget(dec.ID)
	d, _ = s.Decide("helm chart values", DecideOptions{})
	if d.Decider != p.ID {
		t.Errorf("graduate cannot decide: %+v", d)
	}
}

func TestCase21ImportIdempotence(t *testing.T) {
	foreign := newTestStore()
	p := mustAdd(t, foreign, "q", "a")
	s := newTestStore()
	s.Import(foreign, ImportOptions{})
	if got := s.Import(foreign, ImportOptions{}); len(got) != 0 {
		t.Errorf("living id re-imported: %v", got)
	}
	if r := s.Forget(p.ID); r != ForgetBuried {
		t.Fatal(r)
	}
	if got := s.Import(foreign, ImportOptions{}); len(got) != 0 {
		t.Errorf("buried id resurrected: %v", got)
	}
}

// admissionWindow sets the store's admission_window: lessons added after are juvenile for n settlements.
func admissionWindow(s *Store, n int) {
	c := s.Config()
	c.AdmissionWindow = n
	s.SetConfig(c)
}

func TestCase22JuvenileDenial(t *testing.T) {
	s := newTestStore()
	admissionWindow(s, 3)
	d := mustAdd(t, s, "q", "a")
	if d.Juvenile != 3 {
		t.Fatalf("juvenile %d", d.Juvenile)
	}
	id := pend(s, d.ID)
	pend(s, d.ID) // escrowed elsewhere
	s.Settle(id, -1, SettleOptions{})
	g, ok := s.Dead(d.ID)
	if !ok || g.Energy != 0 || !s.Damaged(d.ID) {
		t.Fatalf("not buried at 0: %v %+v", ok, g)
	}
	if n := lastNote(s, d.ID); n.Cause() != "executed" {
		t.Errorf("cause %s", noteJSON(n))
	}
}

func TestCase23Pin(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "vendored dependencies policy", "never edit vendor/")
	s.Pin(e.ID)
	e.Energy = 0.02
	s.Tick(TickOptions{})
	if e.Energy != 0.0 || e.Alive() {
		t.Fatalf("energy %v", e.Energy)
	}
	if _, ok := s.Entry(e.ID); !ok {
		t.Fatal("pinned entry left the living set")
	}
	if hits, _ := s.Retrieve("vendored dependencies", RetrieveOptions{}); len(hits) != 1 {
		t.Error("pinned entry not retrievable")
	}
	if s.TicksToStarvation(e) != nil {
		t.Error("ticks_to_starvation not null")
	}
	if r := s.Forget(e.ID); r != ForgetPinned {
		t.Errorf("forget = %s", r)
	}
	s.Settle(pend(s, e.ID), -1000, SettleOptions{})
	if e.Energy != 0 {
		t.Errorf("settlement damage not floored: %v", e.Energy)
	}
	if out, _ := s.Render(RenderOptions{}); strings.Contains(string(out), "never edit vendor") {
		t.Error("render shows a pinned entry that is not alive")
	}
}

func TestCase24RoundTrip(t *testing.T) {
	s := newTestStore()
	a := mustAdd(t, s, "q1 é", "a1 😀")
	b := mustAdd(t, s, "q2", "a2")
	s.Pin(b.ID)
	b.Probation = 2
	out, _ := s.Marshal()
	if strings.HasSuffix(string(out), "\n") {
		t.Error("trailing newline")
	}
	if strings.Count(string(out), `"pinned": true`) != 1 || strings.Count(string(out), `"probation"`) != 1 || strings.Contains(string(out), `"juvenile"`) || strings.Contains(string(out), `"imported_from"`) {
		t.Errorf("trust fields not written only when non-default:\n%s", out)
	}
	s2, err := Parse("x", out)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range s2.Living() {
		o := s.Living()[i]
		if e.ID != o.ID || e.Question != o.Question || e.Answer != o.Answer || e.Pinned != o.Pinned || e.Probation != o.Probation || e.Energy != o.Energy || e.RecordedTS != o.RecordedTS {
			t.Errorf("entry %d differs: %+v vs %+v", i, e, o)
		}
	}
	_ = a
	noTS := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [{"question": "q", "answer": "a", "id": "aaaaaaaaaaaa"}], "graveyard": []}`
	s3, err := Parse("x", []byte(noTS))
	if err != nil || s3.Living()[0].RecordedTS != "" {
		t.Errorf("missing recorded_ts: %v %+v", err, s3.Living())
	}
}

func TestCase25FailSoftLedger(t *testing.T) {
	in := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": [], "ledger": {
  "tick_count": "x",
  "pending": [
    {"query": "q", "answer": "a", "deciding_entry": "aaaaaaaaaaaa", "supporting_entries": [], "born_tick": 0, "id": "bbbbbbbbbbbb"},
    {"query": "q", "answer": "a", "deciding_entry": null, "supporting_entries": [], "born_tick": 0, "id": "cccccccccccc", "evil": 1}
  ],
  "history": {"aaaaaaaaaaaa": "nope", "dddddddddddd": ["legacy"]},
  "config": {"merge_threshold": "abc", "write_experience": 1, "credit_gain": true, "cycles": 9}
}}`
	s, err := Parse("x", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pending()) != 1 || s.TickCount() != 0 || s.Config().MergeThreshold != 0.55 {
		t.Errorf("pending %d tick %d threshold %v", len(s.Pending()), s.TickCount(), s.Config().MergeThreshold)
	}
	if c := s.Config(); !c.WriteExperience || c.CreditGain != 0.6 {
		t.Errorf("bool/float type checks: %+v", c)
	}
	if len(s.History("aaaaaaaaaaaa")) != 0 || len(s.History("dddddddddddd")) != 1 {
		t.Error("history fail-soft")
	}
	if len(s.Warnings()) < 4 {
		t.Errorf("warnings %v", s.Warnings())
	}
}

// Case 26 (stale writer) is TestCase26StaleWriter in file_test.go.

func TestCase33TicketRegex(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"darwin-memo-ticket: ABCDEF123456", nil},
		{"darwin-memo-ticket:abcdef1234567", []string{"abcdef123456"}},
		{"darwin-memo-ticket: abcdef123456\nand again darwin-memo-ticket:\n abcdef123456 and darwin-memo-ticket: 0123456789ab", []string{"abcdef123456", "0123456789ab"}},
	} {
		ts, errs := ParseTickets(tc.body)
		var got []string
		for _, x := range ts {
			got = append(got, x.ID)
		}
		if !slices.Equal(got, tc.want) || len(errs) != 0 {
			t.Errorf("ParseTickets(%q) = %v %v, want %v", tc.body, got, errs, tc.want)
		}
	}
}

func TestCase34TickOnlyOnLandedSettle(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	base, err := Parse("base.json", mustMarshal(t, s)) // d is at the base, so its ticket verifies
	if err != nil {
		t.Fatal(err)
	}
	id := pend(s, d.ID)
	for _, body := range []string{"no ticket here", "darwin-memo-ticket: 000000000000", ""} {
		rep := s.SettleBody(base, body, 1, SettleOptions{Source: "ci"}, TickOptions{})
		if rep.Tick != nil || s.TickCount() != 0 {
			t.Errorf("body %q ticked", body)
		}
	}
	rep := s.SettleBody(base, "fixes it\n\ndarwin-memo-ticket: "+id+"\ndarwin-memo-ticket: "+id, 1, SettleOptions{Source: "ci"}, TickOptions{})
	if rep.Tick == nil || s.TickCount() != 1 || len(rep.Tickets) != 1 {
		t.Errorf("landed ticket: tick %v count %d tickets %d", rep.Tick, s.TickCount(), len(rep.Tickets))
	}
}

func TestCase35OpenedSince(t *testing.T) {
	s := newTestStore()
	d := mustAdd(t, s, "q", "a")
	x := pend(s, d.ID)
	base, err := Parse("base.json", mustMarshal(t, s))
	if err != nil {
		t.Fatal(err)
	}
	y := pend(s, d.ID)
	rep := s.SettleBody(base, "darwin-memo-ticket: "+x+" darwin-memo-ticket: "+y, 1, SettleOptions{}, TickOptions{})
	if len(rep.Tickets) != 2 || rep.Tickets[0].Refused == "" || rep.Tickets[1].Result == nil || !rep.Tickets[1].Result.Landed {
		t.Fatalf("report %+v", rep.Tickets)
	}
	if !isPending(s, x) || isPending(s, y) {
		t.Error("X settled or Y not settled")
	}
}

func mustMarshal(t *testing.T, s *Store) []byte {
	t.Helper()
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPySum(t *testing.T) {
	// CPython 3.12+ sum(): compensated.
	if got := pySum(slices.Repeat([]float64{0.1}, 10)); got != 1.0 {
		t.Errorf("sum([0.1]*10) = %v, want 1.0", got)
	}
	if got := pySum([]float64{1e16, 1.0, -1e16}); got != 1.0 {
		t.Errorf("got %v", got)
	}
}

func TestHistoryCap(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "q", "a")
	e.Energy = 5
	for i := 0; i < 130; i++ {
		s.tick = i
		s.Settle(pend(s, e.ID), 0.001, SettleOptions{})
	}
	h := s.History(e.ID)
	if len(h) != HistoryCap {
		t.Fatalf("%d notes, want %d", len(h), HistoryCap)
	}
	if tk, _ := h[0].Tick(); tk != 30 {
		t.Errorf("oldest kept note is from tick %d, want 30 (older ones dropped from the front)", tk)
	}
}

func TestIndexKeptUpToDate(t *testing.T) {
	for _, r := range []Retrieval{RetrievalDarwinMemo, RetrievalBM25F} {
		t.Run(string(r), func(t *testing.T) { testIndexKeptUpToDate(t, r) })
	}
}

func testIndexKeptUpToDate(t *testing.T, r Retrieval) {
	s := New("lessons.json", Options{Now: func() time.Time { return t0 }, Retrieval: r})
	a := mustAdd(t, s, "terraform state lock", "use dynamodb locking")
	if hits, _ := s.Retrieve("terraform state", RetrieveOptions{}); len(hits) != 1 {
		t.Fatal("first retrieval")
	}
	b := mustAdd(t, s, "terraform plan output", "pipe through tf-summarize")
	hits, _ := s.Retrieve("terraform", RetrieveOptions{})
	if len(hits) != 2 {
		t.Fatalf("entry added after the index was built not found: %v", hits)
	}
	s.Forget(a.ID)
	hits, _ = s.Retrieve("terraform", RetrieveOptions{})
	if len(hits) != 1 || hits[0].Entry != b {
		t.Fatalf("buried entry still retrieved: %v", hits)
	}
	// the incremental index ranks exactly like a fresh one
	fresh, _ := ParseWith("x", mustMarshal(t, s), Options{Retrieval: r})
	h2, _ := fresh.Retrieve("terraform", RetrieveOptions{})
	if len(h2) != 1 || h2[0].Score != hits[0].Score {
		t.Errorf("incremental score %v, fresh %v", hits[0].Score, h2[0].Score)
	}
}

// Differences a differential run against the Python darwin-memo found
// (issue 15 §1, §1b). Each is fixed, so these cases state darwin-memo's
// numbers.

// Given darwin-memo's committed store (no ledger.config) loaded with the
// options the CLI and the action use (RecommendedConfig for new stores),
// when a ticket with a supporter at 1.0 settles delta +1 at scale 2 and the
// store ticks, then the supporter ends at 1.019 (share 0.25, darwin-memo's
// default), not 0.95 (share 0), and an unchanged store writes back
// byte-identically (no "supporting_share": 0.0).
func TestCaseCompatStoreWithoutLedgerConfigKeepsDefaults(t *testing.T) {
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	rec := RecommendedConfig()
	s, err := ParseWith("lessons.json", data, Options{Now: func() time.Time { return t0 }, Config: &rec})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Config().SupportingShare; got != 0.25 {
		t.Fatalf("supporting_share %v, want darwin-memo's 0.25", got)
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Fatal("loading with Options.Config changed the written store")
	}
	d := mustAdd(t, s, "how do I run the integration tests", "make integration")
	sup := mustAdd(t, s, "integration test port", "tests share port 8080")
	scale(s, 2)
	s.Settle(pend(s, d.ID, sup.ID), 1, SettleOptions{})
	s.Tick(TickOptions{})
	want := 1.0 + 0.25*0.6*math.Tanh(0.5) - 0.05
	if math.Abs(sup.Energy-want) > 1e-12 || math.Round(sup.Energy*1000)/1000 != 1.019 {
		t.Errorf("supporter energy %v, want %v (1.019)", sup.Energy, want)
	}
}

// Given a store at tick 4, when a lesson is added with source pr#12, then
// it gets darwin-memo's birth note "born at tick 4 (source pr#12, stake 1)"
// with event birth, source and stake 1.0; with an admission window of 3 the
// text ends ", juvenile window 3)".
func TestCaseCompatAddWritesBirthNote(t *testing.T) {
	for _, tc := range []struct {
		window int
		text   string
	}{
		{0, "born at tick 4 (source pr#12, stake 1)"},
		{3, "born at tick 4 (source pr#12, stake 1, juvenile window 3)"},
	} {
		s := newTestStore()
		s.tick = 4
		admissionWindow(s, tc.window)
		e, err := s.Add(NewLesson{Question: "q", Answer: "a", Sources: []string{"pr#12"}})
		if err != nil {
			t.Fatal(err)
		}
		n := lastNote(s, e.ID)
		if n.Text() != tc.text || n.Event() != "birth" || n.v.Field("source").Str() != "pr#12" {
			t.Errorf("window %d: note %s, want text %q", tc.window, noteJSON(n), tc.text)
		}
		if tick, _ := n.Tick(); tick != 4 || !strings.Contains(noteJSON(n), `"stake": 1.0`) {
			t.Errorf("window %d: note %s", tc.window, noteJSON(n))
		}
	}
}

// Given a lesson that is both pinned and named by a pending ticket, when it
// is forgotten, then the result is "escrowed" (darwin-memo checks escrow
// first), the refusal is logged with reason escrowed, and it stays living.
func TestCaseCompatForgetChecksEscrowBeforePin(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "vendored dependencies policy", "never edit vendor/")
	s.Pin(e.ID)
	pend(s, e.ID)
	if r := s.Forget(e.ID); r != ForgetEscrowed {
		t.Fatalf("forget = %s, want escrowed", r)
	}
	if ev := lastEvent(s); ev.Name() != "forget_refused" || eventStr(ev, "reason") != ForgetEscrowed {
		t.Errorf("event %s %s", ev.Name(), eventStr(ev, "reason"))
	}
	if _, ok := s.Entry(e.ID); !ok {
		t.Error("forgotten despite escrow")
	}
}

// Given a store persisting resource_scale 2.0, when a ticket settles delta
// +1 with SettleOptions.Scale 1.5, then the decider earns 0.6·tanh(1/1.5)
// and the persisted scale stays 2.0 (no ledger.config change).
func TestSettleScaleOverridesOnlyThisSettlement(t *testing.T) {
	s := newTestStore()
	scale(s, 2)
	d := mustAdd(t, s, "q", "a")
	s.Settle(pend(s, d.ID), 1, SettleOptions{Scale: 1.5})
	if want := 1 + 0.6*math.Tanh(1/1.5); math.Abs(d.Energy-want) > 1e-12 {
		t.Errorf("energy %v, want %v", d.Energy, want)
	}
	if c := s.Config(); c.ResourceScale == nil || *c.ResourceScale != 2 {
		t.Errorf("persisted scale %v, want 2", c.ResourceScale)
	}
}

// Given a living lesson, when it is pinned and then unpinned, then its notes
// carry darwin-memo's events "pinned" and "unpinned" (the event log keeps
// "pin" and "unpin", as darwin-memo's does).
func TestCaseCompatPinNotes(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "vendored dependencies policy", "never edit vendor/")
	for _, step := range []struct {
		do        func(string) bool
		note, log string
	}{{s.Pin, "pinned", "pin"}, {s.Unpin, "unpinned", "unpin"}} {
		step.do(e.ID)
		if n := lastNote(s, e.ID); n.Event() != step.note {
			t.Errorf("note %s, want event %q", noteJSON(n), step.note)
		}
		if ev := lastEvent(s); ev.Name() != step.log {
			t.Errorf("log event %s, want %q", ev.JSON(), step.log)
		}
	}
}

// Given a lesson a settlement drains below zero (executed) and one a
// zero-delta settle finds starved, when the ticket settles, then each
// burial note is darwin-memo's {"event": "buried", "via": "settle",
// "cause": ...}, "via" before "cause".
func TestCaseCompatBuriedOnSettleNote(t *testing.T) {
	for _, tc := range []struct {
		energy, delta float64
		cause         string
	}{{0.1, -1, "executed"}, {0, 0, "starved"}} {
		s := newTestStore()
		e := mustAdd(t, s, "q", "a")
		e.Energy = tc.energy
		s.Settle(pend(s, e.ID), tc.delta, SettleOptions{})
		if _, ok := s.Dead(e.ID); !ok {
			t.Fatalf("%s: not buried", tc.cause)
		}
		want := `"event": "buried", "via": "settle", "cause": "` + tc.cause + `"`
		if n := lastNote(s, e.ID); !strings.Contains(noteJSON(n), want) {
			t.Errorf("%s: note %s, want it to contain %s", tc.cause, noteJSON(n), want)
		}
	}
}

// Given a juvenile lesson named by two pending tickets, when a settlement of
// -1 on the first denies it admission (buried although the second escrows
// it) and the second is then abandoned, then darwin-memo's abandon note is
// still written on the buried entry: event "abandon", the ticket, and the
// "abandoned: not acted on" detail.
func TestCaseCompatAbandonNotesBuriedDecider(t *testing.T) {
	s := newTestStore()
	admissionWindow(s, 3)
	d := mustAdd(t, s, "q", "a")
	first, second := pend(s, d.ID), pend(s, d.ID)
	s.Settle(first, -1, SettleOptions{})
	if _, ok := s.Dead(d.ID); !ok {
		t.Fatal("decider not buried by the denied admission")
	}
	if !s.Abandon(second).Landed {
		t.Fatal("abandon did not land")
	}
	n := lastNote(s, d.ID)
	if n.Event() != "abandon" || !strings.Contains(noteJSON(n), `"ticket": "`+second+`"`) || !strings.Contains(noteJSON(n), `"detail": "abandoned: not acted on"`) {
		t.Errorf("last note %s, want the abandon note of ticket %s", noteJSON(n), second)
	}
	if g, _ := s.Dead(d.ID); g.Uses != 1 {
		t.Errorf("uses %d, want 1 (abandon counts no use)", g.Uses)
	}
}

// Given 20 lessons at darwin-memo's upkeep of 0.05, when the store ticks,
// then the tick record marshals its energies as darwin-memo prints them,
// Python floats: "total_energy": 19.0 and "upkeep_charged": 1.0.
func TestCaseCompatTickRecordFloats(t *testing.T) {
	s := newTestStore()
	for i := range 20 {
		mustAdd(t, s, "question "+strings.Repeat("x", i+1), "answer")
	}
	out, err := json.Marshal(s.Tick(TickOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tick":1,"population":20,"deaths":0,"merges":0,"pending":0,"expired":0,"total_energy":19.0,"upkeep_charged":1.0}`; string(out) != want {
		t.Errorf("tick record %s, want %s", out, want)
	}
}

// Given a store whose every settlement came from an operator, when the
// doctor reports it as JSON, then the share of settlements not from CI is
// written as darwin-memo writes it, a Python float ("share": 1.0).
func TestCaseCompatDoctorFloats(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "q", "a")
	e.Energy = 5
	for range 5 {
		s.Settle(pend(s, e.ID), 1, SettleOptions{Source: "operator"})
	}
	out, err := json.Marshal(s.Doctor(s.events))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"share":1.0`) {
		t.Errorf("doctor JSON %s, want \"share\":1.0", out)
	}
}

// Given a store without ledger.config (darwin-memo's supporting_share 0.25)
// ranked by the default ranking, holding a lesson that answers the question
// and one darwin-memo's retrieval also returns for it, when the question is
// decided, then the ticket names the second lesson as supporter, as
// darwin-memo's does; the ticket verifies at the same store, and settling it
// at delta +1, scale 1, leaves the supporter at 1 + 0.25·0.6·tanh(1) =
// 1.114239 (darwin-memo's value on the same sequence), not 1.0.
func TestCaseCompatDefaultRankingNamesSupporters(t *testing.T) {
	s := New("lessons.json", Options{Now: func() time.Time { return t0 }})
	if s.Retrieval() == RetrievalDarwinMemo {
		t.Fatal("the default ranking is darwin-memo's; this case is about another one")
	}
	d := mustAdd(t, s, "How do I run the integration tests?", "make integration; start docker first")
	sup := mustAdd(t, s, "Which port do the integration tests use?", "port 8080")
	dec, err := s.Decide("how do I run the integration tests", DecideOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dec.Decider != d.ID || !slices.Equal(dec.Supporting, []string{sup.ID}) {
		t.Fatalf("decider %s supporters %v, want %s and [%s]", dec.Decider, dec.Supporting, d.ID, sup.ID)
	}
	ft := dec.FreeTicket()
	if err := s.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: ft.ID(), Free: ft}, VerifyOptions{}); err != nil {
		t.Fatalf("the ticket does not verify at the store that minted it: %v", err)
	}
	other := mustAdd(t, s, "How do I deploy the docs site?", "push to the gh-pages branch")
	forged := ft
	forged.Supporting = []string{other.ID}
	if err := s.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: forged.ID(), Free: forged}, VerifyOptions{}); err == nil {
		t.Error("a ticket naming a supporter no ranking retrieves for its query verified")
	}
	s.SettleFree(ft, 1, SettleOptions{Scale: 1})
	if got := pyRound(sup.Energy, 6); got != 1.114239 {
		t.Errorf("supporter energy %v, want 1.114239", sup.Energy)
	}
}

func eventHas(ev storedoc.Event, key string) bool { _, ok := ev.Get(key); return ok }

func eventStr(ev storedoc.Event, key string) string { v, _ := ev.Get(key); return v.Str() }

// noteJSON is the note as compact JSON.
func noteJSON(n Note) string { return string(pyjson.Compact(n.v)) }
