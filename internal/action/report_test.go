package action

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

func TestStrongestIsTheSortedPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ living, n int }{{0, 50}, {1, 50}, {49, 50}, {50, 50}, {51, 50}, {2000, 50}, {300, 1}} {
		var living []*lessons.Entry
		for i := 0; i < c.living; i++ {
			// Few distinct energies, so ties (broken by id) are common.
			living = append(living, &lessons.Entry{ID: fmt.Sprintf("%012x", r.Uint64()&0xffffffffffff), Energy: float64(r.IntN(8)) / 4})
		}
		want := slices.Clone(living)
		sort.SliceStable(want, func(i, j int) bool { return stronger(want[i], want[j]) })
		want = want[:min(c.n, len(want))]
		if got := strongest(living, c.n); !slices.Equal(got, want) {
			t.Errorf("%d living, n=%d: strongest differs from the sorted prefix", c.living, c.n)
		}
	}
}
