package action

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

// The action as a process: BenchmarkWholeRun's merge run, but `darwin-memo action` built as
// the container builds it and exec'd with a runner's environment, measured from the child's
// own usage (wait4's rusage): CPU time (user + system), wall time from exec to exit, peak
// RSS. The in-process benchmark's CPU includes the fake's handlers and its heap figures are
// relative to a test process that holds the fake's repository; here the fake's share is in
// the test process and not counted. Setup is the in-process harness (untimed); the child
// measures CI itself through the fake's API (check runs, workflow runs, JUnit artifacts), as
// the real action does, since a child cannot use an injected measurer:
//
//	go test ./internal/action -run TestWholeRunProcess -wholerunprocess 9 -v -timeout 30m
//	go test ./internal/action -run TestWholeRunProcess -wholerunprocess 9 -wholerunprocessbig 5 -wholerunprocessdoc ../../docs/benchmarks.md -timeout 60m
var (
	wholeRunProcessRuns    = flag.Int("wholerunprocess", 0, "time this many whole-process action runs of each kind at the baseline store, 1k and 10k lessons, interleaved (TestWholeRunProcess)")
	wholeRunProcessRunsBig = flag.Int("wholerunprocessbig", 0, "with TestWholeRunProcess, also this many runs of each kind at 30k lessons (the supported size), after a baseline run")
	wholeRunProcessDoc     = flag.String("wholerunprocessdoc", "", "run TestWholeRunProcess and rewrite its generated block in this Markdown file (docs/benchmarks.md)")
	// wholeRunProcessBin and wholeRunProcessEnv are for diagnosis (another build, a wrapper
	// that writes a CPU profile; GOGC=off, GODEBUG=gctrace=1, whose lines are logged): no
	// table is written with them.
	wholeRunProcessBin = flag.String("wholerunprocessbin", "", "with TestWholeRunProcess, run this binary (`BIN action`) instead of building cmd/darwin-memo (another commit's build; diagnosis only: not with -wholerunprocessdoc)")
	wholeRunProcessEnv = flag.String("wholerunprocessenv", "", "with TestWholeRunProcess, extra environment for the child, comma-separated K=V (diagnosis only: not with -wholerunprocessdoc)")
)

const (
	wholeRunProcessBegin = "<!-- wholerunprocess:begin -->"
	wholeRunProcessEnd   = "<!-- wholerunprocess:end -->"
	// wholeRunProcessBaseline is the store size of the baseline run: the process with a tiny
	// store, what "above baseline" subtracts.
	wholeRunProcessBaseline = 100
	// wholeRunProcessDefaultRuns is the runs per size when only -wholerunprocessdoc is set.
	wholeRunProcessDefaultRuns = 9

	// launchEnvBin and launchEnvUsage turn the test binary into the child's launcher
	// (wholerunprocess_linux_test.go): the binary to run and the file for its usage.
	launchEnvBin   = "DARWIN_MEMO_WHOLERUNPROCESS_BIN"
	launchEnvUsage = "DARWIN_MEMO_WHOLERUNPROCESS_USAGE"
)

// processUsage is what the launcher reports of one child.
type processUsage struct {
	Exit               int
	Wall, User, System time.Duration
	// MaxRSSKiB is the child's peak resident set (ru_maxrss, KiB on Linux); LauncherRSSKiB the
	// launcher's own, the floor below which MaxRSSKiB cannot read.
	MaxRSSKiB, LauncherRSSKiB int64
}

func (u processUsage) cpu() time.Duration { return u.User + u.System }

// processSizes is the runs of one kind at one size.
type processSizes struct {
	n       int
	births  bool // the CI fix's lessons are added (see processRunner.run)
	storeMB float64
	runs    []processUsage
}

// processKey names a kind of run: a store size and whether lessons are born.
type processKey struct {
	n      int
	births bool
}

// sortedBy returns f of every run, ascending.
func sortedBy[T cmp.Ordered](p processSizes, f func(processUsage) T) []T {
	out := make([]T, len(p.runs))
	for i, u := range p.runs {
		out[i] = f(u)
	}
	slices.Sort(out)
	return out
}

func (p processSizes) cpus() []time.Duration { return sortedBy(p, processUsage.cpu) }
func (p processSizes) walls() []time.Duration {
	return sortedBy(p, func(u processUsage) time.Duration { return u.Wall })
}
func (p processSizes) systems() []time.Duration {
	return sortedBy(p, func(u processUsage) time.Duration { return u.System })
}

// rssMB is the median peak RSS in MB.
func (p processSizes) rssMB() float64 {
	return float64(median(sortedBy(p, func(u processUsage) int64 { return u.MaxRSSKiB }))) / 1024
}

