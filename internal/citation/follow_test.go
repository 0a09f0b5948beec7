package citation

import (
	"reflect"
	"testing"
)

func TestFollow(t *testing.T) {
	t.Parallel()
	changes := []Change{
		{Status: "renamed", Path: "src/new.go", Previous: "src/old.go"},
		{Status: "removed", Path: "src/gone.go"},
		{Status: "removed", Path: "/etc/passwd"}, // hostile: ignored
		{Status: "modified", Path: "src/app.go"},
		{Status: "added", Path: "src/back.go"},
		{Status: "renamed", Path: "src/also.go", Previous: "src/old2.go"},
	}
	ls := []Lesson{
		{ID: "untouched", Sources: []string{"pr#1", "path:src/app.go"}},
		{ID: "renamed", Sources: []string{"pr#2", "path:src/old.go#Fn", "path:./src/app.go"}},
		{ID: "orphan", Sources: []string{"path:src/gone.go", "pr#3"}},
		{ID: "half", Sources: []string{"path:src/gone.go#X", "path:src/app.go"}},
		{ID: "restored", Sources: []string{"path-removed:src/back.go"}},
		{ID: "merged", Sources: []string{"path:src/old.go", "path:src/new.go"}},
		{ID: "nocites", Sources: []string{"pr#4"}},
		{ID: "already", Sources: []string{"path-removed:src/x.go", "path:src/gone.go"}},
	}
	orig := []string{"pr#2", "path:src/old.go#Fn", "path:./src/app.go"}
	got := Follow(ls, changes)
	want := []Update{
		{ID: "renamed", Sources: []string{"pr#2", "path:src/new.go#Fn", "path:./src/app.go"}, Renamed: [][2]string{{"path:src/old.go#Fn", "path:src/new.go#Fn"}}},
		{ID: "orphan", Sources: []string{"path-removed:src/gone.go", "pr#3"}, Removed: []string{"src/gone.go"}, Orphaned: true},
		{ID: "half", Sources: []string{"path-removed:src/gone.go#X", "path:src/app.go"}, Removed: []string{"src/gone.go#X"}},
		{ID: "restored", Sources: []string{"path:src/back.go"}, Restored: []string{"src/back.go"}},
		{ID: "merged", Sources: []string{"path:src/new.go"}, Renamed: [][2]string{{"path:src/old.go", "path:src/new.go"}}},
		{ID: "already", Sources: []string{"path-removed:src/x.go", "path-removed:src/gone.go"}, Removed: []string{"src/gone.go"}, Orphaned: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Follow =\n%+v\nwant\n%+v", got, want)
	}
	if !reflect.DeepEqual(ls[1].Sources, orig) {
		t.Fatalf("Follow modified its input: %q", ls[1].Sources)
	}
	if Follow(ls, []Change{{Status: "modified", Path: "src/app.go"}}) != nil {
		t.Fatal("a pull request that only modifies files changed citations")
	}
}

func TestHasLive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sources []string
		want    bool
	}{
		{nil, false},
		{[]string{"pr#1"}, false},
		{[]string{"path-removed:a.go"}, false},
		{[]string{"path:../a.go"}, false},
		{[]string{"path-removed:a.go", "path:b.go"}, true},
	}
	for _, tt := range tests {
		if got := HasLive(tt.sources); got != tt.want {
			t.Errorf("HasLive(%q) = %v", tt.sources, got)
		}
	}
}
