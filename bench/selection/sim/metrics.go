package sim

import (
	"math"
	"slices"
)

// Metrics are the selection-quality numbers of one run.
type Metrics struct {
	// PoisonKillRate is the share of poisoned lessons no living entry
	// carries at the end (NaN when the world had none).
	PoisonKillRate float64
	// MedianKillPRs is the median, over killed poisoned lessons an agent
	// had acted on, of merged PRs from the first act to removal (0 = removed
	// in the PR where it first did harm). NaN when there is none.
	MedianKillPRs float64
	// Damage is the number of tests poisoned lessons broke before removal.
	Damage float64
	// BenignRetained is the benign capability retained at the end: the
	// share of topics that ever had a useful lesson for which a living entry
	// still carries one. Useful lessons of one topic have identical effects
	// in this world, so this is what the store can still do for agents.
	BenignRetained float64
	// FactsRetained is the share of distinct useful facts (a lesson and its
	// near-duplicates count once) a living entry carries at the end.
	FactsRetained float64
	// TailDelta is the mean true delta per merged PR over the final
	// TailFraction of the run.
	TailDelta float64
	// CumulativeDelta is the sum of true deltas over the run: tests fixed
	// minus tests broken by the agents' PRs.
	CumulativeDelta float64
	// FinalPopulation is the number of living entries at the end.
	FinalPopulation float64

	// How CI measured this arm's PRs. MeasuredPRs counts the PRs measured
	// (those with tickets); Misreported those whose measured delta differs
	// from the true one.
	MeasuredPRs, Misreported float64
	// Spurious counts transitions settle saw that did not happen (flaky
	// reds), SpuriousQuarantined those the quarantine left out of the
	// delta, and GenuineQuarantined real transitions it left out.
	Spurious, SpuriousQuarantined, GenuineQuarantined float64
}

// Measure computes a run's metrics.
func Measure(w *World, r *Result) Metrics {
	var m Metrics
	poison, killed := 0, 0
	var killAges []float64
	for _, f := range r.Fates {
		l := w.Lessons[f.Lesson]
		if l.Class != Poisoned {
			continue
		}
		poison++
		m.Damage += float64(f.Damage)
		if f.Gone >= 0 {
			killed++
			if f.FirstActed >= 0 {
				killAges = append(killAges, float64(f.Gone-f.FirstActed))
			}
		}
	}
	m.PoisonKillRate = ratio(killed, poison)
	m.MedianKillPRs = Median(killAges)
	kept := 0
	for _, ok := range r.FactsCarried {
		if ok {
			kept++
		}
	}
	m.FactsRetained = ratio(kept, len(r.FactsCarried))
	everUseful := make([]bool, w.Config.Topics)
	for _, l := range w.Lessons {
		if w.helps(l.ID, len(w.PRs)) {
			everUseful[l.Topic] = true
		}
	}
	topics, covered := 0, 0
	for t, ok := range everUseful {
		if ok {
			topics++
			if t < len(r.TopicsCovered) && r.TopicsCovered[t] {
				covered++
			}
		}
	}
	m.BenignRetained = ratio(covered, topics)
	n := len(r.PRs)
	tail := int(math.Ceil(w.Config.TailFraction * float64(n)))
	tail = min(max(tail, 1), n)
	var tailSum float64
	for i, p := range r.PRs {
		m.CumulativeDelta += p.TrueDelta
		if i >= n-tail {
			tailSum += p.TrueDelta
		}
	}
	m.TailDelta = tailSum / float64(tail)
	for _, p := range r.PRs {
		if !p.Measured {
			continue
		}
		m.MeasuredPRs++
		if p.CI.Delta != p.TrueDelta {
			m.Misreported++
		}
		m.Spurious += float64(p.CI.Spurious)
		m.SpuriousQuarantined += float64(p.CI.SpuriousQuarantined)
		m.GenuineQuarantined += float64(p.CI.GenuineQuarantined)
	}
	if n > 0 {
		m.FinalPopulation = float64(r.PRs[n-1].Population)
	}
	return m
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Summary describes the spread of one metric over seeds. NaN samples (a seed
// where the metric is undefined) are left out and counted in Undefined.
type Summary struct {
	N                          int
	Undefined                  int
	Min, P25, Median, P75, Max float64
}

// Summarize computes the order statistics of xs (linear interpolation
// between closest ranks, as numpy's default).
func Summarize(xs []float64) Summary {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	s := Summary{N: len(v), Undefined: len(xs) - len(v)}
	if len(v) == 0 {
		nan := math.NaN()
		s.Min, s.P25, s.Median, s.P75, s.Max = nan, nan, nan, nan, nan
		return s
	}
	slices.Sort(v)
	s.Min, s.Max = v[0], v[len(v)-1]
	s.P25, s.Median, s.P75 = quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75)
	return s
}

// Median is the median of xs ignoring NaNs (NaN when none is left).
func Median(xs []float64) float64 { return Summarize(xs).Median }

func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}
