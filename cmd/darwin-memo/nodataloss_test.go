package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// Issue 23 §1: render never writes the store or its side files, whichever path names them,
// and a directory or stdout target gets a plain message.
func TestRenderRefusesTheStoreAndItsSideFiles(t *testing.T) {
	dir := t.TempDir()
	store := fixtureStore(t)
	if err := os.Symlink(store, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(storedoc.EventsPath(store), []byte{}, 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	sd := filepath.Dir(store)
	tests := []struct {
		name, out, stderr string
	}{
		{"the store", store, "is the store itself"},
		{"another spelling", filepath.Join(sd, ".", "..", filepath.Base(sd), "lessons.json"), "is the store itself"},
		{"a link to the store", filepath.Join(dir, "link.md"), "is the store itself"},
		{"the lock, not there yet", store + ".lock", "lock file"},
		{"the event log", storedoc.EventsPath(store), "event log"},
		{"a directory", dir, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "render", "--store", store, "-o", tt.out)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.stderr) || strings.Contains(r.stderr, ".tmp") {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q (and no temporary file name)", r.code, r.stderr, tt.stderr)
			}
			after, err := os.ReadFile(store)
			if err != nil || !bytes.Equal(before, after) {
				t.Fatalf("render -o %s changed the store (%v)", tt.out, err)
			}
			if _, err := os.Stat(store + ".lock"); err == nil {
				t.Errorf("render created %s.lock", store)
			}
		})
	}
	r := runCLI(t, "render", "--store", dir, "-o", "-")
	if r.code != exitError || strings.Contains(r.stderr, "- was left untouched") || !strings.Contains(r.stderr, "nothing was rendered") {
		t.Errorf("render of a directory to stdout: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Issue 23 §2: a store without its write bit is left as it is by every command that changes
// the store (root, who may write anything, included): same bytes, same file, no lock file.
func TestReadOnlyStoreIsNotRewritten(t *testing.T) {
	for _, args := range [][]string{
		{"add", "q one", "a one"},
		{"tick"},
		{"pin", "053a99cf0a4c"},
		{"unpin", "053a99cf0a4c"},
		{"forget", "053a99cf0a4c"},
		{"import", "SRC"},
		{"decide", "--register", "are LLM benchmark arms safe in CI?"},
		{"abandon", "a899bb29d181"},
	} {
		t.Run(args[0], func(t *testing.T) {
			store := fixtureStore(t)
			src := fixtureStore(t)
			if err := os.Chmod(store, 0o444); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(store)
			fi0, _ := os.Stat(store)
			argv := append([]string{args[0], "--store", store}, args[1:]...)
			for i, a := range argv {
				if a == "SRC" {
					argv[i] = src
				}
			}
			r := runCLI(t, argv...)
			if r.code != exitError || !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, "chmod u+w") {
				t.Errorf("exit %d, stderr %q; want 1 and a read-only message", r.code, r.stderr)
			}
			after, _ := os.ReadFile(store)
			fi1, err := os.Stat(store)
			if err != nil || !bytes.Equal(before, after) || !os.SameFile(fi0, fi1) || fi1.Mode().Perm() != 0o444 {
				t.Error("the read-only store was replaced")
			}
			for _, side := range []string{store + ".lock", storedoc.EventsPath(store)} {
				if _, err := os.Stat(side); err == nil {
					t.Errorf("%s was created", side)
				}
			}
		})
	}
}

// Issue 23 §3: add (and import) print what they did only once it is saved. Here the save fails
// because the run is cancelled while the change is made (the clock is read then).
func TestNothingPrintedWhenTheSaveFails(t *testing.T) {
	for _, args := range [][]string{{"add", "How do I lint?", "make lint"}, {"import", "SRC"}} {
		t.Run(args[0], func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "lessons.json")
			src := fixtureStore(t)
			if args[0] == "add" {
				store = fixtureStore(t)
			}
			before, _ := os.ReadFile(store)
			argv := []string{args[0], "--store", store}
			for _, a := range args[1:] {
				if a == "SRC" {
					a = src
				}
				argv = append(argv, a)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			var out, errb bytes.Buffer
			code := run(ctx, argv, &IO{
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
				Now: func() time.Time { once.Do(cancel); return fixed },
			})
			if code == exitOK {
				t.Fatalf("%s succeeded although the run was cancelled before the save; stderr %q", args[0], errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("%s printed %q although nothing was saved", args[0], out.String())
			}
			if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
				t.Error("the store changed")
			}
			if r := runCLI(t, argv...); r.code != 0 || r.stdout == "" {
				t.Errorf("%s without the cancel: exit %d, stdout %q", args[0], r.code, r.stdout)
			}
		})
	}
}

