package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Markers delimit the generated selection section of docs/benchmarks.md.
const (
	BeginMarker = "<!-- selection:begin -->"
	EndMarker   = "<!-- selection:end -->"
)

// Meta describes how a sweep was produced, for the report's text.
type Meta struct {
	Command string // the command that regenerates the section
	Config  sim.Config
	Seeds   int
	// LedgerSettings and DarwinMemoSettings describe the ledger arms'
	// configurations in one line each.
	LedgerSettings, DarwinMemoSettings, Issue6Settings string
	// HeldOut is the sweep of the held-out seeds HeldOutFirst, ... (the
	// next Seeds worlds) at 0% and 10% noise, for the goal table; nil
	// leaves the held-out columns out.
	HeldOut      *sim.SweepResult
	HeldOutFirst uint64
	// PlotDir is where the SVGs are written, relative to the markdown file.
	PlotPrefix string
}

// Plot names (files docs/<name>).
const (
	PlotRetention  = "selection-retention-vs-noise.svg"
	PlotCumVsNoise = "selection-cumulative-delta-vs-noise.svg"
	PlotCumOverPRs = "selection-cumulative-delta-over-prs.svg"
	PlotPopulation = "selection-population-over-prs.svg"
)

// seriesNoise is the noise level of the over-time plots.
const seriesNoise = 0.1

// Plots renders every chart of the report.
func Plots(r *sim.SweepResult) map[string][]byte {
	out := map[string][]byte{}
	arms := r.Arms
	noiseSeries := func(f func(sim.Metrics) float64) []Series {
		var ss []Series
		for _, arm := range arms {
			s := Series{Name: arm, Bold: arm == Ours, Dash: dashed(arm)}
			for _, n := range r.Noises {
				s.X = append(s.X, n)
				s.Y = append(s.Y, sim.Median(metric(r.Cell(arm, n), f)))
			}
			ss = append(ss, s)
		}
		return ss
	}
	out[PlotRetention] = LineChart{Title: "Benign capability retained at the end (median of seeds)",
		XLabel: "flaky noise: chance a CI run reports a good change red", YLabel: "share of topics the store still helps with",
		XPercent: true, YMin: 0, YMax: 1, Series: noiseSeries(retained)}.SVG()
	out[PlotCumVsNoise] = LineChart{Title: "Cumulative true test delta over the run (median of seeds)",
		XLabel: "flaky noise", YLabel: "tests fixed minus tests broken", XPercent: true,
		Series: noiseSeries(cumDelta)}.SVG()

	overPRs := func(f func(cum float64, p sim.PRStat) float64) []Series {
		var ss []Series
		for _, arm := range arms {
			c := r.Cell(arm, seriesNoise)
			if c == nil || len(c.Series) == 0 {
				continue
			}
			s := Series{Name: arm, Bold: arm == Ours, Dash: dashed(arm)}
			n := len(c.Series[0])
			vals := make([][]float64, n)
			for _, run := range c.Series {
				cum := 0.0
				for i, p := range run {
					cum += p.TrueDelta
					vals[i] = append(vals[i], f(cum, p))
				}
			}
			for i := 0; i < n; i++ {
				s.X = append(s.X, float64(i+1))
				s.Y = append(s.Y, sim.Median(vals[i]))
			}
			ss = append(ss, s)
		}
		return ss
	}
	if ss := overPRs(func(cum float64, _ sim.PRStat) float64 { return cum }); len(ss) > 0 {
		out[PlotCumOverPRs] = LineChart{Title: fmt.Sprintf("Cumulative true test delta, %s (median of seeds)", pct(seriesNoise)),
			XLabel: "merged PRs", YLabel: "tests fixed minus tests broken", Series: ss}.SVG()
	}
	if ss := overPRs(func(_ float64, p sim.PRStat) float64 { return float64(p.Population) }); len(ss) > 0 {
		out[PlotPopulation] = LineChart{Title: fmt.Sprintf("Living entries, %s (median of seeds)", pct(seriesNoise)),
			XLabel: "merged PRs", YLabel: "entries in the store", Series: ss}.SVG()
	}
	return out
}

