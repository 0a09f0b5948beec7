package encode

import (
	"context"
	"io"
	"net/http"
	"time"
)

// The options below exist for tests only: the action and the CLI keep the defaults (a
// 2-minute HTTP client, a real wait, crypto/rand nonces, a 3-minute call timeout).

// WithHTTPClient sets the HTTP client every HTTP provider uses.
func WithHTTPClient(c *http.Client) Option {
	return func(p *config) { p.httpClient = c }
}

// WithSleep replaces the retry wait with one that records the wait and returns at once.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(p *config) { p.sleep = sleep }
}

// WithRand sets the randomness source of the prompt nonce, for deterministic prompts.
func WithRand(r io.Reader) Option {
	return func(c *config) { c.rand = r }
}

// WithCallTimeout bounds one provider call, retries and waits included.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}
