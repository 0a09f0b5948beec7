package lessons

// Issue 13's economics (economics.go): each mechanism is off in
// DefaultConfig (darwin-memo's rules) and behaves as documented when its
// ledger.config key is set.

import (
	"math"
	"strings"
	"testing"
)

func econStore(t *testing.T, mod func(*Config)) *Store {
	t.Helper()
	s := newTestStore()
	c := DefaultConfig()
	c.SupportingShare = 0
	mod(&c)
	s.SetConfig(c)
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRetrievalUpkeep(t *testing.T) {
	credit := 0.6 * math.Tanh(1) // delta 1 at scale 1
	tests := []struct {
		name         string
		retrieval    float64
		settle       func(s *Store, id string) // how the ticket ends
		wantDecider  float64
		wantSupport  float64
		pinSupporter bool
	}{
		{"off: darwin-memo", 0, func(s *Store, id string) { s.Settle(id, 1, SettleOptions{}) }, 1 + credit, 1, false},
		{"decider and supporter pay once", 0.2, func(s *Store, id string) { s.Settle(id, 1, SettleOptions{}) }, 1 + credit - 0.2, 0.8, false},
		{"zero delta still pays", 0.2, func(s *Store, id string) { s.Settle(id, 0, SettleOptions{}) }, 0.8, 0.8, false},
		{"abandoned ticket pays nothing", 0.2, func(s *Store, id string) { s.Abandon(id) }, 1, 1, false},
		{"pinned supporter floored at 0", 1.5, func(s *Store, id string) { s.Settle(id, 1, SettleOptions{}) }, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := econStore(t, func(c *Config) { c.RetrievalUpkeep = tt.retrieval })
			a := mustAdd(t, s, "cache eviction order", "evict oldest first")
			b := mustAdd(t, s, "cache eviction policy", "evict least used")
			if tt.pinSupporter {
				s.Pin(b.ID)
			}
			tt.settle(s, pend(s, a.ID, b.ID))
			wantA := tt.wantDecider
			if tt.pinSupporter {
				wantA = 1 + credit - 1.5
				if _, alive := s.Entry(a.ID); alive {
					t.Fatalf("decider at %v should be buried", a.Energy)
				}
				if d, _ := s.Dead(a.ID); d.Energy != wantA {
					t.Errorf("buried decider balance %v, want %v", d.Energy, wantA)
				}
			} else if !near(a.Energy, wantA) {
				t.Errorf("decider energy %v, want %v", a.Energy, wantA)
			}
			if !near(b.Energy, tt.wantSupport) {
				t.Errorf("supporter energy %v, want %v", b.Energy, tt.wantSupport)
			}
		})
	}
}

func TestIdleUpkeepScaleAndTicksToStarvation(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		name  string
		scale *float64
		want  float64
	}{
		{"nil: darwin-memo's 0.05", nil, 0.95},
		{"0.3", f(0.3), 1 - 0.015},
		{"0: no idle upkeep", f(0), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := econStore(t, func(c *Config) { c.IdleUpkeepScale = tt.scale })
			e := mustAdd(t, s, "q", "a")
			s.Tick(TickOptions{})
			if !near(e.Energy, tt.want) {
				t.Errorf("energy after one tick %v, want %v", e.Energy, tt.want)
			}
			got := s.TicksToStarvation(e)
			if tt.want == 1 {
				if got != nil {
					t.Errorf("ticks to starvation %v without idle upkeep, want nil", *got)
				}
			} else if want := math.Round(10*e.Energy/(1-tt.want)) / 10; got == nil || *got != want {
				t.Errorf("ticks to starvation %v, want %v", got, want)
			}
		})
	}
}

func TestHarmGain(t *testing.T) {
	tests := []struct {
		harm, delta, want float64
	}{
		{0, -1, 1 - 0.6*math.Tanh(1)},   // off: credit_gain both ways
		{1.2, -1, 1 - 1.2*math.Tanh(1)}, // loss aversion
		{1.2, 1, 1 + 0.6*math.Tanh(1)},  // gains keep credit_gain
		{1.2, 0, 1},                     // zero delta moves nothing
	}
	for _, tt := range tests {
		s := econStore(t, func(c *Config) { c.HarmGain = tt.harm })
		e := mustAdd(t, s, "q", "a")
		s.Settle(pend(s, e.ID), tt.delta, SettleOptions{})
		if !near(e.Energy, tt.want) {
			t.Errorf("harm gain %v, delta %v: energy %v, want %v", tt.harm, tt.delta, e.Energy, tt.want)
		}
	}
}

