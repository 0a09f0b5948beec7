package lessons

import (
	"fmt"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// The three-way merge of a bot branch's store with the base branch's, as a run does it when a
// person changed the store since the bot branch was built: the bot settled a ticket and ticked
// (every living lesson's energy changed), people pinned one lesson and forgot another. Sizes as
// the other benchmarks. cpu-ms/op counts the process's CPU.

// BenchmarkMerge is the whole merge (storedoc.Merge: the three documents read, the entries, the
// ledger, the merged document written).
func BenchmarkMerge(b *testing.B) {
	bySizeMerge(b, func(b *testing.B, m mergeSides) {
		c0, runs := processCPU(), 0
		for b.Loop() {
			if _, err := storedoc.Merge(m.base, m.ours, m.theirs, nil); err != nil {
				b.Fatal(err)
			}
			runs++
		}
		b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
	})
}

// mergeSides is the three documents of a benchmarked merge.
type mergeSides struct{ base, ours, theirs []byte }

var mergeData sync.Map // n -> mergeSides

func bySizeMerge(b *testing.B, fn func(*testing.B, mergeSides)) {
	for _, n := range sizes(b) {
		m := benchMergeSides(b, n) // generate outside the timed runs
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(m.base) + len(m.ours) + len(m.theirs)))
			fn(b, m)
		})
	}
}

// benchMergeSides returns the sides of a merge of n lessons (generated once per size).
func benchMergeSides(tb testing.TB, n int) mergeSides {
	if v, ok := mergeData.Load(n); ok {
		return v.(mergeSides)
	}
	base := benchStoreBytes(tb, n)
	side := func(edit func(*Store)) []byte { return editedDoc(tb, base, edit) }
	m := mergeSides{base: base}
	m.ours = side(func(s *Store) {
		p := s.Pending()[0]
		if r := s.Settle(p.ID, 1, SettleOptions{Source: "ci"}); !r.Landed {
			tb.Fatalf("settle: %+v", r)
		}
		s.Tick(TickOptions{})
	})
	m.theirs = side(func(s *Store) {
		s.Pin(s.Living()[len(s.Living())/2].ID)
		s.Forget(s.Living()[len(s.Living())/3].ID)
	})
	mergeData.Store(n, m)
	return m
}
