package main

import (
	"context"
	"errors"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/report"
)

// runBench runs the selection-quality benchmark (issue 6), the same code as
// `go run ./bench/selection`: the ledger against every baseline arm on
// simulated merged-PR streams. -write regenerates docs/benchmarks.md's
// selection section and plots; -require makes missed goals exit 1.
func runBench(ctx context.Context, sio *IO, args []string) error {
	err := report.Command(ctx, args, sio.Stdout, sio.Stderr)
	var ue *report.UsageError
	if errors.As(err, &ue) {
		return usagef("%v", ue.Err)
	}
	return err
}
