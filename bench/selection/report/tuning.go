package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/ledgerarm"
	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Markers delimit the generated sensitivity table of docs/tuning.md.
const (
	TuningBeginMarker = "<!-- tuning:begin -->"
	TuningEndMarker   = "<!-- tuning:end -->"
)

// Variant is one ledger setting the tuning table compares.
type Variant struct {
	Name     string
	Settings string
	Options  ledgerarm.Options
}

// TuningVariants are the ledger settings docs/tuning.md weighs: the
// defaults, the defaults before issue 13, darwin-memo's settings; each
// mechanism of issue 13 alone on the defaults before it, and each left out
// of the defaults; alternatives next to the chosen values; then issue 6's
// grid of supporting share {0.25, 0.1, 0} × resource scale {2, 1.5, 1}
// (darwin-memo's upkeep rules) and the defaults before issue 13 with a
// lower upkeep. Each setting appears once.
func TuningVariants() []Variant {
	vs := []Variant{
		{Ours, "defaults: " + ourSettings, LedgerOptions()},
		{Issue6, "before issue 13: scale 1.5, supporting share 0, upkeep 0.05 per tick", Issue6Options()},
		variant(DarwinMemoScale, DarwinMemoShare),
	}
	vs = append(vs, Issue13Variants()...)
	for _, scale := range []float64{2, 1.5, 1} {
		for _, share := range []float64{0.25, 0.1, 0} {
			if v := variant(scale, share); !slices.ContainsFunc(vs, func(w Variant) bool { return w.Name == v.Name }) {
				vs = append(vs, v)
			}
		}
	}
	up := Issue6Options()
	up.Name, up.Upkeep = Ours+"_issue6_upkeep0.03", 0.03
	return append(vs, Variant{up.Name, "before issue 13, with upkeep 0.03 per tick", up})
}

// ourSettings describes the defaults' economics in the tuning tables.
const ourSettings = "bundle split, regressions assessed apart, retrieval upkeep 0.09, idle upkeep ×0.3, tenure after 1 unbundled gain (upkeep ×0.1), harm gain 1.2"

// Issue13First is the name of the arm running issue 13's first defaults
// (before regressions were assessed apart): bundle split, retrieval upkeep
// 0.1, idle upkeep ×0.3, tenure after 2 unbundled gains, harm gain 1.2.
const Issue13First = Ours + "_issue13_first"

// Issue13Variants are the mechanisms of issue 13 measured alone (on the
// defaults before issue 13) and left out (of the defaults), and the
// alternatives next to the chosen values.
func Issue13Variants() []Variant {
	rec := lessons.RecommendedConfig()
	idle := func(x float64) *float64 { return &x }
	alone := func(name, settings string, mod func(*lessons.Config)) Variant {
		o := Issue6Options()
		cfg := *o.Config
		mod(&cfg)
		o.Name, o.Config = Ours+"_"+name, &cfg
		return Variant{o.Name, settings, o}
	}
	change := func(name, settings string, mod func(*lessons.Config)) Variant {
		cfg := rec
		mod(&cfg)
		o := LedgerOptions()
		o.Name, o.Config = Ours+"_"+name, &cfg
		return Variant{o.Name, settings, o}
	}
	first := change("issue13_first", "issue 13's first defaults: bundle split, retrieval upkeep 0.1, idle upkeep ×0.3, tenure after 2 unbundled gains (upkeep ×0.1), harm gain 1.2", func(c *lessons.Config) {
		c.SegregateLosses, c.RetrievalUpkeep, c.TenureAfter = false, 0.1, 2
	})
	return []Variant{
		first,
		alone("only_segregation", "before issue 13 + regressions assessed apart", func(c *lessons.Config) { c.SegregateLosses = true }),
		alone("only_split", "before issue 13 + bundle split", func(c *lessons.Config) { c.BundleSplit = true }),
		alone("only_opportunity", "before issue 13 + retrieval upkeep 0.09, idle upkeep ×0.3", func(c *lessons.Config) {
			c.RetrievalUpkeep, c.IdleUpkeepScale = rec.RetrievalUpkeep, rec.IdleUpkeepScale
		}),
		alone("only_tenure", "before issue 13 + tenure after 1 unbundled gain (upkeep ×0.1)", func(c *lessons.Config) {
			c.TenureAfter, c.TenureUpkeepScale = rec.TenureAfter, rec.TenureUpkeepScale
		}),
		alone("only_harm", "before issue 13 + harm gain 1.2", func(c *lessons.Config) { c.HarmGain = rec.HarmGain }),
		change("no_segregation", "defaults without regressions assessed apart", func(c *lessons.Config) { c.SegregateLosses = false }),
		change("no_split", "defaults without bundle split", func(c *lessons.Config) { c.BundleSplit = false }),
		change("no_split_retrieval0.2", "defaults without bundle split, retrieval upkeep 0.2", func(c *lessons.Config) {
			c.BundleSplit, c.RetrievalUpkeep = false, 0.2
		}),
		change("no_opportunity", "defaults without retrieval upkeep and idle scale", func(c *lessons.Config) {
			c.RetrievalUpkeep, c.IdleUpkeepScale = 0, nil
		}),
		change("no_tenure", "defaults without tenure", func(c *lessons.Config) { c.TenureAfter = 0 }),
		change("no_harm", "defaults without harm gain", func(c *lessons.Config) { c.HarmGain = 0 }),
		change("retrieval0.08", "defaults with retrieval upkeep 0.08", func(c *lessons.Config) { c.RetrievalUpkeep = 0.08 }),
		change("retrieval0.1", "defaults with retrieval upkeep 0.1", func(c *lessons.Config) { c.RetrievalUpkeep = 0.1 }),
		change("idle0.2", "defaults with idle upkeep ×0.2", func(c *lessons.Config) { c.IdleUpkeepScale = idle(0.2) }),
		change("idle0.4", "defaults with idle upkeep ×0.4", func(c *lessons.Config) { c.IdleUpkeepScale = idle(0.4) }),
		change("tenure2", "defaults with tenure after 2 unbundled gains", func(c *lessons.Config) { c.TenureAfter = 2 }),
		change("harm1.5", "defaults with harm gain 1.5", func(c *lessons.Config) { c.HarmGain = 1.5 }),
	}
}

