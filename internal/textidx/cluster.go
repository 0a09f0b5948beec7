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
// Cluster first finds every pair with Jaccard >= threshold, then runs the
// anchor loop over that similarity graph. The pairs come from a PPJoin
// style all-pairs join: sets in global token-rarity order, visited by
// size, probing an inverted index of the prefixes of the sets visited
// before, with length, prefix and positional filtering. Surviving
// candidates are verified with the same float64 comparison
// ClusterQuadratic uses, so the outcome is identical to it for every input
// (property-tested). The filter bounds are computed in exact rational
// arithmetic from the float64 just below threshold, which keeps them
// conservative under rounding.
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
	adj := similarPairs(rankSets(sets), threshold)

	consumed := make([]bool, len(sets))
	var out [][]int
	var members []int
	for a, nb := range adj {
		if consumed[a] || len(nb) == 0 {
			continue
		}
		members = append(members[:0], a)
		for _, b32 := range nb {
			b := int(b32)
			if consumed[b] {
				continue
			}
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

// posting is one prefix token occurrence: entry and position in its set.
type posting struct{ entry, pos int32 }

// similarPairs returns, for every entry, the entries whose Jaccard with it
// is >= threshold (0 < threshold <= 1), ascending. ranked are the sets in
// global rarity order (rankSets).
func similarPairs(ranked [][]uint32, threshold float64) [][]int32 {
	n := len(ranked)
	f := newFilters(math.Nextafter(threshold, 0), maxLen(ranked))

	// Visit non-empty sets by size, then input order, so every set in the
	// index is no larger than the probing one.
	order := make([]int32, 0, n)
	var nTokens uint32
	for i, s := range ranked {
		if len(s) > 0 {
			order = append(order, int32(i))
			nTokens = max(nTokens, s[len(s)-1]+1)
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return len(ranked[a]) - len(ranked[b]) })

	post := make([][]posting, nTokens)
	start := make([]int32, nTokens) // postings before start are too short for every later prober
	count := make([]int32, n)       // prefix overlap so far; -1 once pruned
	var touched []int32
	adj := make([][]int32, n)
	for _, x32 := range order {
		x := ranked[x32]
		lx := len(x)
		minLen := f.lo[lx]
		for i, w := range x[:f.probe(lx)] {
			p := post[w]
			st := int(start[w])
			for st < len(p) && len(ranked[p[st].entry]) < minLen {
				st++
			}
			start[w] = int32(st)
			for _, e := range p[st:] {
				y := e.entry
				c := count[y]
				if c < 0 {
					continue
				}
				ly := len(ranked[y])
				// Upper bound on the overlap: matches so far, this one, and
				// whatever both remainders could still share.
				if int(c)+1+min(lx-i-1, ly-int(e.pos)-1) < f.alpha[lx+ly] {
					count[y] = -1
					if c == 0 {
						touched = append(touched, y)
					}
					continue
				}
				if c == 0 {
					touched = append(touched, y)
				}
				count[y] = c + 1
			}
		}
		for _, y := range touched {
			if count[y] > 0 && jaccardCount(x, ranked[y]) >= threshold {
				adj[x32] = append(adj[x32], y)
				adj[y] = append(adj[y], x32)
			}
			count[y] = 0
		}
		touched = touched[:0]
		for j, w := range x[:f.index(lx)] {
			post[w] = append(post[w], posting{x32, int32(j)})
		}
	}
	for _, nb := range adj {
		slices.Sort(nb)
	}
	return adj
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

// filters holds the exact integer filter bounds for pairs passing
// float64(i)/float64(u) >= t with 0 < t <= 1, where i is the overlap and
// u the union size. Any such pair has i/u > tl, tl the float64 just below
// t (rounding is monotonic and tl is representable). Hence, for sets of
// sizes n >= m:
//
//	m >= ceil(tl·n)                         (length filter, lo[n])
//	i >= ceil(tl·(n+m)/(1+tl))              (overlap bound, alpha[n+m])
//	i >= ceil(2·tl·m/(1+tl))                (so the smaller set's index prefix suffices)
//
// and by the prefix principle the first n - ceil(tl·n) + 1 tokens of the
// larger set (probe prefix) and the first m - ceil(2·tl·m/(1+tl)) + 1
// tokens of the smaller (index prefix) share a token. The bounds are
// conservative (ceil of a strict bound), which only admits extra
// candidates, and the candidates are verified exactly.
type filters struct {
	lo    []int // lo[n] = ceil(tl·n)
	mid   []int // mid[m] = ceil(2·tl·m/(1+tl))
	alpha []int // alpha[s] = ceil(tl·s/(1+tl))
}

func newFilters(tl float64, maxSize int) filters {
	t := new(big.Rat).SetFloat64(tl) // exact: tl is finite and >= 0
	one := big.NewRat(1, 1)
	r := new(big.Rat).Quo(t, new(big.Rat).Add(one, t)) // tl/(1+tl)
	r2 := new(big.Rat).Add(r, r)
	return filters{
		lo:    ceilTable(t, maxSize),
		mid:   ceilTable(r2, maxSize),
		alpha: ceilTable(r, 2*maxSize),
	}
}

// ceilTable returns ceil(r·n) for n = 0..size, for a rational r >= 0.
func ceilTable(r *big.Rat, size int) []int {
	out := make([]int, size+1)
	num, den := r.Num(), r.Denom()
	var x, q, m big.Int
	for n := range out {
		x.Mul(num, big.NewInt(int64(n)))
		q.DivMod(&x, den, &m)
		c := q.Int64()
		if m.Sign() != 0 {
			c++
		}
		out[n] = int(c)
	}
	return out
}

// probe returns the probe prefix length of a set of size n: n -
// ceil(tl·n) + 1, at most n.
func (f filters) probe(n int) int { return min(n, n-f.lo[n]+1) }

// index returns the index prefix length of a set of size n: n -
// ceil(2·tl·n/(1+tl)) + 1, at most n.
func (f filters) index(n int) int { return min(n, n-f.mid[n]+1) }
