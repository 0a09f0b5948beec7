package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
)

// stdioServer runs a server over path on StdioTransport, fed through pipes, and returns the
// write end of its stdin, a reader of its stdout, and a channel that yields Run's error.
func stdioServer(t *testing.T, path string) (*io.PipeWriter, *io.PipeReader, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	srv := mcpserver.New(mcpserver.Options{Store: path, Version: "test", Now: clock})
	go func() {
		err := srv.Run(context.Background(), &mcpserver.StdioTransport{Reader: inR, Writer: outW})
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return inW, outR, done
}

type wireReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// A line that is not a JSON-RPC message ends the session (the SDK's transport does so), after
// the answers to what came before it, with an error that says what was wrong.
func TestStdioEndsTheSessionOnALineThatIsNoMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lessons.json")
	if err := os.WriteFile(path, []byte(`{"entries": [], "graveyard": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	for _, tt := range []struct {
		name, line, want string
	}{
		{"not json", "this is not json", "invalid character"},
		{"a message cut short", `{"jsonrpc":"2.0","id":7,"method":`, "unexpected EOF"},
		{"json but no message", `{"hello":"world"}`, "version tag"},
		{"a number", `42`, "unmarshal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, out, done := stdioServer(t, path)
			go func() {
				io.WriteString(in, initialize+"\n"+tt.line+"\n")
				in.Close()
			}()
			replies, err := io.ReadAll(out)
			if err != nil {
				t.Fatal(err)
			}
			var r wireReply
			if err := json.Unmarshal(replies, &r); err != nil || r.ID != float64(1) || r.Result == nil {
				t.Errorf("answer to initialize: %q (%v)", replies, err)
			}
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "reading a JSON-RPC message") || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Run after %q: %v; want an error that names %q", tt.line, err, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the server did not end")
			}
		})
	}
}

// Through the SDK's client: a malformed store's resource is error -32603, not code 0, and the
// session goes on.
func TestStdioServesTheSDKClient(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeStore(t, dir, "How do I run the integration tests?", "make itest")
	in, out, _ := stdioServer(t, path)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: out, Writer: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "consult", Arguments: map[string]any{"question": "how do I run the integration tests"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "make itest") {
		t.Fatalf("consult: %v %+v", err, res)
	}
	if err := os.WriteFile(path, []byte(`{"entries": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || !strings.Contains(werr.Message, "doctor") {
		t.Errorf("reading the resource of a malformed store: %v; want a JSON-RPC error %d naming doctor", err, jsonrpc.CodeInternalError)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping after the failed read: %v", err)
	}
}

// Issue 23: an agent (or a script) that writes its requests and closes stdin at once gets an
// answer to every request; the SDK's transport ends at EOF with calls still in flight and
// loses their answers.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lessons.json")
	if err := os.WriteFile(path, []byte(`{"entries": [], "graveyard": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const calls = 20
	for i := 2; i < 2+calls; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"consult","arguments":{"task":"how do I run the tests %d"}}}`+"\n", i, i)
	}
	var out strings.Builder
	srv := mcpserver.New(mcpserver.Options{Store: path, Version: "test", Now: clock})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Run(ctx, &mcpserver.StdioTransport{Reader: strings.NewReader(in.String()), Writer: &syncWriter{w: &out}}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r wireReply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		ids[fmt.Sprint(r.ID)] = true
	}
	for i := 1; i < 2+calls; i++ {
		if !ids[fmt.Sprint(i)] {
			t.Errorf("no answer to request %d; answered %v", i, ids)
		}
	}
}

// syncWriter lets the test read what the server wrote from another goroutine safely.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
