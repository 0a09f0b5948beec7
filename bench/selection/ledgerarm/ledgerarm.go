// Package ledgerarm plays this project's lesson ledger (package lessons) as
// an arm of the selection benchmark, the way the action drives it: an agent
// decides with a query and pastes the store-free ticket into its PR; when
// CI's delta for the merged PR is known, every ticket the PR carried is
// settled with that delta, and the ledger ticks once only if a settlement
// landed.
package ledgerarm

import (
	"fmt"
	"slices"
	"time"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// DefaultScale is the action's default resource scale (input "scale").
const DefaultScale = 1.5

// Options configure the arm.
type Options struct {
	// Name is the arm's name in reports; default "ledger".
	Name string
	// Scale is the tanh normaliser of credit (the action's "scale" input);
	// 0 means DefaultScale.
	Scale float64
	// Config replaces the store's selection configuration when set (default:
	// lessons.RecommendedConfig, what a store the action creates starts
	// with); its ResourceScale is overridden by Scale.
	Config *lessons.Config
	// Upkeep replaces the store's upkeep per tick when > 0.
	Upkeep float64
	// ExpireAfter is the ticket expiry of each tick (0: the default, 50).
	ExpireAfter int
	// Retrieval is the ranking the arm consults with; "" is the store's
	// default, what decide ships (BM25F).
	Retrieval lessons.Retrieval
}

// Describe renders the options in one line for reports.
func (o Options) Describe() string {
	o = o.withDefaults()
	cfg := lessons.RecommendedConfig()
	if o.Config != nil {
		cfg = *o.Config
	}
	upkeep := lessons.DefaultUpkeep
	if o.Upkeep > 0 {
		upkeep = o.Upkeep
	}
	econ := fmt.Sprintf("upkeep %g per tick", upkeep)
	if cfg.IdleUpkeepScale != nil {
		econ = fmt.Sprintf("upkeep %g per tick while idle (%g × %g)", upkeep**cfg.IdleUpkeepScale, upkeep, *cfg.IdleUpkeepScale)
	}
	if cfg.RetrievalUpkeep != 0 {
		econ += fmt.Sprintf(" plus %g per settled ticket that retrieved the lesson", cfg.RetrievalUpkeep)
	}
	if cfg.TenureAfter > 0 {
		gains := "gains"
		if cfg.TenureAfter == 1 {
			gains = "gain"
		}
		econ += fmt.Sprintf(", tenure after %d unbundled %s since the last loss (idle upkeep × %g)", cfg.TenureAfter, gains, cfg.TenureUpkeepScale)
	}
	gain := fmt.Sprintf("credit gain %g", cfg.CreditGain)
	if cfg.HarmGain > 0 {
		gain += fmt.Sprintf(" (%g on a negative delta)", cfg.HarmGain)
	}
	if cfg.BundleSplit {
		gain += ", a PR's delta split equally among its tickets"
	}
	if cfg.SegregateLosses {
		gain += ", regressions assessed apart from improvements"
	}
	ranking := "BM25F (the default ranking)"
	if o.Retrieval == lessons.RetrievalDarwinMemo {
		ranking = "darwin-memo's ranking"
	}
	return fmt.Sprintf("consulting with %s, store-free tickets, resource scale %g, %s, %s, supporting share %g, "+
		"consolidation every %d ticks at Jaccard %g, spawn energy %g, cap %g, one tick per merged PR whose settlement landed",
		ranking, o.Scale, econ, gain, cfg.SupportingShare, cfg.ConsolidateEvery, cfg.MergeThreshold,
		lessons.SpawnEnergy, lessons.DefaultMaxEnergy)
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "ledger"
	}
	if o.Scale == 0 {
		o.Scale = DefaultScale
	}
	return o
}

// Arm is the ledger arm.
type Arm struct {
	opts  Options
	store *lessons.Store
	// carries maps every entry id ever seen (living or dead) to the
	// simulated lessons it carries; a merged entry carries its members'.
	carries map[string][]int
	tickets map[string]lessons.FreeTicket
}

// epoch is the fixed clock of simulated stores: recorded_ts and log times
// are derived from it, so runs are byte-for-byte reproducible.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// New returns a ledger arm with an empty store.
func New(opts Options) *Arm {
	opts = opts.withDefaults()
	rec := lessons.RecommendedConfig()
	// The arm consults as decide does, with the store's default ranking
	// unless Options.Retrieval names another.
	s := lessons.New("sim/lessons.json", lessons.Options{Now: func() time.Time { return epoch }, Config: &rec, Retrieval: opts.Retrieval})
	cfg := s.Config()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	scale := opts.Scale
	cfg.ResourceScale = &scale
	s.SetConfig(cfg)
	if opts.Upkeep > 0 {
		s.Upkeep = opts.Upkeep
	}
	return &Arm{opts: opts, store: s, carries: map[string][]int{}, tickets: map[string]lessons.FreeTicket{}}
}

