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
	slices.SortStableFunc(elig, func(a, b *Entry) int {
		switch {
		case a.Energy > b.Energy:
			return -1
		case a.Energy < b.Energy:
			return 1
		}
		return 0
	})
	sets := source{s}.TokenSets(elig)
	clusters := rank.Cluster(sets, s.cfg.MergeThreshold, sourcePolicy(s.cfg.MergeSourcePolicy, elig))
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
// check (encode.Known; rank.Library.MostSimilar). It computes the token sets of the living
// entries that lack one.
func (s *Store) MostSimilar(question, answer string) (id string, similarity float64) {
	if e, sim, ok := s.library().MostSimilar(s.living, question, answer); ok {
		return e.ID, sim
	}
	return "", 0
}

// sourcePolicy returns the join test of merge_source_policy for rank.Cluster,
// or nil for "off": it is asked with the cluster so far (anchor first) and a
// candidate that is similar enough.
func sourcePolicy(policy string, elig []*Entry) rank.AcceptFunc {
	switch policy {
	case "shared":
		return func(_ int, cluster []int, cand int) bool {
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
		return func(_ int, cluster []int, cand int) bool {
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
	heir.ID = freshID(s.entryIDTaken, append([]string{"merge"}, lineage...)...)
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
