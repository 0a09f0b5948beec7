package citation

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	t.Parallel()
	repo := tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "sub/.darwin-memo/lessons.json": "{}"})
	worktree := tree(t, map[string]string{".git": "gitdir: /elsewhere\n", "lessons.json": "{}"})
	bare := tree(t, map[string]string{"proj/.darwin-memo/lessons.json": "{}", "other/lessons.json": "{}"})
	tests := []struct{ store, want string }{
		{filepath.Join(repo, "sub", ".darwin-memo", "lessons.json"), repo},
		{filepath.Join(worktree, "lessons.json"), worktree},
		{filepath.Join(bare, "proj", ".darwin-memo", "lessons.json"), filepath.Join(bare, "proj")},
		{filepath.Join(bare, "other", "lessons.json"), filepath.Join(bare, "other")},
	}
	for _, tt := range tests {
		got, err := RepoRoot(tt.store)
		if err != nil || got != tt.want {
			t.Errorf("RepoRoot(%s) = %s, %v; want %s", tt.store, got, err, tt.want)
		}
	}
}

// The JSON of a checked citation is the shape decide, query and the MCP tools show.
func TestResultJSON(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.go": "func F() {}\n"})
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := json.Marshal(c.Check([]string{"pr#1", "path:a.go#F", "path:gone.go", "path-removed:b.go", "path:../x"}))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"source":"path:a.go#F","path":"a.go","symbol":"F","state":"ok"},` +
		`{"source":"path:gone.go","path":"gone.go","state":"missing","reason":"no such file"},` +
		`{"source":"path-removed:b.go","path":"b.go","removed":true,"state":"missing","reason":"removed by a merged pull request"},` +
		`{"source":"path:../x","state":"invalid","reason":"citation path \"../x\" climbs out of the repository"}]`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}
