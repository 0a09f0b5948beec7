package logsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

const payload = "x\n::warning::x\n::set-output name=result::settled\r\n  ::add-mask::y\n##[warning]z\n\u00a0::error::w"

func TestEscape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text (ok)":      "plain text (ok)",
		"100% done":            "100%25 done",
		"a\nb\r\nc":            "a%0Ab%0D%0Ac",
		"::warning::x":         "%3A:warning::x",
		"  ::x":                "  %3A:x",
		"see ##[group]x":       "see #%23[group]x",
		"a::b":                 "a::b",
		"%0A":                  "%250A",
		"\u2003::set-output x": "\u2003%3A:set-output x",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSinksPrintNoCommand(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	Printf(&b, "#%d: CI pending (%s); queued", 3, payload)
	Printf(&b, "%s", payload)
	Lines(&b, "error: "+payload+"\nsecond line "+payload)
	Command(&b, "error", payload)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// Printf keeps each call on one line; Lines keeps the payload's lines but none of them
	// can start a command.
	if len(lines) != 15 || !strings.HasPrefix(lines[0], "#3: CI pending (x%0A::warning") {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	last := len(lines) - 1
	for _, l := range lines[:last] {
		if IsCommand(l) {
			t.Errorf("command line: %q", l)
		}
	}
	if !strings.HasPrefix(lines[last], "::error::x%0A::warning") || strings.Contains(lines[last], "##[") {
		t.Errorf("annotation %q", lines[last])
	}
}

func FuzzEscape(f *testing.F) {
	f.Add(payload)
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if strings.ContainsAny(e, "\r\n") || IsCommand(e) {
			t.Fatalf("Escape(%q) = %q", s, e)
		}
		var b bytes.Buffer
		Lines(&b, s)
		for _, l := range strings.Split(b.String(), "\n") {
			if IsCommand(l) {
				t.Fatalf("Lines(%q) printed %q", s, l)
			}
		}
	})
}

// IsCommand reports whether the runner would read line as a workflow command.
func IsCommand(line string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[")
}
