package pyjson

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// TestPythonAgrees checks Indent and Compact against CPython's
// json.dumps(json.loads(doc)) with indent=2 and with the default separators,
// on documents at the edges of the grammar. One python3 process answers for
// every document. It is skipped where python3 is missing.
func TestPythonAgrees(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	docs := map[string]string{
		"numbers":  `[0, -0, 1.0, 2.50, 1E3, 1e-7, 1e16, 1e400, -1e400, 12345678901234567890, 0.1, 1e22, 5e-324, NaN, Infinity, -Infinity]`,
		"strings":  `["", "\u00e9\ud83d\ude00", "\ud800", "\udc00\ud800x", "\"\\\/\b\f\n\r\t\u0001\u007f", "</script>"]`,
		"objects":  `{"b": {}, "a": [], "c": {"x": 1, "y": [[]], "x": 2}, "b": null, "": true}`,
		"top":      ` "x" `,
		"nested":   `[[[[{"a": [[{"b": {}}]]}]]]]`,
		"utf8 raw": "[\"é 😀 \u2028\"]",
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	// For each document, what json.dumps writes with indent=2 and with indent=None; the
	// answer itself is ASCII (ensure_ascii), so it passes through encoding/json unchanged.
	cmd := exec.Command(py, "-c", `import json,sys
docs = json.load(sys.stdin)
out = {name: {ind: json.dumps(json.loads(doc), indent=(2 if ind == "2" else None)) for ind in ("2", "None")} for name, doc in docs.items()}
sys.stdout.write(json.dumps(out))`)
	cmd.Stdin = bytes.NewReader(in)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var want map[string]map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("python's answer: %v", err)
	}
	for name, doc := range docs {
		for _, tt := range []struct {
			indent string
			ours   func([]byte) ([]byte, error)
		}{
			{"2", func(b []byte) ([]byte, error) { return indent(name, b) }},
			{"None", func(b []byte) ([]byte, error) { v, err := Parse(name, b); return Compact(v), err }},
		} {
			got, err := tt.ours([]byte(doc))
			if w, ok := want[name][tt.indent]; err != nil || !ok || string(got) != w {
				t.Errorf("%s (indent=%s): ours %q (%v)\npython  %q", name, tt.indent, got, err, w)
			}
		}
	}
}
