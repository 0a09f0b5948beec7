package ghapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ctxtime"
)

// Policy bounds how the Transport retries. Zero fields take the defaults:
// 4 retries, 30 s per attempt. Backoff for 5xx and transport errors starts
// at 500 ms and doubles to at most 8 s; a rate limit is waited for when its
// reset is at most a minute away; a transport sleeps at most 3 minutes
// between retries over its lifetime.
type Policy struct {
	// MaxRetries is the number of retries after the first attempt
	// (negative: none).
	MaxRetries int
	// AttemptTimeout bounds one attempt (headers and body).
	AttemptTimeout time.Duration
	// Sleep waits for d or until ctx is done; nil uses a timer. Tests inject
	// a recorder so no test sleeps.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for rate-limit reset times; nil means time.Now.
	Now func() time.Time
	// Logf, when set, receives one line per retry. Lines carry the method,
	// the URL without query, the status and the wait; never headers.
	Logf func(format string, args ...any)
}

// The backoff for 5xx and transport errors, the longest wait for a rate
// limit (Retry-After or x-ratelimit-reset), and the time a transport may
// spend sleeping between retries over its lifetime. A longer reset is not
// waited for: the response is handed to go-github, which turns it into
// *github.RateLimitError or *github.AbuseRateLimitError for the caller to
// report as pending.
const (
	baseBackoff = 500 * time.Millisecond
	maxBackoff  = 8 * time.Second
	maxWait     = 60 * time.Second
	retryBudget = 3 * time.Minute
)

func (p Policy) withDefaults() Policy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 4
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = defaultTimeout
	}
	if p.Sleep == nil {
		p.Sleep = ctxtime.Sleep
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

// Transport is an http.RoundTripper that retries what GitHub asks to be
// retried:
//
//   - 429, and 403 that is a primary (x-ratelimit-remaining: 0) or
//     secondary rate limit (Retry-After, or a body naming the secondary
//     rate limit): wait for Retry-After or x-ratelimit-reset when that fits
//     maxWait and the remaining Budget, for any method (the request was
//     refused, so it is safe to send again);
//   - 5xx and transport errors (timeouts, resets): capped exponential
//     backoff, for idempotent methods only (GET, HEAD, OPTIONS, PUT, DELETE),
//     so a POST that may have landed is never duplicated.
//
// Everything else is returned untouched for go-github to map to its typed
// errors. Repeated reads of immutable resources (Git objects and files at a
// commit sha, merged pull requests) are answered from memory for the
// transport's lifetime, one run of the action (memo.go). It is safe for
// concurrent use.
type Transport struct {
	next   http.RoundTripper
	policy Policy

	requests atomic.Int64
	retries  atomic.Int64

	mu     sync.Mutex
	waited time.Duration
	rate   Rate
	memo   map[string]memoEntry
}

// Rate is the primary (core) rate limit as the last API response reported it
// (X-RateLimit-* headers).
type Rate struct {
	// Known is false until a response carried the headers.
	Known bool
	// Limit is the requests allowed per window; Remaining those left in it.
	Limit, Remaining int
	// Reset is when the window restarts.
	Reset time.Time
}

// Rate returns the core rate limit the last response reported.
func (t *Transport) Rate() Rate {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rate
}

// noteRate records the core rate-limit headers of resp, if it has them.
func (t *Transport) noteRate(resp *http.Response) {
	h := resp.Header
	rem, err1 := strconv.Atoi(h.Get("X-Ratelimit-Remaining"))
	lim, err2 := strconv.Atoi(h.Get("X-Ratelimit-Limit"))
	if err1 != nil || err2 != nil {
		return
	}
	if res := h.Get("X-Ratelimit-Resource"); res != "" && res != "core" {
		return
	}
	r := Rate{Known: true, Limit: lim, Remaining: rem}
	if sec, err := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
		r.Reset = time.Unix(sec, 0)
	}
	t.mu.Lock()
	t.rate = r
	t.mu.Unlock()
}

// newTransport wraps next with policy.
func newTransport(next http.RoundTripper, policy Policy) *Transport {
	return &Transport{next: next, policy: policy.withDefaults()}
}

// Requests is the number of HTTP attempts sent so far, retries included.
func (t *Transport) Requests() int64 { return t.requests.Load() }

// Retries is the number of attempts that were retries.
func (t *Transport) Retries() int64 { return t.retries.Load() }

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	key, ok := memoKey(req)
	if !ok {
		return t.roundTrip(req)
	}
	if resp := t.memoGet(key, req); resp != nil {
		return resp, nil
	}
	resp, err := t.roundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	return t.memoPut(key, resp)
}

