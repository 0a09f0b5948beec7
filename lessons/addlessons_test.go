package lessons

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// AddLessons leaves the store as the same Adds one by one do (supersession
// records included, each lesson checked against those added before it),
// whether or not the store already has a retrieval index, and keeps no
// one-shot index behind.
func TestAddLessonsMatchesAdds(t *testing.T) {
	data := benchStoreBytes(t, 1000)
	base, err := Parse("x", data)
	if err != nil {
		t.Fatal(err)
	}
	living := base.Living()
	var ls []NewLesson
	for i := 0; i < 12; i++ {
		e := living[(i*83)%len(living)]
		// The same question with new advice (a supersession), a rephrased one,
		// and a new lesson that repeats an earlier added one's question.
		ls = append(ls, NewLesson{Question: e.Question, Answer: "Newer advice: " + e.Answer + " then rerun."})
		ls = append(ls, NewLesson{Question: "Why does " + e.Question, Answer: e.Answer})
	}
	ls = append(ls, NewLesson{Question: ls[0].Question, Answer: "Third advice for the same question, different words."})
	ls = append(ls, NewLesson{Question: "", Answer: "refused: no question"})
	for i := range ls {
		ls[i].RecordedTS = "2026-11-27T00:00:00+00:00" // not the clock: the two stores add at different moments
	}
	for _, indexed := range []bool{false, true} {
		// One clock for both: Add stamps notes and events with it.
		opts := Options{Now: func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }}
		one, _ := ParseWith("x", data, opts)
		all, _ := ParseWith("x", data, opts)
		if indexed {
			one.ensureLexIndex()
			all.ensureLexIndex()
		}
		var want []error
		for _, l := range ls {
			_, err := one.Add(l)
			want = append(want, err)
		}
		entries, errs := all.AddLessons(ls)
		for i := range ls {
			if (errs[i] == nil) != (want[i] == nil) || (errs[i] == nil) != (entries[i] != nil) {
				t.Fatalf("lesson %d: error %v, want %v", i, errs[i], want[i])
			}
		}
		a, err := one.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		b, err := all.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("indexed %v: AddLessons writes another store than the Adds", indexed)
		}
		if !bytes.Contains(b, []byte(SupersedesPrefix)) {
			t.Fatal("no supersession was recorded: the test does not exercise the check")
		}
		if !indexed && all.idx != nil && all.idx.lex != nil {
			t.Fatal("AddLessons kept its one-shot index")
		}
		// Later retrieval on the store builds the whole index and agrees.
		q := ls[3].Question
		d1, err1 := one.Decide(q, DecideOptions{})
		d2, err2 := all.Decide(q, DecideOptions{})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if x, y := decisionKey(d1), decisionKey(d2); x != y {
			t.Fatalf("decide after the adds:\n%s\n%s", x, y)
		}
	}
}

// BenchmarkAddLessons adds three lessons to a loaded store without a
// retrieval index (the action's case), one by one with Add (which builds and
// keeps the whole index) and together with AddLessons (one one-shot index).
func BenchmarkAddLessons(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		if testing.Short() && n > 10000 {
			continue
		}
		data := benchStoreBytes(b, n)
		s0, err := Parse("x", data)
		if err != nil {
			b.Fatal(err)
		}
		var ls []NewLesson
		for i, e := range s0.Living()[:3] {
			ls = append(ls, NewLesson{Question: e.Question, Answer: fmt.Sprintf("Newer advice %d: %s", i, e.Answer)})
		}
		for _, together := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/add", n)
			if together {
				name = fmt.Sprintf("n=%d/addlessons", n)
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					s, _ := Parse("x", data)
					b.StartTimer()
					if together {
						s.AddLessons(ls)
						continue
					}
					for _, l := range ls {
						if _, err := s.Add(l); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
