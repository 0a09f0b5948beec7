package ledgerarm

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

func lesson(id int, q, a string) sim.Lesson {
	return sim.Lesson{ID: id, Question: q, Answer: a}
}

func TestConsultSettleTicksOnlyWhenLanded(t *testing.T) {
	a := New(Options{})
	if err := a.Add(lesson(7, "flaky cache eviction", "clear the cache before the test"), 0); err != nil {
		t.Fatal(err)
	}
	silent, err := a.Consult("unrelated words entirely", 0)
	if err != nil || !silent.Silent() || silent.Ticket != "" {
		t.Fatalf("consult = %+v, %v; want silent", silent, err)
	}
	c, err := a.Consult("cache eviction", 0)
	if err != nil || c.Silent() {
		t.Fatalf("consult = %+v, %v", c, err)
	}
	if !slices.Equal(c.Decider.Lessons, []int{7}) {
		t.Fatalf("decider carries %v, want [7]", c.Decider.Lessons)
	}
	// A batch with nothing that lands does not tick.
	if landed, _ := a.Settle([]sim.Consultation{silent}, 1, 0); landed || a.Store().TickCount() != 0 {
		t.Fatalf("silent batch landed=%v tick=%d", landed, a.Store().TickCount())
	}
	if landed, _ := a.Settle([]sim.Consultation{c}, 2, 1); !landed || a.Store().TickCount() != 1 {
		t.Fatalf("landed=%v tick=%d, want true 1", landed, a.Store().TickCount())
	}
	e := a.Store().Living()[0]
	// 1.0 + 0.6·tanh(2/1.5) − 0.09 retrieval upkeep − 0.05·0.3·0.1 idle
	// upkeep under tenure (one unbundled gain earns it),
	// at the default scale and economics (lessons.RecommendedConfig; one
	// ticket, so bundle split changes nothing).
	if want := 1.0 + 0.6*0.8700616617426719 - 0.09 - 0.05*0.3*0.1; e.Energy < want-1e-12 || e.Energy > want+1e-12 {
		t.Errorf("energy %v, want %v", e.Energy, want)
	}
	// The same ticket again is dropped: no landing, no tick.
	if landed, _ := a.SettleTransitions([]sim.Consultation{c}, 2, 1, 2); landed || a.Store().TickCount() != 1 {
		t.Fatalf("duplicate settle landed=%v tick=%d", landed, a.Store().TickCount())
	}
	if landed, _ := a.Settle([]sim.Consultation{c}, 2, 2); landed || a.Store().TickCount() != 1 {
		t.Fatalf("duplicate settle landed=%v tick=%d", landed, a.Store().TickCount())
	}
}

func TestPoisonIsExecuted(t *testing.T) {
	a := New(Options{})
	a.Add(lesson(1, "retry database migration", "drop the table and retry"), 0)
	for pr := 0; pr < 10 && len(a.Living()) > 0; pr++ {
		c, _ := a.Consult("database migration", pr)
		if c.Silent() {
			t.Fatalf("PR %d: silent while the lesson lives", pr)
		}
		a.Settle([]sim.Consultation{c}, -3, pr)
	}
	if n := len(a.Living()); n != 0 {
		t.Fatalf("%d living after repeated -3 settlements", n)
	}
	dead := a.Store().Graveyard()
	if len(dead) != 1 || !a.Store().Damaged(dead[0].ID) {
		t.Fatalf("graveyard %v: want the poisoned lesson, damaged (executed)", dead)
	}
}

