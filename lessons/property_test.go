package lessons

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// randomHistory drives a store through a random mix of every operation and
// returns its final bytes.
func randomHistory(t *testing.T, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	gen := textgen.New(seed, textgen.Options{DupRate: 0.3})
	clock := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := New("lessons.json", Options{Now: func() time.Time { clock = clock.Add(time.Minute); return clock }})
	c := s.Config()
	c.AdmissionWindow = r.IntN(3)
	s.SetConfig(c)
	var free []FreeTicket
	for step := 0; step < 400; step++ {
		switch op := r.IntN(12); {
		case op < 3:
			l := gen.Next()
			if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer, Sources: []string{fmt.Sprintf("pr#%d", r.IntN(20))}}); err != nil {
				t.Fatal(err)
			}
		case op < 5 && len(s.living) > 0:
			e := s.living[r.IntN(len(s.living))]
			d, err := s.Decide(e.Question, DecideOptions{Register: r.IntN(2) == 0})
			if err != nil {
				t.Fatal(err)
			}
			if !d.Silent && d.Ticket != nil {
				free = append(free, FreeTicket{Tick: d.Tick, Decider: d.Decider, Supporting: d.Supporting, Query: d.Query})
			}
		case op < 7 && len(s.pending) > 0:
			s.Settle(s.pending[r.IntN(len(s.pending))].ID, float64(r.IntN(7)-3), SettleOptions{Source: "ci"})
		case op == 7 && len(free) > 0:
			s.SettleFree(free[r.IntN(len(free))], float64(r.IntN(7)-3), SettleOptions{Source: "ci", Evidence: &Evidence{Repository: "o/r", Run: fmt.Sprint(r.IntN(5))}})
		case op == 8 && len(s.living) > 0:
			e := s.living[r.IntN(len(s.living))]
			switch r.IntN(4) {
			case 0:
				s.Pin(e.ID)
			case 1:
				s.Unpin(e.ID)
			case 2:
				s.Forget(e.ID)
			default:
				if len(s.pending) > 0 {
					s.Abandon(s.pending[0].ID)
				}
			}
		case op == 9:
			other := New("other.json", Options{Now: s.opts.Now})
			l := gen.Next()
			other.Add(NewLesson{Question: l.Question, Answer: l.Answer})
			s.Import(other, ImportOptions{})
		default:
			s.Tick(TickOptions{ExpireAfter: 10})
		}
		checkInvariants(t, s)
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func checkInvariants(t *testing.T, s *Store) {
	t.Helper()
	if len(s.byID) != len(s.living) {
		t.Fatalf("byID has %d entries, living %d", len(s.byID), len(s.living))
	}
	for _, e := range s.living {
		if s.byID[e.ID] != e || e.dead {
			t.Fatalf("living entry %s inconsistent", e.ID)
		}
	}
	for _, g := range s.graveyard {
		if g.Energy > 0 {
			t.Fatalf("buried %s has positive energy %v", g.ID, g.Energy)
		}
	}
	if s.lib != nil {
		if dm, bm := s.lib.Len(); dm >= 0 && dm != len(s.living) || bm >= 0 && bm != len(s.living) {
			t.Fatalf("indexes hold %d and %d lessons, living %d", dm, bm, len(s.living))
		}
	}
}

func TestRandomHistoriesAreDeterministicAndRoundTrip(t *testing.T) {
	for seed := uint64(1); seed <= uint64(exhaustive.Or(2, 6)); seed++ {
		a := randomHistory(t, seed)
		b := randomHistory(t, seed)
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: the same operations gave different bytes", seed)
		}
		s, err := Parse("lessons.json", a)
		if err != nil {
			t.Fatalf("seed %d: our own output does not parse: %v", seed, err)
		}
		again, _ := s.Marshal()
		if !bytes.Equal(a, again) {
			t.Fatalf("seed %d: round trip changed the bytes", seed)
		}
	}
}
