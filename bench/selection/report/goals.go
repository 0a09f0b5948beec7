package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
)

// Ours is the name of this project's arm in every report.
const Ours = "ledger"

// Goal is one of issue 6's goals, checked on a sweep.
type Goal struct {
	ID       string // short name for -require
	Text     string // the goal as stated
	Measured string // what the sweep shows
	Met      bool
	// Checked is false when the sweep lacks the noise levels the goal needs.
	Checked bool
}

// metric extracts one metric of every seed of a cell.
func metric(c *sim.Cell, f func(sim.Metrics) float64) []float64 {
	out := make([]float64, len(c.Metrics))
	for i, m := range c.Metrics {
		out[i] = f(m)
	}
	return out
}

func killRate(m sim.Metrics) float64  { return m.PoisonKillRate }
func retained(m sim.Metrics) float64  { return m.BenignRetained }
func facts(m sim.Metrics) float64     { return m.FactsRetained }
func cumDelta(m sim.Metrics) float64  { return m.CumulativeDelta }
func killPRs(m sim.Metrics) float64   { return m.MedianKillPRs }
func damage(m sim.Metrics) float64    { return m.Damage }
func tailDelta(m sim.Metrics) float64 { return m.TailDelta }
func finalPop(m sim.Metrics) float64  { return m.FinalPopulation }

// isStrike reports whether an arm is a strike counter.
func isStrike(arm string) bool { return strings.HasPrefix(arm, "strike_") }

// isBaseline reports whether an arm is a baseline of the cumulative-delta
// goal (every arm but ours and the memory-less reference).
func isBaseline(arm string) bool {
	return arm != Ours && arm != "no_memory" && !strings.HasPrefix(arm, Ours+"_")
}

// RelativeRetention is an arm's median benign retention at noise divided by
// its median at 0% noise.
func RelativeRetention(r *sim.SweepResult, arm string, noise float64) float64 {
	c0, cn := r.Cell(arm, 0), r.Cell(arm, noise)
	if c0 == nil || cn == nil {
		return math.NaN()
	}
	base := sim.Median(metric(c0, retained))
	if base == 0 {
		return math.NaN()
	}
	return sim.Median(metric(cn, retained)) / base
}

// Goals checks issue 6's goals for this project's default arm.
func Goals(r *sim.SweepResult) []Goal { return GoalsFor(r, Ours) }

