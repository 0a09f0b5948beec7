package report

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/ledgerarm"
	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Full and quick sweeps.
var (
	FullNoises  = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5}
	QuickNoises = []float64{0, 0.1}
)

const (
	fullSeeds  = 20
	quickSeeds = 4
	// RegenCommand is how docs/benchmarks.md's section is regenerated.
	RegenCommand = "go run ./bench/selection -write docs/benchmarks.md -tuning docs/tuning.md"
)

// UsageError is a mistake in the command line.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// ErrGoalMissed is returned by Command when a goal named by -require is not
// met.
var ErrGoalMissed = errors.New("selection goal missed")

// BenchRetrieval is the ranking the published benchmark's ledger arms
// consult with: BM25F, the default that decide ships, so the benchmark
// measures what agents run. -retrieval darwin-memo runs darwin-memo's
// ranking instead, and -tasks fact the worlds where only the lesson stating
// a task's fact serves it (docs/retrieval.md, "Selection benchmark").
const BenchRetrieval = lessons.RetrievalBM25F

// LedgerOptions are the ledger arm's settings in the published benchmark:
// the defaults of the action and of the stores it creates (scale 1.5,
// lessons.RecommendedConfig; docs/tuning.md says why), consulting with
// BenchRetrieval.
func LedgerOptions() ledgerarm.Options {
	return ledgerarm.Options{Name: Ours, Retrieval: BenchRetrieval}
}

// darwin-memo's settings, which the defaults replaced (docs/tuning.md): its
// CI convention's resource scale and its default supporting share, which
// stores darwin-memo wrote keep.
const (
	DarwinMemoScale = 2.0
	DarwinMemoShare = 0.25
)

// DarwinMemo is the name of the arm running darwin-memo's settings, shown
// for comparison.
const DarwinMemo = Ours + "_darwin-memo"

// Issue6 is the name of the arm running the defaults before issue 13:
// scale 1.5 and supporting share 0 with darwin-memo's upkeep rules (every
// entry pays 0.05 per tick, no retrieval upkeep, tenure or harm gain).
const Issue6 = Ours + "_issue6"

// Issue6Options are the ledger settings of the Issue6 arm.
func Issue6Options() ledgerarm.Options {
	cfg := lessons.DefaultConfig()
	cfg.SupportingShare = 0
	return ledgerarm.Options{Name: Issue6, Config: &cfg, Retrieval: BenchRetrieval}
}

// DarwinMemoOptions are the ledger settings of the DarwinMemo arm: scale 2
// and lessons.DefaultConfig (supporting share 0.25).
func DarwinMemoOptions() ledgerarm.Options {
	cfg := lessons.DefaultConfig()
	cfg.SupportingShare = DarwinMemoShare
	return ledgerarm.Options{Name: DarwinMemo, Scale: DarwinMemoScale, Config: &cfg, Retrieval: BenchRetrieval}
}

// NewSweep builds the benchmark's sweep: the ledger with the defaults as
// the reference arm, the ledger with the defaults before issue 13 and with
// darwin-memo's settings, then every baseline.
func NewSweep(cfg sim.Config, seeds int, noises []float64) sim.Sweep {
	return newSweep(cfg, seeds, noises, BenchRetrieval)
}

// newSweep is NewSweep with the ledger arms consulting with r.
func newSweep(cfg sim.Config, seeds int, noises []float64, r lessons.Retrieval) sim.Sweep {
	ss := SeedRange(1, seeds)
	arms := append([]sim.ArmSpec{ledgerarm.Spec(consulting(Issue6Options(), r)), ledgerarm.Spec(consulting(DarwinMemoOptions(), r))}, sim.Baselines(cfg)...)
	return sim.Sweep{Config: cfg, Seeds: ss, Noises: noises,
		Reference: ledgerarm.Spec(consulting(LedgerOptions(), r)), Arms: arms, KeepSeries: true}
}

// consulting returns o consulting with r.
func consulting(o ledgerarm.Options, r lessons.Retrieval) ledgerarm.Options {
	o.Retrieval = r
	return o
}

