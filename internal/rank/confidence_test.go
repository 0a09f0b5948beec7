package rank

import (
	"math"
	"testing"
)

func TestConfidence(t *testing.T) {
	for _, c := range []struct {
		cov, margin float64
		terms       int
		lo, hi      float64
	}{
		{0, 0, 1, 0, 0.3},        // nothing matched
		{1, 0, 4, 0.6, 0.75},     // the whole query, tied with another lesson
		{1, 1, 4, 0.9, 1},        // the whole query, alone
		{0.1, 1, 8, 0.3, 0.4},    // one word of a long query, alone: still unsure
		{0.45, 1, 5, 0.6, 0.7},   // under half the query, well ahead of the next
		{0.45, 0.2, 3, 0.3, 0.5}, // under half of a short query, close to the next
	} {
		got := Confidence(c.cov, c.margin, c.terms)
		if got < c.lo || got > c.hi || math.IsNaN(got) {
			t.Errorf("Confidence(%.2f, %.2f, %d) = %.3f, want in [%.2f, %.2f]", c.cov, c.margin, c.terms, got, c.lo, c.hi)
		}
	}
	// At a given coverage and margin a longer query is more confident; no
	// term and one term are alike.
	if Confidence(0.5, 0.5, 0) != Confidence(0.5, 0.5, 1) || Confidence(0.5, 0.5, 3) <= Confidence(0.5, 0.5, 2) {
		t.Error("Confidence is not increasing in the query's length")
	}
	for _, c := range []struct{ s, next, want float64 }{
		{10, 0, 1}, {10, 5, 0.5}, {10, 10, 0}, {10, 12, 0}, {0, 0, 0},
	} {
		if got := Margin(c.s, c.next); got != c.want {
			t.Errorf("Margin(%v, %v) = %v, want %v", c.s, c.next, got, c.want)
		}
	}
}
