package encode

import (
	"context"
	"encoding/json"
	"fmt"
)

// anthropic speaks the Anthropic Messages API with one forced tool whose
// input schema is the lesson schema; the tool is never executed, its input
// is the reply.
type anthropic struct{ endpoint }

func (p *anthropic) Reflect(ctx context.Context, req Request) (string, error) {
	tool := "emit_" + req.Name
	body := map[string]any{
		"model":       p.model,
		"max_tokens":  req.MaxTokens,
		"temperature": 0,
		"system":      req.System,
		"messages":    []openAIMessage{{Role: "user", Content: req.User}},
		"tools": []map[string]any{{
			"name":         tool,
			"description":  req.Purpose,
			"input_schema": req.Schema,
		}},
		"tool_choice": map[string]any{"type": "tool", "name": tool},
	}
	var resp struct {
		Content []struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := p.post(ctx, body, &resp); err != nil {
		return "", err
	}
	p.logger.InfoContext(ctx, "llm reply", "provider", p.name, "stop_reason", resp.StopReason,
		"in_tokens", resp.Usage.InputTokens, "out_tokens", resp.Usage.OutputTokens)
	switch resp.StopReason {
	case "max_tokens":
		return "", fmt.Errorf("%s: reply cut at max_tokens", p.name)
	case "refusal":
		return "", fmt.Errorf("%s: the model refused", p.name)
	}
	for _, b := range resp.Content {
		if b.Type == "tool_use" && b.Name == tool {
			return string(b.Input), nil
		}
	}
	return "", fmt.Errorf("%s: reply has no %s tool call (stop_reason %q)", p.name, tool, resp.StopReason)
}
