// Command selection runs the selection-quality benchmark: this project's
// lesson ledger against keep-everything, random eviction at a matched rate,
// evict-on-negative, strike counters and a Copilot-Memory-like TTL, on
// simulated merged-PR streams with poisoned, useful, trivia and duplicate
// lessons and flaky CI.
//
//	go run ./bench/selection -write docs/benchmarks.md   # regenerate the docs
//	go run ./bench/selection -quick -require kill        # CI smoke run
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/report"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := report.Command(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue *report.UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
