package lessons

import (
	"math"
	"strings"
)

// Economics of this project beyond darwin-memo's (issue 13, docs/tuning.md):
// upkeep charged on opportunity (retrieval_upkeep, idle_upkeep_scale),
// tenure for lessons with repeated unbundled gains (tenure_after,
// tenure_upkeep_scale), loss aversion (harm_gain), an equal split of a
// bundled PR's delta among its tickets (bundle_split) and regressions
// assessed apart from improvements (segregate_losses). Each is a
// ledger.config field whose zero value is darwin-memo's rule, so a store
// without these keys (one darwin-memo wrote) keeps darwin-memo's economics;
// RecommendedConfig turns them on for new stores. None adds state to the
// file: tenure is derived from the entries' history notes.

// idleUpkeep is the per-tick upkeep entry e pays: the store's upkeep, times
// idle_upkeep_scale, times tenure_upkeep_scale while e holds tenure; and at
// least stale_upkeep while its citations are stale.
func (s *Store) idleUpkeep(e *Entry) float64 {
	u := s.Upkeep
	if sc := s.cfg.IdleUpkeepScale; sc != nil {
		u *= *sc
	}
	if s.Tenured(e) {
		u *= s.cfg.TenureUpkeepScale
	}
	if s.cfg.StaleUpkeep > u && s.CitationsStale(e) {
		u = s.cfg.StaleUpkeep
	}
	return u
}

// chargeRetrieval charges retrieval_upkeep once to every living entry of a
// ticket's provenance (decider and supporters) when it settles with an
// outcome: the lesson was retrieved and could have decided. Entries an
// earlier ticket of the same merged PR already moved are skipped (one PR
// moves each lesson at most once). Pinned entries are floored at 0, as for
// the per-tick upkeep.
func (s *Store) chargeRetrieval(prov []string, moved map[string]bool, c Config) {
	u := c.RetrievalUpkeep
	if u == 0 {
		return
	}
	seen := make(map[string]bool, len(prov))
	for _, id := range prov {
		e, ok := s.byID[id]
		if !ok || seen[id] || moved[id] {
			continue
		}
		seen[id] = true
		e.Energy -= u
		if e.Pinned {
			e.Energy = max(e.Energy, 0)
		}
	}
}

// creditGain is the most energy one settlement with this delta can move:
// harm_gain for a negative delta when set, else credit_gain.
func (c Config) creditGain(delta float64) float64 {
	if delta < 0 && c.HarmGain > 0 {
		return c.HarmGain
	}
	return c.CreditGain
}

// Tenured reports whether e holds tenure: tenure_after > 0 and e has had at
// least tenure_after gains measured on unbundled PRs (PRs whose delta
// settled no other ticket) since its last loss. A bundled gain neither
// earns nor costs tenure, since the PR's other work may have earned it; any
// loss, bundled or not, revokes tenure and restarts the count.
func (s *Store) Tenured(e *Entry) bool {
	n := s.cfg.TenureAfter
	return n > 0 && s.gainStreak(e) >= n
}

// gainStreak counts e's unbundled gains since its last loss, from its
// history notes on first use and incrementally afterwards.
func (s *Store) gainStreak(e *Entry) int {
	if !e.streakSet {
		e.streak = 0
		for _, raw := range s.notesOf(e.ID) {
			if !strings.Contains(raw, `"settle"`) {
				continue // not a settle note: skip the parse
			}
			n := noteOf(raw)
			if n.Legacy() || n.Event() != "settle" {
				continue
			}
			if c, ok := n.Credit(); ok {
				b, _ := n.v.Field("bundle").Int()
				e.streak = nextStreak(e.streak, c, b)
			}
		}
		e.streakSet = true
	}
	return e.streak
}

// noteCredit updates e's cached streak with a credit just noted (the
// rounded amount the note records).
func (s *Store) noteCredit(e *Entry, amount float64, bundle int) {
	if e.streakSet {
		e.streak = nextStreak(e.streak, pyRound(amount, 6), bundle)
	}
}

func nextStreak(streak int, credit float64, bundle int) int {
	switch {
	case credit > 0 && bundle <= 1:
		return streak + 1
	case credit < 0:
		return 0
	}
	return streak
}

// creditAmount is the credit one settlement moves before shares: gain ×
// tanh(delta / scale) with the gain of creditGain, or, with
// segregate_losses and the PR's regressions known (regs > 0), credit_gain
// × tanh(improvements / scale) − harm × tanh(regressions / scale), where
// improvements = delta + regressions and harm is harm_gain (credit_gain
// when unset). bundle splits delta and regressions alike (creditDelta).
func (c Config) creditAmount(delta float64, regs *float64, bundle int, scale float64) float64 {
	d := c.creditDelta(delta, bundle)
	if !c.SegregateLosses || regs == nil || !(*regs > 0) || math.IsInf(*regs, 0) {
		return c.creditGain(d) * math.Tanh(d/scale)
	}
	r := c.creditDelta(*regs, bundle)
	harm := c.HarmGain
	if harm <= 0 {
		harm = c.CreditGain
	}
	return c.CreditGain*math.Tanh(max(d+r, 0)/scale) - harm*math.Tanh(r/scale)
}

// creditDelta is the delta a ticket's credit is computed from: with
// bundle_split, a PR's delta divided equally among the tickets it settles.
func (c Config) creditDelta(delta float64, bundle int) float64 {
	if c.BundleSplit && bundle > 1 {
		return delta / float64(bundle)
	}
	return delta
}
