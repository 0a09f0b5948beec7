package citation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path: content; a content starting "->" makes a symbolic link to the
// rest) under a new directory and returns it.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheck(t *testing.T) {
	t.Parallel()
	outside := tree(t, map[string]string{"secret.go": "func Secret() {}\n"})
	dir := tree(t, map[string]string{
		"src/app.go":      "package app\n\nfunc DecideFast(q string) {}\nvar decideSlow_x = 1\n",
		"src/ü.go":        "größe := 1\n",
		"docs/a.md":       "# A\n",
		"src/escape.go":   "->" + filepath.Join(outside, "secret.go"),
		"src/inside.go":   "->app.go",
		"src/up/link.go":  "->../../../" + filepath.Base(outside) + "/secret.go",
		"src/dir/keep.go": "package dir\n",
	})
	tests := []struct {
		source string
		state  State
		text   string
	}{
		{"path:src/app.go", OK, ""},
		{"path:src/app.go#DecideFast", OK, ""},
		{"path:src/app.go#decideSlow_x", OK, ""},
		{"path:src/app.go#Decide", Missing, "cites src/app.go, which no longer has Decide"}, // a prefix is not the word
		{"path:src/app.go#decideSlow", Missing, "no longer has decideSlow"},                 // nor is a part before "_"
		{"path:src/app.go#app", OK, ""},
		{"path:src/ü.go#größe", OK, ""},
		{"path:src/ü.go#grö", Missing, ""},
		{"path:src/dir", OK, ""},
		{"path:src/dir#keep", Missing, ""}, // a directory holds no symbol
		{"path:src/old.go", Missing, "cites src/old.go, which no longer exists"},
		{"path:src/old.go#Fn", Missing, "cites src/old.go#Fn, which no longer exists"},
		{"path-removed:src/app.go", Missing, "cites src/app.go, which no longer exists"}, // recorded removed: not looked up
		{"path:src/inside.go#DecideFast", OK, ""},
		{"path:src/escape.go", Missing, ""}, // a link out of the root is not followed
		{"path:src/up/link.go", Missing, ""},
		{"path:../" + filepath.Base(outside) + "/secret.go", Invalid, "not a valid citation"},
		{"path:" + filepath.ToSlash(filepath.Join(outside, "secret.go")), Invalid, "absolute"},
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range tests {
		for round := 0; round < 2; round++ { // the second answer comes from the checker's memory
			rs := c.Check([]string{"pr#9", tt.source})
			if len(rs) != 1 {
				t.Fatalf("Check(%q) = %+v, want one result", tt.source, rs)
			}
			if rs[0].State != tt.state || rs[0].Source != tt.source || !strings.Contains(rs[0].Text(), tt.text) || (tt.state == OK) != (rs[0].Text() == "") {
				t.Errorf("Check(%q) = %+v (%q), want %s with %q", tt.source, rs[0], rs[0].Text(), tt.state, tt.text)
			}
		}
	}
}

func TestStale(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.go": "package a\n"})
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tests := []struct {
		sources []string
		stale   bool
	}{
		{nil, false},
		{[]string{"pr#1"}, false}, // no citations: nothing to be stale about
		{[]string{"path:a.go"}, false},
		{[]string{"path:gone.go", "path:a.go"}, false},
		{[]string{"path:gone.go"}, true},
		{[]string{"path:gone.go", "path-removed:a.go", "pr#1"}, true},
		{[]string{"path:/etc/passwd"}, true}, // only invalid citations hold nothing
	}
	for _, tt := range tests {
		if got := Stale(c.Check(tt.sources)); got != tt.stale {
			t.Errorf("Stale(%q) = %v, want %v", tt.sources, got, tt.stale)
		}
	}
}

func TestOpenMissingRoot(t *testing.T) {
	t.Parallel()
	if _, err := Open(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("Open of a missing directory succeeded")
	}
}

func TestContainsWord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, word string
		want       bool
	}{
		{"Fn", "Fn", true},
		{"xFn Fn", "Fn", true},
		{"xFn Fnx", "Fn", false},
		{"a.Fn()", "Fn", true},
		{"$Fn", "Fn", false},
		{"éFn", "Fn", false},
		{"", "Fn", false},
	}
	for _, tt := range tests {
		if got := containsWord([]byte(tt.text), []byte(tt.word)); got != tt.want {
			t.Errorf("containsWord(%q, %q) = %v", tt.text, tt.word, got)
		}
	}
}

// BenchmarkCheckQueryHits is the read-time cost of one query: a fresh Checker over a working
// tree, checking the citations of its k hits (1 to 3 each, a third with a symbol, a sixth
// of the files gone) drawn from a 10,000-lesson store. Only the hits are checked, so the
// store's size does not enter; it is here to draw the hits from.
func BenchmarkCheckQueryHits(b *testing.B) {
	files := map[string]string{}
	for i := 0; i < 300; i++ {
		files[fmt.Sprintf("pkg%02d/file%03d.go", i%30, i)] = strings.Repeat(fmt.Sprintf("func F%d() {}\n// filler text for the symbol search\n", i), 200)
	}
	dir := tree(b, files)
	store := make([][]string, 10000)
	for i := range store {
		n := 1 + i%3
		for j := 0; j < n; j++ {
			f := (i*7 + j*13) % 360 // 300..359 do not exist
			src := fmt.Sprintf("path:pkg%02d/file%03d.go", f%30, f)
			if (i+j)%3 == 0 {
				src += fmt.Sprintf("#F%d", f)
			}
			store[i] = append(store[i], src)
		}
	}
	for _, k := range []int{3, 10} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			q := 0
			for b.Loop() {
				c, err := Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				for h := 0; h < k; h++ {
					c.Check(store[(q*k+h*977)%len(store)])
				}
				c.Close()
				q++
			}
		})
	}
}

// OpenFor finds the working tree of a store; without one (the store's directory is gone) it
// gives a nil Checker, which checks nothing and closes without error.
func TestOpenForAndNilChecker(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := OpenFor(filepath.Join(dir, StoreDir, "lessons.json"))
	if c == nil {
		t.Fatal("OpenFor found no working tree above the store")
	}
	if r := c.Check([]string{"path:main.go", "path:gone.go"}); len(r) != 2 || r[0].State != OK || r[1].State != Missing {
		t.Errorf("Check = %+v, want main.go found and gone.go missing", r)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var none *Checker
	if none = OpenFor(filepath.Join(t.TempDir(), "no", "such", "dir", "lessons.json")); none != nil {
		t.Fatalf("OpenFor of a missing directory = %v, want nil", none)
	}
	if r := none.Check([]string{"path:main.go"}); r != nil {
		t.Errorf("a nil Checker checked %+v", r)
	}
	if err := none.Close(); err != nil {
		t.Errorf("closing a nil Checker: %v", err)
	}
}
