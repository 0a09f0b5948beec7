package rank

import (
	"math"
	"testing"
)

func TestConfidence(t *testing.T) {
	for _, c := range []struct {
		cov, margin float64
		lo, hi      float64
	}{
		{0, 0, 0, 0.3},      // nothing matched
		{1, 0, 0.7, 0.8},    // the whole query, tied with another lesson
		{1, 1, 0.9, 1},      // the whole query, alone
		{0.1, 1, 0.3, 0.4},  // one word of a long query, alone: still unsure
		{0.45, 1, 0.6, 0.7}, // under half the query, well ahead of the next
	} {
		got := Confidence(c.cov, c.margin)
		if got < c.lo || got > c.hi || math.IsNaN(got) {
			t.Errorf("Confidence(%.2f, %.2f) = %.3f, want in [%.2f, %.2f]", c.cov, c.margin, got, c.lo, c.hi)
		}
	}
	for _, c := range []struct{ s, next, want float64 }{
		{10, 0, 1}, {10, 5, 0.5}, {10, 10, 0}, {10, 12, 0}, {0, 0, 0},
	} {
		if got := Margin(c.s, c.next); got != c.want {
			t.Errorf("Margin(%v, %v) = %v, want %v", c.s, c.next, got, c.want)
		}
	}
}
