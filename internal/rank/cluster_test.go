package rank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

func TestClusterSemantics(t *testing.T) {
	tok := func(s ...string) []string { return s }
	tests := []struct {
		name      string
		sets      [][]string
		threshold float64
		accept    AcceptFunc
		want      [][]int
	}{
		{
			name:      "pair at exactly 0.55 joins",
			sets:      [][]string{tok("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "x1", "x2", "x3", "x4", "x5"), tok("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "y1", "y2", "y3", "y4")},
			threshold: 0.55,
			want:      [][]int{{0, 1}},
		},
		{
			name:      "just below does not",
			sets:      [][]string{tok("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "x1", "x2", "x3", "x4", "x5"), tok("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "y1", "y2", "y3", "y4", "y5")},
			threshold: 0.55,
			want:      nil,
		},
		{
			name: "anchor only, not transitive",
			// J(0,1) = 3/5, J(1,2) = 3/5, J(0,2) = 1/3.
			sets:      [][]string{tok("a", "b", "c", "d"), tok("b", "c", "d", "e"), tok("c", "d", "e", "f")},
			threshold: 0.55,
			want:      [][]int{{0, 1}},
		},
		{
			name: "earlier singleton joins a later anchor when accept allowed it then",
			// 0 refuses everyone; 1 then anchors and gathers 0.
			sets:      [][]string{tok("a", "b"), tok("a", "b"), tok("z")},
			threshold: 0.55,
			accept:    func(anchor int, _ []int, _ int) bool { return anchor != 0 },
			want:      [][]int{{1, 0}},
		},
		{
			name:      "empty sets never join at positive threshold",
			sets:      [][]string{nil, nil, tok("a"), tok("a")},
			threshold: 0.55,
			want:      [][]int{{2, 3}},
		},
		{
			name:      "zero threshold joins everything, even empty sets",
			sets:      [][]string{nil, tok("a"), tok("b")},
			threshold: 0,
			want:      [][]int{{0, 1, 2}},
		},
		{
			name:      "NaN threshold joins nothing",
			sets:      [][]string{tok("a"), tok("a")},
			threshold: math.NaN(),
			want:      nil,
		},
		{
			name:      "identical sets at threshold 1",
			sets:      [][]string{tok("a", "b"), tok("b", "a"), tok("a", "b", "c")},
			threshold: 1,
			want:      [][]int{{0, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDict()
			var ids [][]uint32
			for _, s := range tt.sets {
				ids = append(ids, intern(d, s))
			}
			if got := ClusterQuadratic(ids, tt.threshold, tt.accept); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("ClusterQuadratic = %v, want %v", got, tt.want)
			}
			if got := Cluster(ids, tt.threshold, tt.accept); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("Cluster = %v, want %v", got, tt.want)
			}
			if got := ClusterTokens(tt.sets, tt.threshold, tt.accept); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("ClusterTokens = %v, want %v", got, tt.want)
			}
		})
	}
}

// randomStore makes n token id sets with many near-duplicates: some sets
// are fresh draws from a skewed vocabulary, the rest are mutations of
// earlier sets. Some sets are empty.
func randomStore(r *rand.Rand, n int) [][]uint32 {
	vocab := 5 + r.IntN(200)
	maxSize := 1 + r.IntN(30)
	sets := make([][]uint32, n)
	for i := range sets {
		var s []uint32
		switch {
		case r.IntN(20) == 0:
			// empty
		case i > 0 && r.IntN(3) > 0:
			s = slices.Clone(sets[r.IntN(i)])
			for range r.IntN(4) {
				switch {
				case len(s) > 0 && r.IntN(2) == 0:
					j := r.IntN(len(s))
					s = slices.Delete(s, j, j+1)
				default:
					s = append(s, uint32(r.IntN(vocab)))
				}
			}
		default:
			for range 1 + r.IntN(maxSize) {
				s = append(s, uint32(float64(vocab)*r.Float64()*r.Float64()))
			}
		}
		sets[i] = sortedSet(s)
	}
	return sets
}

