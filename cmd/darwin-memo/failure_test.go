package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// failureDir builds the directory every failure case runs in:
//
//	lessons.json  darwin-memo's committed store (tick 49, pending a899bb29d181)
//	nan.json      the same with one energy NaN
//	bad.json      malformed (a string energy)
//	adir/         a directory where a store is expected
//	empty.md      a PR body without tickets
//	unknown.md    a PR body naming a compat ticket that is not pending
//	huge.md       a PR body whose store-free ticket carries a 6 KB query
func failureDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	fixture, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	nan := bytes.Replace(fixture, []byte(`"energy": 0.3499992591112975`), []byte(`"energy": NaN`), 1)
	if bytes.Equal(nan, fixture) {
		t.Fatal("setup: energy to replace not found")
	}
	free := lessons.FreeTicket{Tick: 49, Decider: "053a99cf0a4c", Query: strings.Repeat("benchmark arms ", 400)}
	files := map[string]string{
		"lessons.json": string(fixture),
		"nan.json":     string(nan),
		"bad.json":     `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [{"question": "q", "answer": "a", "energy": "high"}], "graveyard": []}`,
		"empty.md":     "Fixes the flaky test.\n",
		"unknown.md":   "darwin-memo-ticket: 000000000000\n",
		"huge.md":      "<!-- " + free.Line() + " -->\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot is every path under dir with its mode and bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := info.Mode().String()
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(data)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var diffs []string
	for p, v := range after {
		if b, ok := before[p]; !ok {
			diffs = append(diffs, "new "+p)
		} else if b != v {
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "removed "+p)
		}
	}
	sort.Strings(diffs)
	return diffs
}

