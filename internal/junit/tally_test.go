package junit

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// TestStreamingMatchesOracle: the streaming walker gives exactly the cases the
// DecodeElement parser gave, and a Tally the same results as Report.Results.
func TestStreamingMatchesOracle(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.xml")
	if len(files) < 10 {
		t.Fatalf("only %d reports in testdata", len(files))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseBytes(file, data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want, err := oracleParse(file, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: oracle: %v", file, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: streaming parse differs from the oracle\n got %+v\nwant %+v", file, got, want)
		}
		var tl Tally
		if err := tl.Add(file, bytes.NewReader(data)); err != nil {
			t.Fatalf("%s: tally: %v", file, err)
		}
		if !reflect.DeepEqual(tl.Results(), want.Results()) || tl.Cases() != len(want.Cases) {
			t.Errorf("%s: tally %v (%d cases), want %v", file, tl.Results(), tl.Cases(), want.Results())
		}
		ids, n := tl.CollectionErrors()
		if n != len(want.CollectionErrors) || (n > 0 && !reflect.DeepEqual(ids, want.CollectionErrors)) {
			t.Errorf("%s: collection errors %v/%d, want %v", file, ids, n, want.CollectionErrors)
		}
	}
}

func TestTallyMaxCases(t *testing.T) {
	t.Parallel()
	doc := `<testsuite><testcase name="a"/><testcase name="b"/><testcase name="a"/></testsuite>`
	tl := Tally{MaxCases: 3}
	if err := tl.Add("r.xml", strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	if tl.Cases() != 3 || len(tl.Results()) != 2 {
		t.Fatalf("cases %d, ids %d", tl.Cases(), len(tl.Results()))
	}
	err := tl.Add("s.xml", strings.NewReader(doc))
	if !errors.Is(err, ErrTooManyCases) || !strings.Contains(err.Error(), "s.xml") {
		t.Fatalf("err = %v, want ErrTooManyCases naming the file", err)
	}
	var a, b Tally
	a.Add("a", strings.NewReader(`<testsuite><testcase name="x"/><testcase name=""><error/></testcase></testsuite>`))
	b.Add("b", strings.NewReader(`<testsuite><testcase name="x"><failure/></testcase></testsuite>`))
	a.Merge(&b)
	if got := a.Results(); got["x"] != Failed || a.Cases() != 3 {
		t.Fatalf("merged %v, %d cases", got, a.Cases())
	}
	if _, n := a.CollectionErrors(); n != 1 {
		t.Fatalf("collection errors %d", n)
	}
}

func TestTallyCompactsLongIDs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 600)
	doc := fmt.Sprintf(`<testsuite><testcase classname="c" name="%sA"/><testcase classname="c" name="%sB"><failure/></testcase><testcase name="short"/></testsuite>`, long, long)
	var tl Tally
	if err := tl.Add("r.xml", strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	res := tl.Results()
	if len(res) != 3 || res["short"] != Passed {
		t.Fatalf("results %v", res)
	}
	failed := 0
	for id, s := range res {
		if len(id) > MaxIDBytes {
			t.Errorf("id of %d bytes kept", len(id))
		}
		if s == Failed {
			failed++
		}
	}
	if failed != 1 {
		t.Fatal("two long ids sharing a prefix were merged")
	}
}

// TestEntitiesRejected: a DTD's entities are never expanded (billion laughs), external ones
// never fetched (XXE); both documents fail to parse.
func TestEntitiesRejected(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"billion laughs": `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><testsuite><testcase name="&c;"/></testsuite>`,
		"xxe":            `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite><testcase name="t"><failure message="&x;"/></testcase></testsuite>`,
	} {
		if _, err := ParseBytes("r.xml", []byte(doc)); err == nil {
			t.Errorf("%s: Parse succeeded", name)
		}
		var tl Tally
		if err := tl.Add("r.xml", strings.NewReader(doc)); err == nil {
			t.Errorf("%s: Tally.Add succeeded", name)
		}
	}
}

