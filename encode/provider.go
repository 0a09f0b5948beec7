package encode

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ctxtime"
)

// Provider asks one model (or the deterministic encoder) for lessons.
// Implementations return the raw reply; the encoder parses and validates
// it. A Provider gives the model no tools.
type Provider interface {
	// Name is the provider spec in use, e.g. "ollama:qwen3:8b" or "none".
	Name() string
	// Reflect sends one reflection request and returns the model's reply
	// (think blocks and all: the parsers remove them). Providers log its
	// finish reason and token counts.
	Reflect(ctx context.Context, req Request) (string, error)
}

// Request is one reflection call.
type Request struct {
	System string          // rules; never contains PR text
	User   string          // PR documents as JSON inside a nonce delimiter
	Schema json.RawMessage // JSON schema of the reply (see Schema)
	// MaxTokens caps the reply length (Ollama num_predict, max_tokens).
	MaxTokens int
	// Name names the reply ("lessons", "supersession"): the json_schema name
	// of OpenAI-compatible providers, and Anthropic's forced tool emit_<Name>.
	Name string
	// Purpose describes the reply to Anthropic's forced tool.
	Purpose string
}

// Option configures NewProvider and New.
type Option func(*config)

type config struct {
	httpClient *http.Client
	getenv     func(string) string
	baseURL    string
	apiKey     string
	logger     *slog.Logger
	sleep      func(context.Context, time.Duration) error
	rand       io.Reader
	trusted    []string
	timeout    time.Duration
}

// WithGetenv sets how API keys and base URLs are read from the
// environment (default os.Getenv). Variables: OLLAMA_HOST,
// OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// GITHUB_TOKEN, GITHUB_MODELS_URL.
func WithGetenv(getenv func(string) string) Option {
	return func(p *config) { p.getenv = getenv }
}

// WithBaseURL overrides the provider's base URL (Ollama host, OpenAI-style
// ".../v1", Anthropic "https://api.anthropic.com", GitHub Models
// ".../inference").
func WithBaseURL(u string) Option {
	return func(p *config) { p.baseURL = u }
}

// WithAPIKey sets the API key or token instead of reading it from the
// environment.
func WithAPIKey(key string) Option {
	return func(p *config) { p.apiKey = key }
}

// WithLogger sets where providers log provider, model, status, request id,
// attempts and token counts. Keys and prompt bodies are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(p *config) { p.logger = l }
}

// NewProvider returns the provider named by spec, the action input `llm`:
//
//	none                 deterministic encoder, no model (a nil Provider: New(nil) is it)
//	ollama:<model>       Ollama's /api/chat (OLLAMA_HOST, default 127.0.0.1:11434)
//	openai:<model>       OpenAI-compatible chat completions (OPENAI_BASE_URL, OPENAI_API_KEY)
//	anthropic:<model>    Anthropic Messages API (ANTHROPIC_API_KEY)
//	github:<model>       GitHub Models with the workflow token (GITHUB_TOKEN)
//
// An empty spec means none. A missing key is an error naming the variable.
func NewProvider(spec string, opts ...Option) (Provider, error) {
	cfg := newConfig(opts)
	kind, model, err := ParseLLM(spec)
	if err != nil {
		return nil, fmt.Errorf("encode: llm %q %w", spec, err)
	}
	if kind == "none" {
		return nil, nil
	}
	env := func(name, def string) string {
		if v := strings.TrimSpace(cfg.getenv(name)); v != "" {
			return v
		}
		return def
	}
	key := func(name string) (string, error) {
		if cfg.apiKey != "" {
			return cfg.apiKey, nil
		}
		if k := strings.TrimSpace(cfg.getenv(name)); k != "" {
			return k, nil
		}
		return "", fmt.Errorf("encode: llm %q needs an API key: set %s (or choose llm: none)", spec, name)
	}
	base := func(name, def string) string {
		if cfg.baseURL != "" {
			return strings.TrimRight(cfg.baseURL, "/")
		}
		return strings.TrimRight(env(name, def), "/")
	}
	e := endpoint{name: kind + ":" + model, model: model, headers: map[string]string{},
		client: cfg.httpClient, sleep: cfg.sleep, logger: cfg.logger}
	switch kind {
	case "ollama":
		return newOllama(model, base("OLLAMA_HOST", ""), cfg)
	case "openai":
		k, err := key("OPENAI_API_KEY")
		if err != nil && cfg.baseURL == "" && env("OPENAI_BASE_URL", "") == "" {
			return nil, err
		}
		// A self-hosted endpoint (vLLM, LM Studio, Ollama's /v1) may need no key.
		if k != "" {
			e.headers["Authorization"] = "Bearer " + k
		}
		e.url = base("OPENAI_BASE_URL", "https://api.openai.com/v1") + "/chat/completions"
		e.secret = k
		return &openAI{e}, nil
	case "github":
		k, err := key("GITHUB_TOKEN")
		if err != nil {
			return nil, err
		}
		e.headers = map[string]string{"Authorization": "Bearer " + k, "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
		e.url = base("GITHUB_MODELS_URL", "https://models.github.ai/inference") + "/chat/completions"
		e.secret = k
		return &openAI{e}, nil
	case "anthropic":
		k, err := key("ANTHROPIC_API_KEY")
		if err != nil {
			return nil, err
		}
		e.headers = map[string]string{"x-api-key": k, "anthropic-version": "2023-06-01"}
		e.url = base("ANTHROPIC_BASE_URL", "https://api.anthropic.com") + "/v1/messages"
		e.secret = k
		return &anthropic{e}, nil
	}
	return nil, fmt.Errorf("encode: llm %q: no client for provider %q", spec, kind)
}

// ParseLLM splits spec, the action input `llm`, into its provider (lower-cased: none,
// ollama, openai, anthropic or github) and model, and says what is wrong with it. An empty
// spec is none.
func ParseLLM(spec string) (provider, model string, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "none" {
		return "none", "", nil
	}
	provider, model, ok := strings.Cut(spec, ":")
	provider, model = strings.ToLower(strings.TrimSpace(provider)), strings.TrimSpace(model)
	switch {
	case !ok || model == "":
		return "", "", errors.New("has no model; write provider:model, for example ollama:qwen2.5:0.5b, or none")
	case provider != "ollama" && provider != "openai" && provider != "anthropic" && provider != "github":
		return "", "", errors.New("names an unknown provider; use none, ollama:<model>, openai:<model>, anthropic:<model> or github:<model>")
	}
	return provider, model, nil
}

func newConfig(opts []Option) config {
	cfg := config{
		getenv:  os.Getenv,
		sleep:   ctxtime.Sleep,
		rand:    rand.Reader,
		timeout: 3 * time.Minute,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.httpClient == nil {
		cfg.httpClient = &http.Client{Timeout: 2 * time.Minute}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.trusted == nil {
		cfg.trusted = []string{"OWNER", "MEMBER", "COLLABORATOR"}
	}
	return cfg
}

// WithTrustedAssociations replaces the author associations whose lessons
// are added rather than proposed (default OWNER, MEMBER, COLLABORATOR). It
// applies to the PR author and to the authors of cited review comments.
func WithTrustedAssociations(associations ...string) Option {
	return func(c *config) { c.trusted = associations }
}

// isTrusted applies WithTrustedAssociations.
func (c config) isTrusted(association string) bool {
	return slices.ContainsFunc(c.trusted, func(a string) bool { return strings.EqualFold(strings.TrimSpace(a), association) })
}