// randomThreshold favours the exact fractions where Jaccard values land
// and the floats next to them.
func randomThreshold(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return 0.55
	case 1:
		u := 1 + r.IntN(40)
		f := float64(r.IntN(u+1)) / float64(u)
		switch r.IntN(3) {
		case 0:
			return math.Nextafter(f, 0)
		case 1:
			return math.Nextafter(f, 2)
		}
		return f
	case 2:
		return []float64{0, -0.5, 1, math.Nextafter(1, 2), math.NaN(), math.SmallestNonzeroFloat64, 0.85}[r.IntN(7)]
	}
	return r.Float64()
}

type acceptCall struct{ anchor, nMembers, cand int }

// randomAccept returns a deterministic accept function (a source policy
// or a hash-based refusal) and the log of its calls.
func randomAccept(r *rand.Rand, n int) (AcceptFunc, *[]acceptCall) {
	log := new([]acceptCall)
	sources := make([][]int, n)
	for i := range sources {
		for range r.IntN(3) {
			sources[i] = append(sources[i], r.IntN(4))
		}
	}
	salt := r.Uint64()
	var policy func(anchor int, members []int, cand int) bool
	switch r.IntN(4) {
	case 0:
		return nil, log
	case 1: // "shared": the common source set stays non-empty
		policy = func(_ int, members []int, cand int) bool {
			for _, s := range sources[cand] {
				ok := true
				for _, m := range members {
					if !slices.Contains(sources[m], s) {
						ok = false
						break
					}
				}
				if ok {
					return true
				}
			}
			return false
		}
	case 2: // "identical"
		policy = func(anchor int, _ []int, cand int) bool {
			a, c := slices.Clone(sources[anchor]), slices.Clone(sources[cand])
			slices.Sort(a)
			slices.Sort(c)
			return len(a) > 0 && slices.Equal(slices.Compact(a), slices.Compact(c))
		}
	default:
		policy = func(anchor int, members []int, cand int) bool {
			h := (uint64(anchor)*1000003 + uint64(len(members))*7919 + uint64(cand)) ^ salt
			h *= 0x9e3779b97f4a7c15
			return h>>62 != 0
		}
	}
	return func(anchor int, members []int, cand int) bool {
		if members[0] != anchor {
			panic("members must start with the anchor")
		}
		*log = append(*log, acceptCall{anchor, len(members), cand})
		return policy(anchor, members, cand)
	}, log
}

func checkClusterEqual(t *testing.T, sets [][]uint32, threshold float64, r *rand.Rand, label string) {
	t.Helper()
	seed := r.Uint64()
	acc1, log1 := randomAccept(rand.New(rand.NewPCG(seed, 1)), len(sets))
	acc2, log2 := randomAccept(rand.New(rand.NewPCG(seed, 1)), len(sets))
	want := ClusterQuadratic(sets, threshold, acc1)
	got := Cluster(sets, threshold, acc2)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("%s: threshold %v (%x): Cluster = %v, ClusterQuadratic = %v", label, threshold, threshold, got, want)
	}
	if !slices.Equal(*log1, *log2) {
		t.Fatalf("%s: threshold %v: accept calls differ:\nfast %v\nref  %v", label, threshold, *log2, *log1)
	}
}

func TestClusterEqualsQuadratic(t *testing.T) {
	seeds := 3000
	if testing.Short() || raceEnabled {
		seeds = 300
	}
	clusters := 0
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 55))
		sets := randomStore(r, r.IntN(80))
		threshold := randomThreshold(r)
		checkClusterEqual(t, sets, threshold, r, fmt.Sprintf("seed %d", seed))
		clusters += len(ClusterQuadratic(sets, threshold, nil))
	}
	if clusters < seeds {
		t.Errorf("only %d clusters over %d stores: the generator makes too few near-duplicates", clusters, seeds)
	}
}

