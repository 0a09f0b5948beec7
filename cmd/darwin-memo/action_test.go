package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestActionCommandReportsMissingEnvironment(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"action"}, &IO{Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		return map[string]string{"INPUT_GITHUB-TOKEN": "t"}[k]
	}})
	if code != exitError || !strings.Contains(out.String(), "GITHUB_REPOSITORY") || !strings.Contains(out.String(), "::error::") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
}

func TestDemoCommand(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"demo", "-rounds", "0"}, &IO{Stdout: &out, Stderr: &errb}); code != exitUsage {
		t.Fatalf("-rounds 0: exit %d", code)
	}
	// The full demo runs (and is checked) in internal/demo's tests.
}
