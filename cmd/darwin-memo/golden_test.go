package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/golden"
)

// Whole outputs of commands on the fixture store (exit code, stdout, stderr), byte for byte,
// against testdata/*.golden; go test -run TestCLIGolden -update rewrites them.
func TestCLIGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"help", []string{"help"}},
		{"stats", []string{"stats"}},
		{"stats-json", []string{"stats", "--json"}},
		{"top", []string{"top"}},
		{"render-stdout", []string{"render", "-o", "-"}},
		{"why", []string{"why", "053a99cf0a4c"}},
		{"doctor", []string{"doctor"}},
		{"settle-usage", []string{"settle", "--help"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := fixtureStore(t)
			args := append([]string{}, tt.args...)
			if tt.name != "help" && tt.name != "settle-usage" {
				args = append(args[:1], append([]string{"--store", p}, args[1:]...)...)
			}
			r := runCLI(t, args...)
			got := fmt.Sprintf("$ darwin-memo %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(tt.args, " "), r.code, r.stdout, r.stderr)
			got = strings.ReplaceAll(got, p, "STORE")
			golden.Check(t, "cli-"+tt.name+".golden", got)
		})
	}
}