// GoalsFor checks issue 6's goals for one ledger arm of the sweep.
func GoalsFor(r *sim.SweepResult, ours string) []Goal {
	var goals []Goal

	g := Goal{ID: "kill", Text: "poison kill rate 1.00 at 0% noise (every seed)"}
	if c := r.Cell(ours, 0); c != nil {
		rates := metric(c, killRate)
		s := sim.Summarize(rates)
		all := 0
		for _, x := range rates {
			if x == 1 {
				all++
			}
		}
		g.Checked = true
		g.Met = s.N > 0 && s.Min == 1
		g.Measured = fmt.Sprintf("every poison killed in %d of %d seeds (min %.2f)", all, len(rates), s.Min)
	}
	goals = append(goals, g)

	g = Goal{ID: "retention", Text: "at 10% flaky noise the ledger keeps >= 90% of its noise-free benign retention"}
	if rel := RelativeRetention(r, ours, 0.1); !math.IsNaN(rel) {
		g.Checked = true
		g.Met = rel >= 0.9
		g.Measured = fmt.Sprintf("%.0f%% (median %.2f at 10%% vs %.2f at 0%%)", 100*rel,
			sim.Median(metric(r.Cell(ours, 0.1), retained)), sim.Median(metric(r.Cell(ours, 0), retained)))
	}
	goals = append(goals, g)

	g = Goal{ID: "strikes", Text: "at 10% flaky noise no strike-counter arm keeps more than 60% of its noise-free benign retention"}
	var parts []string
	met, checked := true, false
	for _, arm := range r.Arms {
		if !isStrike(arm) {
			continue
		}
		rel := RelativeRetention(r, arm, 0.1)
		if math.IsNaN(rel) {
			continue
		}
		checked = true
		if rel > 0.6 {
			met = false
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", arm, 100*rel))
	}
	g.Checked, g.Met, g.Measured = checked, checked && met, strings.Join(parts, ", ")
	goals = append(goals, g)

	for _, noise := range []float64{0, 0.1} {
		g = Goal{ID: fmt.Sprintf("cumdelta%.0f", noise*100),
			Text: fmt.Sprintf("median cumulative delta above every baseline arm at %s", pct(noise))}
		if o := r.Cell(ours, noise); o != nil {
			g.Checked = true
			v := sim.Median(metric(o, cumDelta))
			best, bestArm := math.Inf(-1), ""
			for _, arm := range r.Arms {
				if !isBaseline(arm) {
					continue
				}
				if b := sim.Median(metric(r.Cell(arm, noise), cumDelta)); b > best {
					best, bestArm = b, arm
				}
			}
			g.Met = v > best
			g.Measured = fmt.Sprintf("%.1f vs best baseline `%s` %.1f", v, bestArm, best)
		}
		goals = append(goals, g)
	}
	return goals
}

// GoalIDs are the goal ids, in report order: issue 6's, then issue 13's
// (Issue13Goals; "kill" is shared).
var GoalIDs = []string{"kill", "retention", "strikes", "cumdelta0", "cumdelta10", "kill10", "damage", "capability", "lead0", "lead10"}

// Issue 13's thresholds, stated in the issue against the defaults of
// issue 6 on seeds 1-20 (damage 34 tests at 0% noise; the best baseline's
// cumulative Δ led by 3.5%).
const (
	GoalKill10     = 0.95 // least share of poison killed in any seed at 10% noise
	GoalDamage     = 34   // median tests broken by poison at 0% noise, at most
	GoalCapability = 0.90 // median benign capability at 0% and at 10% noise, at least
	GoalLead       = 0.10 // median cumulative Δ above the best baseline's, at least
)

// AllGoals is GoalsFor followed by the Issue13Goals that are not already
// there, so every id of GoalIDs appears once.
func AllGoals(r *sim.SweepResult, ours string) []Goal {
	out := GoalsFor(r, ours)
	for _, g := range Issue13Goals(r, ours) {
		if g.ID != "kill" {
			out = append(out, g)
		}
	}
	return out
}

// bestBaseline is the baseline with the highest median cumulative Δ at a
// noise level.
func bestBaseline(r *sim.SweepResult, noise float64) (string, float64) {
	best, bestArm := math.Inf(-1), ""
	for _, arm := range r.Arms {
		if !isBaseline(arm) {
			continue
		}
		if c := r.Cell(arm, noise); c != nil {
			if b := sim.Median(metric(c, cumDelta)); b > best {
				best, bestArm = b, arm
			}
		}
	}
	return bestArm, best
}

// Issue13Goals checks issue 13's goal table for one ledger arm: every
// poison killed at 0% noise in every seed, at least GoalKill10 of them in
// every seed at 10%, at most GoalDamage tests of damage, benign capability
// of at least GoalCapability at 0% and 10% noise, and a cumulative Δ at
// least GoalLead above the best baseline's at 0% and at 10% noise.
func Issue13Goals(r *sim.SweepResult, ours string) []Goal {
	var goals []Goal
	g := Goal{ID: "kill", Text: "poison killed at 0% noise: 1.00 in every seed"}
	if c := r.Cell(ours, 0); c != nil {
		rates := metric(c, killRate)
		all := 0
		for _, x := range rates {
			if x == 1 {
				all++
			}
		}
		g.Checked, g.Met = true, all == len(rates) && len(rates) > 0
		g.Measured = fmt.Sprintf("1.00 in %d/%d seeds", all, len(rates))
	}
	goals = append(goals, g)

	g = Goal{ID: "kill10", Text: fmt.Sprintf("poison killed at 10%% noise: at least %.2f in every seed", GoalKill10)}
	if c := r.Cell(ours, 0.1); c != nil {
		s := sim.Summarize(metric(c, killRate))
		g.Checked, g.Met = true, s.N > 0 && s.Min >= GoalKill10
		g.Measured = fmt.Sprintf("median %.2f (min %.2f)", s.Median, s.Min)
	}
	goals = append(goals, g)

	g = Goal{ID: "damage", Text: fmt.Sprintf("damage (tests broken) at 0%% noise: at most %d", GoalDamage)}
	if c := r.Cell(ours, 0); c != nil {
		d := sim.Median(metric(c, damage))
		g.Checked, g.Met = true, d <= GoalDamage
		g.Measured = strconv.FormatFloat(d, 'f', -1, 64) // a median of an even count may end in .5
	}
	goals = append(goals, g)

	g = Goal{ID: "capability", Text: fmt.Sprintf("benign capability retained at 0%% and 10%% noise: at least %.2f", GoalCapability)}
	if c0, c10 := r.Cell(ours, 0), r.Cell(ours, 0.1); c0 != nil && c10 != nil {
		v0, v10 := sim.Median(metric(c0, retained)), sim.Median(metric(c10, retained))
		g.Checked, g.Met = true, v0 >= GoalCapability && v10 >= GoalCapability
		g.Measured = fmt.Sprintf("%.2f / %.2f", v0, v10)
	}
	goals = append(goals, g)

	for _, noise := range []float64{0, 0.1} {
		g = Goal{ID: fmt.Sprintf("lead%.0f", noise*100),
			Text: fmt.Sprintf("cumulative Δ against the best baseline at %s: at least %+.0f%%", pct(noise), 100*GoalLead)}
		if o := r.Cell(ours, noise); o != nil {
			if arm, best := bestBaseline(r, noise); arm != "" {
				v := sim.Median(metric(o, cumDelta))
				lead := v/best - 1
				g.Checked, g.Met = true, lead >= GoalLead
				g.Measured = fmt.Sprintf("%+.1f%% (%.1f vs `%s` %.1f)", 100*lead, v, arm, best)
			}
		}
		goals = append(goals, g)
	}
	return goals
}

func pct(noise float64) string { return fmt.Sprintf("%g%% noise", math.Round(noise*1000)/10) }
