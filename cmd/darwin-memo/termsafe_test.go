package main

import (
	"strings"
	"testing"
)

func TestTermSafe(t *testing.T) {
	cases := []struct{ in, want string }{
		{"make itest", "make itest"},
		{"a\n::set-output name=result::settled", "a ::set-output name=result::settled"},
		{"::warning::pwned", "%3A:warning::pwned"},
		{"  ::error::x", "  %3A:error::x"},
		{"ok ##[error]x", "ok #%23[error]x"},
		{"red \x1b[31mtext\x1b[0m", "red  [31mtext [0m"},
		{"abc\u202edcba", "abc dcba"},
	}
	for _, c := range cases {
		if got := termSafe(c.in); got != c.want {
			t.Errorf("termSafe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTextOutputsAreTermSafe runs the text outputs that print lesson text on
// a store whose lesson carries escape sequences and workflow commands.
func TestTextOutputsAreTermSafe(t *testing.T) {
	p := t.TempDir() + "/lessons.json"
	hostile := "::set-output name=result::settled\n::warning::x \x1b[2J ##[error]y"
	if r := runCLI(t, "add", "--store", p, "How do I run the integration tests? "+hostile, hostile); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for _, args := range [][]string{
		{"query", "--store", p, "integration tests"},
		{"top", "--store", p},
	} {
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if t2 := strings.TrimLeft(line, " \t"); strings.HasPrefix(t2, "::") || strings.Contains(line, "##[") || strings.ContainsRune(line, 0x1b) {
				t.Errorf("%v printed an unsafe line %q", args, line)
			}
		}
	}
}
