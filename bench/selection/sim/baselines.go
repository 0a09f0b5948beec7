package sim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// base carries what every baseline arm shares: a plain store, ticket ids and
// a name.
type base struct {
	name    string
	store   plainStore
	tickets int
}

func (b *base) Name() string { return b.name }

func (b *base) Add(l Lesson, pr int) error {
	b.store.add(strconv.Itoa(l.ID), l)
	return nil
}

func (b *base) Consult(query string, pr int) (Consultation, error) {
	b.tickets++
	return b.store.consult(query, "t"+strconv.Itoa(b.tickets)), nil
}

func (b *base) Settle(tickets []Consultation, delta float64, pr int) (bool, error) {
	return settleEach(tickets, func(c Consultation) {}), nil
}

// settleEach applies f to every consultation that has a ticket and reports
// whether there was one.
func settleEach(tickets []Consultation, f func(Consultation)) bool {
	landed := false
	for _, c := range tickets {
		if c.Ticket != "" {
			f(c)
			landed = true
		}
	}
	return landed
}

func (b *base) EndPR(pr int, landed bool) error { return nil }

func (b *base) Living() []Entry { return b.store.living() }

// KeepEverything never forgets a lesson.
func KeepEverything() Arm { return &base{name: "keep_everything"} }

// NoMemory has no store at all: the agents' unaided reference.
func NoMemory() Arm { return &noMemory{base{name: "no_memory"}} }

type noMemory struct{ base }

func (*noMemory) Add(Lesson, int) error { return nil }

// EvictOnNegative deletes the lesson an agent acted on (the decider) as soon
// as a ticket naming it settles with a negative delta.
func EvictOnNegative() Arm { return &evictOnNegative{base{name: "evict_on_negative"}} }

type evictOnNegative struct{ base }

func (a *evictOnNegative) Settle(tickets []Consultation, delta float64, pr int) (bool, error) {
	return settleEach(tickets, func(c Consultation) {
		if delta < 0 {
			a.store.remove(c.Decider.Key)
		}
	}), nil
}

// Strikes counts negative settlements against every entry a ticket names
// (decider and supporters) and deletes an entry at k strikes. With reset, a
// positive settlement clears the entry's count (k consecutive strikes).
func Strikes(k int, reset bool) Arm {
	name := fmt.Sprintf("strike_k%d", k)
	if reset {
		name += "_reset"
	}
	return &strikes{base: base{name: name}, k: k, reset: reset, count: map[string]int{}}
}

type strikes struct {
	base
	k     int
	reset bool
	count map[string]int
}

func (a *strikes) Settle(tickets []Consultation, delta float64, pr int) (bool, error) {
	return settleEach(tickets, func(c Consultation) {
		for _, e := range append([]Entry{c.Decider}, c.Supporters...) {
			switch {
			case delta < 0:
				a.count[e.Key]++
				if a.count[e.Key] >= a.k {
					a.store.remove(e.Key)
				}
			case delta > 0 && a.reset:
				a.count[e.Key] = 0
			}
		}
	}), nil
}

// TTL deletes a lesson that has not been used (retrieved for a task) for
// days days, where a day is prsPerDay merged PRs; every use resets its clock.
// This is Copilot Memory's rule (28 days unused) on the merged-PR clock.
func TTL(days, prsPerDay int) Arm {
	return &ttl{base: base{name: fmt.Sprintf("ttl_%dd", days)}, limit: days * prsPerDay, lastUse: map[string]int{}}
}

type ttl struct {
	base
	limit   int
	lastUse map[string]int
}

func (a *ttl) Add(l Lesson, pr int) error {
	a.lastUse[strconv.Itoa(l.ID)] = pr
	return a.base.Add(l, pr)
}

func (a *ttl) Consult(query string, pr int) (Consultation, error) {
	c, err := a.base.Consult(query, pr)
	if !c.Silent() {
		for _, e := range append([]Entry{c.Decider}, c.Supporters...) {
			a.lastUse[e.Key] = pr
		}
	}
	return c, err
}

func (a *ttl) EndPR(pr int, landed bool) error {
	for _, e := range a.store.living() {
		if pr-a.lastUse[e.Key] >= a.limit {
			a.store.remove(e.Key)
		}
	}
	return nil
}

// RandomMatched deletes, after merged PR i, evictions[i] entries chosen
// uniformly at random: the same eviction rate as the arm the schedule was
// recorded from (the ledger), with random victims.
func RandomMatched(evictions []int, seed uint64) Arm {
	return &randomMatched{base: base{name: "random_matched"}, schedule: evictions,
		rng: rand.New(rand.NewPCG(seed, armStream("random_matched")))}
}

type randomMatched struct {
	base
	schedule []int
	rng      *rand.Rand
}

func (a *randomMatched) EndPR(pr int, landed bool) error {
	if pr >= len(a.schedule) {
		return nil
	}
	for n := a.schedule[pr]; n > 0 && len(a.store.entries) > 0; n-- {
		a.store.remove(a.store.entries[a.rng.IntN(len(a.store.entries))].key)
	}
	return nil
}

// armStream derives a PCG stream constant from an arm name (FNV-1a), so each
// arm's randomness is independent of the world's and of other arms'.
func armStream(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}