func TestBundleSplit(t *testing.T) {
	tests := []struct {
		split  bool
		bundle int
		want   float64
	}{
		{false, 3, 1 + 0.6*math.Tanh(3)},
		{true, 3, 1 + 0.6*math.Tanh(1)},
		{true, 1, 1 + 0.6*math.Tanh(3)},
		{true, 0, 1 + 0.6*math.Tanh(3)},
	}
	for _, tt := range tests {
		s := econStore(t, func(c *Config) { c.BundleSplit = tt.split })
		e := mustAdd(t, s, "q", "a")
		s.Settle(pend(s, e.ID), 3, SettleOptions{Bundle: tt.bundle})
		if !near(e.Energy, tt.want) {
			t.Errorf("split %v bundle %d: energy %v, want %v", tt.split, tt.bundle, e.Energy, tt.want)
		}
	}
}

// TestSegregateLosses checks that, with segregate_losses and the PR's
// regressions known, a lesson is paid for the improvements and charged
// for the regressions apart (each split like the delta), so gains do not
// mask breakage; without the key, or without regressions, the net rule.
func TestSegregateLosses(t *testing.T) {
	r := func(x float64) *float64 { return &x }
	tests := []struct {
		name   string
		seg    bool
		harm   float64
		split  bool
		delta  float64
		regs   *float64
		bundle int
		want   float64
	}{
		{"off: net delta", false, 1.2, false, 1, r(2), 1, 1 + 0.6*math.Tanh(1)},
		{"regressions unknown: net delta", true, 1.2, false, 1, nil, 1, 1 + 0.6*math.Tanh(1)},
		{"no regressions: net delta", true, 1.2, false, 2, r(0), 1, 1 + 0.6*math.Tanh(2)},
		{"gains do not mask harm", true, 1.2, false, 1, r(2), 1, 1 + 0.6*math.Tanh(3) - 1.2*math.Tanh(2)},
		{"net zero still costs", true, 1.2, false, 0, r(2), 1, 1 + 0.6*math.Tanh(2) - 1.2*math.Tanh(2)},
		{"net loss", true, 1.2, false, -2, r(2), 1, 1 - 1.2*math.Tanh(2)},
		{"harm gain unset: credit gain", true, 0, false, 1, r(2), 1, 1 + 0.6*math.Tanh(3) - 0.6*math.Tanh(2)},
		{"both split in a bundle", true, 1.2, true, 1, r(2), 2, 1 + 0.6*math.Tanh(1.5) - 1.2*math.Tanh(1)},
		{"inconsistent regressions: improvements floored at 0", true, 1.2, false, -3, r(1), 1, 1 - 1.2*math.Tanh(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := econStore(t, func(c *Config) { c.SegregateLosses, c.HarmGain, c.BundleSplit = tt.seg, tt.harm, tt.split })
			e := mustAdd(t, s, "q", "a")
			s.Settle(pend(s, e.ID), tt.delta, SettleOptions{Bundle: tt.bundle, Regressions: tt.regs})
			if !near(e.Energy, tt.want) {
				t.Errorf("energy %v, want %v", e.Energy, tt.want)
			}
			found := false
			for _, n := range s.History(e.ID) {
				found = found || n.Event() == "settle" && strings.Contains(noteJSON(n), `"regressions"`)
			}
			if found != (tt.regs != nil) {
				t.Errorf("settle note records regressions: %v", found)
			}
		})
	}
	// SettleFreeBatch passes the regressions to every ticket, as SettleBody does.
	s := econStore(t, func(c *Config) { c.SegregateLosses, c.HarmGain, c.BundleSplit = true, 1.2, true })
	a := mustAdd(t, s, "cache eviction order", "evict oldest first")
	b := mustAdd(t, s, "retry database migration", "drop the table")
	s.SettleFreeBatch([]FreeTicket{{Decider: a.ID, Supporting: []string{}, Query: "cache"}, {Decider: b.ID, Supporting: []string{}, Query: "migration"}},
		0, SettleOptions{Regressions: r(2)})
	if want := 1 + 0.6*math.Tanh(1) - 1.2*math.Tanh(1); !near(a.Energy, want) || !near(b.Energy, want) {
		t.Errorf("batch energies %v %v, want %v", a.Energy, b.Energy, want)
	}
}

