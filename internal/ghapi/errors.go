package ghapi

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// IsRateLimit reports whether err means GitHub refused the call for rate
// reasons: *github.RateLimitError, *github.AbuseRateLimitError, or a 429
// (which go-github v62 returns as a plain *github.ErrorResponse). The
// caller should settle later, never treat it as a result.
func IsRateLimit(err error) bool {
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) {
		return true
	}
	return StatusCode(err) == http.StatusTooManyRequests
}

// IsTransient reports whether err is worth trying again later: rate limits,
// 5xx, 202 Accepted (GitHub is preparing the data), timeouts and network
// errors. Context cancellation by the caller is not transient.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if IsRateLimit(err) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var acc *github.AcceptedError
	if errors.As(err, &acc) {
		return true
	}
	if c := StatusCode(err); c >= 500 && c <= 599 {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// StatusCode extracts the HTTP status of a go-github *github.ErrorResponse, or 0 (rate-limit
// errors are told by IsRateLimit).
func StatusCode(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
