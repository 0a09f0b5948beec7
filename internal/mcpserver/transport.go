package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the MCP stdio transport (newline-delimited JSON-RPC
// messages) made to survive bad input: a line that is not JSON is answered
// with a JSON-RPC parse error (-32700), a JSON line that is not a JSON-RPC
// message with an invalid-request error (-32600), both with a null id as the
// JSON-RPC 2.0 specification says, and the server goes on reading. The
// SDK's own stdio transport ends the session on such a line, which an agent
// sees as a dead server for the rest of its task.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements mcp.Transport: the SDK's IOTransport reads the lines
// that are JSON-RPC messages, through a pipe fed by a filter that answers
// the others itself.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lockedWriter{w: t.Writer, flight: newInFlight()}
	pr, pw := io.Pipe()
	go func() {
		err := filterLines(t.Reader, pw, w, mcp.DefaultMaxLineLength)
		if err == nil {
			// The input ended: the server still answers what it was asked.
			w.flight.wait(ctx)
		}
		pw.CloseWithError(err)
	}()
	return (&mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: mcp.DefaultMaxLineLength}).Connect(ctx)
}

// filterLines copies the lines of r that are JSON-RPC messages to pw, noting
// the requests among them in w's flight, and answers the others on w. It
// returns nil when r ends, else why it stopped.
func filterLines(r io.Reader, pw *io.PipeWriter, w *lockedWriter, limit int) error {
	br := bufio.NewReader(r)
	for {
		line, tooLong, err := readLine(br, limit)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			var reply []byte
			switch {
			case tooLong:
				reply = errorReply(jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a message longer than %d bytes", limit))
			case !json.Valid(line):
				reply = errorReply(jsonrpc.CodeParseError, "Parse error: the line is not JSON")
			case !isMessage(line):
				reply = errorReply(jsonrpc.CodeInvalidRequest, "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message")
			}
			if reply != nil {
				if _, werr := w.Write(reply); werr != nil {
					return werr
				}
			} else {
				w.flight.asked(line)
				if _, werr := pw.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
					return werr // the session ended
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line of at most limit bytes; a longer line is read to
// its end and dropped (tooLong).
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// isMessage reports whether a JSON line is a JSON-RPC message the SDK
// accepts: one message, or a batch of them.
func isMessage(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return false
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return false
			}
		}
		return true
	}
	_, err := jsonrpc.DecodeMessage(line)
	return err == nil
}

// errorReply is a JSON-RPC error response to a message whose id could not be
// read: the id is null.
func errorReply(code int64, msg string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   any    `json:"error"`
	}{"2.0", nil, &jsonrpc.Error{Code: code, Message: msg}})
	return append(b, '\n')
}

// lockedWriter serialises writes, so a reply of the filter never lands in
// the middle of one of the server's, and notes the answers in flight.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	flight *inFlight
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if err == nil {
		l.flight.answered(p)
	}
	return n, err
}

// Close does not close the writer: stdout outlives the session. It tells a
// filter waiting for answers that none will come.
func (l *lockedWriter) Close() error {
	l.flight.end()
	return nil
}

// inFlight holds the ids of the requests forwarded to the server and not yet
// answered, so that the end of the input ends the session only once every
// request has its answer (a client may write its requests and close stdin).
type inFlight struct {
	mu      sync.Mutex
	pending map[string]bool
	changed chan struct{} // closed and replaced when pending shrinks or the session ends
	ended   bool
}

func newInFlight() *inFlight {
	return &inFlight{pending: map[string]bool{}, changed: make(chan struct{})}
}

// messageIDs returns the keys of the ids of the requests (asking) or the
// responses (!asking) in a line: one message or a batch.
func messageIDs(line []byte, asking bool) []string {
	line = bytes.TrimSpace(line)
	msgs := []json.RawMessage{line}
	if len(line) > 0 && line[0] == '[' && json.Unmarshal(line, &msgs) != nil {
		return nil
	}
	var ids []string
	for _, m := range msgs {
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			continue
		}
		var id jsonrpc.ID
		switch x := msg.(type) {
		case *jsonrpc.Request:
			if !asking {
				continue
			}
			id = x.ID
		case *jsonrpc.Response:
			if asking {
				continue
			}
			id = x.ID
		}
		if id.IsValid() {
			ids = append(ids, fmt.Sprintf("%T:%v", id.Raw(), id.Raw()))
		}
	}
	return ids
}

func (f *inFlight) asked(line []byte) {
	ids := messageIDs(line, true)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		f.pending[id] = true
	}
}

func (f *inFlight) answered(p []byte) {
	ids := messageIDs(p, false)
	if len(ids) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		delete(f.pending, id)
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *inFlight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ended {
		f.ended = true
		close(f.changed)
		f.changed = make(chan struct{})
	}
}

// wait returns when every request forwarded has been answered, the session
// has ended, or ctx is done.
func (f *inFlight) wait(ctx context.Context) {
	for {
		f.mu.Lock()
		if len(f.pending) == 0 || f.ended {
			f.mu.Unlock()
			return
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