// TestTenure checks that tenure is earned by unbundled gains only, revoked
// by any loss, lowers the idle upkeep, and is derived from the history
// notes alone, so a reloaded store agrees.
func TestTenure(t *testing.T) {
	type step struct {
		delta  float64
		bundle int
	}
	tests := []struct {
		name  string
		steps []step
		want  []bool // tenured after each step
	}{
		{"two unbundled gains", []step{{1, 1}, {2, 0}}, []bool{false, true}},
		{"bundled gains do not count", []step{{1, 3}, {1, 2}, {1, 4}, {1, 1}}, []bool{false, false, false, false}},
		{"zero deltas neither earn nor revoke", []step{{1, 1}, {0, 1}, {1, 1}, {0, 1}}, []bool{false, false, true, true}},
		{"a loss revokes, bundled or not", []step{{1, 1}, {1, 1}, {-1, 3}, {1, 1}, {1, 1}}, []bool{false, true, false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := econStore(t, func(c *Config) { c.TenureAfter, c.TenureUpkeepScale = 2, 0.1 })
			e := mustAdd(t, s, "q", "a")
			e.Energy = 3 // room for losses
			for i, st := range tt.steps {
				s.Settle(pend(s, e.ID), st.delta, SettleOptions{Bundle: st.bundle})
				if got := s.Tenured(e); got != tt.want[i] {
					t.Fatalf("after step %d: tenured %v, want %v", i, got, tt.want[i])
				}
				out, _ := s.Marshal()
				re, err := Parse("x", out)
				if err != nil {
					t.Fatal(err)
				}
				if r, _ := re.Entry(e.ID); re.Tenured(r) != tt.want[i] {
					t.Fatalf("after step %d: the reloaded store says tenured %v", i, re.Tenured(r))
				}
			}
			before := e.Energy
			s.Tick(TickOptions{})
			wantUpkeep := 0.05
			if tt.want[len(tt.want)-1] {
				wantUpkeep = 0.005
			}
			if !near(before-e.Energy, wantUpkeep) {
				t.Errorf("idle upkeep %v, want %v", before-e.Energy, wantUpkeep)
			}
		})
	}
	// Off (darwin-memo): never tenured.
	s := econStore(t, func(*Config) {})
	e := mustAdd(t, s, "q", "a")
	for range 3 {
		s.Settle(pend(s, e.ID), 1, SettleOptions{})
	}
	if s.Tenured(e) {
		t.Error("tenured with tenure_after 0")
	}
}

func TestSettleBodyRecordsTheBundle(t *testing.T) {
	s := econStore(t, func(c *Config) { c.TenureAfter, c.TenureUpkeepScale = 1, 0.1 })
	a := mustAdd(t, s, "cache eviction order", "evict oldest first")
	b := mustAdd(t, s, "flaky clock tests", "inject a fake clock")
	out, _ := s.Marshal()
	base, err := Parse("base", out)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, q := range []string{"cache eviction", "flaky clock"} {
		d, err := base.Decide(q, DecideOptions{})
		if err != nil || d.Silent {
			t.Fatalf("decide %q: %+v %v", q, d, err)
		}
		lines = append(lines, d.StoreFreeLine())
	}
	rep := s.SettleBody(base, strings.Join(lines, "\n"), 2, SettleOptions{Source: "ci"}, TickOptions{})
	if rep.Tick == nil {
		t.Fatalf("nothing landed: %+v", rep)
	}
	for _, e := range []*Entry{a, b} {
		h := s.History(e.ID)
		if n, ok := h[len(h)-1].v.Field("bundle").Int(); !ok || n != 2 {
			t.Errorf("%s: last note %s lacks bundle 2", e.ID, noteJSON(h[len(h)-1]))
		}
		if s.Tenured(e) {
			t.Errorf("%s tenured by a bundled gain", e.ID)
		}
	}
}