// dashed reports whether an arm's line is dashed: the arms whose lines
// often lie on another's (darwin-memo's settings on the ledger, random_matched's
// population on the ledger's, the TTL arm on keep_everything).
func dashed(arm string) bool {
	return arm == DarwinMemo || arm == "random_matched" || strings.HasPrefix(arm, "ttl_")
}

// column is one metric of the headline tables.
type column struct {
	head   string
	f      func(sim.Metrics) float64
	format func(sim.Summary) string
}

func spread(prec int) func(sim.Summary) string {
	return func(s sim.Summary) string {
		if s.N == 0 {
			return "n/a"
		}
		med := fmt.Sprintf("%.*f", prec, s.Median)
		if prec == 0 {
			med = fmt.Sprintf("%g", s.Median) // a median of counts may end in .5: the goals read it so
		}
		v := fmt.Sprintf("%s [%.*f–%.*f]", med, prec, s.P25, prec, s.P75)
		if s.Undefined > 0 {
			v += fmt.Sprintf(" (%d/%d seeds)", s.N, s.N+s.Undefined)
		}
		return v
	}
}

func minMax(s sim.Summary) string {
	if s.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f]", s.Median, s.Min, s.Max)
}

var columns = []column{
	{"poison killed, median [min–max]", killRate, minMax},
	{"kill latency (PRs)", killPRs, spread(1)},
	{"damage (tests broken)", damage, spread(0)},
	{"benign capability retained", retained, spread(2)},
	{"useful facts kept", facts, spread(2)},
	{"tail Δ / PR", tailDelta, spread(2)},
	{"cumulative Δ", cumDelta, spread(0)},
	{"final population", finalPop, spread(0)},
}

func headlineTable(b *strings.Builder, r *sim.SweepResult, noise float64) {
	b.WriteString("| arm |")
	for _, c := range columns {
		b.WriteString(" " + c.head + " |")
	}
	b.WriteString("\n|---|")
	for range columns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, arm := range r.Arms {
		cell := r.Cell(arm, noise)
		name := "`" + arm + "`"
		if arm == Ours {
			name = "**`" + arm + "`**"
		}
		b.WriteString("| " + name + " |")
		for _, c := range columns {
			b.WriteString(" " + c.format(sim.Summarize(metric(cell, c.f))) + " |")
		}
		b.WriteString("\n")
	}
}