func median[T any](s []T) T { return s[len(s)/2] }

func TestWholeRunProcess(t *testing.T) {
	if *wholeRunProcessRuns <= 0 && *wholeRunProcessDoc == "" {
		t.Skip("set -wholerunprocess N (or -wholerunprocessdoc FILE) to time whole-process action runs")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the child's peak RSS is read from wait4's rusage through a launcher: Linux only")
	}
	if (*wholeRunProcessEnv != "" || *wholeRunProcessBin != "") && *wholeRunProcessDoc != "" {
		t.Fatal("-wholerunprocessenv and -wholerunprocessbin are for diagnosis: the table is generated with this tree's build and the runner's environment only")
	}
	runs := *wholeRunProcessRuns
	if runs <= 0 {
		runs = wholeRunProcessDefaultRuns
	}
	// The schema validator of TestMain copies and checks every response the fake serves: in
	// the test process, so not counted, but it would slow the child's wall time.
	defer ghfake.Observe(ghfake.Observe(nil))
	load := loadAvgOf()
	t0 := time.Now()
	pr := newProcessRunner(t)
	t.Logf("built %s in %v", pr.bin, time.Since(t0).Round(time.Millisecond))

	// Each size runs twice: as BenchmarkWholeRun (the settlement only) and with the lessons
	// the measured fix suggests added to the store, which a trusted author's merge that fixes
	// tests gets (see processRunner.run). The baseline is the settlement only.
	var keys []processKey
	keys = append(keys, processKey{wholeRunProcessBaseline, false})
	for _, n := range []int{1000, 10000, supportedLessonsN} {
		if n == supportedLessonsN && *wholeRunProcessRunsBig <= 0 {
			continue
		}
		keys = append(keys, processKey{n, false}, processKey{n, true})
	}
	res := map[processKey]*processSizes{}
	for _, k := range keys {
		t0 := time.Now()
		res[k] = &processSizes{n: k.n, births: k.births, storeMB: float64(len(bigStoreDoc(k.n))) / (1 << 20)}
		if !k.births {
			t.Logf("generated the %d-lesson store in %v", k.n, time.Since(t0).Round(time.Millisecond))
		}
	}
	base := processKey{wholeRunProcessBaseline, false}
	pr.run(t, base) // warm-up (page cache, binary), not counted
	add := func(k processKey) { res[k].runs = append(res[k].runs, pr.run(t, k)) }
	for range runs {
		for _, k := range keys {
			if k.n <= 10000 {
				add(k)
			}
		}
	}
	for range *wholeRunProcessRunsBig {
		add(base)
		add(processKey{supportedLessonsN, false})
		add(processKey{supportedLessonsN, true})
	}
	var ordered []*processSizes
	for _, k := range keys {
		ordered = append(ordered, res[k])
	}
	block := wholeRunProcessTable(ordered, load, pr.launcherFloorMB())
	t.Log("\n" + block)
	if *wholeRunProcessDoc == "" {
		return
	}
	writeDocBlock(t, *wholeRunProcessDoc, wholeRunProcessBegin, wholeRunProcessEnd, block)
}

// processRunner builds cmd/darwin-memo once and runs it, through the launcher, on fresh
// repositories of the fake.
type processRunner struct {
	bin, launcher string
	floorKiB      int64
}

func newProcessRunner(t *testing.T) *processRunner {
	t.Helper()
	launcher, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if *wholeRunProcessBin != "" {
		bin, err := filepath.Abs(*wholeRunProcessBin)
		if err != nil {
			t.Fatal(err)
		}
		return &processRunner{bin: bin, launcher: launcher}
	}
	bin := filepath.Join(t.TempDir(), "darwin-memo")
	// As the Dockerfile builds it: static, trimmed paths, no symbol table.
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "github.com/darwin-memo/darwin-memo-action/cmd/darwin-memo")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return &processRunner{bin: bin, launcher: launcher}
}

func (p *processRunner) launcherFloorMB() float64 { return float64(p.floorKiB) / 1024 }