// variant is the ledger with one resource scale and supporting share and
// darwin-memo's upkeep rules (issue 6's grid): "ledger_issue6" when they
// are the defaults before issue 13, "ledger_darwin-memo" when they are
// darwin-memo's, else named after both values (ledger_scale2_share0), so a
// name always means the same settings.
func variant(scale, share float64) Variant {
	settings := fmt.Sprintf("scale %g, supporting share %g", scale, share)
	switch {
	case scale == ledgerarm.DefaultScale && share == 0:
		return Variant{Issue6, "before issue 13: " + settings, Issue6Options()}
	case scale == DarwinMemoScale && share == DarwinMemoShare:
		return Variant{DarwinMemo, "darwin-memo's: " + settings, DarwinMemoOptions()}
	}
	cfg := lessons.DefaultConfig()
	cfg.SupportingShare = share
	name := fmt.Sprintf("%s_scale%g_share%g", Ours, scale, share)
	return Variant{name, settings, ledgerarm.Options{Name: name, Scale: scale, Config: &cfg, Retrieval: BenchRetrieval}}
}

// TuningSweep runs, at 0% and 10% noise, every variant the main sweep r
// did not run. The baselines and the variants r holds are taken from r
// (the same worlds and seeds), so r must hold both noise levels.
func TuningSweep(cfg sim.Config, seeds int, r *sim.SweepResult) sim.Sweep {
	sw := NewSweep(cfg, seeds, []float64{0, 0.1})
	var specs []sim.ArmSpec
	for _, v := range TuningVariants() {
		if r == nil || r.Cell(v.Name, 0) == nil || r.Cell(v.Name, 0.1) == nil {
			specs = append(specs, ledgerarm.Spec(v.Options))
		}
	}
	if r == nil {
		specs = append(specs, sim.Baselines(cfg)...)
	}
	sw.Reference, sw.Arms = specs[0], specs[1:]
	sw.KeepSeries = false
	return sw
}

// MergeTuning combines the main sweep r and the tuning sweep t into one
// result at 0% and 10% noise: the variants in TuningVariants order, then
// r's other arms.
func MergeTuning(r, t *sim.SweepResult) *sim.SweepResult {
	noises := []float64{0, 0.1}
	out := &sim.SweepResult{Noises: noises, Cells: make([][]sim.Cell, len(noises))}
	var arms []string
	for _, v := range TuningVariants() {
		arms = append(arms, v.Name)
	}
	for _, a := range append(slices.Clone(r.Arms), t.Arms...) {
		if !slices.Contains(arms, a) {
			arms = append(arms, a)
		}
	}
	for i, n := range noises {
		for _, a := range arms {
			c := t.Cell(a, n)
			if c == nil {
				c = r.Cell(a, n)
			}
			if c != nil {
				out.Cells[i] = append(out.Cells[i], *c)
				if i == 0 {
					out.Arms = append(out.Arms, a)
				}
			}
		}
	}
	return out
}

// TuningSection renders the sensitivity table, markers included.
func TuningSection(r *sim.SweepResult, seeds int, command string) string {
	return tuningTable(r, TuningVariants(), TuningBeginMarker, TuningEndMarker,
		fmt.Sprintf("Generated by `%s` (%d seeds, the benchmark's world; variants the main sweep runs are taken from it).", command, seeds))
}

// Markers delimit the held-out table of docs/tuning.md.
const (
	HeldOutBeginMarker = "<!-- tuning-heldout:begin -->"
	HeldOutEndMarker   = "<!-- tuning-heldout:end -->"
)

