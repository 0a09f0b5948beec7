package rank

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// An AcceptFunc lets a caller refuse a similar candidate, as darwin-memo's
// consolidation source policies do. It is called with the anchor, the
// cluster's members so far (anchor first, in join order) and a candidate
// whose similarity to the anchor passed the threshold; returning true adds
// the candidate to the cluster at once. For a given anchor, candidates are
// offered in input order. Cluster makes the calls the quadratic loop
// would, in the same order, so an AcceptFunc may keep state that it
// resets when the anchor changes.
type AcceptFunc func(anchor int, members []int, cand int) bool

// Cluster is darwin-memo's anchor clustering (consolidate.py), made
// sub-quadratic. sets[i] is entry i's token id set (sorted ascending
// without repeats, as [Dict.InternText] returns), and input order is
// anchor order: the caller sorts the eligible entries by energy, highest
// first, stably.
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
// style all-pairs join: with tokens in global rarity order
// and sets visited by size, each token pairs the sets having it in their
// probe prefix with the earlier sets having it in their index prefix,
// under length and prefix (size-dependent depth) filters, and a 128-bit
// token signature rejects most chance matches. Surviving
// candidates are verified with the comparison the quadratic loop of
// consolidate.py makes, so the outcome is identical to its for every
// input (property-tested and fuzzed against it). The
// filter bounds are computed in exact rational arithmetic from the float64
// just below threshold, which keeps them conservative under rounding.
//
// A threshold <= 0 makes every pair similar (Jaccard is never negative,
// even for empty sets), and Cluster runs the quadratic loop; a NaN
// threshold or one above 1 makes no pair similar.
func Cluster(sets [][]uint32, threshold float64, accept AcceptFunc) [][]int {
	if math.IsNaN(threshold) || threshold > 1 {
		return nil
	}
	var adj [][]int32 // nil when every pair is similar
	if threshold > 0 {
		adj = similarPairs(sets, threshold)
	}
	consumed := make([]bool, len(sets))
	var out [][]int
	var members []int
	var all []int32
	for a := range sets {
		if consumed[a] {
			continue
		}
		nb := all[:0]
		if adj != nil {
			nb = adj[a]
		} else {
			for b := range sets {
				if b != a {
					nb = append(nb, int32(b))
				}
			}
			all = nb
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

// setRec is what the join reads of a set, by ord: its signature and size.
type setRec struct {
	sig  signature
	size int32
}

// posting is one prefix token occurrence: the set's ord and the token's
// position in it.
type posting struct{ ord, pos int32 }

// similarPairs returns, for every entry, the entries whose Jaccard with it
// is >= threshold (0 < threshold <= 1), ascending.
//
// This is a prefix-filtered all-pairs join (PPJoin). Sets are visited by
// size, then input order (their ord), and tokens ranked rarest first,
// ties by id. A similar pair's first common token in that order lies in
// the probe prefix of the later set x (at a position i below a depth that
// shrinks as the earlier set y grows) and in the index prefix of y (at a
// position at most |y| - alpha, alpha the overlap bound of the two
// sizes). So each token pairs the sets having it in their probe prefix
// with the earlier sets having it in their index prefix, within the
// length window, and a 128-bit signature bound rejects almost every
// chance match. The join runs token by token
// rather than set by set: a token's two lists and their records are
// small and contiguous, so the scan, which grows with the square of the
// store through chance matches on mid-frequency tokens, runs from cache.
// Surviving pairs are deduplicated and
// verified exactly.
func similarPairs(sets [][]uint32, threshold float64) [][]int32 {
	n := len(sets)
	adj := make([][]int32, n)
	rank := rankTokens(sets)
	if rank == nil {
		return adj
	}
	maxL := maxLen(sets)
	f := newFilters(math.Nextafter(threshold, 0), maxL)

	// Visiting order: counting sort by size, stable over input order.
	sizeStart := make([]int32, maxL+2) // sizeStart[l] = first ord of size >= l
	for _, s := range sets {
		if len(s) > 0 {
			sizeStart[len(s)+1]++
		}
	}
	for l := 1; l < len(sizeStart); l++ {
		sizeStart[l] += sizeStart[l-1]
	}
	m := int(sizeStart[maxL+1])
	order := make([]int32, m)
	next := slices.Clone(sizeStart)
	for i, s := range sets {
		if l := len(s); l > 0 {
			order[next[l]] = int32(i)
			next[l]++
		}
	}

	// The set records, and every token's postings in visiting order:
	// buildPart sorts the sets' token occurrences by rank (a counting
	// sort), then walks them in rank order, which deals each set its
	// tokens in prefix order (a set's c-th token met is at position c).
	// The first probe(size) of them form its probe prefix, the first
	// index(size) its index prefix; both lists come out by token, in
	// visiting order.
	recs := make([]setRec, m)
	part := buildPart(sets, order, rank, &f, recs)
	j := joiner{f: &f, sizeStart: sizeStart, recs: recs}
	for w := range len(rank) {
		pr, ix := part.probes[part.pStart[w]:part.pStart[w+1]], part.index[part.iStart[w]:part.iStart[w+1]]
		if len(ix) > 0 && len(pr) > 0 {
			j.join(pr, ix)
		}
	}

	// Deduplicate (a pair may share several prefix tokens) and verify.
	cands := j.cands
	slices.Sort(cands)
	cands = slices.Compact(cands)
	for _, p := range cands {
		a, b := order[p>>32], order[uint32(p)]
		x, y := sets[a], sets[b]
		inter, enough := overlapAtLeast(x, y, f.alpha[len(x)+len(y)])
		if enough && jaccardFromCounts(inter, len(x), len(y)) >= threshold {
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
		}
	}
	for _, nb := range adj {
		slices.Sort(nb)
	}
	return adj
}

// prefixPart holds the prefix postings of the sets, by token rank:
// probes[pStart[r]:pStart[r+1]] and index[iStart[r]:iStart[r+1]].
type prefixPart struct {
	probes, index  []posting
	pStart, iStart []int32
}

// buildPart fills recs and returns the prefix postings of the sets, by ord.
func buildPart(sets [][]uint32, order []int32, rank []uint32, f *filters, recs []setRec) prefixPart {
	nTok := len(rank)
	start := make([]int32, nTok+1)
	var nProbe, nIndex int
	for o := range recs {
		s := sets[order[o]]
		recs[o] = setRec{signatureOf(s), int32(len(s))}
		nProbe += f.probe(len(s))
		nIndex += f.index(len(s))
		for _, t := range s {
			start[rank[t]+1]++
		}
	}
	for r := range nTok {
		start[r+1] += start[r]
	}
	inv := make([]int32, start[nTok])
	fill := slices.Clone(start[:nTok])
	for o := range recs {
		for _, t := range sets[order[o]] {
			r := rank[t]
			inv[fill[r]] = int32(o)
			fill[r]++
		}
	}
	type prefixState struct{ seen, probe, index int32 }
	st := make([]prefixState, len(recs))
	for o, rec := range recs {
		l := int(rec.size)
		st[o] = prefixState{0, int32(f.probe(l)), int32(f.index(l))}
	}
	pp := prefixPart{
		probes: make([]posting, 0, nProbe),
		index:  make([]posting, 0, nIndex),
		pStart: make([]int32, nTok+1),
		iStart: make([]int32, nTok+1),
	}
	for r := range nTok {
		for _, o := range inv[start[r]:start[r+1]] {
			s := &st[o]
			if c := s.seen; c < s.probe {
				pp.probes = append(pp.probes, posting{o, c})
				if c < s.index {
					pp.index = append(pp.index, posting{o, c})
				}
				s.seen = c + 1
			}
		}
		pp.pStart[r+1] = int32(len(pp.probes))
		pp.iStart[r+1] = int32(len(pp.index))
	}
	return pp
}

// joiner is the state of similarPairs' join.
type joiner struct {
	f         *filters
	sizeStart []int32  // first ord of each size
	recs      []setRec // by ord
	active    []indexed
	cands     []uint64 // x<<32 | y for pairs passing every filter, y before x
}

// indexed is an index posting with its set's record, gathered per token.
type indexed struct {
	sig       signature
	ord, size int32
}

// join pairs the probe postings pr of one token with its index postings
// ix (both in visiting order). It sweeps the probe sets by size: an index
// posting joins the active list once its set precedes the probe set. A
// probe set x whose token sits at position i matches the active sets of
// at least the length filter's size whose depth covers i: depth(ly) =
// min(px, lx-alpha+1) shrinks as ly grows, and the active list is in
// visiting order, so they are a prefix of it. Each match must pass the
// signature bound.
func (j *joiner) join(pr, ix []posting) {
	if pr[len(pr)-1].ord <= ix[0].ord {
		return // no probe set comes after an index set
	}
	f, ss := j.f, j.sizeStart
	act := j.active[:0]
	next := 0 // next index posting to activate
	// Both lists are in visiting order, so sizes follow from ords by
	// walking sizeStart; a set's record is read only when needed.
	lx, ly := int(j.recs[pr[0].ord].size), int(j.recs[ix[0].ord].size)
	for _, p := range pr {
		for p.ord >= ss[lx+1] {
			lx++
		}
		for next < len(ix) && ix[next].ord < p.ord {
			q := ix[next]
			next++
			for q.ord >= ss[ly+1] {
				ly++
			}
			act = append(act, indexed{j.recs[q.ord].sig, q.ord, int32(ly)})
		}
		if len(act) == 0 {
			continue
		}
		// Largest size whose depth min(px, lx-alpha+1) exceeds i.
		i := int(p.pos)
		minLen := f.lo[lx]
		maxLy := lx
		for maxLy >= minLen && lx-f.alpha[lx+maxLy] < i {
			maxLy--
		}
		if maxLy < minLen {
			continue
		}
		x := &j.recs[p.ord]
		for k := range act {
			y := &act[k]
			ly := int(y.size)
			if ly > maxLy {
				break
			}
			if ly >= minLen && x.sig.mayOverlap(&y.sig, lx, ly, f.alpha[lx+ly]) {
				j.cands = append(j.cands, uint64(p.ord)<<32|uint64(y.ord))
			}
		}
	}
	j.active = act[:0]
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
	if la-need < bits.OnesCount64(g[0]&^h[0])+bits.OnesCount64(g[1]&^h[1]) {
		return false
	}
	return lb-need >= bits.OnesCount64(h[0]&^g[0])+bits.OnesCount64(h[1]&^g[1])
}

// overlapAtLeast returns |a∩b| for ascending sets a and b, and false
// instead as soon as it can no longer reach need.
func overlapAtLeast(a, b []uint32, need int) (int, bool) {
	have, i, j := 0, 0, 0
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

// rankTokens returns every token id's global rank in sets (ids from a
// Dict: dense), fewest sets first, ties by id; nil if there is no token
// at all.
func rankTokens(sets [][]uint32) []uint32 {
	var total int
	var maxID uint32
	for _, s := range sets {
		total += len(s)
		if len(s) > 0 {
			maxID = max(maxID, s[len(s)-1])
		}
	}
	if total == 0 {
		return nil
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
	return rank
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
