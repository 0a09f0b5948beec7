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
	var out bytes.Buffer
	code := Main(context.Background(), Options{Getenv: func(string) string { return "" }, Stdout: &out})
	first, _, _ := strings.Cut(out.String(), "\n")
	if want := version.Get().String(); first != want {
		t.Errorf("first log line %q, want %q (exit %d)", first, want, code)
	}
}