// run sets up BenchmarkWholeRun's merge run at k.n lessons (untimed), with CI results in the
// fake for the merged pull request's base and head, and runs `darwin-memo action` on it as a
// child. It fails unless the child settled the ticket as measured with a positive delta and
// merged the bot branch's store.
//
// A measured fix names the tests it fixed, and the action's encoder suggests a lesson for each
// (BenchmarkWholeRun's injected measurement names none). With k.births the pull request's
// author is a MEMBER, trusted by default, so they are added to the store (Store.Add, whose
// supersession check builds the store's retrieval index); without, the author is a
// CONTRIBUTOR, so they are only proposed in the bot pull request and the store is changed
// as in BenchmarkWholeRun.
func (p *processRunner) run(t *testing.T, k processKey) processUsage {
	t.Helper()
	n := k.n
	var u processUsage
	// A subtest per run: its cleanup drops the fake's repository before the next run.
	name := fmt.Sprintf("lessons=%d", n)
	if k.births {
		name += "/births"
	}
	t.Run(name, func(t *testing.T) {
		t0 := time.Now()
		doc := bigStoreDoc(n)
		h, living := wholeRunBotOpen(t, doc, true)
		// The merged pull request lands on main's tip, whose CI fails two of three tests; its
		// head passes all three: a measured delta of +2, read from JUnit artifacts.
		addCI(h.world, h.git.Ref("main"), "completed", map[string]bool{"app::TestA": true})
		spec := ghfake.MergeSpec{Title: "Fix second", Body: h.ticketFor(living[2*len(living)/3].Question),
			Files: map[string][]byte{"src/fix_second.go": []byte("package app\n// Fix second\n")}}
		if !k.births {
			spec.AuthorAssociation = "CONTRIBUTOR"
		}
		merged := h.git.MergePull(spec)
		addCI(h.world, merged.HeadSHA, "completed", map[string]bool{"app::TestA": true, "app::TestB": true, "app::TestC": true})

		dir := t.TempDir()
		work := filepath.Join(dir, "workspace")
		home := filepath.Join(dir, "home")
		tmp := filepath.Join(dir, "runner-temp")
		for _, d := range []string{work, home, tmp} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		evPath := filepath.Join(dir, "event.json")
		if err := os.WriteFile(evPath, []byte(mergedEvent(merged.Number)), 0o644); err != nil {
			t.Fatal(err)
		}
		usagePath := filepath.Join(dir, "usage.json")
		// What the runner gives a container action, as (*harness).run gives Main.
		env := []string{
			"INPUT_GITHUB-TOKEN=ghs_secret_token_value", "GITHUB_EVENT_NAME=pull_request_target", "GITHUB_EVENT_PATH=" + evPath,
			"GITHUB_REPOSITORY=acme/widgets", "GITHUB_API_URL=" + h.world.URL, "GITHUB_SERVER_URL=https://github.com",
			"GITHUB_RUN_ID=777", "GITHUB_RUN_ATTEMPT=1",
			"GITHUB_OUTPUT=" + filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary"),
			"GITHUB_WORKSPACE=" + work, "HOME=" + home, "RUNNER_TEMP=" + tmp, "GITHUB_ACTIONS=true", "CI=true",
			launchEnvBin + "=" + p.bin, launchEnvUsage + "=" + usagePath,
		}
		if *wholeRunProcessEnv != "" {
			env = append(env, strings.Split(*wholeRunProcessEnv, ",")...)
		}
		cmd := exec.Command(p.launcher)
		cmd.Env, cmd.Dir = env, work
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		// Leave the machine to the child: the setup's garbage collected, the test process idle
		// but for the fake's handlers.
		runtime.GC()
		debug.FreeOSMemory()
		if err := cmd.Run(); err != nil {
			t.Fatalf("launcher: %v\n%s", err, out.String())
		}
		b, err := os.ReadFile(usagePath)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		outputs := parseOutputs(t, filepath.Join(dir, "output"))
		delta, _ := strconv.ParseFloat(outputs["delta"], 64)
		if u.Exit != 0 || outputs["result"] != "settled" || outputs["settled-tickets"] != "1" || delta <= 0 ||
			outputs["pull-request-operation"] != "updated" || !strings.Contains(out.String(), "merged the bot branch's store") {
			t.Fatalf("exit %d, outputs %v\n%s", u.Exit, outputs, out.String())
		}
		ciBorn := 0
		for _, e := range h.botStore(DefaultBranch).Living() {
			if strings.HasPrefix(e.Question, "What made the test app::Test") {
				ciBorn++
			}
		}
		if (ciBorn > 0) != k.births {
			t.Fatalf("%d lesson(s) of the fixed tests on the bot branch, births %v", ciBorn, k.births)
		}
		p.floorKiB = max(p.floorKiB, u.LauncherRSSKiB)
		if *wholeRunProcessEnv != "" {
			var gcs []string
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "gc ") {
					gcs = append(gcs, l)
				}
			}
			t.Logf("%d collection(s)\n%s", len(gcs), strings.Join(gcs, "\n"))
		}
		t.Logf("%d lessons, %d CI lesson(s) born: CPU %v (user %v, system %v), wall %v, peak RSS %.1f MB (launcher %.1f MB); setup and run %v",
			n, ciBorn, u.cpu().Round(time.Millisecond), u.User.Round(time.Millisecond), u.System.Round(time.Millisecond), u.Wall.Round(time.Millisecond),
			float64(u.MaxRSSKiB)/1024, float64(u.LauncherRSSKiB)/1024, time.Since(t0).Round(time.Millisecond))
	})
	if t.Failed() {
		t.FailNow()
	}
	return u
}

