// Package churn is the selection benchmark's code-churn world: merged PRs delete the code
// some lessons describe mid-stream (sim.World.WithChurn), and the ledger arm reads each
// merged PR's deleted files as the action does (lessons.Store.FollowCitations), so a
// lesson left without a valid citation pays stale_upkeep. It chooses and checks that
// setting's default (docs/tuning.md, "Stale citations").
package churn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/ledgerarm"
	"github.com/darwin-memo/darwin-memo-action/bench/selection/report"
	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Share is the share of useful facts whose code the churn world deletes.
const Share = 0.3

// Arm is the ledger arm whose lessons cite their code.
type Arm struct {
	*ledgerarm.Arm
}

// NewArm returns a citing ledger arm.
func NewArm(opts ledgerarm.Options) *Arm { return &Arm{ledgerarm.New(opts)} }

// Spec returns the citing ledger arm as a sweep spec.
func Spec(opts ledgerarm.Options) sim.ArmSpec {
	return sim.ArmSpec{Name: opts.Name, New: func(*sim.World, []int) (sim.Arm, error) { return NewArm(opts), nil }}
}

// Add implements sim.Arm: the lesson enters as the ledger arm adds it, citing its file.
func (a *Arm) Add(l sim.Lesson, pr int) error {
	if err := a.Arm.Add(l, pr); err != nil {
		return err
	}
	living := a.Store().Living()
	for i := len(living) - 1; i >= 0; i-- {
		if e := living[i]; e.Question == l.Question && e.Answer == l.Answer {
			e.Sources = append(e.Sources, citation.Prefix+sim.LessonFile(l))
			return nil
		}
	}
	return fmt.Errorf("lesson %d not found in the store after it was added", l.ID)
}

// CodeRemoved implements sim.ChurnObserver as the action does for a merged PR's removed
// files.
func (a *Arm) CodeRemoved(files []string, pr int) error {
	changes := make([]citation.Change, len(files))
	for i, f := range files {
		changes[i] = citation.Change{Status: "removed", Path: f}
	}
	a.Store().FollowCitations(pr+1, changes)
	return nil
}

// Name is the arm name of a stale_upkeep setting; the recommended one is report.Ours.
func Name(stale float64) string {
	if stale == lessons.RecommendedStaleUpkeep {
		return report.Ours
	}
	return fmt.Sprintf("%s_stale_%g", report.Ours, stale)
}

// Options is the default ledger arm with stale_upkeep set to stale, consulting with
// darwin-memo's ranking: the churn world is where stale_upkeep was chosen, with the
// ranking the published benchmark then used (docs/tuning.md, "Stale citations").
func Options(stale float64) ledgerarm.Options {
	o := report.LedgerOptions()
	cfg := lessons.RecommendedConfig()
	cfg.StaleUpkeep = stale
	o.Name, o.Config, o.Retrieval = Name(stale), &cfg, lessons.RetrievalDarwinMemo
	return o
}

// NewSweep is the published benchmark's sweep on the churn world: the citing ledger arm at
// the recommended stale_upkeep as the reference, at each other setting, and the baselines.
func NewSweep(cfg sim.Config, seeds int, noises []float64, stales []float64) sim.Sweep {
	var arms []sim.ArmSpec
	for _, s := range stales {
		if s != lessons.RecommendedStaleUpkeep {
			arms = append(arms, Spec(Options(s)))
		}
	}
	return sim.Sweep{Config: cfg, Seeds: report.SeedRange(1, seeds), Noises: noises,
		Reference: Spec(Options(lessons.RecommendedStaleUpkeep)), Arms: append(arms, sim.Baselines(cfg)...),
		Alter: func(w *sim.World) *sim.World { return w.WithChurn(Share) }}
}

// ObsoleteLife is, over the lessons whose code a PR deleted, the median number of merged
// PRs from the deletion until no living entry carried the lesson (the end of the run for
// one still carried), and the share still carried at the end.
func ObsoleteLife(w *sim.World, r *sim.Result) (median, survived float64) {
	var lives []float64
	alive := 0
	for _, f := range r.Fates {
		at := w.Churn.Gone[f.Lesson]
		if at < 0 || w.Lessons[f.Lesson].Born > at {
			continue
		}
		end := f.Gone
		if end < 0 {
			end = len(w.PRs) - 1
			alive++
		} else if end < at {
			continue // died before its code went
		}
		lives = append(lives, float64(end-at))
	}
	if len(lives) == 0 {
		return math.NaN(), math.NaN()
	}
	return sim.Median(lives), float64(alive) / float64(len(lives))
}

// Row is one stale_upkeep setting's results on the churn world.
type Row struct {
	Stale float64
	// Life and Survived are ObsoleteLife's medians over seeds, at each noise level.
	Life, Survived []float64
	// Goals are the ledger's goals for this arm on the churn sweep.
	Goals []report.Goal
}

// Table runs the churn sweep and measures every setting.
func Table(ctx context.Context, cfg sim.Config, seeds int, noises, stales []float64) ([]Row, error) {
	res, err := NewSweep(cfg, seeds, noises, stales).Run(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(stales))
	for i, s := range stales {
		rows[i] = Row{Stale: s, Goals: report.AllGoals(res, Name(s))}
		for _, noise := range noises {
			var lives, survived []float64
			for _, seed := range report.SeedRange(1, seeds) {
				base, err := sim.NewWorld(cfg, seed)
				if err != nil {
					return nil, err
				}
				w, err := base.WithNoise(noise)
				if err != nil {
					return nil, err
				}
				w = w.WithChurn(Share)
				r, err := sim.Run(w, NewArm(Options(s)))
				if err != nil {
					return nil, err
				}
				l, sv := ObsoleteLife(w, r)
				lives, survived = append(lives, l), append(survived, sv)
			}
			rows[i].Life = append(rows[i].Life, sim.Median(lives))
			rows[i].Survived = append(rows[i].Survived, sim.Median(survived))
		}
	}
	return rows, nil
}

// Markdown renders the table for docs/tuning.md.
func Markdown(rows []Row, noises []float64) string {
	var b strings.Builder
	b.WriteString("| `stale_upkeep` |")
	for _, n := range noises {
		fmt.Fprintf(&b, " obsolete life at %g%% noise (PRs) | still alive at the end |", n*100)
	}
	b.WriteString(" goals met |\n|---|")
	b.WriteString(strings.Repeat("---:|---:|", len(noises)))
	b.WriteString("---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %g |", r.Stale)
		for i := range noises {
			fmt.Fprintf(&b, " %.0f | %.0f%% |", r.Life[i], 100*r.Survived[i])
		}
		var met, missed []string
		for _, g := range r.Goals {
			switch {
			case !g.Checked:
			case g.Met:
				met = append(met, g.ID)
			default:
				missed = append(missed, fmt.Sprintf("%s (%s)", g.ID, g.Measured))
			}
		}
		slices.Sort(met)
		s := fmt.Sprintf("%d of %d", len(met), len(met)+len(missed))
		if len(missed) > 0 {
			s += "; missed: " + strings.Join(missed, ", ")
		}
		fmt.Fprintf(&b, " %s |\n", s)
	}
	return b.String()
}
