package mcpserver_test

import (
	"bufio"
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

// Issue 23 §7, raw bytes: a line that is not JSON gets a parse error (-32700, id null), a JSON
// line that is not a JSON-RPC message an invalid-request error (-32600), and the server goes on
// answering; reading the resource of a malformed store is an internal error (-32603), not code 0.
func TestStdioSurvivesBadLinesAndAnswersWithSpecCodes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lessons.json")
	if err := os.WriteFile(path, []byte(`{"entries": [{"question": "q", "answer": "a", "energy": "high"}], "graveyard": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in, out, done := stdioServer(t, path)
	replies := bufio.NewScanner(out)
	replies.Buffer(nil, 1<<20)
	exchange := func(line string) wireReply {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
		if !replies.Scan() {
			t.Fatalf("no reply to %q (server ended: %v)", line, replies.Err())
		}
		var r wireReply
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil {
			t.Fatalf("reply %q: %v", replies.Text(), err)
		}
		return r
	}
	init := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if init.Error != nil || init.Result == nil {
		t.Fatalf("initialize: %+v", init)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		line string
		code int64
	}{
		{"this is not json", jsonrpc.CodeParseError},
		{`{"jsonrpc":"2.0","id":7,"method":`, jsonrpc.CodeParseError},
		{`{"hello":"world"}`, jsonrpc.CodeInvalidRequest},
		{`42`, jsonrpc.CodeInvalidRequest},
	} {
		r := exchange(tt.line)
		if r.Error == nil || r.Error.Code != tt.code || r.ID != nil {
			t.Errorf("reply to %q: %+v; want error %d with id null", tt.line, r, tt.code)
		}
	}
	if r := exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.Error != nil || r.ID != float64(2) {
		t.Fatalf("ping after bad lines: %+v", r)
	}
	r := exchange(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"` + mcpserver.ResourceURI + `"}}`)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(r.Error.Message, "doctor") {
		t.Errorf("resources/read of a malformed store: %+v; want error %d", r, jsonrpc.CodeInternalError)
	}
	in.Close()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end when its stdin closed")
	}
}

// Issue 23 §7, through the SDK's client: garbage written to the server's stdin between the
// client's requests does not end the session, and a malformed store's resource is -32603.
// The SDK's client cannot decode a response whose id is null (its jsonrpc2.DecodeMessage
// refuses one, although the JSON-RPC 2.0 specification requires null for a parse error), so
// the test takes the parse-error replies off the server's output and hands the client the rest.
func TestStdioKeepsServingTheSDKClientAfterGarbage(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeStore(t, dir, "How do I run the integration tests?", "make itest")
	in, out, _ := stdioServer(t, path)
	toClient, fromServer := io.Pipe()
	nullID := make(chan wireReply, 4)
	go func() {
		lines := bufio.NewScanner(out)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var r wireReply
			if json.Unmarshal(lines.Bytes(), &r) == nil && r.ID == nil && r.Error != nil {
				nullID <- r
				continue
			}
			if _, err := fromServer.Write(append(lines.Bytes(), '\n')); err != nil {
				return
			}
		}
		fromServer.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: toClient, Writer: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := io.WriteString(in, "garbage from a confused wrapper script\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-nullID:
		if r.Error.Code != jsonrpc.CodeParseError {
			t.Errorf("reply to garbage: %+v, want %d", r, jsonrpc.CodeParseError)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no parse error reply to garbage")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "consult", Arguments: map[string]any{"question": "how do I run the integration tests"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "make itest") {
		t.Fatalf("consult after garbage: %v %+v", err, res)
	}
	if err := os.WriteFile(path, []byte(`{"entries": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError {
		t.Errorf("reading the resource of a malformed store: %v; want a JSON-RPC error %d", err, jsonrpc.CodeInternalError)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping after the failed read: %v", err)
	}
}

// Issue 23: an agent (or a script) that writes its requests and closes stdin at once gets an
// answer to every request; the server did end at EOF with calls still in flight and lost
// their answers.
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
	in.WriteString("not json\n")
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
	if !ids["<nil>"] {
		t.Errorf("no parse error for the last line")
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