// HeldOutVariants are the settings re-checked on held-out seeds: the
// defaults, the defaults before issue 13, darwin-memo's settings, the
// mechanisms of issue 13 left out one at a time (and the defaults without
// bundle split at retrieval upkeep 0.2), and issue 6's closest
// alternatives.
func HeldOutVariants() []Variant {
	vs := TuningVariants()[:3]
	for _, v := range Issue13Variants() {
		switch v.Name {
		case Issue13First, Ours + "_no_segregation", Ours + "_no_split", Ours + "_no_split_retrieval0.2", Ours + "_no_opportunity", Ours + "_no_tenure", Ours + "_no_harm":
			vs = append(vs, v)
		}
	}
	return append(vs, variant(2, 0.1), variant(2, 0), variant(1.5, 0.1))
}

// HeldOutSweep runs the held-out variants and every baseline at 0% and 10%
// noise on seeds first, first+1, ... (worlds the main table never saw).
func HeldOutSweep(cfg sim.Config, first uint64, seeds int) sim.Sweep {
	sw := NewSweep(cfg, seeds, []float64{0, 0.1})
	sw.Seeds = SeedRange(first, seeds)
	vs := HeldOutVariants()
	sw.Reference = ledgerarm.Spec(vs[0].Options)
	sw.Arms = nil
	for _, v := range vs[1:] {
		sw.Arms = append(sw.Arms, ledgerarm.Spec(v.Options))
	}
	sw.Arms = append(sw.Arms, sim.Baselines(cfg)...)
	sw.KeepSeries = false
	return sw
}

// HeldOutSection renders the held-out table, markers included.
func HeldOutSection(r *sim.SweepResult, first uint64, seeds int, command string) string {
	return tuningTable(r, HeldOutVariants(), HeldOutBeginMarker, HeldOutEndMarker,
		fmt.Sprintf("Generated by `%s` on held-out seeds %d–%d (worlds the table above never saw).", command, first, first+uint64(seeds)-1))
}

func tuningTable(r *sim.SweepResult, variants []Variant, begin, end, intro string) string {
	var b strings.Builder
	b.WriteString(begin + "\n")
	b0, v0 := bestBaseline(r, 0)
	b10, v10 := bestBaseline(r, 0.1)
	fmt.Fprintf(&b, "%s "+
		"Medians over seeds unless stated. Best baseline: `%s` %.1f at 0%% noise, `%s` %.1f at 10%%; \"lead\" is the variant's "+
		"cumulative Δ above it; \"seeds ahead\" counts the seeds in which the variant's cumulative Δ beats that baseline's on the same "+
		"world. \"Goals met\" lists the goals of issue 13 (kill, kill10, damage, capability, lead0, lead10; benchmarks.md) and of "+
		"issue 6 (retention) the variant meets.\n\n", intro, b0, v0, b10, v10)
	b.WriteString("| variant | settings | every poison killed at 0% noise | least share killed at 10% | damage at 0% | capability at 0% / 10% | facts kept at 0% | cumulative Δ at 0% / 10% | lead at 0% / 10% | seeds ahead at 0% / 10% | goals met |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	ahead := func(c *sim.Cell, base string, noise float64) int {
		bc := r.Cell(base, noise)
		n := 0
		for i, m := range c.Metrics {
			if bc != nil && m.CumulativeDelta > bc.Metrics[i].CumulativeDelta {
				n++
			}
		}
		return n
	}
	for _, v := range variants {
		c0, c10 := r.Cell(v.Name, 0), r.Cell(v.Name, 0.1)
		if c0 == nil || c10 == nil {
			continue
		}
		rates := metric(c0, killRate)
		all := 0
		for _, x := range rates {
			if x == 1 {
				all++
			}
		}
		var met []string
		for _, g := range AllGoals(r, v.Name) {
			switch g.ID {
			case "kill", "kill10", "damage", "capability", "lead0", "lead10", "retention":
				if g.Met {
					met = append(met, g.ID)
				}
			}
		}
		if len(met) == 0 {
			met = []string{"none"}
		}
		cum0, cum10 := sim.Median(metric(c0, cumDelta)), sim.Median(metric(c10, cumDelta))
		fmt.Fprintf(&b, "| `%s` | %s | %d of %d seeds (min %.2f) | %.2f | %g | %.2f / %.2f | %.2f | %.1f / %.1f | %+.1f%% / %+.1f%% | %d / %d | %s |\n",
			v.Name, v.Settings, all, len(rates), sim.Summarize(rates).Min, sim.Summarize(metric(c10, killRate)).Min,
			sim.Median(metric(c0, damage)), sim.Median(metric(c0, retained)), sim.Median(metric(c10, retained)), sim.Median(metric(c0, facts)),
			cum0, cum10, 100*(cum0/v0-1), 100*(cum10/v10-1),
			ahead(c0, b0, 0), ahead(c10, b10, 0.1), strings.Join(met, ", "))
	}
	b.WriteString(end + "\n")
	return b.String()
}
