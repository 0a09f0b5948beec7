package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Given a store of 20 lessons with darwin-memo's economics (upkeep 0.05),
// when it ticks and its status is printed as JSON, then the energies are
// written as darwin-memo (Python) writes floats: "upkeep_charged": 1.0 and
// "total_energy": 19.0, not 1 and 19.
func TestJSONOutputWritesFloatsAsPython(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lessons.json")
	s := lessons.New(p, lessons.Options{})
	for i := range 20 {
		if _, err := s.Add(lessons.NewLesson{Question: fmt.Sprintf("question %d", i), Answer: "answer"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveAs(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"tick", "--store", p}, []string{`"total_energy":19.0`, `"upkeep_charged":1.0`}},
		{[]string{"stats", "--json", "--store", p}, []string{`"total_energy":19.0`}},
	} {
		r := runCLI(t, tc.args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, r.code, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v printed %s, want it to contain %s", tc.args, r.stdout, w)
			}
		}
	}
}
