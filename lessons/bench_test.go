package lessons

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// genStore builds a realistic store of n living lessons (plus n/4 dead
// ones): lesson texts from internal/rank/textgen (Zipf vocabulary with
// code identifiers, about 5% reworded near-duplicates, so consolidation
// has work), varied balances, history notes for the half of the lessons
// that were ever settled, and some pending tickets.
func genStore(n int, seed uint64) *Store {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	gen := textgen.New(seed, textgen.Options{})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Generated on darwin-memo's ranking so that Add records no
	// supersession labels (which would make generation quadratic-ish); the
	// retrieval option is not persisted, so a parsed copy ranks with v2.
	s := New("bench/lessons.json", Options{Now: func() time.Time { return base }, Retrieval: RetrievalDarwinMemo})
	var made []*Entry
	for i := 0; i < n+n/4; i++ {
		l := gen.Next()
		q, a := l.Question, l.Answer
		e, err := s.Add(NewLesson{Question: q, Answer: a, Sources: []string{fmt.Sprintf("pr#%d", 1+r.IntN(5000))},
			RecordedTS: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05+00:00")})
		if err != nil {
			panic(err)
		}
		e.Energy = 0.05 + r.Float64()*4.9
		e.BornCycle = r.IntN(200)
		if r.IntN(2) == 0 {
			e.Uses = 1 + r.IntN(9)
			e.LastUsedCycle = e.BornCycle + r.IntN(20)
		}
		s.tick = e.BornCycle
		notes := 0 // half never settled; a few settled often
		switch x := r.IntN(20); {
		case x >= 19:
			notes = 3 + r.IntN(5)
		case x >= 16:
			notes = 2
		case x >= 10:
			notes = 1
		}
		for k := 0; k < notes; k++ {
			s.note(e.ID, s.structured(fmt.Sprintf("tick %d: credit +0.277 (ci delta +1, https://github.com/o/r/actions/runs/%d)", s.tick, r.IntN(1e9)), "settle",
				pyjson.Pair("ticket", pyjson.String(ContentID(e.ID, fmt.Sprint(k)))), pyjson.Pair("credit", pyjson.Float(0.277270)), pyjson.Pair("delta", pyjson.Float(1)), pyjson.Pair("detail", pyjson.String("")), pyjson.Pair("source", pyjson.String("ci")), pyjson.Pair("evidence", pyjson.Null())))
		}
		made = append(made, e)
	}
	s.events = nil
	// a quarter goes to the graveyard
	var dead []*Entry
	for i := 0; i < n/4; i++ {
		dead = append(dead, made[r.IntN(len(made))])
	}
	s.bury(dead...)
	if len(s.living) > n {
		s.bury(s.living[n:]...)
	}
	s.tick = 204 // the next tick (205) consolidates
	for i := 0; i < 10 && i < len(s.living); i++ {
		pend(s, s.living[i*len(s.living)/10].ID)
	}
	s.byID = map[string]*Entry{}
	for _, e := range s.living {
		s.byID[e.ID] = e
	}
	return s
}

var benchData sync.Map // n -> []byte

func benchStoreBytes(b testing.TB, n int) []byte {
	if v, ok := benchData.Load(n); ok {
		return v.([]byte)
	}
	data, err := genStore(n, uint64(n)).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	benchData.Store(n, data)
	return data
}

// benchSizes are the benchmarks' store sizes: up to the supported size, 30k lessons with
// history (a store under GitHub's 50 MB warning size; docs/action.md).
var benchSizes = []int{1000, 10000, 30000}

func sizes(b *testing.B) []int {
	if testing.Short() {
		return benchSizes[:2]
	}
	return benchSizes
}

func TestGeneratedStoreRoundTrips(t *testing.T) {
	data := benchStoreBytes(t, 1000)
	s, err := Parse("bench", data)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := s.Marshal()
	if !bytes.Equal(out, data) || len(s.Living()) != 1000 {
		t.Fatalf("generated store does not round-trip (%d living)", len(s.Living()))
	}
	st := s.Tick(TickOptions{})
	if st.Merges == 0 {
		t.Error("generator produced no near-duplicates to consolidate")
	}
}

// Each benchmark runs at 1k, 10k and 30k lessons (30k is skipped with
// -short); the per-size bodies are shared with TestBenchmarksDoc.
func BenchmarkLoad(b *testing.B)            { bySize(b, benchLoad) }
func BenchmarkDecide(b *testing.B)          { bySize(b, benchDecide) }
func BenchmarkSettle(b *testing.B)          { bySize(b, benchSettle) }
func BenchmarkTickConsolidate(b *testing.B) { bySize(b, benchTick) }
func BenchmarkSave(b *testing.B)            { bySize(b, benchSave) }
func BenchmarkLoadTickSave(b *testing.B)    { bySize(b, benchLoadTickSave) }
func BenchmarkMarshal(b *testing.B)         { bySize(b, benchMarshal) }

func bySize(b *testing.B, fn func(*testing.B, int)) {
	for _, n := range sizes(b) {
		benchStoreBytes(b, n) // generate outside the timed runs
		b.Run(fmt.Sprint(n), func(b *testing.B) { fn(b, n) })
	}
}

func benchLoad(b *testing.B, n int) {
	data := benchStoreBytes(b, n)
	b.SetBytes(int64(len(data)))
	c0, runs := processCPU(), 0
	for b.Loop() {
		if _, err := Parse("bench", data); err != nil {
			b.Fatal(err)
		}
		runs++
	}
	b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
}

func benchMarshal(b *testing.B, n int) {
	data := benchStoreBytes(b, n)
	s, err := Parse("bench", data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecide(b *testing.B, n int) {
	s, err := Parse("bench", benchStoreBytes(b, n))
	if err != nil {
		b.Fatal(err)
	}
	var queries []string
	for i := 0; i < 64; i++ {
		e := s.living[(i*7919)%len(s.living)]
		w := strings.Fields(e.Question)
		queries = append(queries, strings.Join(w[1:min(len(w), 6)], " "))
	}
	if _, err := s.Decide(queries[0], DecideOptions{}); err != nil { // the indexes, built once per load
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if _, err := s.Decide(queries[i%len(queries)], DecideOptions{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func benchSettle(b *testing.B, n int) {
	s, err := Parse("bench", benchStoreBytes(b, n))
	if err != nil {
		b.Fatal(err)
	}
	var tickets []FreeTicket
	for i := 0; i < 64; i++ {
		e := s.living[(i*7919)%len(s.living)]
		d, _ := s.Decide(e.Question, DecideOptions{})
		if !d.Silent {
			tickets = append(tickets, FreeTicket{Tick: d.Tick, Decider: d.Decider, Supporting: d.Supporting, Query: d.Query})
		}
	}
	i := 0
	for b.Loop() {
		delta := 1.0
		if i%2 == 1 {
			delta = -1
		}
		s.SettleFree(tickets[i%len(tickets)], delta, SettleOptions{Source: "ci"})
		i++
	}
}

func benchTick(b *testing.B, n int) {
	data := benchStoreBytes(b, n)
	merges, runs := 0, 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s, err := Parse("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC() // do not charge the parse's garbage to the tick
		c0 := processCPU()
		b.StartTimer()
		merges = s.Tick(TickOptions{}).Merges
		b.StopTimer()
		cpu += processCPU() - c0
		runs++
		b.StartTimer()
	}
	b.ReportMetric(float64(merges), "merges")
	b.ReportMetric(cpu.Seconds()*1000/float64(runs), "cpu-ms/op")
}

func benchSave(b *testing.B, n int) {
	s, err := Parse("bench", benchStoreBytes(b, n))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "lessons.json")
	c0, runs := processCPU(), 0
	for b.Loop() {
		if err := s.SaveAs(context.Background(), p); err != nil {
			b.Fatal(err)
		}
		runs++
	}
	b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(runs), "cpu-ms/op")
}

// benchLoadTickSave is the action's whole-store path: load from disk, one
// tick with consolidation, atomic save. It reports the peak heap seen by a
// 1 ms sampler above the heap in use before the load (the benchmark's own
// cached store files are excluded).
func benchLoadTickSave(b *testing.B, n int) {
	data := benchStoreBytes(b, n)
	p := filepath.Join(b.TempDir(), "lessons.json")
	ctx := context.Background()
	var peak atomic.Uint64
	base := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var cpu time.Duration
	runs := 0
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		metrics.Read(base)
		stop := sampleHeap(&peak, base[0].Value.Uint64())
		c0 := processCPU()
		b.StartTimer()
		s, err := Load(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		s.Tick(TickOptions{})
		if err := s.Save(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += processCPU() - c0
		runs++
		stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(cpu.Seconds()*1000/float64(runs), "cpu-ms/op")
}

// sampleHeap records the largest live+unswept heap every millisecond until
// the returned stop function is called.
func sampleHeap(peak *atomic.Uint64, floor uint64) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > floor && v-floor > peak.Load() {
				peak.Store(v - floor)
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

// The store's consolidation uses rank.Cluster; on a realistic store and
// under every source policy it must form exactly the clusters of the
// quadratic reference.
func TestConsolidationMatchesQuadraticReference(t *testing.T) {
	exhaustive.Only(t)
	s, err := Parse("p", benchStoreBytes(t, 1000))
	if err != nil {
		t.Fatal(err)
	}
	elig := append([]*Entry(nil), s.living[:400]...)
	sets := source{s}.TokenSets(elig)
	for i, e := range elig {
		if i%3 == 0 { // give some entries shared sources
			e.Sources = append(e.Sources, "pr#1")
		}
	}
	for _, policy := range []string{"off", "shared", "identical"} {
		for _, thr := range []float64{0.3, 0.55, 0.8} {
			accept := sourcePolicy(policy, elig)
			got := rank.Cluster(sets, thr, accept)
			want := clusterQuadratic(sets, thr, accept)
			if len(got) == 0 && thr == 0.55 && policy == "off" {
				t.Fatal("no clusters at the default threshold; the test store has no near-duplicates")
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("policy %s threshold %v: clusters differ from the quadratic reference", policy, thr)
			}
		}
	}
}

// BenchmarkDecideCold is what one `darwin-memo decide` does at 10k lessons
// after reading the file (issue 12's budget: under 50 ms for the whole
// process): "once" as the command runs it (a consult-only load, then one
// decide with RetrieveOptions.Once, which builds no index), "index" as a
// long-lived process would (a full load, the ranking's index built, one
// decide).
func BenchmarkDecideCold(b *testing.B) {
	data := benchStoreBytes(b, 10000)
	for _, r := range []Retrieval{RetrievalDarwinMemo, RetrievalBM25F} {
		for _, once := range []bool{true, false} {
			name := string(r) + "/index"
			if once {
				name = string(r) + "/once"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if _, err := decideCold(data, r, once); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// decideCold parses data and decides decideQuery once, as the decide
// command does (once) or with the store's index built.
func decideCold(data []byte, r Retrieval, once bool) (*Decision, error) {
	s, err := ParseWith("bench", data, Options{ConsultOnly: once})
	if err != nil {
		return nil, err
	}
	return s.Decide(decideQuery, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: r, Once: once}})
}

// clusterQuadratic is consolidate.py's anchor loop transcribed directly, the
// reference rank.Cluster is compared with: every anchor against every
// unconsumed entry.
func clusterQuadratic(sets [][]uint32, threshold float64, accept rank.AcceptFunc) [][]int {
	consumed := make([]bool, len(sets))
	var out [][]int
	for a := range sets {
		if consumed[a] {
			continue
		}
		members := []int{a}
		for b := range sets {
			if b == a || consumed[b] || !(rank.JaccardIDs(sets[a], sets[b]) >= threshold) {
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
