package main

import (
	"strings"
	"unicode"
)

// termSafe makes lesson text (written by whoever opened a pull request) safe
// to print as one line of a text output: control characters, including the
// terminal's escape sequences, and bidirectional overrides become spaces,
// line breaks fold into the line, and text that a GitHub Actions runner would
// read as a workflow command when the CLI runs in a step (a line starting
// with "::", or "##[" anywhere) is defused with the runner's own escapes.
// JSON outputs need none of this: encoding/json escapes them.
func termSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r), r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "##[", "#%23[")
	if t := strings.TrimLeft(s, " \t"); strings.HasPrefix(t, ":") {
		s = s[:len(s)-len(t)] + "%3A" + t[1:]
	}
	return s
}
