// Package exhaustive is the switch between the test suite a person runs often and the one CI
// runs. `go test ./...` runs a fast representative case of every test; with
// DARWIN_MEMO_EXHAUSTIVE=1 (.ci/run sets it) the long sweeps run too: large generated stores
// and XML, evaluations over whole labelled sets, many-seed simulations, equivalence checks over
// many inputs, and the whole demo. It is test support, imported only by _test.go files, so it is
// never linked into the darwin-memo binary.
package exhaustive

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long sweeps on when it is "1".
const Env = "DARWIN_MEMO_EXHAUSTIVE"

// On reports whether the long sweeps run.
func On() bool { return os.Getenv(Env) == "1" }

// Only skips t unless the long sweeps run.
func Only(t testing.TB) {
	t.Helper()
	if !On() {
		t.Skip("a long sweep: set " + Env + "=1 to run it (.ci/run does)")
	}
}

// Or returns many when the long sweeps run and few otherwise: how large a sweep is.
func Or[T any](few, many T) T {
	if On() {
		return many
	}
	return few
}
