package lessons

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// The two reads of a store document a run does at 10k lessons: the merge's top-level scan
// (storeObject, on each of three documents) and the full parse of a document (ParseWith, as
// the action loads the base branch's store). cpu-ms/op counts the process's CPU (the ledger
// is parsed on another core).

func BenchmarkScanStore(b *testing.B) {
	data := benchStoreBytes(b, 10000)
	b.SetBytes(int64(len(data)))
	c0, runs := processCPU(), 0
	for b.Loop() {
		if _, err := storeObject(data); err != nil {
			b.Fatal(err)
		}
		runs++
	}
	b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
}

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

// BenchmarkParseEntries is the entries part of the full parse alone (readEntries).
func BenchmarkParseEntries(b *testing.B) {
	data := benchStoreBytes(b, 10000)
	o, err := storeObject(data)
	if err != nil {
		b.Fatal(err)
	}
	raw := o.vals["entries"]
	newID := New("x", Options{}).opts.NewID
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		p := pyjson.NewDecoder("bench", raw)
		n := 0
		if err := readEntries(p, func(*Entry, int) error { n++; return nil }, newID); err != nil || n != 10000 {
			b.Fatal(err, n)
		}
	}
}
