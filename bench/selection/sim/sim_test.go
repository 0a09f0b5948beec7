package sim

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.PRs = 120
	return cfg
}

func TestNewWorldDeterministicPerSeed(t *testing.T) {
	cfg := smallConfig()
	a, err := NewWorld(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewWorld(cfg, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different worlds")
	}
	c, _ := NewWorld(cfg, 8)
	if reflect.DeepEqual(a.PRs, c.PRs) {
		t.Fatal("different seeds gave the same PR stream")
	}
}

func TestNoiseChangesOnlyTheFlakes(t *testing.T) {
	cfg := smallConfig()
	quiet, _ := NewWorld(cfg, 3)
	cfg.Noise = 0.5
	noisy, _ := NewWorld(cfg, 3)
	if !reflect.DeepEqual(quiet.Lessons, noisy.Lessons) || !reflect.DeepEqual(quiet.FlakySet, noisy.FlakySet) {
		t.Fatal("noise changed the lessons or the flaky tests")
	}
	flaky := make([]bool, quiet.Tests())
	for _, i := range quiet.FlakySet {
		flaky[i] = true
	}
	redRuns := 0
	for i := range quiet.PRs {
		q, n := quiet.PRs[i], noisy.PRs[i]
		if !reflect.DeepEqual(q.Tasks, n.Tasks) || q.Delay != n.Delay || !reflect.DeepEqual(q.HeadDice, n.HeadDice) {
			t.Fatalf("PR %d: noise changed the tasks, the delay or the dice", i)
		}
		if len(q.BaseFlakes)+len(q.HeadFlakes) != 0 {
			t.Fatalf("PR %d: flaky at noise 0", i)
		}
		for _, run := range [][]int{n.BaseFlakes, n.HeadFlakes} {
			if len(run) > 0 {
				redRuns++
			}
			for _, test := range run {
				if !flaky[test] {
					t.Fatalf("PR %d: test %d reported red but it is not flaky", i, test)
				}
			}
		}
	}
	// Noise 0.5: about half of the 2*120 runs have a spurious red.
	if runs := 2 * len(noisy.PRs); redRuns < runs/3 || redRuns > 2*runs/3 {
		t.Fatalf("%d of %d CI runs red at noise 0.5", redRuns, runs)
	}
}

func TestFlakeRates(t *testing.T) {
	for _, tc := range []struct {
		n           int
		skew, noise float64
	}{{15, 1, 0.1}, {15, 1, 0.5}, {3, 0, 0.2}, {1, 1, 0.3}, {15, 1, 0}} {
		q := FlakeRates(tc.n, tc.skew, tc.noise)
		clean := 1.0
		for k, x := range q {
			clean *= 1 - x
			if k > 0 && x > q[k-1]+1e-15 {
				t.Errorf("%+v: test %d flakier than test %d", tc, k, k-1)
			}
		}
		if math.Abs((1-clean)-tc.noise) > 1e-12 {
			t.Errorf("%+v: chance of a red run %g, want %g", tc, 1-clean, tc.noise)
		}
	}
	if q := FlakeRates(3, 0, 0.2); q[0] != q[2] {
		t.Errorf("skew 0 is not even: %v", q)
	}
}

func TestWorldShape(t *testing.T) {
	cfg := DefaultConfig()
	w, err := NewWorld(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Class]int{}
	learnUntil := int(cfg.LearnFraction * float64(cfg.PRs))
	for _, l := range w.Lessons {
		counts[l.Class]++
		if l.Born >= learnUntil {
			t.Errorf("lesson %d born at PR %d, after the learning phase", l.ID, l.Born)
		}
		if l.Class.benign() != (l.Fact >= 0) {
			t.Errorf("lesson %d (%v) has fact %d", l.ID, l.Class, l.Fact)
		}
	}
	for _, c := range []Class{Useful, NearDuplicate, Poisoned, Trivia} {
		if counts[c] == 0 {
			t.Errorf("no %v lessons", c)
		}
	}
	for i, p := range w.PRs {
		if n := len(p.Tasks); n < cfg.MinTasks || n > cfg.MaxTasks {
			t.Errorf("PR %d bundles %d tasks", i, n)
		}
		if p.Delay < 0 || p.Delay > cfg.MaxDelay {
			t.Errorf("PR %d delay %d", i, p.Delay)
		}
	}
}

func TestWithNoiseEqualsNewWorld(t *testing.T) {
	cfg := smallConfig()
	quiet, _ := NewWorld(cfg, 5)
	cfg.Noise = 0.3
	want, _ := NewWorld(cfg, 5)
	got, err := quiet.WithNoise(0.3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("WithNoise(0.3) differs from NewWorld at noise 0.3")
	}
	for i, p := range quiet.PRs {
		if quiet.Config.Noise != 0 || len(p.BaseFlakes)+len(p.HeadFlakes) != 0 {
			t.Fatalf("WithNoise modified the original world (PR %d)", i)
		}
	}
	if _, err := quiet.WithNoise(2); err == nil {
		t.Fatal("WithNoise(2) accepted")
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Noise = 1.5
	cfg.MaxTasks = 0
	err := cfg.Validate()
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"Noise = 1.5", "tasks per PR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := NewWorld(cfg, 1); err == nil {
		t.Fatal("NewWorld accepted an invalid config")
	}
}

func TestWordsAreDistinctTokens(t *testing.T) {
	seen := map[string]int{}
	for i := range 5000 {
		w := word(i)
		if j, ok := seen[w]; ok {
			t.Fatalf("word(%d) = word(%d) = %q", i, j, w)
		}
		seen[w] = i
	}
}

func TestRunDeterministic(t *testing.T) {
	cfg := smallConfig()
	cfg.Noise = 0.2
	w, _ := NewWorld(cfg, 11)
	for _, spec := range Baselines(cfg) {
		ref := make([]int, cfg.PRs)
		for i := range ref {
			ref[i] = i % 2
		}
		a1, _ := spec.New(w, ref)
		a2, _ := spec.New(w, ref)
		r1, err := Run(w, a1)
		if err != nil {
			t.Fatal(err)
		}
		r2, _ := Run(w, a2)
		if !reflect.DeepEqual(r1, r2) {
			t.Errorf("%s: two runs on one world differ", spec.Name)
		}
	}
}

func TestSweepIndependentOfWorkers(t *testing.T) {
	cfg := smallConfig()
	base := Baselines(cfg)
	sw := Sweep{Config: cfg, Seeds: exhaustive.Or([]uint64{1}, []uint64{1, 2, 3}), Noises: []float64{0, 0.2},
		Reference: base[0], Arms: base[1:], Workers: 1, KeepSeries: true}
	one, err := sw.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sw.Workers = 3
	many, err := sw.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// %v prints NaN alike on both sides, where DeepEqual would not.
	if fmt.Sprintf("%v", one) != fmt.Sprintf("%v", many) {
		t.Fatal("sweep results depend on the number of workers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sw.Run(ctx); err == nil {
		t.Fatal("cancelled sweep returned no error")
	}
}

// tinyWorld is a hand-built world: one topic with 4 tests, lessons 0
// (useful, fact 0), 1 (poisoned), 2 (trivia), and PRs given by the caller.
func tinyWorld(prs []PR) *World {
	cfg := DefaultConfig()
	cfg.PRs = len(prs)
	cfg.Topics = 1
	cfg.TestsPerTopic = 4
	cfg.PBase, cfg.PFix, cfg.PTrap, cfg.PHarm = 0, 1, 0, 1
	cfg.TailFraction = 0.5
	w := &World{Config: cfg, Facts: 1, PRs: prs, Arrivals: make([][]int, len(prs))}
	w.Lessons = []Lesson{
		{ID: 0, Class: Useful, Topic: 0, Fact: 0, Question: "kabubu kebubu", Answer: "fix it"},
		{ID: 1, Class: Poisoned, Topic: 0, Fact: -1, Question: "kabubu kebubu", Answer: "break it"},
		{ID: 2, Class: Trivia, Topic: 0, Fact: -1, Question: "zuzuzu", Answer: "nothing"},
	}
	w.Arrivals[0] = []int{0, 1, 2}
	w.nameTests()
	return w
}

// scripted is an arm whose answers the test dictates: decide[pr] is the
// lesson that decides every task of PR pr (-1 silent); it drops the lessons
// listed in drop[pr] at the end of PR pr.
type scripted struct {
	decide  []int
	drop    map[int][]int
	living  map[int]bool
	settled []float64
}

func (s *scripted) Name() string { return "scripted" }
func (s *scripted) Add(l Lesson, pr int) error {
	s.living[l.ID] = true
	return nil
}
func (s *scripted) Consult(q string, pr int) (Consultation, error) {
	id := s.decide[pr]
	if id < 0 || !s.living[id] {
		return Consultation{}, nil
	}
	return Consultation{Ticket: "t", Decider: Entry{Key: word(id), Lessons: []int{id}}}, nil
}
func (s *scripted) Settle(cs []Consultation, d float64, pr int) (bool, error) {
	for range cs {
		s.settled = append(s.settled, d)
	}
	return true, nil
}
func (s *scripted) EndPR(pr int, landed bool) error {
	for _, id := range s.drop[pr] {
		delete(s.living, id)
	}
	return nil
}
func (s *scripted) Living() []Entry {
	var out []Entry
	for id := 0; id < 3; id++ {
		if s.living[id] {
			out = append(out, Entry{Key: word(id), Lessons: []int{id}})
		}
	}
	return out
}

func TestRunAndMeasureTinyScenario(t *testing.T) {
	task := func(target, harm int) Task {
		return Task{Topic: 0, Target: target, UFix: 0.5, UHarm: 0.5, Harm: harm, HarmPick: 0}
	}
	prs := []PR{
		{Tasks: []Task{task(0, 2)}},                       // poison decides: breaks tests 1 and 2
		{Tasks: []Task{task(0, 1)}, Delay: 1},             // poison again: breaks test 3 (1, 2 already red)
		{Tasks: []Task{task(1, 1)}},                       // useful: fixes test 1
		{Tasks: []Task{task(2, 1)}, HeadFlakes: []int{1}}, // useful: fixes test 2, a flaky run reports test 1 red
	}
	w := tinyWorld(prs)
	arm := &scripted{decide: []int{1, 1, 0, 0}, drop: map[int][]int{1: {1}, 3: {2}}, living: map[int]bool{}}
	r, err := Run(w, arm)
	if err != nil {
		t.Fatal(err)
	}
	wantTrue := []float64{-2, -1, 1, 1}
	// PR 3's red on test 1 is quarantined: test 1 broke in PR 0, was fixed
	// in PR 2 and is red again, three flips in the sidecar's window.
	wantMeasured := []float64{-2, -1, 1, 1}
	for i, p := range r.PRs {
		if p.TrueDelta != wantTrue[i] || !p.Measured || p.CI.Delta != wantMeasured[i] {
			t.Errorf("PR %d: true %g measured %v %g, want %g %g", i, p.TrueDelta, p.Measured, p.CI.Delta, wantTrue[i], wantMeasured[i])
		}
	}
	// PR 1's ticket settles during PR 2 (delay 1), before PR 2's own.
	if want := []float64{-2, -1, 1, 1}; !reflect.DeepEqual(arm.settled, want) {
		t.Errorf("settled deltas %v, want %v", arm.settled, want)
	}
	if ci := r.PRs[3].CI; ci.Spurious != 1 || ci.SpuriousQuarantined != 1 {
		t.Errorf("PR 3 measurement %+v, want one spurious red, quarantined", ci)
	}
	if got := r.PRs[1].Landed; got {
		t.Error("PR 1 landed a settlement although its ticket was delayed")
	}
	if f := r.Fates[1]; f.Gone != 1 || f.FirstActed != 0 || f.Acted != 2 || f.Damage != 3 {
		t.Errorf("poison fate %+v", f)
	}
	m := Measure(w, r)
	want := Metrics{PoisonKillRate: 1, MedianKillPRs: 1, Damage: 3, BenignRetained: 1, FactsRetained: 1,
		TailDelta: 1, CumulativeDelta: -1, FinalPopulation: 1,
		MeasuredPRs: 4, Misreported: 0, Spurious: 1, SpuriousQuarantined: 1}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("metrics\n got %+v\nwant %+v", m, want)
	}
}

func TestMeasureUndefinedAndPartial(t *testing.T) {
	w := tinyWorld(make([]PR, 2))
	r := &Result{PRs: []PRStat{{TrueDelta: 2, Population: 3}, {TrueDelta: -1, Population: 2}},
		Fates:        []Fate{{Lesson: 0, Gone: -1, FirstActed: -1}, {Lesson: 1, Gone: -1, FirstActed: 0, Damage: 4}, {Lesson: 2, Gone: 0, FirstActed: -1}},
		FactsCarried: []bool{false}, TopicsCovered: []bool{false}}
	m := Measure(w, r)
	if m.PoisonKillRate != 0 || !math.IsNaN(m.MedianKillPRs) || m.Damage != 4 || m.BenignRetained != 0 || m.FactsRetained != 0 ||
		m.TailDelta != -1 || m.CumulativeDelta != 1 || m.FinalPopulation != 2 {
		t.Errorf("metrics %+v", m)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{4, math.NaN(), 1, 3, 2, 5})
	want := Summary{N: 5, Undefined: 1, Min: 1, P25: 2, Median: 3, P75: 4, Max: 5}
	if s != want {
		t.Errorf("got %+v want %+v", s, want)
	}
	if s := Summarize([]float64{1, 2}); s.Median != 1.5 || s.P25 != 1.25 {
		t.Errorf("interpolation: %+v", s)
	}
	if s := Summarize([]float64{math.NaN()}); !math.IsNaN(s.Median) || s.Undefined != 1 {
		t.Errorf("all NaN: %+v", s)
	}
}
