package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzFilterLines: whatever arrives on stdin, the filter forwards only JSON-RPC messages, one per
// line, and answers everything else with one JSON error reply per line; it never panics.
func FuzzFilterLines(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n{\"a\":1}\n[]\n\n"))
	f.Add([]byte("[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]\r\n{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}"))
	f.Add(bytes.Repeat([]byte("x"), 100))
	f.Fuzz(func(t *testing.T, in []byte) {
		pr, pw := io.Pipe()
		var replies bytes.Buffer
		w := &lockedWriter{w: &replies, flight: newInFlight()}
		go func() { pw.CloseWithError(filterLines(bytes.NewReader(in), pw, w, 64)) }()
		forwarded, err := io.ReadAll(pr)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(forwarded))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !isMessage(sc.Bytes()) {
				t.Errorf("forwarded %q, which is no JSON-RPC message", sc.Bytes())
			}
		}
		sc = bufio.NewScanner(&replies)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r struct {
				ID    any `json:"id"`
				Error *struct {
					Code int64 `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID != nil || r.Error == nil || r.Error.Code > -32600 || r.Error.Code < -32700 {
				t.Errorf("reply %q is not a JSON-RPC error with id null", sc.Bytes())
			}
		}
	})
}
