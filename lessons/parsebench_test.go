package lessons

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
		if err := readEntries(p, func(*Entry, int) error { n++; return nil }, newID, nil); err != nil || n != 10000 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkParseStoreSpec is BenchmarkParseStore at the sizes DARWIN_MEMO_BENCH_SIZES lists
// (comma-separated; default 10000), with the parts parsed on other cores ("auto"), only the
// ledger ("ledger-only") and all on one ("sequential"), so one process compares them.
func BenchmarkParseStoreSpec(b *testing.B) {
	ns := []int{10000}
	if v := os.Getenv("DARWIN_MEMO_BENCH_SIZES"); v != "" {
		ns = ns[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("DARWIN_MEMO_BENCH_SIZES: %v", err)
			}
			ns = append(ns, n)
		}
	}
	for _, n := range ns {
		data := benchStoreBytes(b, n)
		for _, mode := range []struct {
			name string
			h    parseHints
		}{
			{"auto", unknownOffsets()},
			{"ledger-only", parseHints{ledgerAt: -1, entryAt: noOffset}}, // as before the entries were
			{"sequential", parseHints{ledgerAt: -1, entryAt: -1, mode: specOff}},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, mode.name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				c0, runs := processCPU(), 0
				for b.Loop() {
					if _, err := parseAt("bench", data, Options{LazyHistory: true}, mode.h); err != nil {
						b.Fatal(err)
					}
					runs++
				}
				b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
			})
		}
	}
}
