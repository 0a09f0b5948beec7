package lessons

import (
	"bytes"
	"os/exec"
	"testing"
)

// TestPythonJSONAgrees feeds our output to Python's json module
// (json.dumps(json.loads(x), indent=2), which is how darwin-memo writes) and
// expects the very same bytes back. It is skipped where python3 is missing.
func TestPythonJSONAgrees(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	s := newTestStore()
	for _, txt := range []string{"plain", "ünïcödé and emoji 😀", "quotes \" and \\ and\ttabs\nnewlines", "\x01\x7f control", "</script> <b>&amp;"} {
		s.Add(NewLesson{Question: txt, Answer: txt + " answer", Sources: []string{txt}})
	}
	s.Tick(TickOptions{})
	s.living[3].Energy = 1e-5
	s.living[0].Energy = 1e16
	s.living[1].Energy = -3.191891195797325e-16
	s.living[2].Energy = 0.1 + 0.2
	for name, data := range map[string][]byte{
		"fixture":   readFixture(t),
		"generated": benchStoreBytes(t, 1000),
		"unusual":   mustMarshal(t, s),
		"random":    randomHistory(t, 3),
	} {
		cmd := exec.Command(py, "-c", "import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), indent=2))")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: python: %v", name, err)
		}
		if !bytes.Equal(out, data) {
			i := 0
			for i < len(out) && i < len(data) && out[i] == data[i] {
				i++
			}
			t.Errorf("%s: Python writes different bytes at %d:\npython: %q\nours:   %q", name, i, out[max(0, i-60):min(len(out), i+60)], data[max(0, i-60):min(len(data), i+60)])
		}
	}
}
