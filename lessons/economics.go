package lessons

import (
	"math"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
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

// Extension ledger.config keys, written after darwin-memo's keys and only
// when set (darwin-memo drops unknown config keys on load).
var extConfigKeys = []string{"retrieval_upkeep", "idle_upkeep_scale", "harm_gain", "tenure_after", "tenure_upkeep_scale", "bundle_split", "segregate_losses", "stale_upkeep"}

// extConfigSet reports whether extension key k differs from its
// darwin-memo-compatible zero value.
func (c Config) extConfigSet(k string) bool {
	switch k {
	case "retrieval_upkeep":
		return c.RetrievalUpkeep != 0
	case "idle_upkeep_scale":
		return c.IdleUpkeepScale != nil
	case "harm_gain":
		return c.HarmGain != 0
	case "tenure_after":
		return c.TenureAfter != 0
	case "tenure_upkeep_scale":
		return c.TenureUpkeepScale != 0
	case "bundle_split":
		return c.BundleSplit
	case "segregate_losses":
		return c.SegregateLosses
	case "stale_upkeep":
		return c.StaleUpkeep != 0
	}
	return false
}

// extConfigValue renders extension key k.
func (c Config) extConfigValue(k string) pyjson.Value {
	switch k {
	case "retrieval_upkeep":
		return pyjson.Float(c.RetrievalUpkeep)
	case "idle_upkeep_scale":
		return optFloat(c.IdleUpkeepScale)
	case "harm_gain":
		return pyjson.Float(c.HarmGain)
	case "tenure_after":
		return pyjson.Int(c.TenureAfter)
	case "bundle_split":
		return pyjson.Bool(c.BundleSplit)
	case "segregate_losses":
		return pyjson.Bool(c.SegregateLosses)
	case "stale_upkeep":
		return pyjson.Float(c.StaleUpkeep)
	default:
		return pyjson.Float(c.TenureUpkeepScale)
	}
}

// setExtConfig parses extension key k into c. known is false for keys that
// are not extension keys; bad is true for a value of the wrong type (the
// field keeps its default).
func (c *Config) setExtConfig(k string, x pyjson.Value) (known, bad bool) {
	switch k {
	case "retrieval_upkeep", "harm_gain", "tenure_upkeep_scale", "stale_upkeep":
		if x.Kind() != pyjson.KindNumber {
			return true, true
		}
		f, _ := x.Num()
		switch k {
		case "retrieval_upkeep":
			c.RetrievalUpkeep = f
		case "harm_gain":
			c.HarmGain = f
		case "stale_upkeep":
			c.StaleUpkeep = f
		default:
			c.TenureUpkeepScale = f
		}
	case "idle_upkeep_scale":
		switch x.Kind() {
		case pyjson.KindNull:
			c.IdleUpkeepScale = nil
		case pyjson.KindNumber:
			f, _ := x.Num()
			c.IdleUpkeepScale = &f
		default:
			return true, true
		}
	case "tenure_after":
		i, ok := x.Int()
		if !ok {
			return true, true
		}
		c.TenureAfter = i
	case "bundle_split", "segregate_losses":
		if x.Kind() != pyjson.KindBool {
			return true, true
		}
		if k == "bundle_split" {
			c.BundleSplit = x.Bool()
		} else {
			c.SegregateLosses = x.Bool()
		}
	default:
		return false, false
	}
	return true, false
}

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
func (s *Store) chargeRetrieval(prov []string, moved map[string]bool) {
	u := s.cfg.RetrievalUpkeep
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
func (s *Store) creditGain(delta float64) float64 {
	if delta < 0 && s.cfg.HarmGain > 0 {
		return s.cfg.HarmGain
	}
	return s.cfg.CreditGain
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
		e.streak = nextStreak(e.streak, round6(amount), bundle)
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
func (s *Store) creditAmount(delta float64, regs *float64, bundle int, scale float64) float64 {
	d := s.creditDelta(delta, bundle)
	if !s.cfg.SegregateLosses || regs == nil || !(*regs > 0) || math.IsInf(*regs, 0) {
		return s.creditGain(d) * math.Tanh(d/scale)
	}
	r := s.creditDelta(*regs, bundle)
	harm := s.cfg.HarmGain
	if harm <= 0 {
		harm = s.cfg.CreditGain
	}
	return s.cfg.CreditGain*math.Tanh(max(d+r, 0)/scale) - harm*math.Tanh(r/scale)
}

// creditDelta is the delta a ticket's credit is computed from: with
// bundle_split, a PR's delta divided equally among the tickets it settles.
func (s *Store) creditDelta(delta float64, bundle int) float64 {
	if s.cfg.BundleSplit && bundle > 1 {
		return delta / float64(bundle)
	}
	return delta
}