func TestClusterOutputShape(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	sets := randomStore(r, 300)
	out := Cluster(sets, 0.55, nil)
	seen := map[int]bool{}
	for _, c := range out {
		if len(c) < 2 {
			t.Fatalf("cluster %v has fewer than 2 entries", c)
		}
		if !slices.IsSorted(c[1:]) {
			t.Errorf("members of %v not in input order", c)
		}
		for _, m := range c {
			if seen[m] {
				t.Fatalf("entry %d in two clusters", m)
			}
			seen[m] = true
		}
		for _, m := range c[1:] {
			if JaccardIDs(sets[c[0]], sets[m]) < 0.55 {
				t.Errorf("member %d of %v below threshold", m, c)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no clusters in a store full of near-duplicates")
	}
}

func TestFiltersExact(t *testing.T) {
	// For every size pair and overlap, a pair passing the float test must
	// pass every integer filter.
	for _, threshold := range []float64{0.55, 0.5, 1.0 / 3, 2.0 / 3, 0.1, 1, 0.7, 0.999, math.SmallestNonzeroFloat64} {
		f := newFilters(math.Nextafter(threshold, 0), 60)
		for n := 1; n <= 60; n++ {
			for m := 1; m <= n; m++ {
				for i := 1; i <= m; i++ {
					if float64(i)/float64(n+m-i) < threshold {
						continue
					}
					if m < f.lo[n] {
						t.Fatalf("t=%v: sizes %d,%d overlap %d passes but length filter wants >= %d", threshold, n, m, i, f.lo[n])
					}
					if i < f.lo[n] || i < f.mid[m] || i < f.alpha[n+m] {
						t.Fatalf("t=%v: sizes %d,%d: overlap %d below a bound (lo %d, mid %d, alpha %d)", threshold, n, m, i, f.lo[n], f.mid[m], f.alpha[n+m])
					}
				}
			}
		}
	}
}

func FuzzClusterEqual(f *testing.F) {
	f.Add(uint64(1), 30, 0.55)
	f.Add(uint64(2), 5, 0.0)
	f.Add(uint64(3), 60, 1.0)
	f.Fuzz(func(t *testing.T, seed uint64, n int, threshold float64) {
		n = max(0, n%200)
		r := rand.New(rand.NewPCG(seed, 7))
		sets := randomStore(r, n)
		checkClusterEqual(t, sets, threshold, r, fmt.Sprintf("seed %d n %d", seed, n))
	})
}

// TestClusterEqualsQuadraticLarge covers stores of thousands of entries,
// including lesson-like text.
func TestClusterEqualsQuadraticLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("quadratic reference on thousands of entries")
	}
	if raceEnabled {
		r := rand.New(rand.NewPCG(1, 77))
		checkClusterEqual(t, randomStore(r, 1100), 0.55, r, "race")
		return
	}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 77))
		sets := randomStore(r, 1100+r.IntN(1000))
		checkClusterEqual(t, sets, []float64{0.55, 0.3, 0.8}[seed%3], r, fmt.Sprintf("large seed %d", seed))
	}
	d := NewDict()
	var ids [][]uint32
	for _, l := range textgen.Lessons(3, 2000) {
		ids = append(ids, intern(d, Tokens(l.Text())))
	}
	for _, threshold := range []float64{0.55, 0.4} {
		want := ClusterQuadratic(ids, threshold, nil)
		got := Cluster(ids, threshold, nil)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("textgen lessons at %v: Cluster differs from ClusterQuadratic (%d vs %d clusters)", threshold, len(got), len(want))
		}
		if len(want) < 10 {
			t.Errorf("textgen lessons at %v: only %d clusters", threshold, len(want))
		}
	}
}

// ClusterQuadratic is the reference for [Cluster]: consolidate.py's loop
// transcribed directly, comparing every anchor with every unconsumed
// entry. It takes the same arguments and returns the same clusters.
func ClusterQuadratic(sets [][]uint32, threshold float64, accept AcceptFunc) [][]int {
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
			if !(JaccardIDs(sets[a], sets[b]) >= threshold) {
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
		ids[i] = intern(d, s)
	}
	return Cluster(ids, threshold, accept)
}
