package action

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/version"
)

// The first line of the action's log says which build runs, even when the run fails at once.
func TestMainLogsVersionFirst(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no action ref", nil, version.Get().String()},
		{"uses: OWNER/REPO@v1", map[string]string{"GITHUB_ACTION_REPOSITORY": "darwin-memo/darwin-memo-action", "GITHUB_ACTION_REF": "v1"},
			version.Get().String() + "; uses: darwin-memo/darwin-memo-action@v1"},
		{"ref without repository", map[string]string{"GITHUB_ACTION_REF": "v1"}, version.Get().String() + "; uses: v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			code := Main(context.Background(), Options{Getenv: func(k string) string { return tt.env[k] }, Stdout: &out})
			first, _, _ := strings.Cut(out.String(), "\n")
			if first != tt.want {
				t.Errorf("first log line %q, want %q (exit %d)", first, tt.want, code)
			}
		})
	}
}
