package textidx

import (
	"math"
	"math/big"
	"slices"
)

// An AcceptFunc lets a caller refuse a similar candidate, as darwin-memo's
// consolidation source policies do. It is called with the anchor, the
// cluster's members so far (anchor first, in join order) and a candidate
// whose similarity to the anchor passed the threshold; returning true adds
// the candidate to the cluster at once. For a given anchor, candidates are
// offered in input order. Cluster and ClusterQuadratic make exactly the
// same calls in the same order, so an AcceptFunc may keep state that it
// resets when the anchor changes.
type AcceptFunc func(anchor int, members []int, cand int) bool

// Cluster is darwin-memo's anchor clustering (consolidate.py), made
// sub-quadratic. sets[i] is entry i's token id set (sorted ascending
// without repeats, as [Dict.Intern] returns; other input is normalised
// first), and input order is anchor order: the caller sorts the eligible
// entries by energy, highest first, stably.
//
// Each entry that no earlier cluster has consumed becomes an anchor in
// turn. Every other unconsumed entry, earlier or later, joins its cluster
// if JaccardIDs(anchor, other) >= threshold and accept (if not nil)
// agrees; joining compares with the anchor only, never transitively. An
// anchor that gathers nobody stays unconsumed and may still join a later
// anchor's cluster. Cluster returns the clusters of two or more entries in
// the order they formed, each as the anchor followed by its members in
// input order.
//
// Candidates come from an inverted index over each set's prefix in global
// token-rarity order, filtered by set length; pairs are then verified with
// the same float64 comparison ClusterQuadratic uses, so the outcome is
// identical to it for every input (property-tested). The filter bounds are
// computed in exact rational arithmetic from the float64 just below
// threshold, which keeps them conservative under rounding.
//
// A threshold <= 0 makes every pair similar (Jaccard is never negative,
// even for empty sets); a NaN threshold or one above 1 makes no pair
// similar. With threshold <= 0 and an accept that refuses often, Cluster
// is quadratic like the reference.
func Cluster(sets [][]uint32, threshold float64, accept AcceptFunc) [][]int {
	sets = normaliseSets(sets)
	switch {
	case math.IsNaN(threshold) || threshold > 1:
		return nil
	case threshold <= 0:
		return clusterQuadratic(sets, threshold, accept)
	}
	n := len(sets)
	ranked := rankSets(sets)
	bounds := newLengthBounds(math.Nextafter(threshold, 0), maxLen(ranked))

	// Inverted index over prefixes: post[r] lists, ascending, the entries
	// whose prefix contains the token of rank r.
	var nTokens int
	for _, s := range ranked {
		if len(s) > 0 && int(s[len(s)-1]) >= nTokens {
			nTokens = int(s[len(s)-1]) + 1
		}
	}
	counts := make([]int32, nTokens+1)
	for _, s := range ranked {
		for _, r := range s[:bounds.prefix(len(s))] {
			counts[r+1]++
		}
	}
	for r := 1; r <= nTokens; r++ {
		counts[r] += counts[r-1]
	}
	flat := make([]int32, counts[nTokens])
	fill := slices.Clone(counts[:nTokens])
	for i, s := range ranked {
		for _, r := range s[:bounds.prefix(len(s))] {
			flat[fill[r]] = int32(i)
			fill[r]++
		}
	}

	consumed := make([]bool, n)
	stamp := make([]int32, n) // anchor+1 that last looked at the entry
	var (
		out     [][]int
		cands   []int
		members []int
	)
	for a, sa := range ranked {
		if consumed[a] || len(sa) == 0 {
			continue
		}
		la := len(sa)
		minL, maxL := bounds.min(la), bounds.max(la)
		cands = cands[:0]
		for _, r := range sa[:bounds.prefix(la)] {
			for _, b32 := range flat[counts[r]:counts[r+1]] {
				b := int(b32)
				if b == a || consumed[b] || stamp[b] == int32(a+1) {
					continue
				}
				stamp[b] = int32(a + 1)
				sb := ranked[b]
				if len(sb) < minL || len(sb) > maxL {
					continue
				}
				if jaccardCount(sa, sb) >= threshold {
					cands = append(cands, b)
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		slices.Sort(cands)
		members = append(members[:0], a)
		for _, b := range cands {
			if accept == nil || accept(a, members, b) {
				members = append(members, b)
				consumed[b] = true
			}
		}
		if len(members) > 1 {
			consumed[a] = true
			out = append(out, slices.Clone(members))
		}
	}
	return out
}

// ClusterQuadratic is the reference for [Cluster]: consolidate.py's loop
// transcribed directly, comparing every anchor with every unconsumed
// entry. It takes the same arguments and returns the same clusters.
func ClusterQuadratic(sets [][]uint32, threshold float64, accept AcceptFunc) [][]int {
	return clusterQuadratic(normaliseSets(sets), threshold, accept)
}

func clusterQuadratic(sets [][]uint32, threshold float64, accept AcceptFunc) [][]int {
	consumed := make([]bool, len(sets))
	var out [][]int
	for a := range sets {
		if consumed[a] {
			continue
		}
		members := []int{a}
		for b := range sets {
			if b == a || consumed[b] {
				continue
			}
			if !(jaccardCount(sets[a], sets[b]) >= threshold) {
				continue
			}
			if accept == nil || accept(a, members, b) {
				members = append(members, b)
				consumed[b] = true
			}
		}
		if len(members) > 1 {
			consumed[a] = true
			out = append(out, members)
		}
	}
	return out
}

// ClusterTokens is [Cluster] over string token sets (as from [Tokens]).
func ClusterTokens(sets [][]string, threshold float64, accept AcceptFunc) [][]int {
	d := NewDict()
	ids := make([][]uint32, len(sets))
	for i, s := range sets {
		ids[i] = d.Intern(s)
	}
	return Cluster(ids, threshold, accept)
}

// jaccardCount is JaccardIDs; both clusterings call this one function so
// they compare bit-identical values.
func jaccardCount(a, b []uint32) float64 { return JaccardIDs(a, b) }

// normaliseSets returns sets with every set sorted ascending without
// repeats, copying only the sets that are not.
func normaliseSets(sets [][]uint32) [][]uint32 {
	var out [][]uint32
	for i, s := range sets {
		ok := true
		for j := 1; j < len(s); j++ {
			if s[j] <= s[j-1] {
				ok = false
				break
			}
		}
		if ok {
			continue
		}
		if out == nil {
			out = slices.Clone(sets)
		}
		out[i] = sortedSet(slices.Clone(s))
	}
	if out == nil {
		return sets
	}
	return out
}

// rankSets maps every token id to its rank in global order (fewest sets
// first, ties by id) and returns each set as ascending ranks. The mapping
// is a bijection, so intersection and union sizes are unchanged.
func rankSets(sets [][]uint32) [][]uint32 {
	freq := map[uint32]int32{}
	var total int
	for _, s := range sets {
		for _, t := range s {
			freq[t]++
		}
		total += len(s)
	}
	ids := make([]uint32, 0, len(freq))
	for t := range freq {
		ids = append(ids, t)
	}
	slices.SortFunc(ids, func(a, b uint32) int {
		if fa, fb := freq[a], freq[b]; fa != fb {
			return int(fa - fb)
		}
		if a < b {
			return -1
		}
		return 1
	})
	rank := make(map[uint32]uint32, len(ids))
	for r, t := range ids {
		rank[t] = uint32(r)
	}
	backing := make([]uint32, total)
	out := make([][]uint32, len(sets))
	for i, s := range sets {
		rs := backing[:len(s):len(s)]
		backing = backing[len(s):]
		for j, t := range s {
			rs[j] = rank[t]
		}
		slices.Sort(rs)
		out[i] = rs
	}
	return out
}

func maxLen(sets [][]uint32) int {
	m := 0
	for _, s := range sets {
		m = max(m, len(s))
	}
	return m
}

// lengthBounds holds, for every set size n, the exact integer filter
// bounds for a pair passing float64(i)/float64(u) >= t with t > 0:
// any such pair has i/u > tl, where tl is the float64 just below t
// (rounding is monotonic), hence
//
//	overlap i >= ceil(tl·n) for both sizes n,
//	partner size m in [ceil(tl·n), floor(n/tl)],
//
// and by the prefix principle the first n - ceil(tl·n) + 1 tokens (in a
// shared global order) of the two sets intersect.
type lengthBounds struct {
	lo []int // lo[n] = ceil(tl·n)
	hi []int // hi[n] = floor(n/tl), capped at the largest size
}

func newLengthBounds(tl float64, maxSize int) lengthBounds {
	b := lengthBounds{lo: make([]int, maxSize+1), hi: make([]int, maxSize+1)}
	r := new(big.Rat).SetFloat64(tl) // exact: tl is finite and >= 0
	num, den := r.Num(), r.Denom()
	var x, q, m big.Int
	for n := 0; n <= maxSize; n++ {
		nn := big.NewInt(int64(n))
		// lo = ceil(num·n / den)
		x.Mul(num, nn)
		q.DivMod(&x, den, &m)
		lo := q.Int64()
		if m.Sign() != 0 {
			lo++
		}
		b.lo[n] = int(lo)
		// hi = floor(n·den / num), or unbounded when tl == 0
		if num.Sign() == 0 {
			b.hi[n] = maxSize
			continue
		}
		x.Mul(nn, den)
		q.Quo(&x, num)
		if q.IsInt64() && q.Int64() < int64(maxSize) {
			b.hi[n] = int(q.Int64())
		} else {
			b.hi[n] = maxSize
		}
	}
	return b
}

func (b lengthBounds) min(n int) int { return b.lo[n] }
func (b lengthBounds) max(n int) int { return b.hi[n] }

// prefix returns how many leading tokens of a set of size n go into the
// prefix index: n - ceil(tl·n) + 1, at most n.
func (b lengthBounds) prefix(n int) int { return min(n, n-b.lo[n]+1) }
