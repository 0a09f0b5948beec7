package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// ArmSpec names an arm and builds a fresh instance for one run. reference
// holds the per-PR evictions of the sweep's reference arm on the same world
// (nil when building the reference itself), for arms matched to its rate.
type ArmSpec struct {
	Name string
	New  func(w *World, reference []int) (Arm, error)
}

// Sweep is a grid of runs: every arm on every (noise, seed) world.
type Sweep struct {
	Config Config
	// Seeds are the world seeds; Noises the flaky-noise levels.
	Seeds  []uint64
	Noises []float64
	// Reference is run first on each world; its eviction schedule is handed
	// to the other arms. Arms are the others, in report order.
	Reference ArmSpec
	Arms      []ArmSpec
	// Workers bounds parallel worlds (GOMAXPROCS when 0).
	Workers int
	// KeepSeries keeps per-PR stats of every run (for plots).
	KeepSeries bool
	// Alter, when set, changes each generated world before the arms run on it (the
	// code-churn world: World.WithChurn).
	Alter func(*World) *World
}

// Cell is every seed's result of one arm at one noise level, seeds in
// Sweep.Seeds order.
type Cell struct {
	Arm     string
	Noise   float64
	Metrics []Metrics
	Series  [][]PRStat // per seed, when KeepSeries
}

// SweepResult holds the cells by noise level, then arm (reference first).
type SweepResult struct {
	Noises []float64
	Arms   []string
	Cells  [][]Cell // [noise][arm]
}

// Cell returns the cell of an arm at a noise level, or nil.
func (r *SweepResult) Cell(arm string, noise float64) *Cell {
	for i, n := range r.Noises {
		if n != noise {
			continue
		}
		for j := range r.Cells[i] {
			if r.Cells[i][j].Arm == arm {
				return &r.Cells[i][j]
			}
		}
	}
	return nil
}

// Run executes the sweep. Results do not depend on Workers.
func (s Sweep) Run(ctx context.Context) (*SweepResult, error) {
	specs := append([]ArmSpec{s.Reference}, s.Arms...)
	res := &SweepResult{Noises: s.Noises, Cells: make([][]Cell, len(s.Noises))}
	for _, a := range specs {
		res.Arms = append(res.Arms, a.Name)
	}
	for i, n := range s.Noises {
		res.Cells[i] = make([]Cell, len(specs))
		for j, a := range specs {
			res.Cells[i][j] = Cell{Arm: a.Name, Noise: n, Metrics: make([]Metrics, len(s.Seeds))}
			if s.KeepSeries {
				res.Cells[i][j].Series = make([][]PRStat, len(s.Seeds))
			}
		}
	}
	jobs := make(chan int)
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for si := range jobs {
				if err := s.runSeed(res, specs, si); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for si := range s.Seeds {
		select {
		case jobs <- si:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// runSeed runs every arm on one seed's world at every noise level; each
// seed's slots of the result are written by exactly one worker.
func (s Sweep) runSeed(res *SweepResult, specs []ArmSpec, si int) error {
	seed := s.Seeds[si]
	base, err := NewWorld(s.Config, seed)
	if err != nil {
		return err
	}
	for ni, noise := range s.Noises {
		w, err := base.WithNoise(noise)
		if err != nil {
			return err
		}
		if s.Alter != nil {
			w = s.Alter(w)
		}
		if err := s.runWorld(res, specs, w, ni, si); err != nil {
			return err
		}
	}
	return nil
}

// runWorld runs every arm on one world.
func (s Sweep) runWorld(res *SweepResult, specs []ArmSpec, w *World, ni, si int) error {
	cfg, seed := w.Config, w.Seed
	var reference []int
	for j, spec := range specs {
		arm, err := spec.New(w, reference)
		if err != nil {
			return fmt.Errorf("arm %s, seed %d, noise %g: %w", spec.Name, seed, cfg.Noise, err)
		}
		r, err := Run(w, arm)
		if err != nil {
			return fmt.Errorf("seed %d, noise %g: %w", seed, cfg.Noise, err)
		}
		if j == 0 {
			reference = make([]int, len(r.PRs))
			for i, p := range r.PRs {
				reference[i] = p.Evictions
			}
		}
		cell := &res.Cells[ni][j]
		cell.Metrics[si] = Measure(w, r)
		if s.KeepSeries {
			cell.Series[si] = r.PRs
		}
	}
	return nil
}

// Baselines returns the baseline arms of the published benchmark, in report
// order. random_matched follows the reference arm's eviction schedule.
func Baselines(cfg Config) []ArmSpec {
	simple := func(name string, f func() Arm) ArmSpec {
		return ArmSpec{Name: name, New: func(*World, []int) (Arm, error) { return f(), nil }}
	}
	return []ArmSpec{
		simple("keep_everything", KeepEverything),
		{Name: "random_matched", New: func(w *World, ref []int) (Arm, error) {
			return RandomMatched(ref, w.Seed), nil
		}},
		simple("evict_on_negative", EvictOnNegative),
		simple("strike_k1", func() Arm { return Strikes(1, false) }),
		simple("strike_k3", func() Arm { return Strikes(3, false) }),
		simple("strike_k3_reset", func() Arm { return Strikes(3, true) }),
		simple(fmt.Sprintf("ttl_%dd", cfg.TTLDays), func() Arm { return TTL(cfg.TTLDays, cfg.PRsPerDay) }),
		simple("no_memory", NoMemory),
	}
}
