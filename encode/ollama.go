package encode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// ollamaProvider talks to an Ollama server through its official api
// package, with our own http.Client (never the timeout-less default).
type ollamaProvider struct {
	name, model string
	client      *api.Client
	cfg         config
}

// ollamaHost turns an OLLAMA_HOST value into a base URL the way Ollama
// does: empty means http://127.0.0.1:11434; without a scheme, http and port
// 11434 are assumed.
func ollamaHost(host string) (*url.URL, error) {
	host = strings.TrimSpace(host)
	if host == "" {
		host = "127.0.0.1:11434"
	}
	if !strings.Contains(host, "://") {
		h := host
		path := ""
		if i := strings.IndexByte(h, '/'); i >= 0 {
			h, path = h[:i], h[i:]
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), "11434")
		}
		host = "http://" + h + path
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("encode: OLLAMA_HOST %q is not a host or URL (want host:port or http://host:port)", host)
	}
	return u, nil
}

func newOllama(model, host string, cfg config) (Provider, error) {
	u, err := ollamaHost(host)
	if err != nil {
		return nil, err
	}
	return &ollamaProvider{name: "ollama:" + model, model: model, client: api.NewClient(u, cfg.httpClient), cfg: cfg}, nil
}

func (p *ollamaProvider) Name() string { return p.name }

// Reflect streams one /api/chat call with the schema as format,
// temperature 0 and a fixed seed. It retries connection failures and
// retryable statuses (at most 3 tries, capped backoff); a stream that ends
// without done:true, a mid-stream error, or a reply cut at num_predict is
// an error.
func (p *ollamaProvider) Reflect(ctx context.Context, req Request) (string, error) {
	var reply string
	err := retry(ctx, p.cfg.sleep, p.cfg.logger, p.name, func(attempt int) (time.Duration, bool, error) {
		var again bool
		var err error
		reply, again, err = p.once(ctx, req)
		return backoff(attempt), again, err
	})
	return reply, err
}

func (p *ollamaProvider) once(ctx context.Context, req Request) (string, bool, error) {
	cr := &api.ChatRequest{
		Model: p.model,
		Messages: []api.Message{
			{Role: "system", Content: req.System},
			{Role: "user", Content: req.User},
		},
		Format: json.RawMessage(req.Schema),
		Options: map[string]any{
			"temperature": 0,
			"seed":        seed,
			"num_ctx":     8192,
			"num_predict": req.MaxTokens,
		},
	}
	var (
		content  strings.Builder
		final    api.ChatResponse
		done     bool
		received bool
	)
	err := p.client.Chat(ctx, cr, func(r api.ChatResponse) error {
		received = true
		content.WriteString(r.Message.Content)
		if r.Done {
			done = true
			final = r
		}
		return nil
	})
	if err != nil {
		var serr api.StatusError
		if errors.As(err, &serr) {
			msg := serr.ErrorMessage
			if serr.StatusCode == 404 && strings.Contains(msg, "not found") {
				msg += fmt.Sprintf(" (pull it first: ollama pull %s)", p.model)
			}
			return "", retryableStatus(serr.StatusCode), &HTTPError{Provider: p.name, StatusCode: serr.StatusCode, Message: redactSecrets(capText(oneLine(msg), 300))}
		}
		var aerr api.AuthorizationError
		if errors.As(err, &aerr) {
			return "", false, &HTTPError{Provider: p.name, StatusCode: aerr.StatusCode, Message: "unauthorized"}
		}
		var uerr *url.Error
		if errors.As(err, &uerr) && !received {
			return "", true, fmt.Errorf("%s: Ollama unavailable: %s", p.name, redactSecrets(uerr.Err.Error()))
		}
		return "", false, fmt.Errorf("%s: %s", p.name, redactSecrets(capText(oneLine(err.Error()), 300)))
	}
	if !done {
		return "", false, fmt.Errorf("%s: stream ended without a final done:true message", p.name)
	}
	p.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "llm reply", slog.String("provider", p.name),
		slog.String("done_reason", final.DoneReason), slog.Int("in_tokens", final.PromptEvalCount),
		slog.Int("out_tokens", final.EvalCount), slog.Duration("total", final.TotalDuration))
	if final.DoneReason == "length" {
		return "", false, fmt.Errorf("%s: reply cut at num_predict=%d (done_reason length)", p.name, req.MaxTokens)
	}
	return content.String(), false, nil
}
