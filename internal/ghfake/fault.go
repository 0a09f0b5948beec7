package ghfake

import "time"

// FaultKind is the failure a Fault injects.
type FaultKind string

// The injectable faults.
const (
	// ServerError answers 502 Bad Gateway with GitHub's JSON error body.
	ServerError FaultKind = "5xx"
	// TooManyRequests answers 429 with Retry-After (go-github v62 maps it
	// to a plain *github.ErrorResponse).
	TooManyRequests FaultKind = "429"
	// SecondaryRateLimit answers 403 with Retry-After and a body whose
	// documentation_url ends in #secondary-rate-limits, and no
	// x-ratelimit-remaining: 0 (what tells it from a primary limit).
	SecondaryRateLimit FaultKind = "secondary-rate-limit"
	// PrimaryRateLimit answers 403 with x-ratelimit-remaining: 0 and
	// x-ratelimit-reset at Fault.Reset.
	PrimaryRateLimit FaultKind = "primary-rate-limit"
	// Slow waits Fault.Delay (or until the client gives up) and then serves
	// the normal answer.
	Slow FaultKind = "slow"
	// TruncatedZip makes the blob server send only the first half of the
	// artifact zip.
	TruncatedZip FaultKind = "truncated-zip"
	// Gone answers 410 as GitHub does for an expired artifact.
	Gone FaultKind = "410"
)

// Fault injects a failure into matching requests.
type Fault struct {
	// Route is a route pattern (the Route* constants, or a pattern added
	// with Server.HandleFunc), RouteBlob for artifact downloads, or "" for
	// every API route.
	Route string
	Kind  FaultKind
	// Skip lets this many matching requests through before injecting.
	Skip int
	// Times is how many matching requests get the fault; 0 means 1, a
	// negative value means every one after Skip.
	Times int
	// RetryAfter is the Retry-After header in seconds for 429 and
	// SecondaryRateLimit (default 1; 0 can be forced with NoRetryAfter).
	RetryAfter   int
	NoRetryAfter bool
	// Reset is the x-ratelimit-reset time for PrimaryRateLimit (default:
	// the server clock).
	Reset time.Time
	// Delay is how long Slow waits.
	Delay time.Duration

	seen int
}

// take reports whether the fault fires for this matching request, counting
// it. Callers hold the state lock.
func (f *Fault) take() bool {
	f.seen++
	if f.seen <= f.Skip {
		return false
	}
	times := f.Times
	if times == 0 {
		times = 1
	}
	return times < 0 || f.seen-f.Skip <= times
}