func (t *Transport) roundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			t.retries.Add(1)
		}
		r := req
		if attempt > 0 && req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, fmt.Errorf("ghapi: cannot retry %s %s: request body is not replayable", req.Method, redact(req))
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("ghapi: replay body of %s %s: %w", req.Method, redact(req), err)
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := t.attempt(r)
		wait, why, retry := t.classify(req, resp, err, attempt)
		if !retry || attempt >= t.policy.MaxRetries {
			return resp, err
		}
		if !t.reserve(wait) {
			t.logf("ghapi: %s %s: %s; not waiting %s (budget spent), giving up", req.Method, redact(req), why, wait)
			return resp, err
		}
		if resp != nil {
			drain(resp.Body)
		}
		t.logf("ghapi: %s %s: %s; retry %d/%d in %s", req.Method, redact(req), why, attempt+1, t.policy.MaxRetries, wait)
		if serr := t.policy.Sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("ghapi: %s %s: waiting to retry: %w", req.Method, redact(req), serr)
		}
	}
}

// attempt sends one request with the per-attempt timeout, cancelling the
// timeout only when the body is closed.
func (t *Transport) attempt(req *http.Request) (*http.Response, error) {
	t.requests.Add(1)
	ctx, cancel := context.WithTimeout(req.Context(), t.policy.AttemptTimeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	t.noteRate(resp)
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func (t *Transport) reserve(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waited+d > retryBudget {
		return false
	}
	t.waited += d
	return true
}

func (t *Transport) logf(format string, args ...any) {
	if t.policy.Logf != nil {
		t.policy.Logf(format, args...)
	}
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// classify decides whether to retry and how long to wait first.
func (t *Transport) classify(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, string, bool) {
	backoff := t.backoff(attempt)
	if err != nil {
		if req.Context().Err() != nil || !idempotent(req.Method) {
			return 0, "", false
		}
		return backoff, "transport error: " + scrub(err.Error()), true
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		wait, ok := t.rateWait(resp, backoff)
		if !ok {
			return 0, "", false
		}
		return wait, "429 too many requests", true
	case resp.StatusCode == http.StatusForbidden:
		if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
			wait, ok := t.rateWait(resp, backoff)
			return wait, "primary rate limit", ok
		}
		if resp.Header.Get("Retry-After") != "" || secondaryBody(resp) {
			wait, ok := t.rateWait(resp, time.Minute)
			return wait, "secondary rate limit", ok
		}
		return 0, "", false
	case resp.StatusCode >= 500 && resp.StatusCode <= 599:
		if !idempotent(req.Method) {
			return 0, "", false
		}
		return backoff, resp.Status, true
	}
	return 0, "", false
}

func (t *Transport) backoff(attempt int) time.Duration {
	d := baseBackoff
	for i := 0; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// rateWait reads Retry-After (seconds or HTTP date), then x-ratelimit-reset
// (unix seconds). It refuses waits longer than maxWait.
func (t *Transport) rateWait(resp *http.Response, fallback time.Duration) (time.Duration, bool) {
	now := t.policy.Now()
	wait := fallback
	if ra := strings.TrimSpace(resp.Header.Get("Retry-After")); ra != "" {
		if secs, err := strconv.ParseInt(ra, 10, 64); err == nil {
			wait = time.Duration(secs) * time.Second
		} else if at, err := http.ParseTime(ra); err == nil {
			wait = at.Sub(now)
		}
	} else if rs := resp.Header.Get("X-Ratelimit-Reset"); rs != "" && resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if secs, err := strconv.ParseInt(strings.TrimSpace(rs), 10, 64); err == nil {
			wait = time.Unix(secs, 0).Sub(now) + time.Second
		}
	}
	if wait < 0 {
		wait = 0
	}
	if wait > maxWait {
		return wait, false
	}
	return wait, true
}

// secondaryBody peeks at a 403 body (restoring it) for GitHub's secondary
// rate limit markers.
func secondaryBody(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), rest), rest}
	if err != nil {
		return false
	}
	s := strings.ToLower(string(data))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "secondary-rate-limits") ||
		strings.Contains(s, "abuse-rate-limits") || strings.Contains(s, "abuse detection")
}

func drain(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	_ = body.Close()
}

// redact renders a request URL without query or user info, for logs.
func redact(req *http.Request) string {
	if req.URL == nil {
		return ""
	}
	u := *req.URL
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

// scrub removes query strings from error text (url.Error prints the URL,
// and signed download URLs carry credentials in the query).
func scrub(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '?')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.IndexAny(s[i:], "\": ")
		if j < 0 {
			return b.String()
		}
		s = s[i+j:]
	}
}
