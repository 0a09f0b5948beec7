package churn

import (
	"context"
	"flag"
	"math"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

var table = flag.Int("churn-table", 0, "run the churn sweep with this many seeds and print docs/tuning.md's table")

func churnWorld(t *testing.T, seed uint64) *sim.World {
	t.Helper()
	w, err := sim.NewWorld(sim.DefaultConfig(), seed)
	if err != nil {
		t.Fatal(err)
	}
	return w.WithChurn(Share)
}

// The churn world deletes facts' files mid-stream, after their lessons arrived, the same
// way for every run of a seed, and leaves the world's lessons and tasks as they were.
func TestWithChurn(t *testing.T) {
	t.Parallel()
	w, again := churnWorld(t, 3), churnWorld(t, 3)
	gone := 0
	for id, at := range w.Churn.Gone {
		if at != again.Churn.Gone[id] {
			t.Fatalf("lesson %d: deleted at %d and %d", id, at, again.Churn.Gone[id])
		}
		if at < 0 {
			continue
		}
		gone++
		l := w.Lessons[id]
		if at <= l.Born || at >= len(w.PRs)*3/4 || !strings.Contains(strings.Join(w.Churn.Removed[at], " "), sim.LessonFile(l)) {
			t.Errorf("lesson %d (born %d): deleted at %d, removed then %v", id, l.Born, at, w.Churn.Removed[at])
		}
	}
	if gone == 0 {
		t.Fatal("no lesson's code was deleted")
	}
	base, _ := sim.NewWorld(sim.DefaultConfig(), 3)
	if base.Churn != nil || len(base.Lessons) != len(w.Lessons) || base.PRs[10].Tasks[0] != w.PRs[10].Tasks[0] {
		t.Error("WithChurn changed the world it was given")
	}
}

// The citing arm marks the deleted files' citations removed, and with stale_upkeep the
// lessons whose code is gone die sooner than without it (over 3 seeds in the long sweep, 1
// in the fast case).
func TestStaleUpkeepShortensObsoleteLife(t *testing.T) {
	t.Parallel()
	var off, on []float64
	for seed := uint64(1); seed <= exhaustive.Or[uint64](1, 3); seed++ {
		w := churnWorld(t, seed)
		for _, stale := range []float64{0, lessons.RecommendedStaleUpkeep} {
			a := NewArm(Options(stale))
			r, err := sim.Run(w, a)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range a.Store().Living() {
				for _, s := range e.Sources {
					if c, err := citation.Parse(s); err == nil && !c.Removed && slicesIndex(w, c.Path) {
						t.Errorf("seed %d: %s still cites deleted %s", seed, e.ID, c.Path)
					}
				}
			}
			_, survived := ObsoleteLife(w, r)
			if stale == 0 {
				off = append(off, survived)
			} else {
				on = append(on, survived)
			}
		}
	}
	if m0, m1 := sim.Median(off), sim.Median(on); !(m1 < m0) || math.IsNaN(m0) {
		t.Errorf("median share of obsolete lessons alive at the end %v with stale_upkeep %g, %v without", m1, lessons.RecommendedStaleUpkeep, m0)
	}
}

// slicesIndex reports whether path is a file some PR of w deleted.
func slicesIndex(w *sim.World, path string) bool {
	for _, fs := range w.Churn.Removed {
		for _, f := range fs {
			if f == path {
				return true
			}
		}
	}
	return false
}

// TestChurnTable regenerates docs/tuning.md's table: go test ./bench/selection/churn -run
// TestChurnTable -churn-table 10 -v
func TestChurnTable(t *testing.T) {
	if *table == 0 {
		t.Skip("run with -churn-table N")
	}
	noises := []float64{0, 0.1}
	stales := []float64{0, 0.03, 0.05, 0.08, lessons.RecommendedStaleUpkeep, 0.12, 0.15, 0.2}
	rows, err := Table(context.Background(), sim.DefaultConfig(), *table, noises, stales)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + Markdown(rows, noises))
}