// SeedRange returns the n seeds first, first+1, ...
func SeedRange(first uint64, n int) []uint64 {
	ss := make([]uint64, n)
	for i := range ss {
		ss[i] = first + uint64(i)
	}
	return ss
}

// Command runs the selection benchmark with command-line args (without the
// program name) and reports to stdout. It is the body of
// `go run ./bench/selection`.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		quick    = fs.Bool("quick", false, "quick mode: few seeds, noise 0% and 10% (seconds; for CI)")
		seeds    = fs.Int("seeds", 0, "number of seeds (default 20, or 4 with -quick)")
		first    = fs.Uint64("first-seed", 1, "first seed; use another range (e.g. 21) to check a conclusion on held-out worlds")
		noises   = fs.String("noise", "", "comma-separated flaky-noise levels in [0,1] (default 0,0.05,0.1,0.2,0.3,0.5, or 0,0.1 with -quick)")
		prs      = fs.Int("prs", 0, "merged PRs per run (default 400)")
		workers  = fs.Int("workers", 0, "parallel worlds (default GOMAXPROCS)")
		write    = fs.String("write", "", "write the selection section into this markdown file (between the selection markers) and the SVG plots next to it")
		tuning   = fs.String("tuning", "", "also run the ledger-settings sensitivity sweep (0% and 10% noise) and write its table into this markdown file (between the tuning markers)")
		reqArm   = fs.String("require-arm", Ours, "the ledger arm whose goals -require checks: "+Ours+" (defaults), "+Issue6+" (the defaults before issue 13) or "+DarwinMemo+" (darwin-memo's settings)")
		vocab    = fs.String("vocabulary", string(sim.MadeUp), "how the worlds spell lessons and queries: "+string(sim.MadeUp)+" (the published worlds) or "+string(sim.Zipf)+" (shared English words and Zipf-spread topic words; docs/retrieval.md)")
		tasks    = fs.String("tasks", string(sim.TopicTasks), "what the worlds' tasks ask for: "+string(sim.TopicTasks)+" (any useful lesson of the task's topic helps; the published worlds) or "+string(sim.FactTasks)+" (only a lesson stating the task's fact helps; docs/retrieval.md)")
		ranking  = fs.String("retrieval", string(BenchRetrieval), "the ranking the ledger arms consult with: bm25f (the default of decide, the published benchmark) or darwin-memo")
		worldsTo = fs.String("worlds", "", "run the ledger in every world (each -vocabulary and -tasks, with each -retrieval) at 0% and 10% noise and write the table into this markdown file (between the worlds markers); docs/retrieval.md holds it")
		require  = fs.String("require", "", "comma-separated goals that must be met, else exit non-zero: "+strings.Join(GoalIDs, ", ")+", or all")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./bench/selection [flags]\n\nRuns the selection-quality benchmark (issue 6): the ledger against every baseline arm on simulated merged-PR streams.\n\nEXAMPLES\n  %s\n  go run ./bench/selection -quick -require kill\n\nFLAGS\n", RegenCommand)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &UsageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q: bench takes only flags", fs.Arg(0))
	}
	cfg := sim.DefaultConfig()
	if *prs != 0 {
		cfg.PRs = *prs
	}
	n, levels := fullSeeds, FullNoises
	if *quick {
		n, levels = quickSeeds, QuickNoises
	}
	if *seeds != 0 {
		n = *seeds
	}
	if n < 1 {
		return usagef("-seeds %d: need at least 1 seed", n)
	}
	if *noises != "" {
		levels = nil
		for _, f := range strings.Split(*noises, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || v < 0 || v > 1 {
				return usagef("-noise %q: %q is not a probability in [0,1]", *noises, f)
			}
			levels = append(levels, v)
		}
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	v, err := sim.ParseVocabulary(*vocab)
	if err != nil {
		return &UsageError{err}
	}
	cfg.Vocabulary = v
	tm, err := sim.ParseTaskModel(*tasks)
	if err != nil {
		return &UsageError{err}
	}
	cfg.Tasks = tm
	retrieval, err := lessons.ParseRetrieval(*ranking)
	if err != nil {
		return &UsageError{err}
	}
	if (v != sim.MadeUp || tm != sim.TopicTasks || retrieval != BenchRetrieval) && (*write != "" || *tuning != "") {
		return usagef("-vocabulary %s -tasks %s -retrieval %s: the docs are generated with -vocabulary %s -tasks %s -retrieval %s; drop -write and -tuning to look at others", v, tm, retrieval, sim.MadeUp, sim.TopicTasks, BenchRetrieval)
	}
	if err := cfg.Validate(); err != nil {
		return &UsageError{err}
	}
	var required []string
	if *require != "" {
		for _, id := range strings.Split(*require, ",") {
			id = strings.TrimSpace(id)
			if id == "all" {
				required = append(required, GoalIDs...)
				continue
			}
			if !slices.Contains(GoalIDs, id) {
				return usagef("-require: unknown goal %q; use one of %s, or all", id, strings.Join(GoalIDs, ", "))
			}
			required = append(required, id)
		}
	}

	if *reqArm != Ours && *reqArm != DarwinMemo && *reqArm != Issue6 {
		return usagef("-require-arm %q: use %s, %s or %s", *reqArm, Ours, Issue6, DarwinMemo)
	}
	if *first == 0 {
		return usagef("-first-seed 0: seeds start at 1")
	}
	if *first != 1 && *write != "" {
		return usagef("-first-seed %d: the docs are generated from seeds 1 to n; drop -write to look at other seeds", *first)
	}
	if *worldsTo != "" {
		var other []string
		fs.Visit(func(f *flag.Flag) {
			if !slices.Contains([]string{"worlds", "seeds", "workers", "prs"}, f.Name) {
				other = append(other, "-"+f.Name)
			}
		})
		if len(other) > 0 {
			return usagef("-worlds runs seeds 1 to n at 0%% and 10%% noise in every vocabulary, task model and ranking; %s does not go with it (only -seeds, -workers and -prs do)", strings.Join(other, ", "))
		}
		section, err := WorldsSection(ctx, cfg, n, *workers)
		if err != nil {
			return fmt.Errorf("selection benchmark: %w", err)
		}
		if err := WriteWorlds(*worldsTo, section); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the table of every world in %s\n", *worldsTo)
		return nil
	}
	sw := newSweep(cfg, n, levels, retrieval)
	sw.Seeds = SeedRange(*first, n)
	sw.Workers = *workers
	start := time.Now()
	res, err := sw.Run(ctx)
	if err != nil {
		return fmt.Errorf("selection benchmark: %w", err)
	}
	elapsed := time.Since(start)

	meta := Meta{Command: RegenCommand, Config: cfg, Seeds: n, LedgerSettings: consulting(LedgerOptions(), retrieval).Describe(),
		DarwinMemoSettings: consulting(DarwinMemoOptions(), retrieval).Describe(), Issue6Settings: consulting(Issue6Options(), retrieval).Describe()}
	// The held-out seeds (the next n worlds) at 0% and 10% noise: the goal
	// table of benchmarks.md and the held-out table of tuning.md.
	held := *first + uint64(n)
	var hres *sim.SweepResult
	if *write != "" || *tuning != "" {
		hsw := HeldOutSweep(cfg, held, n)
		hsw.Workers = *workers
		if hres, err = hsw.Run(ctx); err != nil {
			return fmt.Errorf("held-out sweep: %w", err)
		}
		meta.HeldOut, meta.HeldOutFirst = hres, held
	}
	if *write != "" {
		meta.PlotPrefix = ""
		section := Section(res, meta)
		if err := WriteSection(*write, section); err != nil {
			return err
		}
		dir := filepath.Dir(*write)
		names := make([]string, 0)
		plots := Plots(res)
		for name := range plots {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(dir, name), plots[name], 0o644); err != nil {
				return fmt.Errorf("write plot: %w", err)
			}
		}
		fmt.Fprintf(stdout, "wrote the selection section of %s and %d plots in %s\n", *write, len(names), dir)
	}
	summary(stdout, res, n)
	fmt.Fprintf(stdout, "(%d seeds × %d noise levels × %d arms in %.1fs)\n", n, len(levels), len(res.Arms), elapsed.Seconds())

	if *tuning != "" {
		base := res
		if !slices.Contains(levels, 0) || !slices.Contains(levels, 0.1) {
			base = nil // the main sweep lacks a noise level the table needs
		}
		tsw := TuningSweep(cfg, n, base)
		tsw.Seeds = SeedRange(*first, n)
		tsw.Workers = *workers
		tres, err := tsw.Run(ctx)
		if err != nil {
			return fmt.Errorf("tuning sweep: %w", err)
		}
		if base != nil {
			tres = MergeTuning(base, tres)
		}
		cmd := RegenCommand
		if *first != 1 {
			cmd = fmt.Sprintf("go run ./bench/selection -first-seed %d -seeds %d -noise 0,0.1 -tuning <file>", *first, n)
		}
		section := TuningSection(tres, n, cmd)
		if err := writeMarked(*tuning, section, TuningBeginMarker, TuningEndMarker, "# Tuning the selection defaults\n\n"); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the sensitivity table of %s\n", *tuning)
		if err := writeMarked(*tuning, HeldOutSection(hres, held, n, cmd), HeldOutBeginMarker, HeldOutEndMarker, ""); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the held-out table (seeds %d–%d) of %s\n", held, held+uint64(n)-1, *tuning)
	}

	var missed []string
	for _, g := range AllGoals(res, *reqArm) {
		if !slices.Contains(required, g.ID) {
			continue
		}
		if !g.Checked || !g.Met {
			missed = append(missed, fmt.Sprintf("%s of %s (%s): %s", g.ID, *reqArm, g.Text, g.Measured))
		}
	}
	if len(missed) > 0 {
		return fmt.Errorf("%w: %s", ErrGoalMissed, strings.Join(missed, "; "))
	}
	return nil
}