func sweepTable(b *strings.Builder, r *sim.SweepResult, value func(arm string, noise float64) string) {
	b.WriteString("| arm |")
	for _, n := range r.Noises {
		fmt.Fprintf(b, " %s |", strings.TrimSuffix(pct(n), " noise"))
	}
	b.WriteString("\n|---|")
	for range r.Noises {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, arm := range r.Arms {
		fmt.Fprintf(b, "| `%s` |", arm)
		for _, n := range r.Noises {
			b.WriteString(" " + value(arm, n) + " |")
		}
		b.WriteString("\n")
	}
}

func hasNoise(r *sim.SweepResult, noise float64) bool {
	for _, n := range r.Noises {
		if n == noise {
			return true
		}
	}
	return false
}

// issue13Table renders issue 13's goal table: the defaults before issue 13
// and the defaults now, on the tuning seeds and on the held-out seeds, with
// met / not met computed from the numbers.
func issue13Table(b *strings.Builder, r *sim.SweepResult, meta Meta) {
	yes := func(g Goal) string {
		switch {
		case !g.Checked:
			return "not measured"
		case g.Met:
			return "**met**"
		}
		return "**not met**"
	}
	b.WriteString("### Goals of issue 13\n\n")
	fmt.Fprintf(b, "Every row at once, for the `%s` arm (the defaults); `%s` is the same ledger with the defaults before issue 13 "+
		"(darwin-memo's upkeep rules). Seeds 1–%d are the seeds the defaults were chosen on", Ours, Issue6, meta.Seeds)
	held := meta.HeldOut
	if held != nil {
		fmt.Fprintf(b, "; seeds %d–%d are held out (worlds no setting was chosen on)", meta.HeldOutFirst, meta.HeldOutFirst+uint64(meta.Seeds)-1)
	}
	b.WriteString(". The damage threshold is the issue's (the defaults before issue 13 on seeds 1–20); \"best baseline\" is the baseline " +
		"with the highest median cumulative Δ on the same seeds and noise.\n\n")
	head := fmt.Sprintf("| goal | `%s`, seeds 1–%d | `%s`, seeds 1–%d | met |", Issue6, meta.Seeds, Ours, meta.Seeds)
	sep := "|---|---|---|---|"
	if held != nil {
		last := meta.HeldOutFirst + uint64(meta.Seeds) - 1
		head += fmt.Sprintf(" `%s`, held-out %d–%d | `%s`, held-out %d–%d | met |", Issue6, meta.HeldOutFirst, last, Ours, meta.HeldOutFirst, last)
		sep += "---|---|---|"
	}
	b.WriteString(head + "\n" + sep + "\n")
	before, after := Issue13Goals(r, Issue6), Issue13Goals(r, Ours)
	var hb, ha []Goal
	if held != nil {
		hb, ha = Issue13Goals(held, Issue6), Issue13Goals(held, Ours)
	}
	for i, g := range after {
		fmt.Fprintf(b, "| %s | %s | %s | %s |", g.Text, before[i].Measured, g.Measured, yes(g))
		if held != nil {
			fmt.Fprintf(b, " %s | %s | %s |", hb[i].Measured, ha[i].Measured, yes(ha[i]))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// Section renders the selection section, markers included.
func Section(r *sim.SweepResult, meta Meta) string {
	var b strings.Builder
	cfg := meta.Config
	b.WriteString(BeginMarker + "\n")
	b.WriteString("## Selection quality (generated)\n\n")
	fmt.Fprintf(&b, "Regenerate this section and its plots with `%s` (issue 6). Every number below is a pure function of the seeds; "+
		"the run is deterministic, so regenerating it changes nothing unless the code changes. "+
		"CI runs the quick mode, `.ci/selection-quick.sh` (4 seeds at 0%% and 10%% noise, seconds), which fails when a goal "+
		"the `%s` arm (the defaults) meets on those seeds regresses (see the script).\n\n", meta.Command, Ours)
	fmt.Fprintf(&b, "**What is simulated.** %d seeds × %d noise levels × %d arms. Each seed is a repository history of %d merged PRs: "+
		"%d topics with %d tests each (%d tests), topic popularity Zipf(%.1f), %d–%d tasks bundled per PR (one ticket each), "+
		"settlement %d–%d merged PRs late. Each task is a failing test; the agent consults the store with the task's query and acts on the "+
		"deciding lesson. A useful lesson for the topic raises the chance of fixing the test from %.0f%% to %.0f%% and protects the topic's "+
		"other tests (without it the agent breaks one %.0f%% of the time); a poisoned lesson breaks 1–%d passing tests %.0f%% of the time; "+
		"trivia does nothing; near-duplicates are reworded copies of useful lessons. The store starts with %d useful, %d near-duplicate, %d poisoned "+
		"and %d trivia lessons, and one new lesson arrives every %d merged PRs during the first %.0f%% of the run; every lesson is "+
		"extracted by the encoder's deterministic (no-LLM) path from a `Lesson:` line of the merged PR it arrives after. "+
		"\n\n%s\n\n",
		meta.Seeds, len(r.Noises), len(r.Arms), cfg.PRs, cfg.Topics, cfg.TestsPerTopic, cfg.Topics*cfg.TestsPerTopic, cfg.TopicSkew,
		cfg.MinTasks, cfg.MaxTasks, 0, cfg.MaxDelay, 100*cfg.PBase, 100*cfg.PFix, 100*cfg.PTrap, cfg.MaxHarm, 100*cfg.PHarm,
		cfg.InitialUseful, cfg.InitialNearDup, cfg.InitialPoison, cfg.InitialTrivia, cfg.ArrivalEvery, 100*cfg.LearnFraction, noiseModel(cfg))
	fmt.Fprintf(&b, "**Arms.** `ledger`: this project's `lessons` package with the defaults of the action and of the stores it creates "+
		"([tuning.md](tuning.md)): %s. `%s`: the defaults before issue 13, for comparison (%s). `%s`: the ledger with darwin-memo's settings (%s). "+
		"`keep_everything`: never forgets. `random_matched`: after each merged PR deletes as many random entries as the ledger's net "+
		"evictions in that PR on the same seed. `evict_on_negative`: deletes the deciding lesson of any ticket that settles negative. "+
		"`strike_k1`, `strike_k3`: count negative settlements against every entry a ticket names and delete at k; `strike_k3_reset`: "+
		"a positive settlement clears the count. `ttl_%dd`: Copilot Memory's rule, deleting a lesson unused (not retrieved) for %d days, "+
		"a day being %d merged PRs. `no_memory`: no store at all (reference, not a baseline). %s\n\n",
		meta.LedgerSettings, Issue6, meta.Issue6Settings, DarwinMemo, meta.DarwinMemoSettings, cfg.TTLDays, cfg.TTLDays, cfg.PRsPerDay, baselineRetrieval)

	issue13Table(&b, r, meta)
	fmt.Fprintf(&b, "### Goals of issue 6\n\n| goal | `%s` (defaults) | met | `%s` (darwin-memo's settings) | met |\n|---|---|---|---|---|\n", Ours, DarwinMemo)
	status := func(g Goal) string {
		switch {
		case !g.Checked:
			return "not measured"
		case g.Met:
			return "**yes**"
		}
		return "**no**"
	}
	ours, prop := Goals(r), GoalsFor(r, DarwinMemo)
	for i, g := range ours {
		p := prop[i]
		if g.ID == "strikes" { // about the baselines: the same for both
			p.Measured = "(same)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", g.Text, g.Measured, status(g), p.Measured, status(p))
	}
	b.WriteString("\n")

	for _, noise := range []float64{0, 0.1} {
		if !hasNoise(r, noise) {
			continue
		}
		fmt.Fprintf(&b, "### Headline, %s\n\nMedian [25th–75th percentile] over %d seeds; poison killed shows [min–max].\n\n", pct(noise), meta.Seeds)
		headlineTable(&b, r, noise)
		b.WriteString("\n")
	}

	b.WriteString("### Flaky noise\n\n")
	fmt.Fprintf(&b, "![benign retention vs noise](%s%s)\n\n", meta.PlotPrefix, PlotRetention)
	b.WriteString("Benign capability retained at the end (median), and in parentheses relative to the same arm's noise-free run:\n\n")
	sweepTable(&b, r, func(arm string, n float64) string {
		v := sim.Median(metric(r.Cell(arm, n), retained))
		if rel := RelativeRetention(r, arm, n); n != 0 && !math.IsNaN(rel) {
			return fmt.Sprintf("%.2f (%.0f%%)", v, 100*rel)
		}
		return fmt.Sprintf("%.2f", v)
	})
	fmt.Fprintf(&b, "\n![cumulative delta vs noise](%s%s)\n\nCumulative true delta (median):\n\n", meta.PlotPrefix, PlotCumVsNoise)
	sweepTable(&b, r, func(arm string, n float64) string {
		return fmt.Sprintf("%.0f", sim.Median(metric(r.Cell(arm, n), cumDelta)))
	})
	b.WriteString("\nPoison kill rate (median):\n\n")
	sweepTable(&b, r, func(arm string, n float64) string {
		return fmt.Sprintf("%.2f", sim.Median(metric(r.Cell(arm, n), killRate)))
	})
	measurementTable(&b, r)
	if hasNoise(r, seriesNoise) {
		fmt.Fprintf(&b, "\n### Over time, %s\n\n![cumulative delta over PRs](%s%s)\n\n![population over PRs](%s%s)\n",
			pct(seriesNoise), meta.PlotPrefix, PlotCumOverPRs, meta.PlotPrefix, PlotPopulation)
	}
	darwinMemoComparison(&b, r)
	b.WriteString(caveats(cfg))
	fmt.Fprintf(&b, "\n### Metrics\n\n"+
		"* **poison killed**: share of poisoned lessons no living entry carries at the end (every poisoned lesson arrives in the first %.0f%% of the run).\n"+
		"* **kill latency**: merged PRs from the first time an agent acted on a poisoned lesson to its removal (0 = removed in the PR where it first did harm); median per seed.\n"+
		"* **damage**: passing tests broken by acting on poisoned lessons over the run.\n"+
		"* **benign capability retained**: share of topics that ever had a useful lesson for which the store still holds one at the end (a merged entry carries its members' lessons). In this world every useful lesson of a topic has the same effect, so this is what the store can still do for agents; the retention goals use it.\n"+
		"* **useful facts kept**: share of distinct useful lessons (a lesson and its near-duplicates count once) still held at the end; stricter, since it also counts redundant lessons of a topic.\n"+
		"* **tail Δ / PR**: mean true delta per merged PR over the last %.0f%% of the run, when no lesson arrives: the quality of what survived.\n"+
		"* **cumulative Δ**: sum of true deltas (tests fixed minus tests broken) over the run. True, not measured: noise changes what an arm learns, not the score.\n"+
		"* **final population**: living entries at the end.\n",
		100*cfg.LearnFraction, 100*cfg.TailFraction)
	b.WriteString(EndMarker + "\n")
	return b.String()
}

// WriteSection replaces the marked selection section of the markdown file at
// path, or appends it when the file has no markers (creating the file if
// needed). Text outside the markers is kept byte for byte.
func WriteSection(path, section string) error {
	return writeMarked(path, section, BeginMarker, EndMarker, "# Benchmarks\n\n")
}

func writeMarked(path, section, begin, end, header string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	doc := string(old)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	switch {
	case i >= 0 && j > i:
		stop := j + len(end)
		if stop < len(doc) && doc[stop] == '\n' {
			stop++
		}
		doc = doc[:i] + section + doc[stop:]
	case i >= 0 || j >= 0:
		return fmt.Errorf("%s has only one of %q and %q; fix the markers by hand, then rerun", path, begin, end)
	case doc == "":
		doc = header + section
	default:
		if !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		doc += "\n" + section
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create the directory of %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// darwinMemoComparison puts this run next to darwin-memo's published
// survival-arm table (semantics §11), at 0% noise.
func darwinMemoComparison(b *strings.Builder, r *sim.SweepResult) {
	ours, rnd, eon := r.Cell(Ours, 0), r.Cell("random_matched", 0), r.Cell("evict_on_negative", 0)
	if ours == nil || rnd == nil || eon == nil {
		return
	}
	rates := metric(ours, killRate)
	all := 0
	for _, x := range rates {
		if x == 1 {
			all++
		}
	}
	med := func(c *sim.Cell, f func(sim.Metrics) float64) float64 { return sim.Median(metric(c, f)) }
	fmt.Fprintf(b, "\n### Against darwin-memo's published table\n\n"+
		"darwin-memo's survival arm (its StorageEnv: 10 seeds, 30 cycles, one actionable poison) kills the poison in every seed at "+
		"median cycle 0; random eviction at a matched rate kills it in 80%% of seeds with 12–27 times the damage (the factor differs "+
		"between revisions of its benchmarks page); evict-on-first-negative ties it on outcomes but keeps 15 entries against 4.\n\n"+
		"Here, at 0%% noise: `ledger` kills every poisoned lesson in %d of %d seeds (median share killed %.2f), a median %.1f merged PRs "+
		"after the lesson first did harm; `random_matched` kills a median %.2f of them with %.1f times the ledger's damage; "+
		"`evict_on_negative` reaches a cumulative Δ of %.0f against the ledger's %.0f while keeping %.0f entries against %.0f. "+
		"This world is harder than StorageEnv: about a dozen poisoned lessons arrive over time, each PR's single delta settles up "+
		"to four tickets, settlement is late, and flaky runs report good changes red.\n",
		all, len(rates), med(ours, killRate), med(ours, killPRs), med(rnd, killRate), med(rnd, damage)/med(ours, damage),
		med(eon, cumDelta), med(ours, cumDelta), med(eon, finalPop), med(ours, finalPop))
	if prop := r.Cell(DarwinMemo, 0); prop != nil {
		all := 0
		for _, x := range metric(prop, killRate) {
			if x == 1 {
				all++
			}
		}
		fmt.Fprintf(b, "\nWith darwin-memo's settings (the defaults before issue 6, [tuning.md](tuning.md)), `%s` kills every poisoned lesson in %d of %d seeds, a median %.1f merged "+
			"PRs after first harm, with %.0f tests of damage (`random_matched`: %.1f times that), and reaches a cumulative Δ of %.0f with "+
			"%.0f entries.\n", DarwinMemo, all, len(prop.Metrics), med(prop, killPRs), med(prop, damage), med(rnd, damage)/med(prop, damage),
			med(prop, cumDelta), med(prop, finalPop))
	}
}

// caveats lists what the simulation leaves out or simplifies.
func caveats(cfg sim.Config) string {
	return fmt.Sprintf("\n### Caveats\n\n"+
		"* The world is synthetic and its parameters were fixed before any arm was measured, not fitted; the outcome depends on them "+
		"(topic popularity and bundle size most). Lesson texts are made-up words, so retrieval is exact topic matching.\n"+
		"* The agent acts only on the deciding lesson; supporters are cited in the ticket and credited by the ledger's rules.\n"+
		"* Every ticket of a PR is settled with the PR's one delta, each lesson at most once per PR, as the action's SettleBody does; "+
		"the defaults divide the delta equally among the PR's tickets (`bundle_split`), a crude credit assignment, and count only "+
		"unbundled gains towards tenure. A poisoned lesson bundled with useful work can still be paid for it; this is the main reason "+
		"a poison survives, and per-test attribution is not modelled (see [tuning.md](tuning.md)).\n"+
		"* The action verifies a store-free ticket by re-running its query against the store at the PR's base; the simulator consults "+
		"at the base, so verification would always pass and is skipped.\n"+
		"* The suite is small (%d tests, %d per topic) and work concentrates on popular topics, so a test often breaks and gets fixed "+
		"again within the sidecar's window of 5 measurements; the quarantine then treats it as flaky and leaves its real transitions "+
		"out (the \"real transitions quarantined\" row above), even at 0%% noise. That is settle's (and darwin-memo's) rule applied to "+
		"this world; in a larger suite real flips on one test are rarer.\n"+
		"* No CI reruns: a test that fails and passes on a rerun is `flaky` to settle and never counts; without reruns every flake is a "+
		"plain red.\n"+
		"* The encoder's duplicate check against the living store is not applied (it would differ per arm); consolidation handles "+
		"near-duplicates in the ledger.\n"+
		"* Capability is counted in topics (%d of them), so it moves in steps of 1/%d and the relative-retention goals move in "+
		"coarse steps too.\n"+
		"* Baselines have no energy, so they break retrieval ties by insertion order; the ledger breaks them by energy.\n"+
		"* The TTL arm's day is %d merged PRs, so %d days are %d merged PRs; at this world's consult rates few lessons go that long "+
		"without being retrieved, so it behaves almost like `keep_everything`.\n",
		cfg.Topics*cfg.TestsPerTopic, cfg.TestsPerTopic, cfg.Topics, cfg.Topics, cfg.PRsPerDay, cfg.TTLDays, cfg.PRsPerDay*cfg.TTLDays)
}

// measurementTable shows what settle's measurement did to the ledger's PRs
// at each noise level: how often CI's delta was wrong, and what the
// quarantine caught.
func measurementTable(b *strings.Builder, r *sim.SweepResult) {
	if r.Cell(Ours, 0) == nil {
		return
	}
	fmt.Fprintf(b, "\n**What the measurement did** (`%s`'s PRs, median over seeds of per-run totals). A spurious transition is one settle saw "+
		"that did not happen (a flaky red at the base or the head); the quarantine is the flaky sidecar's.\n\n", Ours)
	rows := []struct {
		name string
		f    func(m sim.Metrics) float64
		pct  bool
	}{
		{"PRs measured (carried tickets)", func(m sim.Metrics) float64 { return m.MeasuredPRs }, false},
		{"PRs whose measured Δ ≠ true Δ", func(m sim.Metrics) float64 { return m.Misreported / m.MeasuredPRs }, true},
		{"spurious transitions seen", func(m sim.Metrics) float64 { return m.Spurious }, false},
		{"… of them quarantined", func(m sim.Metrics) float64 {
			if m.Spurious == 0 {
				return math.NaN()
			}
			return m.SpuriousQuarantined / m.Spurious
		}, true},
		{"real transitions quarantined", func(m sim.Metrics) float64 { return m.GenuineQuarantined }, false},
	}
	b.WriteString("| measurement |")
	for _, n := range r.Noises {
		fmt.Fprintf(b, " %s |", strings.TrimSuffix(pct(n), " noise"))
	}
	b.WriteString("\n|---|")
	for range r.Noises {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + row.name + " |")
		for _, n := range r.Noises {
			v := sim.Median(metric(r.Cell(Ours, n), row.f))
			switch {
			case math.IsNaN(v):
				b.WriteString(" – |")
			case row.pct:
				fmt.Fprintf(b, " %.0f%% |", 100*v)
			default:
				fmt.Fprintf(b, " %.0f |", v)
			}
		}
		b.WriteString("\n")
	}
}

// noiseModel describes how CI is simulated and measured.
func noiseModel(cfg sim.Config) string {
	top := sim.FlakeRates(cfg.FlakyTests, cfg.FlakySkew, 0.1)
	return fmt.Sprintf("**How CI is measured.** Every merged PR has two CI runs, at its base and at its head, and the action's "+
		"measurement path turns them into a delta: each run is a per-test result map (passed or failed), the flaky-quarantine sidecar "+
		"(`settle.FlakyHistory`, window %d observations, %d flips) records both runs, and `settle.Diff` returns improvements minus "+
		"regressions on shared tests with the sidecar's quarantine left out, in that order, as `settle.Measure` does. As in the action, "+
		"only a PR that carries tickets is measured, when its settlement comes due, and the sidecar persists across PRs. "+
		"Every arm, baselines included, is settled with deltas measured this way: the same flaky tests and the same dice for every "+
		"PR's two runs, each arm with its own sidecar (its repository's history), so the arms' deltas differ only where their agents "+
		"changed different tests. "+
		"**Flaky noise *p*** is the chance that one CI run of a change that breaks nothing reports at least one test red. "+
		"Spurious reds come from a fixed set of %d flaky tests (%.0f%% of the suite, about Google's share of tests with some flakiness) "+
		"drawn per seed; flaky test *k* gets a Zipf(%g) share of the failures, so at 10%% noise the flakiest fails %.1f%% of runs and the "+
		"least flaky %.1f%%. Each run draws its own flakes, at the base as at the head: a flake at the head reports a good change red, "+
		"one at the base credits a change with a fix it did not make. No reruns are modelled (a rerun that passes would make the test "+
		"`flaky`, which settle leaves out).",
		settle.DefaultFlakyWindow, settle.DefaultFlipThreshold, cfg.FlakyTests,
		100*float64(cfg.FlakyTests)/float64(cfg.Topics*cfg.TestsPerTopic), cfg.FlakySkew, 100*top[0], 100*top[len(top)-1])
}

// baselineRetrieval says how the baselines retrieve beside the ledger arms,
// which consult with BenchRetrieval (the docs are written with it only).
const baselineRetrieval = "All baselines retrieve with darwin-memo's lexical scoring (semantics §4.2: smoothed IDF, coverage floor 0.25, " +
	"top 3, the best hit deciding), ties in insertion order: a plain store of lessons, as a repository keeps one without this project. " +
	"The ledger arms consult with BM25F and its calibrated abstention, as `decide` does, so their lead over a baseline is " +
	"selection and ranking together; with `-retrieval darwin-memo` every arm retrieves alike ([retrieval.md](retrieval.md), \"Selection benchmark\")."
