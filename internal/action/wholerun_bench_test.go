package action

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// bigStoreDoc is a generated store of n living lessons (plus n/4 dead ones) in darwin-memo's
// format: textgen texts, varied balances, structured history notes on half the lessons (a few
// of them with several), 10 pending tickets; about 1.3 KB a lesson, so 10k lessons are 13 MB
// and 30k (the supported size) 38 MB.
func bigStoreDoc(n int) []byte {
	if v, ok := bigDocs.Load(n); ok {
		return v.([]byte)
	}
	r := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	gen := textgen.New(uint64(n), textgen.Options{})
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var entries, graveyard, history, pending []string
	seen := map[string]bool{}
	for i := 0; len(entries)+len(graveyard) < n+n/4; i++ {
		l := gen.Next()
		id := lessons.ContentID("entry", l.Question, l.Answer)
		if seen[id] {
			continue
		}
		seen[id] = true
		born := r.IntN(200)
		uses, last := 0, -1
		if r.IntN(2) == 0 {
			uses, last = 1+r.IntN(9), born+r.IntN(20)
		}
		e := fmt.Sprintf(`{"question": %s, "answer": %s, "kind": "explicit", "sources": ["pr#%d"], "energy": %s, "born_cycle": %d, "recorded_ts": "2026-01-01T00:00:00+00:00", "last_used_cycle": %d, "uses": %d, "lineage": [], "id": %q}`,
			js(l.Question), js(l.Answer), 1+r.IntN(5000), strconv.FormatFloat(0.05+r.Float64()*4.9, 'g', -1, 64), born, last, uses, id)
		if len(entries) < n {
			entries = append(entries, e)
		} else {
			graveyard = append(graveyard, e)
		}
		notes := 0
		switch x := r.IntN(20); {
		case x >= 19:
			notes = 3 + r.IntN(5)
		case x >= 16:
			notes = 2
		case x >= 10:
			notes = 1
		}
		var ns []string
		for k := 0; k < notes; k++ {
			tick := born + k
			run := r.IntN(1e9)
			ns = append(ns, fmt.Sprintf(`{"tick": %d, "ts": "2026-01-01T00:00:00+00:00", "text": "tick %d: credit +0.277 (ci delta +1, https://github.com/o/r/actions/runs/%d)", "event": "settle", "ticket": %q, "credit": 0.27727, "delta": 1.0, "detail": "", "source": "ci", "evidence": null}`,
				tick, tick, run, lessons.ContentID(id, strconv.Itoa(k))))
		}
		if len(ns) > 0 {
			history = append(history, fmt.Sprintf(`%q: [%s]`, id, strings.Join(ns, ", ")))
		}
	}
	for i := 0; i < 10; i++ {
		var e struct{ Question, Answer, ID string }
		json.Unmarshal([]byte(entries[i*len(entries)/10]), &e)
		pending = append(pending, fmt.Sprintf(`{"query": %s, "answer": %s, "deciding_entry": %q, "supporting_entries": [], "born_tick": 200, "id": %q}`,
			js(e.Question), js(e.Answer), e.ID, lessons.ContentID("ticket", e.ID)))
	}
	doc := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [` + strings.Join(entries, ", ") + `], "graveyard": [` + strings.Join(graveyard, ", ") +
		`], "ledger": {"tick_count": 203, "pending": [` + strings.Join(pending, ", ") + `], "history": {` + strings.Join(history, ", ") + `}, "damaged": [], "settled_runs": []}}`
	s, err := lessons.Parse(storePath, []byte(doc))
	if err != nil {
		panic(err)
	}
	out, err := s.Marshal()
	if err != nil {
		panic(err)
	}
	bigDocs.Store(n, out)
	return out
}

var bigDocs sync.Map // n -> []byte

// wholeRunSizes are the store sizes of BenchmarkWholeRun; DARWIN_MEMO_BENCH_SIZES overrides
// them (e.g. "10000,30000"), -short keeps the first.
func wholeRunSizes() []int {
	sizes := []int{1000, 10000}
	if v := os.Getenv("DARWIN_MEMO_BENCH_SIZES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
				sizes = append(sizes, n)
			}
		}
	}
	if testing.Short() {
		sizes = sizes[:1]
	}
	return sizes
}

// BenchmarkWholeRun measures the action's whole path on a large store: one run of Main
// against the fake GitHub with the store on main and an open bot pull request whose branch
// carries an earlier settlement, main changed by a person since (a pinned lesson: a real
// three-way merge), and one merged pull request with a ticket to settle (measure, verify at
// base, settle, tick, encode, render, commit, update the bot pull request). Setup (the first
// run that opens the bot pull request, the person's edit) is not timed. Metrics: cpu-ms/op is
// the process's user+system CPU time for the run, which a busy machine does not inflate as it
// does wall time; peak-heap-MB the largest heap (live objects and garbage not yet collected)
// above the heap after setup, sampled every millisecond; peak-live-MB the largest heap a
// collection found live above the live heap after setup (what the run needs, whatever GOGC
// lets pile up). All of them include the in-process fake's share: it encodes and decodes every
// blob the action reads and writes, and keeps what it receives (the schema validator is off
// while the run is timed); a CPU profile of the benchmark tells them apart by the label part
// (action, fake, setup; `go tool pprof -tags`). See docs/benchmarks.md.
func BenchmarkWholeRun(b *testing.B) { benchWholeRun(b, true) }

// BenchmarkWholeRunStoreUnchanged is BenchmarkWholeRun where the base branch moved since the bot
// branch was built but its store did not (the usual run: pull requests merged without touching
// the store), so nothing is merged.
func BenchmarkWholeRunStoreUnchanged(b *testing.B) { benchWholeRun(b, false) }

func benchWholeRun(b *testing.B, personEdits bool) {
	// The schema validator of TestMain copies and checks every response (tens of MB here):
	// test instrumentation, not the action's cost.
	defer ghfake.Observe(ghfake.Observe(nil))
	for _, n := range wholeRunSizes() {
		b.Run(fmt.Sprintf("lessons=%d", n), func(b *testing.B) { wholeRunAt(b, n, personEdits) })
	}
}

// wholeRunAt is one size of benchWholeRun.
func wholeRunAt(b *testing.B, n int, personEdits bool) {
	doc := bigStoreDoc(n)
	b.ResetTimer() // generating the store (once per size and process) is not the run: neither its time nor its allocations count
	b.ReportMetric(float64(len(doc))/(1<<20), "store-MB")
	var peak, peakLive atomic.Uint64
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var h *harness
		var pr2 int
		pprof.Do(context.Background(), pprof.Labels("part", "setup"), func(context.Context) {
			h, pr2 = wholeRunSetup(b, doc, personEdits)
		})
		// The fake's handlers run on the server's goroutines: the hook labels them, so
		// a CPU profile splits the run into the action's part and the fake's.
		h.world.SetBefore(func(*http.Request) (int, string) {
			pprof.SetGoroutineLabels(fakeLabels)
			return 0, ""
		})
		runtime.GC()
		stop := sampleLiveHeap(&peak, liveHeap(), &peakLive, markedLive())
		c0 := processCPU()
		b.StartTimer()
		var res runResult
		pprof.Do(context.Background(), pprof.Labels("part", "action"), func(context.Context) {
			res = h.run("pull_request_target", mergedEvent(pr2), nil)
		})
		b.StopTimer()
		cpu += processCPU() - c0
		stop()
		want := "merged the bot branch's store"
		if !personEdits {
			want = "store is unchanged since the bot branch was built"
		}
		if res.code != 0 || res.outputs["result"] != "settled" || !strings.Contains(res.stdout, want) {
			b.Fatalf("exit %d, outputs %v\n%s", res.code, res.outputs, res.stdout)
		}
		h.world.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakLive.Load())/(1<<20), "peak-live-MB")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// wholeRunSetup returns a repository whose bot pull request is open (one settled merge), whose
// store on main a person changed since (personEdits), and the number of a merged pull request
// with a ticket.
func wholeRunSetup(b *testing.B, doc []byte, personEdits bool) (*harness, int) {
	b.Helper()
	h, living := wholeRunBotOpen(b, doc, personEdits)
	pr2 := h.merge("Fix second", h.ticketFor(living[2*len(living)/3].Question), measured(1))
	return h, pr2.Number
}

// wholeRunBotOpen is wholeRunSetup up to the second merge: a repository whose bot pull request
// is open (one settled merge) and whose store on main a person changed since (personEdits),
// with the living lessons of doc, of which the caller merges a pull request with a ticket for
// living[2*len(living)/3] (TestWholeRunProcess gives it CI results in the fake instead of an
// injected measurement).
func wholeRunBotOpen(b testing.TB, doc []byte, personEdits bool) (*harness, []*lessons.Entry) {
	b.Helper()
	h := newHarness(b, doc)
	s, err := lessons.Parse(storePath, doc)
	if err != nil {
		b.Fatal(err)
	}
	living := s.Living()
	pr1 := h.merge("Fix first", h.ticketFor(living[len(living)/3].Question), measured(1))
	if res := h.run("pull_request_target", mergedEvent(pr1.Number), nil); res.code != 0 || len(h.openBotPRs()) != 1 {
		b.Fatalf("setup run: exit %d\n%s", res.code, res.stdout)
	}
	if personEdits {
		main, _ := h.git.File("main", storePath)
		ms, err := lessons.Parse(storePath, main)
		if err != nil {
			b.Fatal(err)
		}
		ms.Pin(living[len(living)/2].ID)
		edited, err := ms.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		h.git.CommitFiles("main", "maintainer", "pin a lesson", map[string][]byte{storePath: edited})
	}
	return h, living
}

// fakeLabels marks the CPU samples of the fake's handlers (part=fake) in a profile of the
// benchmark; the action's run is part=action, setup part=setup, and the unlabelled rest is the
// runtime's background work (mostly the garbage collector's workers, shared by both).
var fakeLabels = pprof.WithLabels(context.Background(), pprof.Labels("part", "fake"))

func liveHeap() uint64 { return readMetric("/memory/classes/heap/objects:bytes") }

// markedLive is the heap the last GC found live (garbage excluded), what the run needs.
func markedLive() uint64 { return readMetric("/gc/heap/live:bytes") }

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleLiveHeap records in peak the largest heap above floor, and in peakLive the largest
// heap a GC found live above liveFloor, every millisecond, until the returned function is
// called.
func sampleLiveHeap(peak *atomic.Uint64, floor uint64, peakLive *atomic.Uint64, liveFloor uint64) func() {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := liveHeap(); v > floor && v-floor > peak.Load() {
				peak.Store(v - floor)
			}
			if v := markedLive(); v > liveFloor && v-liveFloor > peakLive.Load() {
				peakLive.Store(v - liveFloor)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