// Issue 23 §8: a store created in a .darwin-memo directory comes with a .gitignore that keeps
// its lock and event log out of commits but not the store; an existing .gitignore is kept, and
// a store elsewhere gets none.
func TestNewStoreIgnoresItsSideFiles(t *testing.T) {
	repo := t.TempDir()
	store := filepath.Join(repo, ".darwin-memo", "lessons.json")
	if r := runCLI(t, "add", "--store", store, "How do I run the tests?", "go test ./..."); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	if r := runCLI(t, "tick", "--store", store); r.code != 0 {
		t.Fatalf("tick: %d %s", r.code, r.stderr)
	}
	ign, err := os.ReadFile(filepath.Join(repo, ".darwin-memo", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(ign), "\n") {
		lines[l] = true
	}
	if !lines["lessons.json.lock"] || !lines["lessons.events.jsonl*"] || lines["lessons.json"] {
		t.Errorf(".gitignore:\n%s\nwant the lock and the event log, not the store", ign)
	}
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "-C", repo, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		out, err := exec.Command(git, "-C", repo, "status", "--porcelain", "--untracked-files=all").Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Fields(strings.ReplaceAll(string(out), "??", ""))
		want := []string{".darwin-memo/.gitignore", ".darwin-memo/lessons.json"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("git sees %v, want %v", got, want)
		}
	}

	kept := filepath.Join(t.TempDir(), ".darwin-memo")
	if err := os.MkdirAll(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, ".gitignore"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "add", "--store", filepath.Join(kept, "lessons.json"), "q", "a"); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(kept, ".gitignore")); string(b) != "mine\n" {
		t.Errorf("an existing .gitignore became %q", b)
	}

	elsewhere := t.TempDir()
	if r := runCLI(t, "add", "--store", filepath.Join(elsewhere, "l.json"), "q", "a"); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ".gitignore")); err == nil {
		t.Error("a store outside .darwin-memo got a .gitignore")
	}
}

// Issue 23 §4: without --store every command, reading or writing, uses the store the one
// discovery rule finds (package storefind): from a subdirectory, the repository root's. None of
// them says "not found" there, and none creates a second store in the subdirectory.
func TestEveryCommandFindsTheRepositoryStore(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "pkg", "deep")
	for _, d := range []string{filepath.Join(root, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(root, ".darwin-memo", "lessons.json")
	other := filepath.Join(root, "other.json")
	t.Chdir(sub)
	r := runCLI(t, "add", "Which logger do we use?", "zap, from internal/log")
	if r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("add in a subdirectory did not create the repository's store: %v", err)
	}
	if r := runCLI(t, "add", "--store", other, "How do I lint?", "make lint"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	steps := []struct {
		args   []string
		stdout string
	}{
		{[]string{"stats"}, "1 living"},
		{[]string{"top"}, id},
		{[]string{"why", id}, id},
		{[]string{"obituary", id}, id},
		{[]string{"query", "which logger"}, "zap"},
		{[]string{"decide", "which logger do we use"}, "zap"},
		{[]string{"pin", id}, ""},
		{[]string{"unpin", id}, ""},
		{[]string{"tick"}, `"tick":1`},
		{[]string{"import", other}, "imported 1 lessons"},
		{[]string{"render", "-o", "-"}, "zap"},
		{[]string{"doctor"}, ""},
		{[]string{"decide", "--register", "which logger do we use"}, "darwin-memo-ticket: "},
		{[]string{"forget", id}, ""}, // refused: the registered ticket holds it
		{[]string{"stats", "--json"}, `"pending":1,`},
	}
	for _, st := range steps {
		r := runCLI(t, st.args...)
		if st.args[0] == "forget" {
			if r.code != exitError || !strings.Contains(r.stderr, "pending ticket") {
				t.Errorf("forget of an escrowed lesson: %+v", r)
			}
			continue
		}
		if r.code != 0 || !strings.Contains(r.stdout, st.stdout) {
			t.Errorf("%v in a subdirectory: %+v", st.args, r)
		}
	}
	if _, err := os.Stat(filepath.Join(sub, ".darwin-memo")); err == nil {
		t.Fatal("a command created a second store in the subdirectory")
	}
	if _, err := os.Stat(filepath.Join(root, ".darwin-memo", "LESSONS.md")); err == nil {
		t.Error("render -o - wrote LESSONS.md")
	}
}