// Spec returns the arm as a sweep spec.
func Spec(opts Options) sim.ArmSpec {
	opts = opts.withDefaults()
	return sim.ArmSpec{Name: opts.Name, New: func(*sim.World, []int) (sim.Arm, error) { return New(opts), nil }}
}

// Store exposes the underlying store (for tests and inspection).
func (a *Arm) Store() *lessons.Store { return a.store }

// Name implements sim.Arm.
func (a *Arm) Name() string { return a.opts.Name }

// Add implements sim.Arm: the encoder's lesson enters with spawn energy.
func (a *Arm) Add(l sim.Lesson, pr int) error {
	ts := l.RecordedTS
	if ts == "" {
		ts = epoch.Add(time.Duration(pr) * time.Hour).Format("2006-01-02T15:04:05+00:00")
	}
	e, err := a.store.Add(lessons.NewLesson{
		Question:   l.Question,
		Answer:     l.Answer,
		Sources:    []string{fmt.Sprintf("pr#%d", l.Born+1)},
		RecordedTS: ts,
	})
	if err != nil {
		return fmt.Errorf("add lesson %d: %w", l.ID, err)
	}
	a.carries[e.ID] = []int{l.ID}
	return nil
}

// Consult implements sim.Arm with lessons.Decide and a store-free ticket.
func (a *Arm) Consult(query string, pr int) (sim.Consultation, error) {
	d, err := a.store.Decide(query, lessons.DecideOptions{})
	if err != nil {
		return sim.Consultation{}, fmt.Errorf("decide %q: %w", query, err)
	}
	if d.Silent || d.Ticket == nil {
		return sim.Consultation{}, nil
	}
	ft := d.FreeTicket()
	ft.Supporting = slices.Clone(ft.Supporting)
	id := ft.ID()
	a.tickets[id] = ft
	c := sim.Consultation{Ticket: id, Decider: a.entry(d.Decider)}
	for _, s := range d.Supporting {
		c.Supporters = append(c.Supporters, a.entry(s))
	}
	return c, nil
}

func (a *Arm) entry(id string) sim.Entry {
	return sim.Entry{Key: id, Lessons: a.carries[id]}
}

// Settle implements sim.Arm as the action's SettleBody does for one merged
// PR: the PR's tickets are settled with its delta in order, each lesson
// moved at most once, then one tick if any landed
// (lessons.Store.SettleFreeBatch, then Tick). The tickets' verification against the
// PR's base store is skipped: the simulated agent consulted that very
// store, so it passes.
func (a *Arm) Settle(tickets []sim.Consultation, delta float64, pr int) (bool, error) {
	return a.settle(tickets, delta, nil, pr)
}

// SettleTransitions implements sim.TransitionSettler: Settle, with the
// regressions the delta counts passed to the ledger as the action does.
func (a *Arm) SettleTransitions(tickets []sim.Consultation, delta float64, regressions int, pr int) (bool, error) {
	r := float64(regressions)
	return a.settle(tickets, delta, &r, pr)
}

func (a *Arm) settle(tickets []sim.Consultation, delta float64, regressions *float64, pr int) (bool, error) {
	var batch []lessons.FreeTicket
	for _, c := range tickets {
		ft, ok := a.tickets[c.Ticket]
		if !ok {
			continue
		}
		delete(a.tickets, c.Ticket)
		batch = append(batch, ft)
	}
	landed := false
	for _, o := range a.store.SettleFreeBatch(batch, delta, lessons.SettleOptions{Source: "ci", Detail: fmt.Sprintf("sim PR %d", pr), Regressions: regressions}).Tickets {
		landed = landed || o.Result.Landed
	}
	if landed {
		a.store.Tick(lessons.TickOptions{ExpireAfter: a.opts.ExpireAfter})
		a.trackMerges()
	}
	return landed, nil
}

// trackMerges maps entries created by consolidation to their members'
// lessons.
func (a *Arm) trackMerges() {
	for _, e := range a.store.Living() {
		if _, ok := a.carries[e.ID]; ok {
			continue
		}
		var ls []int
		for _, m := range e.Lineage {
			for _, l := range a.carries[m] {
				if !slices.Contains(ls, l) {
					ls = append(ls, l)
				}
			}
		}
		a.carries[e.ID] = ls
	}
}

// EndPR implements sim.Arm; the ledger's clock is its ticks, advanced in
// Settle.
func (a *Arm) EndPR(pr int, landed bool) error { return nil }

// Living implements sim.Arm.
func (a *Arm) Living() []sim.Entry {
	living := a.store.Living()
	out := make([]sim.Entry, len(living))
	for i, e := range living {
		out[i] = a.entry(e.ID)
	}
	return out
}
