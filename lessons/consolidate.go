package lessons

import (
	"math"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// consolidate merges near-duplicate entries (semantics §6, consolidate.py):
// eligible entries (living, not escrowed, not pinned, not on probation, not
// juvenile) sorted by energy descending (stable) are anchor-clustered at
// token Jaccard >= merge_threshold under the source policy; each cluster of
// two or more becomes a new consolidated entry and its members are buried
// without a note. It returns the number of merges.
func (s *Store) consolidate(escrow map[string]bool) int {
	var elig []*Entry
	for _, e := range s.living {
		if escrow[e.ID] || e.Pinned || e.Probation > 0 || e.Juvenile > 0 {
			continue
		}
		elig = append(elig, e)
	}
	if len(elig) < 2 {
		return 0
	}
	// Energy descending, stable over store order (pdqsort on positions is
	// faster than a stable merge sort at 100k entries).
	type ranked struct {
		e *Entry
		i int
	}
	rk := make([]ranked, len(elig))
	for i, e := range elig {
		rk[i] = ranked{e, i}
	}
	slices.SortFunc(rk, func(a, b ranked) int {
		switch {
		case a.e.Energy > b.e.Energy:
			return -1
		case a.e.Energy < b.e.Energy:
			return 1
		}
		return a.i - b.i
	})
	for i := range rk {
		elig[i] = rk[i].e
	}
	s.ensureSets(elig)
	sets := make([][]uint32, len(elig))
	for i, e := range elig {
		sets[i] = s.tokenSet(e)
	}
	accept := sourcePolicy(s.cfg.MergeSourcePolicy, elig)
	clusters := clusterSets(sets, s.cfg.MergeThreshold, accept)
	heirs := make([]*Entry, 0, len(clusters))
	for _, c := range clusters {
		members := make([]*Entry, len(c))
		for i, j := range c {
			members[i] = elig[j]
		}
		heirs = append(heirs, s.merge(members))
	}
	s.compactLiving()
	for _, h := range heirs {
		s.addLiving(h)
	}
	return len(clusters)
}

// MostSimilar returns the living entry whose token set has the highest Jaccard similarity with
// the token set of question and answer (the first in store order on a tie) and that
// similarity, or "" and 0 when none shares a token with them: the lesson encoder's duplicate
// check (encode.Known). It adds nothing to the store's token dictionary and computes no token
// sets: an entry whose set the tick's consolidation (or an index) already computed is compared
// by its set, and any other is tokenised against a table of the query's own tokens
// (rank.Similar), its distinct tokens counted only when the query tokens it holds could beat
// the best so far. Both compute the quotient from the same integers as rank.JaccardKnown, so
// the answer does not depend on which entries have sets. The 512-bit token signature of each
// entry tokenised is kept for the next call (the encoder asks about each of a pull request's
// lessons in turn), which then tokenises only the entries whose signature lets them beat the
// best so far.
func (s *Store) MostSimilar(question, answer string) (id string, similarity float64) {
	var (
		known    []uint32 // the query's ids in the store's dictionary, once an entry has a set
		distinct int
		looked   bool
		q        *rank.Similar // once an entry has no set
		sigs     *similarSigs
	)
	for i, e := range s.living {
		if !e.hasSet {
			if q == nil {
				q = rank.NewSimilar(question, answer)
				sigs = s.ensureIndexShell().similarSigs(len(s.living))
			}
			if sim, ok := q.Above(similarity, sigs.of(i, e), e.Question, e.Answer); ok {
				id, similarity = e.ID, sim
			}
			continue
		}
		if !looked {
			known, distinct = s.tokenDict().LookupText(question, answer)
			looked = true
		}
		if len(known) == 0 {
			continue
		}
		set := e.set
		// The similarity is at most the smaller set's size over the larger's (rounding is
		// monotonic, so the bound holds in floating point too): a set that cannot beat the
		// best so far is not intersected.
		if lo, hi := min(distinct, len(set)), max(distinct, len(set)); hi == 0 || float64(lo)/float64(hi) <= similarity {
			continue
		}
		if sim := rank.JaccardKnown(known, distinct, set); sim > similarity {
			id, similarity = e.ID, sim
		}
	}
	return id, similarity
}

// similarSigs are the token signatures MostSimilar keeps, by position in the living list, each
// with the entry it summarises: an entry that is no longer at its position (the list changed)
// is tokenised again. Only MostSimilar reads them; token sets and the dictionary do not
// depend on them.
type similarSigs struct {
	entries []*Entry
	sigs    []rank.Signature
}

// similarSigs returns the store's signatures sized for n living entries.
func (ix *index) similarSigs(n int) *similarSigs {
	if ix.sigs == nil {
		ix.sigs = &similarSigs{}
	}
	c := ix.sigs
	if n > len(c.entries) {
		c.entries = append(c.entries, make([]*Entry, n-len(c.entries))...)
		c.sigs = append(c.sigs, make([]rank.Signature, n-len(c.sigs))...)
	}
	clear(c.entries[n:]) // do not keep buried entries
	c.entries, c.sigs = c.entries[:n], c.sigs[:n]
	return c
}

// of returns the signature of e, the living entry at position i; the zero Signature (to be
// computed) if i held another entry.
func (c *similarSigs) of(i int, e *Entry) *rank.Signature {
	if c.entries[i] != e {
		c.entries[i], c.sigs[i] = e, rank.Signature{}
	}
	return &c.sigs[i]
}

// sourcePolicy returns the join test of merge_source_policy, or nil for
// "off". accept(cluster, cand) is asked with the cluster so far (anchor
// first) and a candidate that is similar enough.
func sourcePolicy(policy string, elig []*Entry) func(cluster []int, cand int) bool {
	switch policy {
	case "shared":
		return func(cluster []int, cand int) bool {
			cs := elig[cand].Sources
			if len(cs) == 0 || len(elig[cluster[0]].Sources) == 0 {
				return false
			}
			// the common source set of cluster+cand must stay non-empty
			for _, src := range elig[cluster[0]].Sources {
				if !slices.Contains(cs, src) {
					continue
				}
				all := true
				for _, j := range cluster[1:] {
					if !slices.Contains(elig[j].Sources, src) {
						all = false
						break
					}
				}
				if all {
					return true
				}
			}
			return false
		}
	case "identical":
		return func(cluster []int, cand int) bool {
			a, b := elig[cluster[0]].Sources, elig[cand].Sources
			if len(a) == 0 || len(b) == 0 {
				return false
			}
			return sameSet(a, b)
		}
	}
	return nil
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// clusterSets is anchor clustering (rank.Cluster, sub-quadratic and
// equal to the quadratic reference): each unconsumed set in order becomes an
// anchor; every other unconsumed set with Jaccard(anchor, other) >=
// threshold (and accepted) joins it. Clusters of two or more are returned,
// anchor first, members in order.
func clusterSets(sets [][]uint32, threshold float64, accept func(cluster []int, cand int) bool) [][]int {
	var af rank.AcceptFunc
	if accept != nil {
		af = func(_ int, members []int, cand int) bool { return accept(members, cand) }
	}
	return rank.Cluster(sets, threshold, af)
}

// merge buries members (anchor first; the caller compacts the living list)
// and returns their consolidated heir, which the caller adds.
func (s *Store) merge(members []*Entry) *Entry {
	anchor := members[0]
	var answers, sources, lineage []string
	energies := make([]float64, 0, len(members))
	uses := 0
	ts := ""
	// A member another member supersedes (a "supersedes:" source label,
	// recorded at birth in BM25F stores) gives no answer: the heir keeps the newer
	// advice only. darwin-memo's stores carry no such labels.
	var superseded []string
	for _, mb := range members {
		superseded = append(superseded, mb.Supersedes()...)
	}
	for _, mb := range members {
		if len(answers) < 3 && !slices.Contains(answers, mb.Answer) && !slices.Contains(superseded, mb.ID) {
			answers = append(answers, mb.Answer)
		}
		for _, src := range mb.Sources {
			if !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
		lineage = append(lineage, mb.ID)
		energies = append(energies, mb.Energy)
		uses += mb.Uses
		if mb.RecordedTS > ts {
			ts = mb.RecordedTS
		}
	}
	if len(answers) == 0 { // every member superseded (hand-made labels): keep them all
		for _, mb := range members {
			if len(answers) < 3 && !slices.Contains(answers, mb.Answer) {
				answers = append(answers, mb.Answer)
			}
		}
	}
	if sources == nil {
		sources = []string{}
	}
	heir := &Entry{
		Question:      anchor.Question,
		Answer:        strings.Join(answers, " "),
		Kind:          KindConsolidated,
		Sources:       sources,
		Energy:        min(s.MaxEnergy, pySum(energies)),
		BornCycle:     s.tick,
		RecordedTS:    ts,
		LastUsedCycle: -1,
		Uses:          uses,
		Lineage:       lineage,
	}
	for _, mb := range members {
		s.markDead(mb)
	}
	heir.ID = s.freshEntryID(append([]string{"merge"}, lineage...)...)
	s.byID[heir.ID] = heir // reserve the id until the caller adds it
	return heir
}

// pySum is CPython's sum() over floats (3.12 and later): Neumaier
// compensated summation starting from 0. For two addends it equals plain
// addition.
func pySum(xs []float64) float64 {
	f, c := 0.0, 0.0
	for _, x := range xs {
		t := f + x
		if math.Abs(f) >= math.Abs(x) {
			c += (f - t) + x
		} else {
			c += (x - t) + f
		}
		f = t
	}
	if c != 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
		f += c
	}
	return f
}
