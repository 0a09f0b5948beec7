package encode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry policy shared by every HTTP provider.
const (
	maxTries     = 3
	backoffBase  = 500 * time.Millisecond
	backoffCap   = 8 * time.Second
	maxReplySize = 8 << 20
)

// HTTPError is a provider's non-2xx reply after the retry policy gave up.
// Message is the provider's error message with anything key-like redacted.
type HTTPError struct {
	Provider   string
	StatusCode int
	Type       string // provider error type or code, e.g. rate_limit_error
	Message    string
	RequestID  string
	Attempts   int
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d", e.Provider, e.StatusCode)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RequestID != "" {
		s += " (request id " + e.RequestID + ")"
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return s
}

// maxWait is the longest wait a server may ask for between attempts; a longer one fails the
// call at once, and the encoder falls back.
const maxWait = 60 * time.Second

// retry runs try, one attempt of a provider call, until it succeeds, fails for good, or
// maxTries attempts are spent, waiting between attempts as long as try says. try reports
// whether the policy allows another attempt after its error. This is the one retry loop of
// every provider: the HTTP providers' (endpoint.post) and Ollama's.
func retry(ctx context.Context, sleep func(context.Context, time.Duration) error, logger *slog.Logger, provider string,
	try func(attempt int) (wait time.Duration, again bool, err error)) error {
	for attempt := 1; ; attempt++ {
		wait, again, err := try(attempt)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", provider, ctx.Err())
		}
		if !again || attempt == maxTries {
			return err
		}
		logger.LogAttrs(ctx, slog.LevelWarn, "llm request failed, retrying", slog.String("provider", provider),
			slog.Int("attempt", attempt), slog.String("error", redactSecrets(err.Error())))
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", provider, err)
		}
	}
}

// endpoint is one model behind one HTTP URL (OpenAI-compatible or Anthropic), the headers
// that authenticate requests to it, and the shared retry policy: at most maxTries attempts;
// retry transport errors, 408, 409, 429, 5xx and 529 unless x-should-retry says otherwise or
// the error is an exhausted quota; wait retry-after-ms, else Retry-After in seconds, else
// min(0.5 s * 2^n, 8 s); give up at once when asked to wait longer than maxWait.
type endpoint struct {
	name, model, url string
	headers          map[string]string
	client           *http.Client
	sleep            func(context.Context, time.Duration) error
	logger           *slog.Logger
	secret           string // redacted from every error message
}

func (r *endpoint) Name() string { return r.name }

// post sends body as JSON under the retry policy and decodes the reply into reply.
func (r *endpoint) post(ctx context.Context, body, reply any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", r.name, err)
	}
	var data []byte
	err = retry(ctx, r.sleep, r.logger, r.name, func(attempt int) (time.Duration, bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(payload))
		if err != nil {
			return 0, false, fmt.Errorf("%s: build request: %w", r.name, err)
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range r.headers {
			req.Header.Set(k, v)
		}
		start := time.Now()
		resp, err := r.client.Do(req)
		if err != nil {
			return backoff(attempt), true, fmt.Errorf("%s: %s", r.name, r.redact(err.Error()))
		}
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxReplySize))
		resp.Body.Close()
		reqID := firstHeader(resp.Header, "x-request-id", "request-id", "x-github-request-id")
		r.logger.LogAttrs(ctx, slog.LevelInfo, "llm response", slog.String("provider", r.name),
			slog.Int("attempt", attempt), slog.Int("status", resp.StatusCode), slog.String("request_id", reqID),
			slog.Duration("elapsed", time.Since(start)))
		if err != nil {
			return backoff(attempt), true, fmt.Errorf("%s: read reply: %w", r.name, err)
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return 0, false, nil
		}
		typ, msg := errorMessage(data)
		herr := &HTTPError{Provider: r.name, StatusCode: resp.StatusCode, Type: typ, Message: r.redact(msg), RequestID: reqID, Attempts: attempt}
		if !retryable(resp, data) || attempt == maxTries {
			return 0, false, herr
		}
		wait, asked := retryAfter(resp.Header)
		if !asked {
			wait = backoff(attempt)
		}
		if wait > maxWait {
			return 0, false, fmt.Errorf("%s: HTTP %d asks to wait %s, longer than the %s limit", r.name, resp.StatusCode, wait.Round(time.Second), maxWait)
		}
		return wait, true, herr
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, reply); err != nil {
		return fmt.Errorf("%s: decode reply: %w", r.name, err)
	}
	return nil
}

// retryable applies the status and header rules of the policy.
func retryable(resp *http.Response, body []byte) bool {
	switch strings.ToLower(resp.Header.Get("x-should-retry")) {
	case "true":
		return true
	case "false":
		return false
	}
	lower := strings.ToLower(string(body))
	if strings.Contains(lower, "insufficient_quota") || strings.Contains(lower, "enforced_spend_limit_reached") ||
		strings.Contains(lower, "billing_hard_limit") {
		return false
	}
	return retryableStatus(resp.StatusCode)
}

// retryAfter reads retry-after-ms, then Retry-After in seconds (the form
// the LLM APIs send; an HTTP date is read as no answer).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	return 0, false
}

// backoff returns the wait before attempt+1: min(0.5 s * 2^(attempt-1), 8 s).
func backoff(attempt int) time.Duration {
	d := backoffBase << (attempt - 1)
	if d > backoffCap || d <= 0 {
		return backoffCap
	}
	return d
}

// errorMessage extracts the type and message of the error bodies of
// OpenAI ({"error":{"message","type","code"}}), Anthropic
// ({"type":"error","error":{"type","message"}}), GitHub Models and Ollama
// ({"error":"..."}); otherwise it returns the start of the body.
func errorMessage(body []byte) (typ, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
			typ = obj.Type
			if typ == "" && len(obj.Code) > 0 {
				var code string
				if json.Unmarshal(obj.Code, &code) == nil {
					typ = code
				}
			}
			return typ, capText(oneLine(obj.Message), 300)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return "", capText(oneLine(s), 300)
		case v.Message != "":
			return "", capText(oneLine(v.Message), 300)
		}
	}
	return "", capText(oneLine(string(body)), 300)
}

// redact removes the API key and anything key-like from s.
func (r *endpoint) redact(s string) string {
	if r.secret != "" {
		s = strings.ReplaceAll(s, r.secret, "[redacted]")
	}
	return redactSecrets(s)
}

func redactSecrets(s string) string {
	return secretPattern.ReplaceAllString(s, "[redacted]")
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// retryableStatus reports whether the policy retries an HTTP status.
func retryableStatus(code int) bool {
	return code == 408 || code == 409 || code == 429 || code == 529 || code >= 500
}