// Every command, run with bad input, exits with its documented code and
// leaves the directory byte for byte as it was: no new store, event log or
// lock file (docs/cli.md, "A command that fails changes nothing"). The
// read-only commands are in the table too, with exit 0: they never write.
func TestFailedCommandsChangeNothing(t *testing.T) {
	big := strings.Repeat("why ", 1500) // 6000 bytes
	tests := []struct {
		name   string
		args   []string // D/ is replaced by the case's directory
		code   int
		stderr string // substring
		locked bool   // another process holds D/lessons.json's lock
	}{
		// decide and query
		{"decide empty query", []string{"decide", "--store", "D/lessons.json", " "}, 2, "missing QUERY", false},
		{"decide oversized query", []string{"decide", "--store", "D/lessons.json", big}, 2, "at most 4096", false},
		{"decide silent is read-only", []string{"decide", "--store", "D/lessons.json", "zebra"}, 0, "", false},
		{"decide answer is read-only", []string{"decide", "--store", "D/lessons.json", "are LLM benchmark arms safe in CI?"}, 0, "", false},
		{"decide missing store is read-only", []string{"decide", "--store", "D/x.json", "zebra"}, 0, "", false},
		{"decide register mistyped store", []string{"decide", "--register", "--store", "D/x.json", "benchmark arms"}, 1, "not found", false},
		{"decide register directory", []string{"decide", "--register", "--store", "D/adir", "benchmark arms"}, 1, "is a directory", false},
		{"decide register malformed", []string{"decide", "--register", "--store", "D/bad.json", "benchmark arms"}, 1, "expected a number", false},
		{"decide register locked", []string{"decide", "--register", "--store", "D/lessons.json", "--lock-wait", "20ms", "benchmark arms"}, 1, "busy", true},
		{"query empty", []string{"query", "--store", "D/lessons.json", ""}, 2, "missing QUERY", false},
		{"query oversized", []string{"query", "--store", "D/lessons.json", big}, 2, "at most 4096", false},
		{"query top 0", []string{"query", "--store", "D/lessons.json", "--top", "0", "ci"}, 2, "--top", false},
		{"query malformed", []string{"query", "--store", "D/bad.json", "ci"}, 1, "expected a number", false},
		{"query is read-only", []string{"query", "--store", "D/lessons.json", "benchmark arms"}, 0, "", false},
		// add
		{"add missing answer", []string{"add", "--store", "D/lessons.json", "q only"}, 2, "need a QUESTION and an ANSWER", false},
		{"add bad kind", []string{"add", "--store", "D/lessons.json", "--kind", "rumour", "q", "a"}, 2, "unknown kind", false},
		{"add bad kind new store", []string{"add", "--store", "D/new/lessons.json", "--kind", "rumour", "q", "a"}, 2, "unknown kind", false},
		{"add directory", []string{"add", "--store", "D/adir", "q", "a"}, 1, "is a directory", false},
		{"add malformed", []string{"add", "--store", "D/bad.json", "q", "a"}, 1, "expected a number", false},
		{"add locked", []string{"add", "--store", "D/lessons.json", "--lock-wait", "20ms", "q", "a"}, 1, "busy", true},
		{"add parent is a file", []string{"add", "--store", "D/empty.md/lessons.json", "q", "a"}, 1, "", false},
		// settle
		{"settle unknown ticket", []string{"settle", "--store", "D/lessons.json", "abc", "1"}, 1, "not pending", false},
		{"settle mistyped store", []string{"settle", "--store", "D/x.json", "abc", "1"}, 1, "not found", false},
		{"settle bad delta", []string{"settle", "--store", "D/lessons.json", "a899bb29d181", "lots"}, 2, "not a number", false},
		{"settle NaN delta", []string{"settle", "--store", "D/lessons.json", "a899bb29d181", "NaN"}, 1, "not finite", false},
		{"settle --body NaN delta", []string{"settle", "--store", "D/lessons.json", "--body", "-", "nan"}, 1, "not finite", false},
		{"top negative -n", []string{"top", "--store", "D/lessons.json", "-n", "-1"}, 2, "-n -1", false},
		{"settle NaN store", []string{"settle", "--store", "D/nan.json", "a899bb29d181", "1"}, 1, "energy NaN", false},
		{"settle malformed", []string{"settle", "--store", "D/bad.json", "a899bb29d181", "1"}, 1, "expected a number", false},
		{"settle directory", []string{"settle", "--store", "D/adir", "a899bb29d181", "1"}, 1, "is a directory", false},
		{"settle locked", []string{"settle", "--store", "D/lessons.json", "--lock-wait", "20ms", "a899bb29d181", "1"}, 1, "busy", true},
		{"settle bad scale", []string{"settle", "--store", "D/lessons.json", "--scale", "-1", "a899bb29d181", "1"}, 2, "--scale", false},
		{"settle zero scale", []string{"settle", "--store", "D/lessons.json", "--scale", "0", "a899bb29d181", "1"}, 2, "--scale", false},
		{"settle missing args", []string{"settle", "--store", "D/lessons.json", "a899bb29d181"}, 2, "need TICKET and DELTA", false},
		{"settle body missing file", []string{"settle", "--store", "D/lessons.json", "--body", "D/none.md", "1"}, 1, "could not read the PR body", false},
		{"settle body missing base", []string{"settle", "--store", "D/lessons.json", "--body", "D/unknown.md", "--base", "D/missing.json", "1"}, 3, "unreadable", false},
		{"settle body malformed base", []string{"settle", "--store", "D/lessons.json", "--body", "D/unknown.md", "--base", "D/bad.json", "1"}, 3, "unreadable", false},
		{"settle body unknown ticket", []string{"settle", "--store", "D/lessons.json", "--body", "D/unknown.md", "1"}, 1, "none was settled", false},
		{"settle body oversized ticket", []string{"settle", "--store", "D/lessons.json", "--body", "D/huge.md", "1"}, 1, "none was settled", false},
		{"settle body without tickets", []string{"settle", "--store", "D/lessons.json", "--body", "D/empty.md", "1"}, 0, "", false},
		{"settle body mistyped store", []string{"settle", "--store", "D/x.json", "--body", "D/unknown.md", "1"}, 1, "not found", false},
		{"settle body NaN store", []string{"settle", "--store", "D/nan.json", "--body", "D/unknown.md", "1"}, 1, "energy NaN", false},
		// abandon and tick
		{"abandon unknown", []string{"abandon", "--store", "D/lessons.json", "abc"}, 1, "not pending", false},
		{"abandon mistyped store", []string{"abandon", "--store", "D/x.json", "a899bb29d181"}, 1, "not found", false},
		{"abandon locked", []string{"abandon", "--store", "D/lessons.json", "--lock-wait", "0", "a899bb29d181"}, 1, "busy", true},
		{"tick mistyped store", []string{"tick", "--store", "D/x.json"}, 1, "not found", false},
		{"tick NaN store", []string{"tick", "--store", "D/nan.json"}, 1, "energy NaN", false},
		{"tick malformed", []string{"tick", "--store", "D/bad.json"}, 1, "expected a number", false},
		{"tick directory", []string{"tick", "--store", "D/adir"}, 1, "is a directory", false},
		{"tick locked", []string{"tick", "--store", "D/lessons.json", "--lock-wait", "20ms"}, 1, "busy", true},
		{"tick count 0", []string{"tick", "--store", "D/lessons.json", "--count", "0"}, 2, "--count", false},
		{"tick expire 0", []string{"tick", "--store", "D/lessons.json", "--expire-after", "0"}, 2, "--expire-after", false},
		// read-only reports
		{"stats mistyped store", []string{"stats", "--store", "D/x.json"}, 1, "not found", false},
		{"stats malformed", []string{"stats", "--store", "D/bad.json"}, 1, "expected a number", false},
		{"stats directory", []string{"stats", "--store", "D/adir"}, 1, "", false},
		{"stats NaN is read-only", []string{"stats", "--json", "--store", "D/nan.json"}, 0, "", false},
		{"top mistyped store", []string{"top", "--store", "D/x.json"}, 1, "not found", false},
		{"top NaN is read-only", []string{"top", "--json", "--store", "D/nan.json"}, 0, "", false},
		{"why unknown id", []string{"why", "--store", "D/lessons.json", "ffffffffffff"}, 1, "unknown to this store", false},
		{"obituary unknown id", []string{"obituary", "--store", "D/lessons.json", "ffffffffffff"}, 1, "unknown to this store", false},
		{"why no id", []string{"why", "--store", "D/lessons.json"}, 2, "need one entry ID", false},
		{"why mistyped store", []string{"why", "--store", "D/x.json", "053a99cf0a4c"}, 1, "not found", false},
		{"doctor mistyped store", []string{"doctor", "--store", "D/x.json"}, 1, "not found", false},
		{"doctor malformed", []string{"doctor", "--store", "D/bad.json"}, 1, "expected a number", false},
		// pin, unpin, forget
		{"pin unknown", []string{"pin", "--store", "D/lessons.json", "ffffffffffff"}, 1, "not a living lesson", false},
		{"pin dead", []string{"pin", "--store", "D/lessons.json", "7e40e33bc60d"}, 1, "not a living lesson", false},
		{"pin mistyped store", []string{"pin", "--store", "D/x.json", "053a99cf0a4c"}, 1, "not found", false},
		{"pin locked", []string{"pin", "--store", "D/lessons.json", "--lock-wait", "20ms", "053a99cf0a4c"}, 1, "busy", true},
		{"unpin unknown", []string{"unpin", "--store", "D/lessons.json", "ffffffffffff"}, 1, "not a living lesson", false},
		{"unpin unpinned is a no-op", []string{"unpin", "--store", "D/lessons.json", "053a99cf0a4c"}, 0, "", false},
		{"unpin mistyped store", []string{"unpin", "--store", "D/x.json", "053a99cf0a4c"}, 1, "not found", false},
		{"forget escrowed", []string{"forget", "--store", "D/lessons.json", "053a99cf0a4c"}, 1, "named by a pending ticket", false},
		{"forget unknown", []string{"forget", "--store", "D/lessons.json", "ffffffffffff"}, 1, "not a living lesson", false},
		{"forget mistyped store", []string{"forget", "--store", "D/x.json", "52867957f4d5"}, 1, "not found", false},
		{"forget malformed", []string{"forget", "--store", "D/bad.json", "52867957f4d5"}, 1, "expected a number", false},
		// import
		{"import missing source", []string{"import", "--store", "D/lessons.json", "D/x.json"}, 1, "not found", false},
		{"import malformed source", []string{"import", "--store", "D/lessons.json", "D/bad.json"}, 1, "expected a number", false},
		{"import into malformed", []string{"import", "--store", "D/bad.json", "D/lessons.json"}, 1, "expected a number", false},
		{"import into directory", []string{"import", "--store", "D/adir", "D/lessons.json"}, 1, "is a directory", false},
		{"import locked", []string{"import", "--store", "D/lessons.json", "--lock-wait", "20ms", "D/nan.json"}, 1, "busy", true},
		{"import again is a no-op", []string{"import", "--store", "D/lessons.json", "D/lessons.json"}, 0, "", false},
		// render
		{"render budget below header", []string{"render", "--store", "D/lessons.json", "-o", "D/OUT.md", "--budget", "105"}, 2, "cannot hold even the header", false},
		{"render budget 1", []string{"render", "--store", "D/lessons.json", "-o", "D/OUT.md", "--budget", "1"}, 2, "cannot hold even the header", false},
		{"render budget 0", []string{"render", "--store", "D/lessons.json", "-o", "D/OUT.md", "--budget", "0"}, 2, "at least 1 byte", false},
		{"render budget huge", []string{"render", "--store", "D/lessons.json", "-o", "D/OUT.md", "--budget", "1e30kb"}, 2, "larger than", false},
		{"render budget NaN", []string{"render", "--store", "D/lessons.json", "-o", "D/OUT.md", "--budget", "NaN"}, 2, "not a size", false},
		{"render max-lines 0", []string{"render", "--store", "D/lessons.json", "-o", "D/OUT.md", "--max-lines", "0"}, 2, "--max-lines", false},
		{"render malformed", []string{"render", "--store", "D/bad.json", "-o", "D/OUT.md"}, 1, "left untouched", false},
		{"render missing store", []string{"render", "--store", "D/x.json", "-o", "D/OUT.md"}, 1, "not found; nothing was rendered", false},
		{"render to stdout is read-only", []string{"render", "--store", "D/lessons.json", "-o", "-"}, 0, "", false},
		// command line
		{"unknown command", []string{"decid"}, 2, "did you mean", false},
		{"bad flag", []string{"tick", "--store", "D/lessons.json", "--nope"}, 2, "not defined", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := failureDir(t)
			if tt.locked {
				lk, err := storedoc.LockWait(t.Context(), filepath.Join(dir, "lessons.json"), -1)
				if err != nil {
					t.Fatal(err)
				}
				defer lk.Unlock()
			}
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				if strings.HasPrefix(a, "D/") {
					a = filepath.Join(dir, a[2:])
				}
				args[i] = a
			}
			before := snapshot(t, dir)
			r := runCLI(t, args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.stderr)
			}
			if strings.Contains(r.stderr, "panic") {
				t.Errorf("stderr: %s", r.stderr)
			}
			if d := diffSnapshots(before, snapshot(t, dir)); len(d) > 0 {
				t.Errorf("the directory changed: %v", d)
			}
		})
	}
}