func TestMergedEntryCarriesMembersLessons(t *testing.T) {
	// darwin-memo's upkeep rules: the supporter pays no retrieval upkeep,
	// so both near-duplicates live until consolidation.
	cfg := lessons.DefaultConfig()
	cfg.SupportingShare = 0
	a := New(Options{Config: &cfg})
	a.Add(lesson(3, "kabama kebama kibama kobama kubama", "lalama lelama lilama lolama lulama"), 0)
	a.Add(lesson(4, "kabama kebama kibama kobama kubama", "lalama lelama lilama lolama zuzuzu"), 0)
	// Five landed settlements make five ticks; consolidation runs at tick 5.
	for pr := 0; pr < 5; pr++ {
		c, _ := a.Consult("kabama kebama", pr)
		if landed, _ := a.Settle([]sim.Consultation{c}, 1, pr); !landed {
			t.Fatalf("PR %d did not land", pr)
		}
	}
	living := a.Living()
	if len(living) != 1 {
		t.Fatalf("%d living entries, want one merged entry", len(living))
	}
	got := slices.Clone(living[0].Lessons)
	slices.Sort(got)
	if !slices.Equal(got, []int{3, 4}) {
		t.Fatalf("merged entry carries %v, want [3 4]", got)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.PRs = 150
	cfg.Noise = 0.1
	w, err := sim.NewWorld(cfg, 9)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := sim.Run(w, New(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := sim.Run(w, New(Options{}))
	if !reflect.DeepEqual(r1, r2) {
		t.Fatal("two ledger runs on one world differ")
	}
	// The ledger does evict: population stays well below keep-everything's.
	keep, _ := sim.Run(w, sim.KeepEverything())
	if last := len(r1.PRs) - 1; r1.PRs[last].Population >= keep.PRs[last].Population {
		t.Errorf("ledger population %d, keep_everything %d", r1.PRs[last].Population, keep.PRs[last].Population)
	}
}

func TestOptionsDescribe(t *testing.T) {
	got := Options{}.Describe()
	for _, want := range []string{"resource scale 1.5", "upkeep 0.015 per tick while idle", "plus 0.09 per settled ticket", "a PR's delta split equally among its tickets", "tenure after 1 unbundled gain ", "regressions assessed apart", "(1.2 on a negative delta)", "supporting share 0,"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe() = %q lacks %q", got, want)
		}
	}
}

// flakyScenario is one topic of six tests and one useful lesson; every PR
// fixes its task's test (a different one each time, so no real transition
// is quarantined) with the lesson's help. Test 3 is flaky: it flips in
// PRs 0 to 2 (head, base, head), which quarantines it; flakeAt3 adds the
// extra spurious reds of PR 3.
func flakyScenario(t *testing.T, flakeAt3 []int) (*Arm, *sim.Result) {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Topics, cfg.TestsPerTopic, cfg.FlakyTests = 1, 6, 0
	cfg.PBase, cfg.PFix, cfg.PTrap, cfg.PHarm, cfg.MaxDelay = 0, 1, 0, 1, 0
	task := func(target int) []sim.Task {
		return []sim.Task{{Topic: 0, Query: "kabubu kebubu", Target: target, UFix: 0.5, UHarm: 0.5, Harm: 1}}
	}
	prs := []sim.PR{
		{Tasks: task(0), HeadFlakes: []int{3}},
		{Tasks: task(1), BaseFlakes: []int{3}},
		{Tasks: task(4), HeadFlakes: []int{3}},
		{Tasks: task(5), HeadFlakes: flakeAt3},
	}
	ls := []sim.Lesson{{Class: sim.Useful, Topic: 0, Fact: 0, Question: "kabubu kebubu kibubu", Answer: "rebuild the fixture cache"}}
	w, err := sim.HandBuilt(cfg, ls, prs)
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{})
	r, err := sim.Run(w, a)
	if err != nil {
		t.Fatal(err)
	}
	return a, r
}

func TestQuarantinedFlakeDoesNotMoveALesson(t *testing.T) {
	energy := func(a *Arm) float64 {
		living := a.Store().Living()
		if len(living) != 1 {
			t.Fatalf("%d living entries, want the useful lesson", len(living))
		}
		return living[0].Energy
	}
	clean, rc := flakyScenario(t, nil)
	quarantined, rq := flakyScenario(t, []int{3})
	fresh, rf := flakyScenario(t, []int{2})

	// The first flips of test 3 do count: PR 0's fix is reported as 0.
	if d := rc.PRs[0].CI.Delta; d != 0 || rc.PRs[0].TrueDelta != 1 {
		t.Fatalf("PR 0: measured %g, true %g; want 0 and 1", d, rc.PRs[0].TrueDelta)
	}
	// By PR 3 test 3 is quarantined: its red leaves the delta and the
	// lesson ends exactly where it ends without the flake.
	if m := rq.PRs[3].CI; m.Delta != 1 || m.SpuriousQuarantined != 1 {
		t.Fatalf("PR 3 with a red on quarantined test 3: %+v, want delta 1 with the red quarantined", m)
	}
	if eq, ec := energy(quarantined), energy(clean); eq != ec {
		t.Errorf("a quarantined flake moved the lesson: energy %v, without the flake %v", eq, ec)
	}
	// A red on a test with no flip history does count and does cost energy.
	if m := rf.PRs[3].CI; m.Delta != 0 || m.Spurious != 1 || m.SpuriousQuarantined != 0 {
		t.Fatalf("PR 3 with a red on steady test 2: %+v, want delta 0", m)
	}
	if ef, ec := energy(fresh), energy(clean); ef >= ec {
		t.Errorf("a first-time flake did not cost the lesson: energy %v, without it %v", ef, ec)
	}
}

func TestConsultsWithTheRankingItIsGiven(t *testing.T) {
	tests := []struct {
		retrieval lessons.Retrieval
		want      lessons.Retrieval
		version   int
	}{
		{"", lessons.RetrievalBM25F, 2}, // what decide ships
		{lessons.RetrievalBM25F, lessons.RetrievalBM25F, 2},
		{lessons.RetrievalDarwinMemo, lessons.RetrievalDarwinMemo, 1},
	}
	for _, tt := range tests {
		a := New(Options{Retrieval: tt.retrieval})
		if got := a.Store().Retrieval(); got != tt.want {
			t.Errorf("Retrieval %q: the store ranks with %q, want %q", tt.retrieval, got, tt.want)
		}
		if err := a.Add(lesson(0, "flaky cache eviction in the fixture loader", "clear the cache before the test"), 0); err != nil {
			t.Fatal(err)
		}
		for _, e := range a.Store().Living() {
			e.Probation = 0
		}
		c, err := a.Consult("flaky cache eviction fixture loader", 0)
		if err != nil || c.Silent() {
			t.Fatalf("Retrieval %q: consult = %+v, %v", tt.retrieval, c, err)
		}
		if ft := a.tickets[c.Ticket]; ft.Version != tt.version {
			t.Errorf("Retrieval %q: ticket version %d, want %d", tt.retrieval, ft.Version, tt.version)
		}
		if d := (Options{Retrieval: tt.retrieval}).Describe(); !strings.HasPrefix(d, "consulting with ") {
			t.Errorf("Describe() = %q, want the ranking first", d)
		}
	}
}
