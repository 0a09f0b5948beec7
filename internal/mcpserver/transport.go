package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the SDK's newline-delimited JSON-RPC transport
// (mcp.IOTransport) over a reader and a writer, made to answer every request
// it read before its input ended: the SDK's own ends the session at the end
// of the input and drops the answers of the calls still running, so a client
// that writes its requests and closes stdin lost them. A line that is not a
// JSON-RPC message ends the session too, after the answers to the requests
// before it, with the SDK's error, which Run returns.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := (&mcp.IOTransport{Reader: io.NopCloser(t.Reader), Writer: nopWriteCloser{t.Writer}}).Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("stdio transport: %w", err)
	}
	return &drainingConn{Connection: conn, pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{})}, nil
}

// nopWriteCloser does not close its writer: stdout outlives the session.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// drainingConn holds back the end of the input (or a read error) until every
// request read has been answered, the connection has been closed, or the
// read's context is done.
type drainingConn struct {
	mcp.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // the calls read and not yet answered
	changed chan struct{}       // closed and replaced when pending shrinks or the connection closes
	closed  bool
}

func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		// The session ends after the answers to what was read before.
		c.wait(ctx)
		if errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, fmt.Errorf("reading a JSON-RPC message: %w", err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.mu.Lock()
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return msg, nil
}

func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.Connection.Write(ctx, msg); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.pending, resp.ID)
		c.signal()
	}
	return nil
}

func (c *drainingConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.signal()
	c.mu.Unlock()
	return c.Connection.Close()
}

// signal wakes wait; c.mu is held.
func (c *drainingConn) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// wait returns when no call read is unanswered, the connection has closed,
// or ctx is done.
func (c *drainingConn) wait(ctx context.Context) {
	for {
		c.mu.Lock()
		if len(c.pending) == 0 || c.closed {
			c.mu.Unlock()
			return
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
