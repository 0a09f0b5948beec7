package lessons

import (
	"testing"
)

// The full parse of a store document at 10k lessons (ParseWith, as the action loads the base
// branch's store).
func BenchmarkParseStore(b *testing.B) {
	data := benchStoreBytes(b, 10000)
	b.SetBytes(int64(len(data)))
	c0, runs := processCPU(), 0
	for b.Loop() {
		if _, err := ParseWith("bench", data, Options{LazyHistory: true}); err != nil {
			b.Fatal(err)
		}
		runs++
	}
	b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
}
