package action

import (
	"bytes"
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
//	go test ./internal/action -run TestWholeRunProcess -wholerunprocess 9 -wholerunprocess100k 3 -wholerunprocessdoc ../../docs/benchmarks.md -timeout 60m
var (
	wholeRunProcessRuns    = flag.Int("wholerunprocess", 0, "time this many whole-process action runs at the baseline store, 1k and 10k lessons, interleaved (TestWholeRunProcess)")
	wholeRunProcessRuns100 = flag.Int("wholerunprocess100k", 0, "with TestWholeRunProcess, also this many runs at 100k lessons, each after a baseline run")
	wholeRunProcessDoc     = flag.String("wholerunprocessdoc", "", "run TestWholeRunProcess and rewrite its generated block in this Markdown file (docs/benchmarks.md)")
	// wholeRunProcessEnv is for diagnosis (GOGC=off, GODEBUG=gctrace=1): the child's
	// garbage-collector lines are logged, and no table is written with it.
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

// processSizes is one size's runs.
type processSizes struct {
	n       int
	storeMB float64
	runs    []processUsage
}

func (p processSizes) cpus() []time.Duration {
	var out []time.Duration
	for _, u := range p.runs {
		out = append(out, u.cpu())
	}
	slices.Sort(out)
	return out
}

func (p processSizes) walls() []time.Duration {
	var out []time.Duration
	for _, u := range p.runs {
		out = append(out, u.Wall)
	}
	slices.Sort(out)
	return out
}

// rssMB is the median peak RSS in MB.
func (p processSizes) rssMB() float64 {
	var out []int64
	for _, u := range p.runs {
		out = append(out, u.MaxRSSKiB)
	}
	slices.Sort(out)
	return float64(median(out)) / 1024
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

	sizes := []int{wholeRunProcessBaseline, 1000, 10000}
	if *wholeRunProcessRuns100 > 0 {
		sizes = append(sizes, 100000)
	}
	res := map[int]*processSizes{}
	for _, n := range sizes {
		t0 := time.Now()
		res[n] = &processSizes{n: n, storeMB: float64(len(bigStoreDoc(n))) / (1 << 20)}
		t.Logf("generated the %d-lesson store in %v", n, time.Since(t0).Round(time.Millisecond))
	}
	pr.run(t, wholeRunProcessBaseline) // warm-up (page cache, binary), not counted
	add := func(n int) { res[n].runs = append(res[n].runs, pr.run(t, n)) }
	for range runs {
		for _, n := range []int{wholeRunProcessBaseline, 1000, 10000} {
			add(n)
		}
	}
	for range *wholeRunProcessRuns100 {
		add(wholeRunProcessBaseline)
		add(100000)
	}
	var ordered []*processSizes
	for _, n := range sizes {
		ordered = append(ordered, res[n])
	}
	block := wholeRunProcessTable(ordered, load, pr.launcherFloorMB())
	t.Log("\n" + block)
	if *wholeRunProcessDoc == "" {
		return
	}
	doc, err := os.ReadFile(*wholeRunProcessDoc)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(wholeRunProcessBegin)), bytes.Index(doc, []byte(wholeRunProcessEnd))
	if i < 0 || j < i {
		t.Fatalf("%s has no %s ... %s block", *wholeRunProcessDoc, wholeRunProcessBegin, wholeRunProcessEnd)
	}
	out := append(append(append([]byte{}, doc[:i]...), block...), doc[j+len(wholeRunProcessEnd):]...)
	if err := os.WriteFile(*wholeRunProcessDoc, out, 0o644); err != nil {
		t.Fatal(err)
	}
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

// run sets up BenchmarkWholeRun's merge run at n lessons (untimed), with CI results in the
// fake for the merged pull request's base and head, and runs `darwin-memo action` on it as
// a child. It fails unless the child settled the ticket as measured with a positive delta and
// merged the bot branch's store.
func (p *processRunner) run(t *testing.T, n int) processUsage {
	t.Helper()
	var u processUsage
	// A subtest per run: its cleanup drops the fake's repository before the next run.
	t.Run(fmt.Sprintf("lessons=%d", n), func(t *testing.T) {
		t0 := time.Now()
		doc := bigStoreDoc(n)
		h, living := wholeRunBotOpen(t, doc, true)
		// The merged pull request lands on main's tip, whose CI fails two of three tests; its
		// head passes all three: a measured delta of +2, read from JUnit artifacts.
		addCI(h.world, h.git.Ref("main"), "completed", map[string]bool{"app::TestA": true})
		merged := h.merge("Fix second", h.ticketFor(living[2*len(living)/3].Question), nil)
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
		t.Logf("%d lessons: CPU %v (user %v, system %v), wall %v, peak RSS %.1f MB (launcher %.1f MB); setup and run %v",
			n, u.cpu().Round(time.Millisecond), u.User.Round(time.Millisecond), u.System.Round(time.Millisecond), u.Wall.Round(time.Millisecond),
			float64(u.MaxRSSKiB)/1024, float64(u.LauncherRSSKiB)/1024, time.Since(t0).Round(time.Millisecond))
	})
	if t.Failed() {
		t.FailNow()
	}
	return u
}

// wholeRunProcessTable formats the generated block: the table per size and the goals.
func wholeRunProcessTable(sizes []*processSizes, load string, floorMB float64) string {
	sec := func(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }
	label := func(n int) string {
		if n < 1000 {
			return strconv.Itoa(n)
		}
		return fmt.Sprintf("%dk", n/1000)
	}
	var base *processSizes
	byN := map[int]*processSizes{}
	for _, s := range sizes {
		byN[s.n] = s
		if s.n == wholeRunProcessBaseline {
			base = s
		}
	}
	var sb strings.Builder
	sb.WriteString(wholeRunProcessBegin + "\n")
	big := ""
	if s := byN[100000]; s != nil {
		big = fmt.Sprintf(" -wholerunprocess100k %d", len(s.runs))
	}
	fmt.Fprintf(&sb, "Generated by `go test ./internal/action -run TestWholeRunProcess -wholerunprocess %d%s -wholerunprocessdoc ../../docs/benchmarks.md -timeout 60m`. ",
		len(byN[1000].runs), big)
	fmt.Fprintf(&sb, "Machine: %s, %d CPUs, %s, load average at start %s. Launcher floor %.0f MB (the peak RSS no run can read below).\n\n",
		cpuModelOf(), runtime.NumCPU(), runtime.Version(), load, floorMB)
	sb.WriteString("| lessons | store | runs | CPU, fastest | CPU, median | wall, median | peak RSS, median | above baseline |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sizes {
		c, w := s.cpus(), s.walls()
		above := fmt.Sprintf("%.0f MB", s.rssMB()-base.rssMB())
		name := label(s.n)
		if s == base {
			above, name = "(baseline)", name+" (baseline)"
		}
		fmt.Fprintf(&sb, "| %s | %.1f MB | %d | %s | %s | %s | %.0f MB | %s |\n", name, s.storeMB, len(s.runs), sec(c[0]), sec(median(c)), sec(median(w)), s.rssMB(), above)
	}
	met := func(ok bool) string {
		if ok {
			return "**met**"
		}
		return "**not met**"
	}
	sb.WriteString("\n| goal (issue 11, the action as a process) | measured | |\n|---|---|---|\n")
	for _, g := range []struct {
		n         int
		cpu       time.Duration
		aboveMB   float64
		cpuS, mem string
	}{{10000, 300 * time.Millisecond, 100, "0.3 s", "100 MB"}, {100000, 3 * time.Second, 1024, "3 s", "1 GB"}} {
		s := byN[g.n]
		cpuGoal := fmt.Sprintf("| %s lessons under %s |", label(g.n), g.cpuS)
		memGoal := fmt.Sprintf("| %s lessons under %s above baseline |", label(g.n), g.mem)
		if s == nil || len(s.runs) == 0 {
			sb.WriteString(cpuGoal + " not measured (`-wholerunprocess100k M`) | |\n")
			sb.WriteString(memGoal + " not measured (`-wholerunprocess100k M`) | |\n")
			continue
		}
		c := s.cpus()
		above := s.rssMB() - base.rssMB()
		fmt.Fprintf(&sb, "%s %s CPU median (fastest %s) | %s |\n", cpuGoal, sec(median(c)), sec(c[0]), met(median(c) < g.cpu))
		fmt.Fprintf(&sb, "%s %.0f MB peak RSS above the %d-lesson run's %.0f MB | %s |\n", memGoal, above, wholeRunProcessBaseline, base.rssMB(), met(above < g.aboveMB))
	}
	sb.WriteString(wholeRunProcessEnd)
	return sb.String()
}
