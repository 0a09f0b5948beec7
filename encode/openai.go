package encode

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// openAI speaks the OpenAI chat-completions protocol: OpenAI, OpenRouter,
// Groq, vLLM, LM Studio, Ollama's /v1 and GitHub Models.
type openAI struct{ endpoint }

// response_format modes, tried in this order.
var openAIFormats = []string{"json_schema", "json_object", "plain"}

func (p *openAI) Reflect(ctx context.Context, req Request) (string, error) {
	var lastErr error
	for _, mode := range openAIFormats {
		reply, err := p.call(ctx, req, mode)
		if err == nil {
			return reply, nil
		}
		var herr *HTTPError
		if !errors.As(err, &herr) || !formatUnsupported(herr) {
			return "", err
		}
		p.logger.WarnContext(ctx, "llm rejected response_format, trying the next one", "provider", p.name, "format", mode, "status", herr.StatusCode)
		lastErr = err
	}
	return "", lastErr
}

// formatUnsupported reports whether a 400/422 says the requested
// response_format is not supported.
func formatUnsupported(e *HTTPError) bool {
	if e.StatusCode != 400 && e.StatusCode != 422 {
		return false
	}
	m := strings.ToLower(e.Type + " " + e.Message)
	for _, w := range []string{"response_format", "json_schema", "json_object", "structured output", "response format"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (p *openAI) call(ctx context.Context, req Request, mode string) (string, error) {
	body := map[string]any{
		"model":       p.model,
		"messages":    []openAIMessage{{Role: "system", Content: req.System}, {Role: "user", Content: req.User}},
		"temperature": 0,
		"seed":        seed,
		"max_tokens":  req.MaxTokens,
		"stream":      false,
	}
	switch mode {
	case "json_schema":
		body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": req.Name, "strict": true, "schema": req.Schema}}
	case "json_object":
		body["response_format"] = map[string]any{"type": "json_object"}
	}
	var resp struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := p.post(ctx, body, &resp); err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("%s: reply has no choices", p.name)
	}
	c := resp.Choices[0]
	p.logger.InfoContext(ctx, "llm reply", "provider", p.name, "format", mode, "finish_reason", c.FinishReason,
		"in_tokens", resp.Usage.PromptTokens, "out_tokens", resp.Usage.CompletionTokens)
	if c.Message.Refusal != nil && *c.Message.Refusal != "" {
		return "", fmt.Errorf("%s: the model refused", p.name)
	}
	switch c.FinishReason {
	case "length":
		return "", fmt.Errorf("%s: reply cut at max_tokens (finish_reason length)", p.name)
	case "content_filter":
		return "", fmt.Errorf("%s: reply blocked by the content filter", p.name)
	}
	if c.Message.Content == nil {
		return "", fmt.Errorf("%s: reply has no content", p.name)
	}
	return *c.Message.Content, nil
}
