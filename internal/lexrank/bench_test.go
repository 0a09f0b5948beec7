package lexrank

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx/textgen"
)

// BenchmarkBuildForAll is the action's one-query index build (BuildForAll
// over every lesson, on all cores) over textgen lessons, as lessons'
// benchmarks generate their stores.
func BenchmarkBuildForAll(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			gen := textgen.New(uint64(n), textgen.Options{})
			ls := make([]textgen.Lesson, n)
			for i := range ls {
				ls[i] = gen.Next()
			}
			text := func(i int) (string, string) { return ls[i].Question, ls[i].Answer }
			queries := []string{ls[n/2].Question, ls[n/3].Question + " " + ls[7].Answer}
			b.ReportAllocs()
			for b.Loop() {
				BuildForAll(queries, n, text, runtime.GOMAXPROCS(0))
			}
		})
	}
}