// Regression (issue 10 §2): 20 concurrent adds all land; each waits for
// the lock instead of failing with a doubled "store is busy" message.
func TestConcurrentAddsWaitForTheLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lessons.json")
	const n = 20
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runCLI(t, "add", "--store", p, fmt.Sprintf("question %d?", i), fmt.Sprintf("answer %d", i))
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("add %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	r := runCLI(t, "stats", "--json", "--store", p)
	var st struct{ Living int }
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Living != n {
		t.Errorf("living %d (%v), want %d", st.Living, err, n)
	}
}

// storeEntry reads one living lesson's energy from a store file.
func storeEntry(t *testing.T, p, id string) float64 {
	t.Helper()
	s, err := lessons.Load(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := s.Entry(id)
	if !ok {
		t.Fatalf("%s not living", id)
	}
	return e.Energy
}

// Issue 15 §1: given a darwin-memo store without ledger.config (decider D,
// supporter S at 1.0, ticket a1b2c3d4e5f6 pending), when the CLI settles
// delta +1 at --scale 2 and ticks, then S ends at 1.019 (darwin-memo's
// supporting_share 0.25; 0.95 with 0) and the file never says
// "supporting_share": 0.0.
func TestCaseCompatCLISettlesDarwinMemoStoreWithItsDefaults(t *testing.T) {
	data, err := os.ReadFile("testdata/nocfg.json")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lessons.json")
	os.WriteFile(p, data, 0o644)
	if r := runCLI(t, "decide", "--register", "--store", p, "zebra giraffe"); r.code != 0 {
		t.Fatalf("silent decide: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "settle", "--store", p, "--scale", "2", "a1b2c3d4e5f6", "1"); r.code != 0 {
		t.Fatalf("settle: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "tick", "--store", p); r.code != 0 {
		t.Fatalf("tick: exit %d: %s", r.code, r.stderr)
	}
	got := storeEntry(t, p, "500000000002")
	if want := 1.0 + 0.25*0.6*math.Tanh(0.5) - 0.05; math.Abs(got-want) > 1e-12 || math.Round(got*1000)/1000 != 1.019 {
		t.Errorf("supporter %v, want %v (1.019)", got, want)
	}
	if doc, _ := os.ReadFile(p); bytes.Contains(doc, []byte(`"supporting_share"`)) {
		t.Error("the CLI wrote a ledger.config into a darwin-memo store that had none")
	}
}

// Issue 15 §1b, documented difference: given a store whose ledger.config
// persists resource_scale 2.0, when settle runs without --scale, then the
// decider earns 0.6·tanh(1/1.5) ≈ 0.350 (the action's default scale; 0.277
// would be the persisted 2.0, 0.457 darwin-memo's CLI default 1.0), and the
// persisted 2.0 is kept.
func TestCaseCompatCLISettleScaleDefault(t *testing.T) {
	data, err := os.ReadFile("testdata/nocfg.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"damaged": []`), []byte(`"damaged": [], "config": {"resource_scale": 2.0}`), 1)
	p := filepath.Join(t.TempDir(), "lessons.json")
	os.WriteFile(p, data, 0o644)
	if r := runCLI(t, "settle", "--store", p, "a1b2c3d4e5f6", "1"); r.code != 0 {
		t.Fatalf("settle: exit %d: %s", r.code, r.stderr)
	}
	if got, want := storeEntry(t, p, "d00000000001"), 1+0.6*math.Tanh(1/1.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("decider %v, want %v", got, want)
	}
	s, err := lessons.Load(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.ResourceScale == nil || *c.ResourceScale != 2.0 {
		t.Errorf("persisted resource_scale %v, want 2.0 kept", c.ResourceScale)
	}
}

// In a read-only directory every changing command exits 1 and the
// directory stays as it was. (Root ignores permissions, so the test skips
// there, as it does on Windows, where the mode bits do not apply.)
func TestReadOnlyDirectoryChangesNothing(t *testing.T) {
	if os.Geteuid() <= 0 {
		t.Skip("needs a non-root user on a system with Unix permissions")
	}
	dir := failureDir(t)
	p := filepath.Join(dir, "lessons.json")
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"add", "--store", p, "q", "a"},
		{"settle", "--store", p, "a899bb29d181", "1"},
		{"abandon", "--store", p, "a899bb29d181"},
		{"tick", "--store", p},
		{"pin", "--store", p, "053a99cf0a4c"},
		{"forget", "--store", p, "52867957f4d5"},
		{"decide", "--register", "--store", p, "benchmark arms"},
		{"import", "--store", p, filepath.Join(dir, "nan.json")},
	} {
		if r := runCLI(t, args...); r.code != 1 {
			t.Errorf("%v: exit %d, want 1: %s", args, r.code, r.stderr)
		}
	}
	if d := diffSnapshots(before, snapshot(t, dir)); len(d) > 0 {
		t.Errorf("the directory changed: %v", d)
	}
}
