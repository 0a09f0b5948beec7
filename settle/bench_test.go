package settle

import (
	"fmt"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

// BenchmarkDiff compares two 100k-test runs with 1% flipped and a 100-test
// quarantine, the size of a large monorepo suite.
func BenchmarkDiff(b *testing.B) {
	const n = 100000
	before := make(map[string]junit.Status, n)
	after := make(map[string]junit.Status, n)
	var q []string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("pkg%d.Class%d::test_%d", i%50, i%700, i)
		before[id], after[id] = junit.Passed, junit.Passed
		if i%100 == 0 {
			after[id] = junit.Failed
		}
		if i%1000 == 1 {
			q = append(q, id)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Diff(before, after, q)
	}
}
