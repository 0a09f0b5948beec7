package action

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode"
)

// The encoder's log records reach the step log one line each, with no
// time, and a model reply quoted in an attribute cannot start a workflow
// command.
func TestEncoderLoggerEscapes(t *testing.T) {
	for _, reply := range []string{
		"::error::pwned",
		"ok\n::add-mask::x\n##[set-output name=a;]b",
		"  ::warning file=x::y",
	} {
		var out bytes.Buffer
		encoderLogger(&out).WarnContext(context.Background(), "llm reply", "provider", "ollama", "note", reply)
		got := out.String()
		if !strings.Contains(got, `level=WARN msg="llm reply" provider=ollama note=`) {
			t.Errorf("record %q: want level, message and attributes", got)
		}
		if strings.Contains(got, "time=") {
			t.Errorf("record %q: carries a time", got)
		}
		if n := strings.Count(got, "\n"); n != 1 {
			t.Errorf("record %q: %d lines, want 1", got, n)
		}
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if isCommand(line) {
				t.Errorf("reply %q printed a workflow command: %q", reply, line)
			}
		}
	}
}

// isCommand reports whether the runner would read line as a workflow command.
func isCommand(line string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[")
}
