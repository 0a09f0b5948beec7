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
	// MaxLineLength bounds one message; 0 means mcp.DefaultMaxLineLength.
	MaxLineLength int
}

// Connect implements mcp.Transport: the SDK's IOTransport reads the lines
// that are JSON-RPC messages, through a pipe fed by a filter that answers
// the others itself.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxLineLength
	if limit <= 0 {
		limit = mcp.DefaultMaxLineLength
	}
	w := &lockedWriter{w: t.Writer}
	pr, pw := io.Pipe()
	go filterLines(t.Reader, pw, w, limit)
	return (&mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: limit}).Connect(ctx)
}

// filterLines copies the lines of r that are JSON-RPC messages to pw and
// answers the others on w. It closes pw when r ends or fails.
func filterLines(r io.Reader, pw *io.PipeWriter, w io.Writer, limit int) {
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
					pw.CloseWithError(werr)
					return
				}
			} else if _, werr := pw.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
				return // the session ended
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			pw.CloseWithError(err)
			return
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
// the middle of one of the server's.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close does not close the writer: stdout outlives the session.
func (l *lockedWriter) Close() error { return nil }