func TestEconomicsConfigKeys(t *testing.T) {
	// DefaultConfig writes none of the extension keys, so a store we save
	// with darwin-memo's economics is byte-for-byte what darwin-memo writes.
	s := newTestStore()
	s.SetConfig(DefaultConfig())
	out, _ := s.Marshal()
	for _, f := range configFields {
		if f.ext && strings.Contains(string(out), `"`+f.key+`"`) {
			t.Errorf("DefaultConfig writes %s", f.key)
		}
	}
	// RecommendedConfig writes them after darwin-memo's keys and reads them
	// back.
	s.SetConfig(RecommendedConfig())
	out, _ = s.Marshal()
	if i, j := strings.Index(string(out), `"conflict_threshold"`), strings.Index(string(out), `"retrieval_upkeep"`); i < 0 || j < i {
		t.Errorf("extension keys not after darwin-memo's:\n%s", out)
	}
	re, err := Parse("x", out)
	if err != nil {
		t.Fatal(err)
	}
	got, want := re.Config(), RecommendedConfig()
	if got.RetrievalUpkeep != want.RetrievalUpkeep || got.IdleUpkeepScale == nil || *got.IdleUpkeepScale != *want.IdleUpkeepScale ||
		got.HarmGain != want.HarmGain || got.TenureAfter != want.TenureAfter || got.TenureUpkeepScale != want.TenureUpkeepScale || got.BundleSplit != want.BundleSplit ||
		got.SegregateLosses != want.SegregateLosses {
		t.Errorf("round trip: %+v, want %+v", got, want)
	}
	if len(re.Warnings()) != 0 {
		t.Errorf("warnings %v", re.Warnings())
	}
	again, _ := re.Marshal()
	if string(again) != string(out) {
		t.Error("a second round trip changes the bytes")
	}

	// Wrong types fall back to darwin-memo's rule, with a warning each.
	bad := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": [], "ledger": {"tick_count": 0, "pending": [], "history": {}, "damaged": [],
  "config": {"retrieval_upkeep": "x", "idle_upkeep_scale": true, "harm_gain": null, "tenure_after": 2.5, "tenure_upkeep_scale": "y", "bundle_split": 1, "segregate_losses": "yes"}}}`
	bs, err := Parse("x", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	if c := bs.Config(); c.RetrievalUpkeep != 0 || c.IdleUpkeepScale != nil || c.HarmGain != 0 || c.TenureAfter != 0 || c.TenureUpkeepScale != 0 || c.BundleSplit || c.SegregateLosses {
		t.Errorf("wrong types: %+v", c)
	}
	if n := len(bs.Warnings()); n != 7 {
		t.Errorf("%d warnings, want 7: %v", n, bs.Warnings())
	}

	// A store darwin-memo wrote (no extension keys, or no ledger.config at
	// all) keeps darwin-memo's economics even when the caller's
	// Options.Config is RecommendedConfig (that seeds new stores only).
	rec := RecommendedConfig()
	for _, doc := range []string{
		`{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": []}`,
		`{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": [], "ledger": {"tick_count": 0, "pending": [], "history": {}, "damaged": [], "config": {"supporting_share": 0.25}}}`,
	} {
		ds, err := ParseWith("x", []byte(doc), Options{Config: &rec})
		if err != nil {
			t.Fatal(err)
		}
		if c := ds.Config(); c.RetrievalUpkeep != 0 || c.IdleUpkeepScale != nil || c.HarmGain != 0 || c.TenureAfter != 0 || c.SegregateLosses || c.SupportingShare != 0.25 {
			t.Errorf("darwin-memo store got %+v", c)
		}
	}
}

func TestSettleFreeBatchMovesEachLessonOnce(t *testing.T) {
	s := econStore(t, func(c *Config) { c.RetrievalUpkeep, c.BundleSplit = 0.1, true })
	a := mustAdd(t, s, "cache eviction order", "evict oldest first")
	b := mustAdd(t, s, "cache eviction policy", "evict least used")
	tickets := []FreeTicket{
		{Tick: 0, Decider: a.ID, Supporting: []string{b.ID}, Query: "cache eviction"},
		{Tick: 0, Decider: a.ID, Supporting: []string{}, Query: "eviction order"},
	}
	rs := s.SettleFreeBatch(tickets, 2, SettleOptions{Source: "ci"}).Tickets
	if len(rs) != 2 || !rs[0].Result.Landed {
		t.Fatalf("results %+v", rs)
	}
	// One credit and one retrieval upkeep, although two tickets name a; the
	// second ticket names no lesson the first did not, so it does not count
	// in the bundle (as SettleBody counts it): the bundle is 1, not 2.
	if want := 1 + 0.6*math.Tanh(2) - 0.1; !near(a.Energy, want) {
		t.Errorf("decider energy %v, want %v", a.Energy, want)
	}
	if !near(b.Energy, 0.9) {
		t.Errorf("supporter energy %v, want 0.9", b.Energy)
	}
	if s.TickCount() != 0 {
		t.Error("SettleFreeBatch ticked")
	}
}
