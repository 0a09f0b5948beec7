//go:build ollama_e2e

// End-to-end tests against a REAL Ollama server serving the tiny random-weight
// model of internal/tinygguf. Run them with .ci/ollama-e2e.sh, which builds the
// server, generates and registers the model, and sets:
//
//	OLLAMA_E2E_HOST   base URL of the server, e.g. http://127.0.0.1:41234
//	OLLAMA_E2E_MODEL  name of the registered model, e.g. darwin-memo-tiny
//
// The model's weights are random, so its text is gibberish: the tests pin no
// text, only protocol facts (done:true, token counts, JSON validity exactly
// when done_reason is "stop", repeatability) and that nothing it says gets
// through the encoder's grounding check.
package encode_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// e2eTarget returns a client for the server named by the environment, or
// skips the test with a message saying how to run it.
func e2eTarget(t *testing.T) (*api.Client, string) {
	t.Helper()
	host, model := os.Getenv("OLLAMA_E2E_HOST"), os.Getenv("OLLAMA_E2E_MODEL")
	if host == "" || model == "" {
		t.Skip("real-Ollama e2e test: OLLAMA_E2E_HOST and OLLAMA_E2E_MODEL are not set; run .ci/ollama-e2e.sh")
	}
	u, err := url.Parse(host)
	if err != nil || u.Scheme == "" || u.Host == "" {
		t.Fatalf("OLLAMA_E2E_HOST = %q: want a base URL such as http://127.0.0.1:11434 (%v)", host, err)
	}
	return api.NewClient(u, &http.Client{Timeout: 2 * time.Minute}), model
}

// lessonSchema is the shape the encoder asks for: 0..5 question/answer
// lessons, each citing document ids.
var lessonSchema = json.RawMessage(`{
 "type": "object",
 "properties": {
  "lessons": {
   "type": "array", "maxItems": 5,
   "items": {
    "type": "object",
    "properties": {
     "question": {"type": "string"},
     "answer": {"type": "string"},
     "evidence": {"type": "array", "items": {"type": "string"}}
    },
    "required": ["question", "answer", "evidence"]
   }
  }
 },
 "required": ["lessons"]
}`)

type chatResult struct {
	content string
	chunks  int
	final   api.ChatResponse
	sawDone bool
}

func chat(ctx context.Context, c *api.Client, req *api.ChatRequest) (chatResult, error) {
	var r chatResult
	err := c.Chat(ctx, req, func(resp api.ChatResponse) error {
		r.chunks++
		r.content += resp.Message.Content
		if resp.Done {
			r.sawDone, r.final = true, resp
		}
		return nil
	})
	return r, err
}

func TestOllamaE2EChatSchemaStream(t *testing.T) {
	client, model := e2eTarget(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	stream := true
	req := func() *api.ChatRequest {
		return &api.ChatRequest{
			Model:  model,
			Stream: &stream,
			Format: lessonSchema,
			Messages: []api.Message{
				{Role: "system", Content: "Extract lessons for coding agents as JSON."},
				{Role: "user", Content: "PR #7: fix flaky TestParseDate by pinning the time zone to UTC in parse_test.go."},
			},
			Options: map[string]any{"temperature": 0, "seed": 42, "num_predict": 1024},
		}
	}

	start := time.Now()
	first, err := chat(ctx, client, req())
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	t.Logf("first call: %v, %d chunks, done_reason %q, eval_count %d, %q",
		time.Since(start), first.chunks, first.final.DoneReason, first.final.EvalCount, first.content)
	if !first.sawDone {
		t.Fatal("stream ended without done:true")
	}
	if first.final.EvalCount <= 0 || first.final.PromptEvalCount <= 0 {
		t.Errorf("eval_count = %d, prompt_eval_count = %d, want both > 0", first.final.EvalCount, first.final.PromptEvalCount)
	}
	switch first.final.DoneReason {
	case "stop":
		if !json.Valid([]byte(first.content)) {
			t.Errorf("done_reason stop but content is not valid JSON: %q", first.content)
		}
	case "length":
		// Cut off at num_predict: a prefix of schema-valid JSON; the encoder must reject it.
	default:
		t.Errorf("done_reason = %q, want stop or length", first.final.DoneReason)
	}
	if first.chunks < 2 {
		t.Errorf("streamed %d chunks, want several (one per token plus the final one)", first.chunks)
	}

	second, err := chat(ctx, client, req())
	if err != nil {
		t.Fatalf("second Chat: %v", err)
	}
	if second.content != first.content || second.final.DoneReason != first.final.DoneReason {
		t.Errorf("temperature 0 + fixed seed is not repeatable:\n first %q (%s)\nsecond %q (%s)",
			first.content, first.final.DoneReason, second.content, second.final.DoneReason)
	}
}

func TestOllamaE2EUnknownModel(t *testing.T) {
	client, _ := e2eTarget(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := chat(ctx, client, &api.ChatRequest{
		Model:    "darwin-memo-no-such-model",
		Messages: []api.Message{{Role: "user", Content: "hi"}},
	})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Fatalf("Chat with an unknown model: error = %#v, want a 404 api.StatusError", err)
	}
}

func TestOllamaE2EDeadline(t *testing.T) {
	client, model := e2eTarget(t)
	// Without a format the random model rarely emits an end token: a tight
	// deadline must stop the call promptly with context.DeadlineExceeded.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := chat(ctx, client, &api.ChatRequest{
		Model:    model,
		Messages: []api.Message{{Role: "user", Content: "write forever"}},
		Options:  map[string]any{"temperature": 0, "seed": 1, "num_predict": 100000},
	})
	// api v0.17.4 ignores the scanner's error, so a deadline hit while reading
	// the stream can return nil: then the missing done:true is the only signal.
	switch {
	case r.sawDone:
		t.Fatalf("call finished (done_reason %q, %d tokens) before a 300 ms deadline; want it cut off", r.final.DoneReason, r.final.EvalCount)
	case err == nil:
		t.Logf("deadline hit mid-stream: Chat returned nil after %d chunks and no done:true (api v0.17.4 pitfall)", r.chunks)
	case !errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("Chat past its deadline: error = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled call returned after %v, want promptly", d)
	}
}
