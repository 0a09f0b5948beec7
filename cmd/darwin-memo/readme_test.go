package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Issue 23 §11: the README's console examples are what the CLI prints in this repository. Each
// `$ darwin-memo ...` line of a console block runs without --store in a repository holding a
// copy of this repository's own store (testdata/dogfood), and its output must be the JSON the
// README shows; a string the README ends with "..." is a prefix of the real one.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	copyData, err := os.ReadFile("testdata/dogfood/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	if own, err := os.ReadFile("../../.darwin-memo/lessons.json"); err == nil && !bytes.Equal(own, copyData) {
		t.Fatal("testdata/dogfood/lessons.json is not this repository's .darwin-memo/lessons.json; copy it again")
	}
	examples := consoleExamples(string(readme))
	if len(examples) == 0 {
		t.Fatal("README.md has no console example of darwin-memo")
	}
	for _, ex := range examples {
		t.Run(ex.command, func(t *testing.T) {
			repo := t.TempDir()
			if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(repo, ".darwin-memo"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, ".darwin-memo", "lessons.json"), copyData, 0o644); err != nil {
				t.Fatal(err)
			}
			citedFiles(t, repo, copyData)
			t.Chdir(repo)
			args := shellWords(t, strings.TrimPrefix(ex.command, "darwin-memo "))
			r := runCLI(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var want, got any
			if err := json.Unmarshal([]byte(ex.output), &want); err != nil {
				t.Fatalf("the README's output is not JSON: %v\n%s", err, ex.output)
			}
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("output %q: %v", r.stdout, err)
			}
			if !matchesElided(want, got) {
				t.Errorf("README.md shows\n%s\nbut the command prints\n%s", ex.output, r.stdout)
			}
		})
	}
}

type consoleExample struct{ command, output string }

// consoleExamples returns the `$ darwin-memo` commands of the ```console blocks with their output.
func consoleExamples(md string) []consoleExample {
	var out []consoleExample
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			in = true
		case in && strings.HasPrefix(line, "```"):
			in = false
		case in && strings.HasPrefix(line, "$ darwin-memo "):
			out = append(out, consoleExample{command: strings.TrimPrefix(line, "$ ")})
		case in && len(out) > 0:
			out[len(out)-1].output += line + "\n"
		}
	}
	return out
}

// shellWords splits a command line at spaces outside double quotes.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quotes in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// matchesElided reports whether got is want, where a string of want ending in "..." stands for
// any string it is a prefix of (the rest elided).
func matchesElided(want, got any) bool {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		if p, elided := strings.CutSuffix(w, "..."); elided && ok {
			return strings.HasPrefix(g, strings.TrimSpace(p))
		}
		return ok && g == w
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if gv, ok := g[k]; !ok || !matchesElided(v, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !matchesElided(w[i], g[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(want, got)
	}
}

// citedFiles writes, under repo, every file the store's lessons cite (holding the cited
// symbols), so that the examples run as in this repository's working tree.
func citedFiles(t *testing.T, repo string, store []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lessons.json")
	if err := os.WriteFile(p, store, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := lessons.Load(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	syms := map[string][]string{}
	for _, e := range s.Living() {
		for _, src := range e.Sources {
			if c, err := citation.Parse(src); err == nil {
				syms[c.Path] = append(syms[c.Path], c.Symbol)
			}
		}
	}
	paths := slices.Collect(maps.Keys(syms))
	for path, ss := range syms {
		f := filepath.Join(repo, filepath.FromSlash(path))
		if slices.ContainsFunc(paths, func(q string) bool { return strings.HasPrefix(q, path+"/") }) {
			// Cited as a directory too (internal/docscheck and a file in it).
			if err := os.MkdirAll(f, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.Join(ss, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
