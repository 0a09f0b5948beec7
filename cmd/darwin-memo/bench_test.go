package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestBenchCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"tiny run", []string{"bench", "-seeds", "1", "-prs", "30", "-noise", "0"}, exitOK, "goal kill", ""},
		{"bad noise", []string{"bench", "-noise", "2"}, exitUsage, "", "not a probability"},
		{"unknown goal", []string{"bench", "-require", "speed"}, exitUsage, "", "unknown goal"},
		{"goal not measurable", []string{"bench", "-seeds", "1", "-prs", "30", "-noise", "0", "-require", "retention"}, exitError, "", "goal missed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tt.args, &IO{Stdout: &out, Stderr: &errb})
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stdout:\n%s\nstderr:\n%s\nwant %q / %q", out.String(), errb.String(), tt.stdout, tt.stderr)
			}
		})
	}
}
