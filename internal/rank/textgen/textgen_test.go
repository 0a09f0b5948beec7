package textgen

import (
	"slices"
	"testing"
)

func TestLessonsDeterministicAndPrefixStable(t *testing.T) {
	a := Lessons(1, 500)
	b := Lessons(1, 2000)
	if !slices.Equal(a, b[:500]) {
		t.Fatal("Lessons(1, 500) is not a prefix of Lessons(1, 2000)")
	}
	if c := Lessons(2, 500); slices.Equal(a, c) {
		t.Fatal("seeds 1 and 2 give the same lessons")
	}
}

func TestLessonsShape(t *testing.T) {
	ls := Lessons(7, 8000)
	var dups, chars int
	for i, l := range ls {
		if l.Question == "" || l.Answer == "" {
			t.Fatalf("lesson %d is empty: %+v", i, l)
		}
		if l.DupOf >= i {
			t.Fatalf("lesson %d paraphrases a later lesson %d", i, l.DupOf)
		}
		if l.DupOf >= 0 {
			dups++
		}
		chars += len(l.Text())
	}
	if rate := float64(dups) / float64(len(ls)); rate < 0.04 || rate > 0.06 {
		t.Errorf("near-duplicate rate %.3f, want about 0.05", rate)
	}
	if avg := chars / len(ls); avg < 150 || avg > 600 {
		t.Errorf("average lesson length %d chars, want lesson-length (150-600)", avg)
	}
	t.Logf("example: %q / %q", ls[0].Question, ls[0].Answer)
}
