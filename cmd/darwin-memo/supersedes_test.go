package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// add --supersedes records what a lesson replaces: query lists the old
// lesson after the new one, marked, decide answers with the new one, and
// why prints the chain. An id no living lesson has is refused and the
// store is left as it was.
func TestAddSupersedes(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lessons.json")
	add := func(args ...string) string {
		t.Helper()
		r := runCLI(t, append([]string{"add", "--store", store}, args...)...)
		if r.code != 0 {
			t.Fatalf("add %v: %+v", args, r)
		}
		return strings.TrimSpace(r.stdout)
	}
	old := add("Which Node version does CI use?", "Node 18.")
	add("How do I run the integration tests?", "make itest")
	repl := add("--supersedes", old, "What Node release runs in the CI pipeline?", "Node 22 since pr#40.")

	r := runCLI(t, "query", "--store", store, "--json", "Which Node version does CI use?")
	var hits []struct {
		ID           string `json:"id"`
		SupersededBy string `json:"superseded_by"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) < 2 {
		t.Fatalf("query: %+v (%v)", r, err)
	}
	if hits[0].ID != repl || hits[0].SupersededBy != "" || hits[1].ID != old || hits[1].SupersededBy != repl {
		t.Fatalf("query lists %+v; want %s, then %s superseded by it", hits, repl, old)
	}
	r = runCLI(t, "decide", "--store", store, "Which Node version does CI use?")
	if r.code != 0 || !strings.Contains(r.stdout, "Node 22") || strings.Contains(r.stdout, "Node 18") {
		t.Fatalf("decide: %+v", r)
	}
	r = runCLI(t, "why", "--store", store, old)
	if r.code != 0 || !strings.Contains(r.stdout, "superseded: "+old+" -> "+repl) {
		t.Fatalf("why: %+v", r)
	}

	before, _ := os.ReadFile(store)
	r = runCLI(t, "add", "--store", store, "--supersedes", "aaaaaaaaaaaa", "Q?", "A.")
	if r.code != 2 || !strings.Contains(r.stderr, "no living lesson") {
		t.Fatalf("unknown id: %+v", r)
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Fatal("a refused add changed the store")
	}
}