// wholeRunProcessTable formats the generated block: the table per size and kind of run, and
// the goals.
func wholeRunProcessTable(sizes []*processSizes, load string, floorMB float64) string {
	sec := func(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }
	label := func(n int) string {
		if n < 1000 {
			return strconv.Itoa(n)
		}
		return fmt.Sprintf("%dk", n/1000)
	}
	kind := func(s *processSizes) string {
		if s.births {
			return "settle, CI lessons born"
		}
		return "settle (as `BenchmarkWholeRun`)"
	}
	var base *processSizes
	byKey := map[processKey]*processSizes{}
	for _, s := range sizes {
		byKey[processKey{s.n, s.births}] = s
		if s.n == wholeRunProcessBaseline && !s.births {
			base = s
		}
	}
	var sb strings.Builder
	sb.WriteString(wholeRunProcessBegin + "\n")
	big := ""
	if s := byKey[processKey{supportedLessonsN, false}]; s != nil {
		big = fmt.Sprintf(" -wholerunprocessbig %d", len(s.runs))
	}
	fmt.Fprintf(&sb, "Generated by `go test ./internal/action -run TestWholeRunProcess -wholerunprocess %d%s -wholerunprocessdoc ../../docs/benchmarks.md -timeout 60m`. ",
		len(byKey[processKey{1000, false}].runs), big)
	fmt.Fprintf(&sb, "Machine: %s, %d CPUs, %s, load average at start %s. Launcher floor %.0f MB (the peak RSS no run can read below).\n\n",
		cpuModelOf(), runtime.NumCPU(), runtime.Version(), load, floorMB)
	sb.WriteString("| lessons | run | store | runs | CPU, fastest | CPU, median | of it system, median | wall, median | peak RSS, median | above baseline |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sizes {
		c, w, sys := s.cpus(), s.walls(), s.systems()
		above := fmt.Sprintf("%.0f MB", s.rssMB()-base.rssMB())
		name := label(s.n)
		if s == base {
			above, name = "(baseline)", name+" (baseline)"
		}
		fmt.Fprintf(&sb, "| %s | %s | %.1f MB | %d | %s | %s | %s | %s | %.0f MB | %s |\n", name, kind(s), s.storeMB, len(s.runs), sec(c[0]), sec(median(c)), sec(median(sys)), sec(median(w)), s.rssMB(), above)
	}
	met := func(ok bool) string {
		if ok {
			return "**met**"
		}
		return "**not met**"
	}
	sb.WriteString("\n| goal (issue 25, the action as a process) | settle (as `BenchmarkWholeRun`) | | settle, CI lessons born | |\n|---|---|---|---|---|\n")
	for _, g := range []struct {
		n          int
		wall       time.Duration
		rssMB      float64
		wallS, mem string
	}{{10000, 400 * time.Millisecond, 150, "0.4 s", "150 MB"}, {supportedLessonsN, 1200 * time.Millisecond, 300, "1.2 s", "300 MB"}} {
		wallRow := fmt.Sprintf("| %s lessons under %s (wall, median) |", label(g.n), g.wallS)
		memRow := fmt.Sprintf("| %s lessons under %s (peak RSS, median) |", label(g.n), g.mem)
		for _, births := range []bool{false, true} {
			s := byKey[processKey{g.n, births}]
			if s == nil || len(s.runs) == 0 {
				wallRow += " not measured (`-wholerunprocessbig M`) | |"
				memRow += " not measured | |"
				continue
			}
			w := median(s.walls())
			wallRow += fmt.Sprintf(" %s | %s |", sec(w), met(w < g.wall))
			memRow += fmt.Sprintf(" %.0f MB | %s |", s.rssMB(), met(s.rssMB() < g.rssMB))
		}
		sb.WriteString(wallRow + "\n" + memRow + "\n")
	}
	fmt.Fprintf(&sb, "\nAbove baseline: the median peak RSS minus the %d-lesson run's %.0f MB.\n", wholeRunProcessBaseline, base.rssMB())
	sb.WriteString(wholeRunProcessEnd)
	return sb.String()
}
