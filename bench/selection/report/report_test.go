package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// fakeSweep builds a result by hand: per arm, per noise, the given metrics
// for each of two seeds.
func fakeSweep(cells map[string]map[float64]sim.Metrics) *sim.SweepResult {
	r := &sim.SweepResult{Noises: []float64{0, 0.1}, Arms: []string{Ours, "keep_everything", "strike_k1", "no_memory"}}
	for _, n := range r.Noises {
		var row []sim.Cell
		for _, arm := range r.Arms {
			m := cells[arm][n]
			row = append(row, sim.Cell{Arm: arm, Noise: n, Metrics: []sim.Metrics{m, m}})
		}
		r.Cells = append(r.Cells, row)
	}
	return r
}

func TestGoals(t *testing.T) {
	mk := func(kill, ret, cum float64) sim.Metrics {
		return sim.Metrics{PoisonKillRate: kill, BenignRetained: ret, CumulativeDelta: cum}
	}
	tests := []struct {
		name  string
		cells map[string]map[float64]sim.Metrics
		met   map[string]bool
	}{
		{"all met", map[string]map[float64]sim.Metrics{
			Ours:              {0: mk(1, 0.8, 100), 0.1: mk(1, 0.75, 90)},
			"keep_everything": {0: mk(0, 1, 50), 0.1: mk(0, 1, 50)},
			"strike_k1":       {0: mk(1, 0.5, 80), 0.1: mk(1, 0.25, 60)},
			"no_memory":       {0: mk(1, 0, 500), 0.1: mk(1, 0, 500)}, // not a baseline
		}, map[string]bool{"kill": true, "retention": true, "strikes": true, "cumdelta0": true, "cumdelta10": true}},
		{"all missed", map[string]map[float64]sim.Metrics{
			Ours:              {0: mk(0.9, 0.8, 100), 0.1: mk(1, 0.7, 40)},
			"keep_everything": {0: mk(0, 1, 100), 0.1: mk(0, 1, 50)},
			"strike_k1":       {0: mk(1, 0.5, 80), 0.1: mk(1, 0.35, 60)},
			"no_memory":       {0: mk(1, 0, 0), 0.1: mk(1, 0, 0)},
		}, map[string]bool{"kill": false, "retention": false, "strikes": false, "cumdelta0": false, "cumdelta10": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, g := range Goals(fakeSweep(tt.cells)) {
				if !g.Checked {
					t.Errorf("%s not checked", g.ID)
				}
				if g.Met != tt.met[g.ID] {
					t.Errorf("%s: met = %v, want %v (%s)", g.ID, g.Met, tt.met[g.ID], g.Measured)
				}
			}
		})
	}
}

func TestWriteSection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "docs", "benchmarks.md")
	sec1 := BeginMarker + "\none\n" + EndMarker + "\n"
	if err := WriteSection(path, sec1); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "# Benchmarks\n\n"+sec1 {
		t.Fatalf("new file:\n%s", got)
	}
	// Other sections around the markers survive byte for byte.
	doc := "# Benchmarks\n\n## Performance\n\nfast\n\n" + sec1 + "\n## After\ntext"
	os.WriteFile(path, []byte(doc), 0o644)
	sec2 := BeginMarker + "\ntwo\n" + EndMarker + "\n"
	if err := WriteSection(path, sec2); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if want := strings.Replace(doc, sec1, sec2, 1); string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// No markers yet: appended.
	os.WriteFile(path, []byte("# Benchmarks\n\n## Performance\nfast"), 0o644)
	WriteSection(path, sec2)
	got, _ = os.ReadFile(path)
	if want := "# Benchmarks\n\n## Performance\nfast\n\n" + sec2; string(got) != want {
		t.Fatalf("append:\n%q\nwant\n%q", got, want)
	}
	// One marker only: refuse, file untouched.
	broken := "x\n" + BeginMarker + "\nno end\n"
	os.WriteFile(path, []byte(broken), 0o644)
	if err := WriteSection(path, sec2); err == nil || !strings.Contains(err.Error(), "markers") {
		t.Fatalf("err = %v", err)
	}
	got, _ = os.ReadFile(path)
	if string(got) != broken {
		t.Fatal("a file with a broken marker pair was modified")
	}
}

func TestLineChartIsDeterministicWellFormedSVG(t *testing.T) {
	c := LineChart{Title: "a < b & c", XLabel: "x", YLabel: "y", XPercent: true, Series: []Series{
		{Name: Ours, X: []float64{0, 0.1, 0.5}, Y: []float64{1, 0.9, 0.5}, Bold: true},
		{Name: "other", X: []float64{0, 0.1, 0.5}, Y: []float64{1, nan(), 0.2}},
	}}
	a, b := c.SVG(), c.SVG()
	if !bytes.Equal(a, b) {
		t.Fatal("SVG output differs between calls")
	}
	d := xml.NewDecoder(bytes.NewReader(a))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, a)
		}
	}
	for _, want := range []string{"a &lt; b &amp; c", "10%", "<polyline", Ours} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func nan() float64 { var z float64; return z / z }

