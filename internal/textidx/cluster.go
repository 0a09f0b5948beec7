package textidx

import (
	"math"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"
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
// style all-pairs join on all cores: sets in global token-rarity order,
// visited by size, probe an inverted index of the prefixes of the sets
// visited before, with length, prefix (size-dependent depth) and
// positional filters, and a 128-bit token signature rejects most chance
// matches straight from the postings. Surviving candidates are verified
// with the same float64 comparison ClusterQuadratic uses, so the outcome
// is identical to it for every input (property-tested and fuzzed). The
// filter bounds are computed in exact rational arithmetic from the float64
// just below threshold, which keeps them conservative under rounding.
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

// posting is one index-prefix token occurrence: the entry's visiting
// position (ord), its size, the token's position in it, the last token of
// its index prefix, and its signature, so that most candidates are
// rejected from the posting alone, without touching their sets.
type posting struct {
	ord, size, pos int32
	end            uint32
	sig            signature
}

// candidate accumulates one prober's prefix matches with one indexed set.
type candidate struct {
	ord   int32
	count int32 // matches so far, -1 once pruned
	lastI int32 // position in the prober of the last match
	size  int32
	end   uint32 // last token of the candidate's index prefix
}

// joinBlock is how many consecutive probers a worker takes at a time.
const joinBlock = 512

// similarPairs returns, for every entry, the entries whose Jaccard with it
// is >= threshold (0 < threshold <= 1), ascending. ranked are the sets in
// global rarity order (rankSets). The work is spread over GOMAXPROCS
// goroutines; the result does not depend on how.
func similarPairs(ranked [][]uint32, threshold float64) [][]int32 {
	n := len(ranked)
	f := newFilters(math.Nextafter(threshold, 0), maxLen(ranked))

	// Visit non-empty sets by size, then input order: a prober only meets
	// sets before it in this order, which are no larger than itself.
	order := make([]int32, 0, n)
	var nTokens uint32
	for i, s := range ranked {
		if len(s) > 0 {
			order = append(order, int32(i))
			nTokens = max(nTokens, s[len(s)-1]+1)
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return len(ranked[a]) - len(ranked[b]) })

	// Index the index prefixes; every postings list is in visiting order.
	counts := make([]int32, nTokens+1)
	for _, e := range order {
		for _, w := range ranked[e][:f.index(len(ranked[e]))] {
			counts[w+1]++
		}
	}
	for w := range nTokens {
		counts[w+1] += counts[w]
	}
	flat := make([]posting, counts[nTokens])
	fill := slices.Clone(counts[:nTokens])
	for o, e := range order {
		s := ranked[e]
		py := f.index(len(s))
		sig := signatureOf(s)
		for j, w := range s[:py] {
			flat[fill[w]] = posting{int32(o), int32(len(s)), int32(j), s[py-1], sig}
			fill[w]++
		}
	}

	workers := min(runtime.GOMAXPROCS(0), (len(order)+joinBlock-1)/joinBlock)
	found := make([][][2]int32, max(workers, 1))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := joiner{f: f, ranked: ranked, order: order, counts: counts, flat: flat, threshold: threshold,
				slot: make([]int32, len(order))}
			for b := k * joinBlock; b < len(order); b += workers * joinBlock {
				for o := b; o < min(b+joinBlock, len(order)); o++ {
					j.probe(int32(o))
				}
			}
			found[k] = j.pairs
		}()
	}
	wg.Wait()

	adj := make([][]int32, n)
	for _, pairs := range found {
		for _, p := range pairs {
			a, b := order[p[0]], order[p[1]]
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
		}
	}
	for _, nb := range adj {
		slices.Sort(nb)
	}
	return adj
}

// joiner is one worker's state for similarPairs.
type joiner struct {
	f         filters
	ranked    [][]uint32
	order     []int32
	counts    []int32   // postings of token w are flat[counts[w]:counts[w+1]]
	flat      []posting // read-only, shared
	threshold float64
	slot      []int32 // by ord: 1 + index into cands, 0 if not met yet
	cands     []candidate
	pairs     [][2]int32 // similar (ord, ord) pairs found
}

