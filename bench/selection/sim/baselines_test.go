package sim

import (
	"reflect"
	"testing"
)

func lesson(id int, q string) Lesson {
	return Lesson{ID: id, Question: q, Answer: word(1000 + id)}
}

func keys(a Arm) []string {
	var out []string
	for _, e := range a.Living() {
		out = append(out, e.Key)
	}
	return out
}

func TestRetrievalCoverageFloorAndOrder(t *testing.T) {
	var s plainStore
	s.add("a", lesson(0, "alpha beta gamma"))
	s.add("b", lesson(1, "alpha beta gamma"))
	s.add("c", lesson(2, "delta"))
	s.add("d", lesson(3, "alpha"))
	// Query alpha beta gamma epsilon: a and b match 3 of 4 tokens and tie
	// (insertion order), d matches only "alpha" (df 3, the cheapest token)
	// below the 0.25 coverage floor, c matches nothing.
	got := s.retrieve("alpha beta gamma epsilon")
	if want := []int{0, 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("retrieve = %v, want %v", got, want)
	}
	c := s.consult("alpha beta gamma epsilon", "t1")
	if c.Decider.Key != "a" || len(c.Supporters) != 1 || c.Supporters[0].Key != "b" {
		t.Fatalf("consult = %+v", c)
	}
	if c := s.consult("omega", "t2"); !c.Silent() || c.Ticket != "" {
		t.Fatalf("a query matching nothing must be silent, got %+v", c)
	}
}

func consultation(decider string, supporters ...string) Consultation {
	c := Consultation{Ticket: "t", Decider: Entry{Key: decider}}
	for _, s := range supporters {
		c.Supporters = append(c.Supporters, Entry{Key: s})
	}
	return c
}

func addAll(t *testing.T, a Arm, n int) {
	t.Helper()
	for i := range n {
		if err := a.Add(lesson(i, word(i)), 0); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEvictionArms(t *testing.T) {
	type step struct {
		c     Consultation
		delta float64
	}
	tests := []struct {
		name  string
		arm   func() Arm
		steps []step
		want  []string
	}{
		{"keep everything", KeepEverything, []step{{consultation("0", "1"), -5}}, []string{"0", "1", "2"}},
		{"evict on negative: decider only", EvictOnNegative, []step{{consultation("0", "1"), -1}}, []string{"1", "2"}},
		{"evict on negative: zero and positive keep", EvictOnNegative, []step{{consultation("0"), 0}, {consultation("1"), 2}}, []string{"0", "1", "2"}},
		{"k=1 strikes decider and supporters", func() Arm { return Strikes(1, false) }, []step{{consultation("0", "1"), -1}}, []string{"2"}},
		{"k=3 needs three", func() Arm { return Strikes(3, false) }, []step{{consultation("0"), -1}, {consultation("0"), 1}, {consultation("0"), -1}}, []string{"0", "1", "2"}},
		{"k=3 without reset counts all", func() Arm { return Strikes(3, false) }, []step{{consultation("0"), -1}, {consultation("0"), 1}, {consultation("0"), -1}, {consultation("0"), -2}}, []string{"1", "2"}},
		{"k=3 reset on success", func() Arm { return Strikes(3, true) }, []step{{consultation("0"), -1}, {consultation("0"), -1}, {consultation("0"), 1}, {consultation("0"), -1}, {consultation("0"), -2}}, []string{"0", "1", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.arm()
			addAll(t, a, 3)
			for _, s := range tt.steps {
				if ok, err := a.Settle([]Consultation{s.c}, s.delta, 0); !ok || err != nil {
					t.Fatalf("settle = %v, %v", ok, err)
				}
			}
			if err := a.EndPR(0, true); err != nil {
				t.Fatal(err)
			}
			if got := keys(a); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("living %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTTLResetsOnUse(t *testing.T) {
	a := TTL(2, 3) // 6 merged PRs
	addAll(t, a, 2)
	for pr := 0; pr < 10; pr++ {
		if pr%5 == 0 {
			if c, _ := a.Consult(word(0), pr); c.Decider.Key != "0" {
				t.Fatalf("PR %d: consult %+v", pr, c)
			}
		}
		if err := a.EndPR(pr, false); err != nil {
			t.Fatal(err)
		}
		want := []string{"0", "1"}
		if pr >= 6 {
			want = []string{"0"}
		}
		if got := keys(a); !reflect.DeepEqual(got, want) {
			t.Fatalf("after PR %d: living %v, want %v", pr, got, want)
		}
	}
}

func TestRandomMatchedFollowsSchedule(t *testing.T) {
	sched := []int{0, 2, 0, 5, 1}
	a := RandomMatched(sched, 42)
	addAll(t, a, 6)
	wantPop := []int{6, 4, 4, 0, 0}
	for pr := range sched {
		if err := a.EndPR(pr, true); err != nil {
			t.Fatal(err)
		}
		if got := len(a.Living()); got != wantPop[pr] {
			t.Fatalf("after PR %d: %d living, want %d", pr, got, wantPop[pr])
		}
	}
	b := RandomMatched(sched, 42)
	addAll(t, b, 6)
	c := RandomMatched(sched, 43)
	addAll(t, c, 6)
	_ = b.EndPR(1, true)
	_ = c.EndPR(1, true)
	a2 := RandomMatched(sched, 42)
	addAll(t, a2, 6)
	_ = a2.EndPR(1, true)
	if !reflect.DeepEqual(keys(a2), keys(b)) {
		t.Fatal("same seed picked different victims")
	}
}

func TestNoMemoryIsSilent(t *testing.T) {
	a := NoMemory()
	addAll(t, a, 3)
	if c, _ := a.Consult(word(0), 0); !c.Silent() {
		t.Fatalf("no_memory answered %+v", c)
	}
	if len(a.Living()) != 0 {
		t.Fatal("no_memory keeps lessons")
	}
}
