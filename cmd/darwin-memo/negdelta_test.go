package main

import (
	"flag"
	"io"
	"reflect"
	"testing"
)

// A person settles a pull request that broke tests with "settle TICKET -1", as settle's own
// messages suggest: a negative number is an argument, not an unknown flag, wherever it stands.
func TestNegativeNumbersAreArguments(t *testing.T) {
	tests := []struct {
		args []string
		pos  []string
	}{
		{[]string{"0123456789ab", "-1"}, []string{"0123456789ab", "-1"}},
		{[]string{"--body", "pr.md", "-0.5"}, []string{"-0.5"}},
		{[]string{"-1", "--detail", "x", "0123456789ab"}, []string{"-1", "0123456789ab"}},
		{[]string{"--expire-after", "-1", "q"}, []string{"q"}},
		{[]string{"--", "-x"}, []string{"-x"}},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("store", "s.json", "")
		fs.String("body", "", "")
		fs.String("detail", "", "")
		fs.Int("expire-after", 50, "")
		pos, err := parseFlags(fs, tt.args)
		if err != nil || !reflect.DeepEqual(pos, tt.pos) {
			t.Errorf("parseFlags(%q) = %q, %v; want %q", tt.args, pos, err, tt.pos)
		}
	}
}
