package sim

import (
	"fmt"
	"slices"
)

// PRStat is what happened in one merged PR of a run.
type PRStat struct {
	// TrueDelta is improvements minus regressions on shared tests, as they
	// really are.
	TrueDelta float64
	// Measured is true when the PR carried tickets, so the action measured
	// it (when its settlement came due); CI is that measurement: settle's
	// delta, flaky noise and quarantine included.
	Measured bool
	CI       Measurement
	// Damage is the number of tests poisoned lessons broke in this PR.
	Damage int
	// Population is the number of living entries after the PR.
	Population int
	// Evictions is the net number of entries that left the store during the
	// PR's settlement and tick (a merge of n entries into one counts n-1).
	Evictions int
	// Landed is true when at least one settlement landed.
	Landed bool
}

// Fate is what became of one simulated lesson.
type Fate struct {
	Lesson int
	// Gone is the merged-PR index after which no living entry carried the
	// lesson, or -1 if one still carries it at the end.
	Gone int
	// FirstActed is the first PR in which an agent acted on it (it was the
	// decider), or -1.
	FirstActed int
	// Acted counts tasks that acted on it; Damage counts tests it broke.
	Acted, Damage int
}

// Result is one run of one arm on one world.
type Result struct {
	Arm   string
	Seed  uint64
	Noise float64
	PRs   []PRStat
	Fates []Fate
	// FactsCarried[f] is true when a living entry carries useful fact f at
	// the end.
	FactsCarried []bool
	// TopicsCovered[t] is true when a living entry carries a useful fact
	// for topic t at the end.
	TopicsCovered []bool
}

type pendingSettle struct {
	pr, due    int
	tickets    []Consultation
	base, head []bool // the true test states at the PR's base and head
}

// Run plays the world's merged-PR stream against an arm.
func Run(w *World, arm Arm) (*Result, error) {
	cfg := w.Config
	res := &Result{Arm: arm.Name(), Seed: w.Seed, Noise: cfg.Noise,
		PRs: make([]PRStat, len(w.PRs)), Fates: make([]Fate, len(w.Lessons))}
	for i := range res.Fates {
		res.Fates[i] = Fate{Lesson: i, Gone: -1, FirstActed: -1}
	}
	main := make([]bool, w.Tests()) // true = passing
	for i := range main {
		main[i] = true
	}
	var pending []pendingSettle
	arrived := make([]bool, len(w.Lessons))
	ci := NewCI()

	for pr, p := range w.PRs {
		if err := removeCode(w, arm, pr); err != nil {
			return nil, err
		}
		for _, id := range w.Arrivals[pr] {
			if err := arm.Add(w.Lessons[id], pr); err != nil {
				return nil, fmt.Errorf("%s: add lesson %d before PR %d: %w", arm.Name(), id, pr, err)
			}
			arrived[id] = true
		}
		before := keySet(arm.Living())

		// Each task is a bug report: its test fails on main before the PR.
		for _, t := range p.Tasks {
			main[t.Target] = false
		}
		baseRun := slices.Clone(main)
		head := main
		var tickets []Consultation
		for _, t := range p.Tasks {
			c, err := arm.Consult(t.Query, pr)
			if err != nil {
				return nil, fmt.Errorf("%s: consult in PR %d: %w", arm.Name(), pr, err)
			}
			if c.Ticket != "" {
				tickets = append(tickets, c)
			}
			res.PRs[pr].Damage += act(w, t, c, head, res.Fates, pr)
		}
		st := &res.PRs[pr]
		st.TrueDelta = delta(baseRun, head)
		if len(tickets) > 0 {
			pending = append(pending, pendingSettle{pr: pr, due: pr + p.Delay, tickets: tickets, base: baseRun, head: slices.Clone(head)})
		}
		// Settle what is due, oldest first.
		rest := pending[:0]
		for _, ps := range pending {
			if ps.due > pr {
				rest = append(rest, ps)
				continue
			}
			// The action measures a merged PR when it settles it: the
			// sidecar sees the PRs in settlement order.
			src := w.PRs[ps.pr]
			m := ci.Measure(w, ps.base, ps.head, src.BaseFlakes, src.HeadFlakes)
			res.PRs[ps.pr].Measured, res.PRs[ps.pr].CI = true, m
			var ok bool
			var err error
			if ts, isTS := arm.(TransitionSettler); isTS {
				ok, err = ts.SettleTransitions(ps.tickets, m.Delta, m.Regressions, pr)
			} else {
				ok, err = arm.Settle(ps.tickets, m.Delta, pr)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: settle %d tickets in PR %d: %w", arm.Name(), len(ps.tickets), pr, err)
			}
			st.Landed = st.Landed || ok
		}
		pending = rest
		if err := arm.EndPR(pr, st.Landed); err != nil {
			return nil, fmt.Errorf("%s: end of PR %d: %w", arm.Name(), pr, err)
		}

		living := arm.Living()
		after := keySet(living)
		removed, created := 0, 0
		for k := range before {
			if !after[k] {
				removed++
			}
		}
		for k := range after {
			if !before[k] {
				created++
			}
		}
		st.Evictions = max(0, removed-created)
		st.Population = len(living)
		carried := make([]bool, len(w.Lessons))
		for _, e := range living {
			for _, id := range e.Lessons {
				carried[id] = true
			}
		}
		for id, f := range res.Fates {
			if arrived[id] && f.Gone < 0 && !carried[id] {
				res.Fates[id].Gone = pr
			}
		}
		if pr == len(w.PRs)-1 {
			res.FactsCarried = make([]bool, w.Facts)
			res.TopicsCovered = make([]bool, cfg.Topics)
			for id, ok := range carried {
				if l := w.Lessons[id]; ok && w.helps(id, pr+1) {
					res.FactsCarried[l.Fact] = true
					res.TopicsCovered[l.Topic] = true
				}
			}
		}
	}
	return res, nil
}

