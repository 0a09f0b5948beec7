package mcpserver_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
)

// FuzzStdioTransport: whatever arrives on stdin, the server ends when stdin ends (it never waits
// forever for an answer it will not write) and never panics.
func FuzzStdioTransport(f *testing.F) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"
	f.Add([]byte(initialize + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
	f.Add([]byte(initialize + `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n"))
	f.Add([]byte(initialize + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\nnot json\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"consult","arguments":{"question":"q"}}}`))
	path := filepath.Join(f.TempDir(), "lessons.json")
	if err := os.WriteFile(path, []byte(`{"entries": [], "graveyard": []}`), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		srv := mcpserver.New(mcpserver.Options{Store: path, Version: "test", Now: clock})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done := make(chan struct{})
		go func() {
			srv.Run(ctx, &mcpserver.StdioTransport{Reader: bytes.NewReader(in), Writer: io.Discard})
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("the server did not end after its input %q", in)
		}
	})
}
