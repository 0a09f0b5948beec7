package lessons

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

func codes(d *Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.Code)
	}
	return out
}

func hasCode(d *Diagnosis, code string) bool {
	for _, f := range d.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

func TestCase39TickingWithoutEvidence(t *testing.T) {
	s := newTestStore()
	e := mustAdd(t, s, "q", "a")
	s.tick = 23
	s.Settle(pend(s, e.ID), 5, SettleOptions{Source: "ci"})
	e.Energy = 1.0 // runway 20 < 23
	s.tick = 46
	d := s.Doctor(nil)
	if !hasCode(d, "ticking_without_evidence") || d.HasErrors() {
		t.Errorf("findings %v", codes(d))
	}
	// the real extinct-era store fires it too (last credit tick 23, tick 49)
	fx, err := Parse("lessons.json", readFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if d := fx.Doctor(nil); !hasCode(d, "ticking_without_evidence") {
		t.Errorf("fixture findings %v", codes(d))
	}
	// with a long runway it stays quiet
	e.Energy = 5 // runway 100
	if d := s.Doctor(nil); hasCode(d, "ticking_without_evidence") {
		t.Error("fired with a runway longer than the quiet spell")
	}
}

func TestCase40OperatorSettled(t *testing.T) {
	run := func(sources ...string) *Diagnosis {
		s := newTestStore()
		e := mustAdd(t, s, "q", "a")
		e.Energy = 5
		for _, src := range sources {
			s.Settle(pend(s, e.ID), 1, SettleOptions{Source: src})
		}
		return s.Doctor(s.events)
	}
	d := run("operator", "operator", "ci")
	if !hasCode(d, "operator_settled") {
		t.Errorf("2 of 3 operator: %v", codes(d))
	}
	for _, f := range d.Findings {
		if f.Code == "operator_settled" && f.Evidence["share"] != pyjson.JSONFloat(0.67) {
			t.Errorf("share %v", f.Evidence["share"])
		}
	}
	if d := run("ci", "ci", "ci"); hasCode(d, "operator_settled") {
		t.Errorf("all ci: %v", codes(d))
	}
}

func TestDoctorErrorsAndObituary(t *testing.T) {
	s := newTestStore()
	for i := 0; i < 3; i++ {
		mustAdd(t, s, "lesson "+strings.Repeat("z", i+1), "a")
	}
	for i := 0; i < 12; i++ {
		s.Decide("unrelated words", DecideOptions{Register: true})
	}
	for i := 0; i < 20; i++ {
		s.Tick(TickOptions{})
	}
	d := s.Doctor(s.events)
	if !hasCode(d, "silent_majority") || !hasCode(d, "starvation_cliff") || !d.HasErrors() || !d.Diagnosed {
		t.Errorf("findings %v", codes(d))
	}
	id := s.graveyard[0].ID
	ob := s.Obituary(id)
	if !strings.Contains(ob, "alive=False") || !strings.Contains(ob, "died at tick 20 (starved") {
		t.Errorf("obituary:\n%s", ob)
	}
	if got := s.Obituary("ffffffffffff"); got != "ffffffffffff: unknown to this store" {
		t.Error(got)
	}
}

func TestObituaryMerged(t *testing.T) {
	s := newTestStore()
	a := mustAdd(t, s, "release checklist steps", "tag then publish")
	mustAdd(t, s, "release checklist steps", "tag then publish")
	for i := 0; i < 5; i++ {
		s.Tick(TickOptions{})
	}
	h := s.living[0]
	if got := s.Obituary(a.ID); !strings.Contains(got, "merged into "+h.ID) || s.Causes()(a.ID) != "merged" {
		t.Errorf("obituary %q cause %s", got, s.Causes()(a.ID))
	}
}