func TestNiceTicks(t *testing.T) {
	got := niceTicks(0, 1, 5)
	if len(got) < 5 || got[0] != 0 || got[len(got)-1] < 1 {
		t.Fatalf("niceTicks(0,1) = %v", got)
	}
	if got := niceTicks(3, 3, 5); len(got) == 0 {
		t.Fatal("empty ticks for a flat range")
	}
	for v, want := range map[float64]string{0.3 * 100: "30", 0.25: "0.25", 0.5: "0.5", 2: "2", -0.1: "-0.1"} {
		if got := fmtTick(v); got != want {
			t.Errorf("fmtTick(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestCommandWritesDeterministicDocs: the command writes the report and its plots, and (in the
// long sweep) a second run with one worker writes the same bytes.
func TestCommandWritesDeterministicDocs(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "benchmarks.md")
	args := []string{"-seeds", "2", "-prs", "15", "-noise", "0,0.1", "-write", md}
	var out bytes.Buffer
	if err := Command(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	first := readAll(t, dir)
	if !strings.Contains(first["benchmarks.md"], BeginMarker) || len(first) != 5 {
		t.Fatalf("wrote %d files", len(first))
	}
	for _, want := range []string{"### Goals of issue 13", "`" + Issue6 + "`, held-out 3–4", "poison killed at 10% noise: at least 0.95 in every seed", "cumulative Δ against the best baseline at 10% noise: at least +10%"} {
		if !strings.Contains(first["benchmarks.md"], want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, arm := range []string{Ours, Issue6, "keep_everything", "random_matched", "evict_on_negative", "strike_k1", "strike_k3", "strike_k3_reset", "ttl_28d", "no_memory"} {
		if !strings.Contains(first["benchmarks.md"], "`"+arm+"`") {
			t.Errorf("report lacks arm %s", arm)
		}
	}
	if exhaustive.On() { // the rerun; sim's TestSweepIndependentOfWorkers is the fast case
		if err := Command(context.Background(), append(args, "-workers", "1"), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		second := readAll(t, dir)
		for name, body := range first {
			if second[name] != body {
				t.Errorf("%s differs between two runs", name)
			}
		}
	}
	if !strings.Contains(out.String(), "goal kill") {
		t.Errorf("summary lacks the goals:\n%s", out.String())
	}
}

func readAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-noise", "0,2"}, "not a probability"},
		{[]string{"-require", "speed"}, "unknown goal"},
		{[]string{"-seeds", "-1"}, "at least 1 seed"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"-prs", "2"}, "PRs = 2"},
		{[]string{"-require-arm", "ledger_x"}, "-require-arm"},
		{[]string{"-vocabulary", "english"}, "unknown vocabulary"},
		{[]string{"-retrieval", "v3"}, "unknown retrieval"},
		{[]string{"-vocabulary", "zipf", "-write", "x.md"}, "docs are generated with"},
		{[]string{"-retrieval", "darwin-memo", "-tuning", "x.md"}, "docs are generated with"},
		{[]string{"-tasks", "lesson"}, "unknown task model"},
		{[]string{"-tasks", "fact", "-write", "x.md"}, "docs are generated with"},
		{[]string{"-worlds", "x.md", "-vocabulary", "zipf"}, "-vocabulary does not go with it"},
		{[]string{"-worlds", "x.md", "-write", "y.md"}, "-write does not go with it"},
	}
	for _, tt := range tests {
		err := Command(context.Background(), tt.args, io.Discard, io.Discard)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want a usage error containing %q", tt.args, err, tt.want)
		}
	}
	// A required goal that is missed is ErrGoalMissed (one tiny seed where
	// nothing can be guaranteed: require strikes at an impossible level is
	// not expressible, so use a run without noise 10%).
	err := Command(context.Background(), []string{"-seeds", "1", "-prs", "20", "-noise", "0", "-require", "retention"}, io.Discard, io.Discard)
	if !errors.Is(err, ErrGoalMissed) {
		t.Errorf("unmeasurable required goal: err = %v, want ErrGoalMissed", err)
	}
}

func TestTuningReusesTheMainSweep(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.PRs = 20
	main, err := NewSweep(cfg, 1, []float64{0, 0.1}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tsw := TuningSweep(cfg, 1, main)
	for _, spec := range append([]sim.ArmSpec{tsw.Reference}, tsw.Arms...) {
		if main.Cell(spec.Name, 0) != nil {
			t.Errorf("tuning sweep re-runs %s, which the main sweep has", spec.Name)
		}
		if !strings.HasPrefix(spec.Name, Ours) {
			t.Errorf("tuning sweep runs baseline %s, which the main sweep has", spec.Name)
		}
	}
	tres, err := tsw.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	merged := MergeTuning(main, tres)
	for _, v := range TuningVariants() {
		if merged.Cell(v.Name, 0) == nil || merged.Cell(v.Name, 0.1) == nil {
			t.Errorf("merged result lacks %s", v.Name)
		}
	}
	if c := merged.Cell("evict_on_negative", 0.1); c == nil || c != nil && c.Metrics[0] != main.Cell("evict_on_negative", 0.1).Metrics[0] {
		t.Error("merged result lost or changed a baseline of the main sweep")
	}
	// The same table as running everything in one sweep.
	full, err := TuningSweep(cfg, 1, nil).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a, b := TuningSection(merged, 1, "x"), TuningSection(full, 1, "x"); a != b {
		t.Errorf("reused and standalone tuning tables differ:\n%s\n%s", a, b)
	}
	table := TuningSection(merged, 1, "x")
	for _, want := range []string{"`" + Ours + "` | defaults: " + ourSettings + " |", "`" + Issue6 + "` | before issue 13:", "`" + DarwinMemo + "` | darwin-memo's: scale 2, supporting share 0.25 |",
		"`" + Ours + "_only_opportunity`", "`" + Ours + "_no_tenure`", "`" + Ours + "_no_split`"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Count(table, "supporting share 0.25 |") != 3 || strings.Count(table, "supporting share 0 |") != 2 {
		t.Error("a grid setting is missing or listed twice")
	}
}

func TestFirstSeed(t *testing.T) {
	if got := SeedRange(21, 3); !slicesEqual(got, []uint64{21, 22, 23}) {
		t.Fatalf("SeedRange(21, 3) = %v", got)
	}
	dir := t.TempDir()
	err := Command(context.Background(), []string{"-first-seed", "21", "-write", filepath.Join(dir, "b.md")}, io.Discard, io.Discard)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "seeds 1 to n") {
		t.Fatalf("-first-seed with -write: err = %v, want a usage error", err)
	}
	if err := Command(context.Background(), []string{"-first-seed", "0"}, io.Discard, io.Discard); !errors.As(err, &ue) {
		t.Fatalf("-first-seed 0: err = %v, want a usage error", err)
	}
}

func slicesEqual(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCommandWritesTuningTables(t *testing.T) {
	dir := t.TempDir()
	tuning := filepath.Join(dir, "tuning.md")
	prose := "# Tuning\n\nhand-written reasoning\n\n" + TuningBeginMarker + "\nold\n" + TuningEndMarker + "\n\nmore prose\n"
	if err := os.WriteFile(tuning, []byte(prose), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-seeds", "2", "-prs", "20", "-noise", "0,0.1", "-tuning", tuning}
	var out bytes.Buffer
	if err := Command(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(tuning)
	doc := string(got)
	for _, want := range []string{"hand-written reasoning", "more prose", "`ledger_scale1_share0.1`", "`ledger_scale2_share0`", HeldOutBeginMarker, "held-out seeds 3–4"} {
		if !strings.Contains(doc, want) {
			t.Errorf("tuning.md lacks %q", want)
		}
	}
	if strings.Contains(doc, "\nold\n") {
		t.Error("the old table was not replaced")
	}
	if !strings.Contains(out.String(), "held-out table (seeds 3–4)") {
		t.Errorf("output: %s", out.String())
	}
}

// -worlds writes one row per vocabulary, task model and ranking between
// its markers, keeping the rest of the file.
func TestCommandWritesWorlds(t *testing.T) {
	md := filepath.Join(t.TempDir(), "retrieval.md")
	if err := os.WriteFile(md, []byte("before\n"+WorldsBeginMarker+"\nold\n"+WorldsEndMarker+"\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Command(context.Background(), []string{"-worlds", md, "-seeds", "1", "-prs", "12"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.HasPrefix(doc, "before\n"+WorldsBeginMarker) || !strings.HasSuffix(doc, WorldsEndMarker+"\nafter\n") || strings.Contains(doc, "old") {
		t.Fatalf("markers or the rest of the file not kept:\n%s", doc)
	}
	rows := 0
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| topic |") || strings.HasPrefix(line, "| fact |") {
			rows++
		}
	}
	if rows != 8 || !strings.Contains(doc, "| topic | made-up | darwin-memo's ranking |") || !strings.Contains(doc, "| fact | zipf | BM25F |") {
		t.Errorf("want 8 rows, one per world and ranking:\n%s", doc)
	}
}
