package pyjson

import (
	"bytes"
	"os/exec"
	"testing"
)

// TestPythonAgrees checks Indent and Compact against CPython's
// json.dumps(json.loads(doc)) with indent=2 and with the default separators,
// on documents at the edges of the grammar. It is skipped where python3 is
// missing.
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
	for name, doc := range docs {
		for _, tt := range []struct {
			indent string
			ours   func([]byte) ([]byte, error)
		}{
			{"2", func(b []byte) ([]byte, error) { return Indent(name, b) }},
			{"None", func(b []byte) ([]byte, error) { v, err := Parse(name, b); return Compact(v), err }},
		} {
			cmd := exec.Command(py, "-c", "import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), indent="+tt.indent+"))")
			cmd.Stdin = bytes.NewReader([]byte(doc))
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: python: %v", name, err)
			}
			got, err := tt.ours([]byte(doc))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s (indent=%s): ours %q (%v)\npython  %q", name, tt.indent, got, err, want)
			}
		}
	}
}