// act applies what an agent does for one task to the head test states and
// returns the number of tests poisoned lessons broke.
func act(w *World, t Task, c Consultation, head []bool, fates []Fate, pr int) int {
	cfg := w.Config
	useful, poisoned := false, false
	for _, id := range c.Decider.Lessons {
		l := w.Lessons[id]
		fates[id].Acted++
		if fates[id].FirstActed < 0 {
			fates[id].FirstActed = pr
		}
		switch {
		case w.helps(id, pr) && l.Topic == t.Topic && (cfg.Tasks != FactTasks || l.Fact == t.Fact):
			useful = true
		case l.Class == Poisoned:
			poisoned = true
		}
	}
	pFix := cfg.PBase
	if useful {
		pFix = cfg.PFix
	}
	if t.UFix < pFix {
		head[t.Target] = true
	}
	first := t.Topic * cfg.TestsPerTopic
	breakTests := func(n int) int {
		broke := 0
		for k := 0; k < cfg.TestsPerTopic && broke < n; k++ {
			i := first + (t.HarmPick+k)%cfg.TestsPerTopic
			if i != t.Target && head[i] {
				head[i] = false
				broke++
			}
		}
		return broke
	}
	switch {
	case poisoned && t.UHarm < cfg.PHarm:
		broke := breakTests(t.Harm)
		for _, id := range c.Decider.Lessons {
			if w.Lessons[id].Class == Poisoned {
				fates[id].Damage += broke
			}
		}
		return broke
	case !useful && !poisoned && t.UHarm < cfg.PTrap:
		breakTests(1)
	}
	return 0
}

// delta is improvements minus regressions between two runs of the suite.
func delta(base, head []bool) float64 {
	d := 0
	for i := range base {
		switch {
		case !base[i] && head[i]:
			d++
		case base[i] && !head[i]:
			d--
		}
	}
	return float64(d)
}

func keySet(es []Entry) map[string]bool {
	m := make(map[string]bool, len(es))
	for _, e := range es {
		m[e.Key] = true
	}
	return m
}