// summary prints the goals and the headline metrics as plain text.
func summary(w io.Writer, r *sim.SweepResult, seeds int) {
	fmt.Fprintf(w, "goals of %s (defaults):\n", Ours)
	for _, g := range AllGoals(r, Ours) {
		status := "MISSED"
		switch {
		case !g.Checked:
			status = "n/a"
		case g.Met:
			status = "met"
		}
		fmt.Fprintf(w, "goal %-10s %-6s %s — %s\n", g.ID, status, g.Text, g.Measured)
	}
	if slices.Contains(r.Arms, DarwinMemo) {
		var parts []string
		for _, g := range AllGoals(r, DarwinMemo) {
			st := "missed"
			if g.Met {
				st = "met"
			}
			parts = append(parts, g.ID+" "+st)
		}
		fmt.Fprintf(w, "goals of %s (darwin-memo's settings, for comparison): %s\n", DarwinMemo, strings.Join(parts, ", "))
	}
	for _, noise := range r.Noises {
		fmt.Fprintf(w, "\n%s, median over %d seeds\n%-18s %6s %7s %7s %6s %6s %6s %7s %5s\n", pct(noise), seeds,
			"arm", "killed", "killPRs", "damage", "capab", "facts", "tailΔ", "cumΔ", "pop")
		for _, arm := range r.Arms {
			c := r.Cell(arm, noise)
			med := func(f func(sim.Metrics) float64) float64 { return sim.Median(metric(c, f)) }
			fmt.Fprintf(w, "%-18s %6.2f %7.1f %7.0f %6.2f %6.2f %6.2f %7.0f %5.0f\n", arm, med(killRate), med(killPRs), med(damage),
				med(retained), med(facts), med(tailDelta), med(cumDelta), med(finalPop))
		}
	}
}