// genReport streams a JUnit document of about size bytes without holding it: suites of 100
// testcases, one in ten failing with a multi-line trace, the rest with some stdout. Suite
// names repeat after suites suites (reruns, matrix copies), so there are at most 100*suites
// distinct test ids.
type genReport struct {
	size, n int64
	i       int
	suites  int
	buf     bytes.Buffer
	closed  bool
}

func newGenReport(size int64, suites int) *genReport {
	g := &genReport{size: size, suites: suites}
	g.buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?><testsuites>`)
	return g
}

func (g *genReport) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && !g.closed {
		if g.n >= g.size {
			g.buf.WriteString(`</testsuites>`)
			g.closed = true
			break
		}
		before := g.buf.Len()
		s := g.i % g.suites
		fmt.Fprintf(&g.buf, `<testsuite name="suite%d">`, s)
		for c := 0; c < 100; c++ {
			if c%10 == 0 {
				fmt.Fprintf(&g.buf, `<testcase classname="pkg.Suite%d" name="test_%d" time="0.01"><failure message="boom">%s</failure></testcase>`, s, c, strings.Repeat("at pkg.Suite.test(Suite.java:42)\n", 20))
			} else {
				fmt.Fprintf(&g.buf, `<testcase classname="pkg.Suite%d" name="test_%d" time="0.01"><system-out>%s</system-out></testcase>`, s, c, strings.Repeat("ok ", 30))
			}
		}
		g.buf.WriteString(`</testsuite>`)
		g.i++
		g.n += int64(g.buf.Len() - before)
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

// peakHeap runs f while sampling the live heap every few reads of r, and returns the highest
// HeapAlloc seen above the level before f.
type heapSampler struct {
	r     io.Reader
	reads int
	base  uint64
	peak  uint64
}

func (h *heapSampler) Read(p []byte) (int, error) {
	h.reads++
	if h.reads%64 == 0 {
		h.sample()
	}
	return h.r.Read(p)
}

func (h *heapSampler) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > h.base && ms.HeapAlloc-h.base > h.peak {
		h.peak = ms.HeapAlloc - h.base
	}
}

func newHeapSampler(r io.Reader) *heapSampler {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &heapSampler{r: r, base: ms.HeapAlloc}
}

// TestTallyMemoryIndependentOfXMLSize: streaming 32 MB of XML holding 5,000 distinct tests
// keeps the live heap at a few MB (the ids and the map), where the parser that kept every
// testcase (Report) needs it in proportion to the XML. The fast case streams 8 MB.
func TestTallyMemoryIndependentOfXMLSize(t *testing.T) {
	size := exhaustive.Or[int64](8<<20, 32<<20)
	hs := newHeapSampler(newGenReport(size, 50))
	var tl Tally
	if err := tl.Add("gen.xml", hs); err != nil {
		t.Fatal(err)
	}
	hs.sample()
	if int64(tl.Cases()) < size/400 || len(tl.Results()) != 5000 {
		t.Fatalf("%d cases, %d ids generated", tl.Cases(), len(tl.Results()))
	}
	if hs.peak > 8<<20 {
		t.Fatalf("peak live heap %d MB while tallying %d MB of XML (%d cases)", hs.peak>>20, size>>20, tl.Cases())
	}
	t.Logf("peak heap %.1f MB for %d MB of XML, %d cases, %d ids", float64(hs.peak)/(1<<20), size>>20, tl.Cases(), len(tl.Results()))
}

// peakHeapPer100MB streams 100 MB of generated XML (see BenchmarkTallyPeakHeap) through a
// Tally or a Report and returns the peak live heap and the time it took.
func peakHeapPer100MB(tb testing.TB, kind string) (uint64, time.Duration, int) {
	const size = 100 << 20
	hs := newHeapSampler(newGenReport(size, 1000))
	start := time.Now()
	cases := 0
	if kind == "tally" {
		var tl Tally
		if err := tl.Add("gen.xml", hs); err != nil {
			tb.Fatal(err)
		}
		cases = tl.Cases()
	} else {
		rep, err := Parse("gen.xml", hs)
		if err != nil {
			tb.Fatal(err)
		}
		cases = len(rep.Cases)
	}
	hs.sample()
	return hs.peak, time.Since(start), cases
}

var memDoc = flag.String("memdoc", "", "measure the peak heap per 100 MB of XML and rewrite the generated part of this Markdown file (docs/junit.md)")

const (
	memDocBegin = "<!-- junit-memory:begin -->"
	memDocEnd   = "<!-- junit-memory:end -->"
)

// TestMemoryDoc regenerates the figures of the Memory section of docs/junit.md:
//
//	go test ./internal/junit -run TestMemoryDoc -memdoc ../../docs/junit.md
func TestMemoryDoc(t *testing.T) {
	if *memDoc == "" {
		t.Skip("set -memdoc FILE to regenerate the memory figures")
	}
	doc, err := os.ReadFile(*memDoc)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(memDocBegin)), bytes.Index(doc, []byte(memDocEnd))
	if i < 0 || j < i {
		t.Fatalf("%s lacks the %s ... %s markers", *memDoc, memDocBegin, memDocEnd)
	}
	var sb strings.Builder
	sb.WriteString(memDocBegin + "\n")
	sb.WriteString("Generated by `go test ./internal/junit -run TestMemoryDoc -memdoc ../../docs/junit.md` (the same measurement as `go test ./internal/junit -run '^$' -bench TallyPeakHeap -benchtime 1x`), ")
	fmt.Fprintf(&sb, "%s, GOMAXPROCS %d: peak live heap (`HeapAlloc` above the level before, sampled every 256 KiB read) while 100 MB of generated XML is parsed.\n\n", runtime.Version(), runtime.GOMAXPROCS(0))
	sb.WriteString("| parser | testcases | peak heap per 100 MB of XML | time |\n|---|---:|---:|---:|\n")
	for _, kind := range []string{"tally", "report"} {
		peak, took, cases := peakHeapPer100MB(t, kind)
		name := map[string]string{"tally": "`junit.Tally` (the action)", "report": "`Report` (the tests' parser, every testcase kept)"}[kind]
		fmt.Fprintf(&sb, "| %s | %d | %.1f MB | %.1f s |\n", name, cases, float64(peak)/(1<<20), took.Seconds())
	}
	sb.WriteString(memDocEnd)
	out := append(append(append([]byte{}, doc[:i]...), sb.String()...), doc[j+len(memDocEnd):]...)
	if err := os.WriteFile(*memDoc, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkTallyPeakHeap reports the peak live heap per 100 MB of XML (generated while it is
// read, about 430,000 testcases of 100,000 distinct tests) streamed through a Tally (the
// action's artifact path), next to Report, which keeps every testcase.
func BenchmarkTallyPeakHeap(b *testing.B) {
	const size = 100 << 20
	for _, kind := range []string{"tally", "report"} {
		b.Run(kind, func(b *testing.B) {
			var peak uint64
			for i := 0; i < b.N; i++ {
				p, _, _ := peakHeapPer100MB(b, kind)
				peak = max(peak, p)
			}
			b.SetBytes(size)
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB/100MB-XML")
		})
	}
}

// FuzzStreamingMatchesOracle: whenever both parsers accept a document they agree on every
// case, and a Tally agrees with Report.Results (ids compacted as a Tally keeps them).
func FuzzStreamingMatchesOracle(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.xml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`<testsuite><testcase name="a"><skipped>  x</skipped><failure><![CDATA[
  trace]]><b>ignored</b> more</failure><testcase name="inner"/></testcase></testsuite>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseBytes("f.xml", data)
		want, oerr := oracleParse("f.xml", bytes.NewReader(data))
		if err != nil || oerr != nil {
			if errors.Is(err, ErrNotJUnit) != errors.Is(oerr, ErrNotJUnit) && err != nil && oerr != nil {
				t.Fatalf("ErrNotJUnit disagrees: %v vs %v", err, oerr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("streaming %+v\noracle    %+v", got, want)
		}
		var tl Tally
		if err := tl.Add("f.xml", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		compacted := map[string]Status{}
		for id, st := range want.Results() {
			id = compactID(id)
			if prev, ok := compacted[id]; ok {
				st = Combine(prev, st)
			}
			compacted[id] = st
		}
		if !reflect.DeepEqual(tl.Results(), compacted) {
			t.Fatalf("tally %v, want %v", tl.Results(), compacted)
		}
	})
}