// probe finds the sets before o in visiting order that are similar to it.
// A worker calls probe with increasing o.
//
// The probe depth depends on the candidate's size ly: a set sharing
// nothing with x[:q] for q = lx - alpha(lx+ly) + 1 cannot reach the
// overlap bound (prefix principle), so position i of x is only matched
// against postings of sets with q(ly) > i. Postings are in visiting order,
// hence by size, so each scan stops at the first set that is too large.
func (j *joiner) probe(o int32) {
	f := &j.f
	x := j.ranked[j.order[o]]
	lx := len(x)
	px := f.probe(lx)
	minLen := int32(f.lo[lx])
	// depth(ly) = min(px, lx - alpha(lx+ly) + 1), non-increasing in ly.
	depth := func(ly int) int { return min(px, lx-f.alpha[lx+ly]+1) }
	maxLy := int32(lx) // largest size still probed at position i
	sig := signatureOf(x)
	for i, w := range x[:px] {
		for maxLy >= minLen && depth(int(maxLy)) <= i {
			maxLy--
		}
		if maxLy < minLen {
			break
		}
		for k := j.counts[w]; k < j.counts[w+1]; k++ {
			e := &j.flat[k]
			if e.ord >= o || e.size > maxLy {
				break // later in visiting order, or too large for this depth
			}
			if e.size < minLen {
				continue
			}
			ly := int(e.size)
			alpha := f.alpha[lx+ly]
			// The signature bound does not depend on the match, so a set
			// failing it is never remembered.
			if !sig.mayOverlap(&e.sig, lx, ly, alpha) {
				continue
			}
			// Positional filter: matches so far, this one, and whatever
			// both remainders could still share. A first match failing it
			// fails at every later match too.
			ub := 1 + min(lx-i-1, ly-int(e.pos)-1)
			slot := j.slot[e.ord]
			if slot == 0 {
				if ub >= alpha {
					j.cands = append(j.cands, candidate{ord: e.ord, count: 1, lastI: int32(i), size: e.size, end: e.end})
					j.slot[e.ord] = int32(len(j.cands))
				}
				continue
			}
			c := &j.cands[slot-1]
			if c.count < 0 {
				continue
			}
			if int(c.count)+ub < alpha {
				c.count = -1
				continue
			}
			c.count++
			c.lastI = int32(i)
		}
	}
	for _, c := range j.cands {
		j.slot[c.ord] = 0
		if c.count <= 0 {
			continue
		}
		ly := int(c.size)
		q := depth(ly)
		py := f.index(ly)
		alpha := f.alpha[lx+ly]
		cnt := int(c.count)
		xm := x[q-1]
		// Every common token up to m = min(x[q-1], y[py-1]) was counted;
		// the others lie in both sets after m. First a bound from what the
		// candidate record holds, then the exact one.
		if xm <= c.end {
			if cnt+lx-q < alpha {
				continue
			}
		} else if cnt+min(lx-int(c.lastI)-1, ly-py) < alpha {
			continue
		}
		y := j.ranked[j.order[c.ord]]
		var rx, ry int
		if xm <= c.end {
			rx = lx - q
			ry = ly - upperBound(y[:py], xm)
		} else {
			ry = ly - py
			rx = lx - upperBound(x[:q], c.end)
		}
		if cnt+min(rx, ry) < alpha {
			continue
		}
		inter, ok := overlapAtLeast(x[lx-rx:], y[ly-ry:], cnt, alpha)
		if ok && jaccardFromCounts(inter, lx, ly) >= j.threshold {
			j.pairs = append(j.pairs, [2]int32{o, c.ord})
		}
	}
	j.cands = j.cands[:0]
}

// A signature is a 128-bit Bloom-style summary of a token set: bit
// h(t) is set for every token t.
type signature [2]uint64

func signatureOf(s []uint32) signature {
	var g signature
	for _, t := range s {
		h := uint64(t) * 0x9e3779b97f4a7c15 >> 57 // 7 bits
		g[h>>6] |= 1 << (h & 63)
	}
	return g
}

// mayOverlap reports whether sets with signatures g and h and sizes la and
// lb can share need tokens. Each bit set in g but not in h stands for at
// least one token of the first set missing from the second (distinct bits,
// distinct tokens), so the overlap is at most la minus their number, and
// symmetrically.
func (g *signature) mayOverlap(h *signature, la, lb, need int) bool {
	onlyG := bits.OnesCount64(g[0]&^h[0]) + bits.OnesCount64(g[1]&^h[1])
	onlyH := bits.OnesCount64(h[0]&^g[0]) + bits.OnesCount64(h[1]&^g[1])
	return la-onlyG >= need && lb-onlyH >= need
}

// overlapAtLeast returns have + |a∩b| for ascending sets a and b, and
// false instead as soon as that total can no longer reach need.
func overlapAtLeast(a, b []uint32, have, need int) (int, bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if have+min(len(a)-i, len(b)-j) < need {
			return have, false
		}
		switch x, y := a[i], b[j]; {
		case x < y:
			i++
		case x > y:
			j++
		default:
			have++
			i++
			j++
		}
	}
	return have, have >= need
}

// upperBound returns the number of elements of the ascending s that are
// <= v.
func upperBound(s []uint32, v uint32) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] <= v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
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
	var total int
	var maxID uint32
	for _, s := range sets {
		total += len(s)
		if len(s) > 0 {
			maxID = max(maxID, s[len(s)-1])
		}
	}
	if total == 0 {
		return sets
	}
	// Ids from a Dict are dense; for sparse ids compact them first.
	var remap map[uint32]uint32
	if int64(maxID) > 4*int64(total)+1024 {
		remap = make(map[uint32]uint32)
		var dense [][]uint32
		for _, s := range sets {
			d := make([]uint32, len(s))
			for j, t := range s {
				id, ok := remap[t]
				if !ok {
					id = uint32(len(remap))
					remap[t] = id
				}
				d[j] = id
			}
			dense = append(dense, d)
		}
		sets = dense
		maxID = uint32(len(remap) - 1)
	}
	freq := make([]int32, maxID+1)
	for _, s := range sets {
		for _, t := range s {
			freq[t]++
		}
	}
	// Counting sort of the ids by frequency, ties by id.
	byFreq := make([]int32, len(sets)+2)
	for _, f := range freq {
		if f > 0 {
			byFreq[f+1]++
		}
	}
	for f := 1; f < len(byFreq); f++ {
		byFreq[f] += byFreq[f-1]
	}
	rank := make([]uint32, maxID+1)
	for t, f := range freq {
		if f > 0 {
			rank[t] = uint32(byFreq[f])
			byFreq[f]++
		}
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
