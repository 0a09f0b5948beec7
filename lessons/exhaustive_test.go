package lessons

import (
	"os"
	"testing"
)

// exhaustive skips t unless DARWIN_MEMO_EXHAUSTIVE=1: the long sweeps (large generated
// stores, equivalence checks against references, many random seeds) that the README's
// `go test -race ./...` leaves out and .ci/run runs in a step of its own.
func exhaustive(t testing.TB) {
	t.Helper()
	if os.Getenv("DARWIN_MEMO_EXHAUSTIVE") != "1" {
		t.Skip("an exhaustive sweep: set DARWIN_MEMO_EXHAUSTIVE=1 to run it (.ci/run does)")
	}
}

// exhaustiveOr returns many under DARWIN_MEMO_EXHAUSTIVE=1 and few otherwise: how many
// rounds a sweep runs.
func exhaustiveOr(few, many int) int {
	if os.Getenv("DARWIN_MEMO_EXHAUSTIVE") == "1" {
		return many
	}
	return few
}
