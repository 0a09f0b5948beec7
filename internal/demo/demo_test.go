package demo

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{Out: &out})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Check(); err != nil {
		t.Fatal(err)
	}
	// Every action run (store, bot PR, pull request lists, settle.Measure over JUnit artifacts,
	// lesson encoding) stays within a fixed request budget whatever the history's length.
	if per := float64(res.Requests) / float64(len(res.Rows)); per > 40 {
		t.Fatalf("%.1f requests per merged pull request", per)
	}
	// The last bot pull request a maintainer merged carries the report sections, and its deaths
	// are the trivia that starved at the end.
	for _, want := range []string{"<!-- darwin-memo-action -->", "### Settlements", "### Survivors", "```mermaid", "starved"} {
		if !strings.Contains(res.LastBotPR, want) {
			t.Errorf("last bot pull request lacks %q:\n%s", want, res.LastBotPR)
		}
	}
	if raceEnabled {
		return // the determinism rerun doubles a slow run under the race detector
	}
	// Deterministic: a second run prints the same store.
	again, err := Run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Store, res.Store) {
		t.Fatal("two demo runs ended in different stores")
	}
}
