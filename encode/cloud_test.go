package encode

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-test-SECRETKEY0123456789abcdef"

func openAIOK(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-x",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content, "refusal": nil}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 812, "completion_tokens": 95, "total_tokens": 907},
	})
	return string(b)
}

func checkOpenAIRequest(key string) func(*testing.T, *http.Request, map[string]any) {
	return func(t *testing.T, r *http.Request, body map[string]any) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			t.Errorf("Authorization = %q", got)
		}
		if body["temperature"] != 0.0 || body["seed"] != 42.0 || body["max_tokens"] != 1024.0 || body["stream"] != false {
			t.Errorf("body params = %v %v %v %v", body["temperature"], body["seed"], body["max_tokens"], body["stream"])
		}
		if _, ok := body["tools"]; ok {
			t.Error("the model must get no tools")
		}
	}
}

func formatOf(body map[string]any) string {
	rf, ok := body["response_format"].(map[string]any)
	if !ok {
		return "plain"
	}
	return rf["type"].(string)
}

func TestOpenAIProvider(t *testing.T) {
	unsupported := `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error","param":"response_format","code":null}}`
	objUnsupported := `{"error":{"message":"response_format json_object is not supported by this server","type":"invalid_request_error","param":"response_format","code":null}}`
	cases := []struct {
		name     string
		steps    []step
		formats  string // response_format of each request
		waits    []time.Duration
		fallback string
		added    int
	}{
		{"json_schema ok", []step{{status: 200, body: openAIOK(goodReply())}}, "json_schema", nil, "", 1},
		{"fenced reply with prose", []step{{status: 200, body: openAIOK("Here you go:\n```json\n" + goodReply() + "\n```\nDone.")}}, "json_schema", nil, "", 1},
		{"json_schema unsupported -> json_object", []step{{status: 400, body: unsupported}, {status: 200, body: openAIOK(goodReply())}}, "json_schema json_object", nil, "", 1},
		{"both unsupported -> plain", []step{{status: 400, body: unsupported}, {status: 400, body: objUnsupported}, {status: 200, body: openAIOK(goodReply())}}, "json_schema json_object plain", nil, "", 1},
		{"429 retry-after-ms", []step{{status: 429, headers: map[string]string{"retry-after-ms": "250", "x-request-id": "req_1"}, body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}, {status: 200, body: openAIOK(goodReply())}}, "json_schema json_schema", []time.Duration{250 * time.Millisecond}, "", 1},
		{"429 Retry-After seconds", []step{{status: 429, headers: map[string]string{"Retry-After": "2"}, body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}, {status: 200, body: openAIOK(goodReply())}}, "json_schema json_schema", []time.Duration{2 * time.Second}, "", 1},
		{"500 x-should-retry false", []step{{status: 500, headers: map[string]string{"x-should-retry": "false"}, body: `{"error":{"message":"The server had an error","type":"server_error"}}`}}, "json_schema", nil, "HTTP 500", 0},
		{"409 x-should-retry true", []step{{status: 409, headers: map[string]string{"x-should-retry": "true"}, body: `{"error":{"message":"conflict"}}`}, {status: 200, body: openAIOK(goodReply())}}, "json_schema json_schema", []time.Duration{500 * time.Millisecond}, "", 1},
		{"503 three times", []step{{status: 503, body: `{"error":{"message":"The engine is currently overloaded","type":"server_error"}}`}}, "json_schema json_schema json_schema", []time.Duration{500 * time.Millisecond, time.Second}, "after 3 attempts", 0},
		{"quota 429 not retried", []step{{status: 429, body: `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`}}, "json_schema", nil, "insufficient_quota", 0},
		{"long Retry-After falls back", []step{{status: 429, headers: map[string]string{"Retry-After": "3600"}, body: `{"error":{"message":"Rate limit"}}`}}, "json_schema", nil, "longer than the 1m0s limit", 0},
		{"400 other error not retried", []step{{status: 400, body: `{"error":{"message":"'messages' must contain the word 'json'","type":"invalid_request_error"}}`}}, "json_schema", nil, "HTTP 400", 0},
		{"finish_reason length", []step{{status: 200, body: strings.Replace(openAIOK(`{"lessons":[`), `"stop"`, `"length"`, 1)}}, "json_schema", nil, "cut at max_tokens", 0},
		{"refusal", []step{{status: 200, body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`}}, "json_schema", nil, "refused", 0},
		{"no choices", []step{{status: 200, body: `{"choices":[]}`}}, "json_schema", nil, "no choices", 0},
		{"ungrounded lessons fall back", []step{{status: 200, body: openAIOK(string(marshalLessons([]RawLesson{{Question: "How do Kubernetes operators deploy Terraform?", Answer: "Helm charts orchestrate Terraform modules via operators nightly.", Kind: "inferred", Evidence: []string{"pr"}, Paths: []string{}}})))}}, "json_schema", nil, "every lesson the model wrote was rejected", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "/v1/chat/completions", checkOpenAIRequest(testKey), tc.steps...)
			rec := &recorder{}
			env := map[string]string{"OPENAI_API_KEY": testKey, "OPENAI_BASE_URL": f.srv.URL + "/v1"}
			p, err := NewProvider("openai:gpt-x", WithGetenv(func(k string) string { return env[k] }), WithHTTPClient(f.srv.Client()), WithSleep(rec.sleep))
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(p).Encode(context.Background(), fixturePR(t), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var formats []string
			for _, b := range f.bodies {
				formats = append(formats, formatOf(b))
			}
			if got := strings.Join(formats, " "); got != tc.formats {
				t.Errorf("formats = %q, want %q", got, tc.formats)
			}
			if len(rec.waits) != len(tc.waits) {
				t.Errorf("waits = %v, want %v", rec.waits, tc.waits)
			} else {
				for i := range tc.waits {
					if rec.waits[i] != tc.waits[i] {
						t.Errorf("waits = %v, want %v", rec.waits, tc.waits)
					}
				}
			}
			if tc.fallback == "" && res.Fallback != "" || !strings.Contains(res.Fallback, tc.fallback) {
				t.Errorf("fallback = %q, want %q", res.Fallback, tc.fallback)
			}
			added := 0
			for _, c := range res.Added() {
				if c.From == "openai:gpt-x" {
					added++
				}
			}
			if added != tc.added {
				t.Errorf("%d model lessons added, want %d", added, tc.added)
			}
		})
	}
}

func anthropicOK(input string) string {
	return `{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_01","name":"emit_lessons","input":` + input + `}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":900,"output_tokens":120}}`
}

func TestAnthropicProvider(t *testing.T) {
	check := func(t *testing.T, r *http.Request, body map[string]any) {
		if r.Header.Get("x-api-key") != testKey || r.Header.Get("anthropic-version") != "2023-06-01" {
			t.Errorf("headers: key %q version %q", r.Header.Get("x-api-key"), r.Header.Get("anthropic-version"))
		}
		tools, _ := body["tools"].([]any)
		if len(tools) != 1 {
			t.Fatalf("tools = %v, want exactly the lesson tool", body["tools"])
		}
		schema, _ := json.Marshal(tools[0].(map[string]any)["input_schema"])
		if !jsonEqual(schema, Schema) {
			t.Errorf("input_schema = %s", schema)
		}
		tc := body["tool_choice"].(map[string]any)
		if tc["type"] != "tool" || tc["name"] != "emit_lessons" {
			t.Errorf("tool_choice = %v", tc)
		}
		if body["max_tokens"] != 1024.0 || body["temperature"] != 0.0 || !strings.Contains(body["system"].(string), "untrusted") {
			t.Errorf("max_tokens %v temperature %v", body["max_tokens"], body["temperature"])
		}
	}
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}`
	cases := []struct {
		name     string
		steps    []step
		calls    int
		fallback string
		added    int
	}{
		{"tool_use ok", []step{{status: 200, body: anthropicOK(goodReply())}}, 1, "", 1},
		{"529 then ok", []step{{status: 529, body: overloaded}, {status: 200, body: anthropicOK(goodReply())}}, 2, "", 1},
		{"429 retry-after too long", []step{{status: 429, headers: map[string]string{"retry-after": "120"}, body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`}}, 1, "asks to wait 2m0s", 0},
		{"spend limit not retried", []step{{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"spend limit","details":{"error_code":"enforced_spend_limit_reached"}}}`}}, 1, "HTTP 429 rate_limit_error", 0},
		{"max_tokens", []step{{status: 200, body: strings.Replace(anthropicOK(`{"lessons":[]}`), `"tool_use","stop_sequence"`, `"max_tokens","stop_sequence"`, 1)}}, 1, "cut at max_tokens", 0},
		{"text instead of tool", []step{{status: 200, body: `{"type":"message","content":[{"type":"text","text":"Sure!"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`}}, 1, "no emit_lessons tool call", 0},
		{"401", []step{{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_2"}`}}, 1, "authentication_error", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "/v1/messages", check, tc.steps...)
			rec := &recorder{}
			p, err := NewProvider("anthropic:claude-x", WithAPIKey(testKey), WithBaseURL(f.srv.URL), WithHTTPClient(f.srv.Client()), WithSleep(rec.sleep))
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(p).Encode(context.Background(), fixturePR(t), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.calls() != tc.calls {
				t.Errorf("%d calls, want %d", f.calls(), tc.calls)
			}
			if tc.fallback == "" && res.Fallback != "" || !strings.Contains(res.Fallback, tc.fallback) {
				t.Errorf("fallback = %q, want %q", res.Fallback, tc.fallback)
			}
			added := 0
			for _, c := range res.Added() {
				if c.From == "anthropic:claude-x" {
					added++
				}
			}
			if added != tc.added {
				t.Errorf("%d model lessons added, want %d", added, tc.added)
			}
		})
	}
}

func TestGitHubModelsProvider(t *testing.T) {
	const token = "ghs_workflowTOKEN0123456789abcdef"
	check := func(t *testing.T, r *http.Request, body map[string]any) {
		checkOpenAIRequest(token)(t, r, body)
		if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") != "2022-11-28" {
			t.Errorf("headers %v", r.Header)
		}
		if body["model"] != "openai/gpt-4.1-mini" {
			t.Errorf("model = %v", body["model"])
		}
	}
	t.Run("ok", func(t *testing.T) {
		f := newFake(t, "/inference/chat/completions", check, step{status: 200, body: openAIOK(goodReply())})
		env := map[string]string{"GITHUB_TOKEN": token, "GITHUB_MODELS_URL": f.srv.URL + "/inference"}
		p, err := NewProvider("github:openai/gpt-4.1-mini", WithGetenv(func(k string) string { return env[k] }), WithHTTPClient(f.srv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := New(p).Encode(context.Background(), fixturePR(t), nil, nil)
		if err != nil || res.Fallback != "" || len(res.Added()) != 1 || res.Added()[0].From != "github:openai/gpt-4.1-mini" {
			t.Fatalf("res %+v err %v", res, err)
		}
	})
	t.Run("daily quota 429 falls back at once", func(t *testing.T) {
		f := newFake(t, "/inference/chat/completions", check, step{status: 429,
			headers: map[string]string{"Retry-After": "43200", "x-ratelimit-type": "UserByModelByDay", "x-github-request-id": "C0DE:1"},
			body:    `{"error":{"code":"RateLimitReached","message":"Rate limit of 150 per 86400s exceeded for UserByModelByDay. Please wait 43200 seconds before retrying.","details":"Rate limit of 150 per 86400s exceeded for UserByModelByDay."}}`})
		rec := &recorder{}
		p, err := NewProvider("github:openai/gpt-4.1-mini", WithAPIKey(token), WithBaseURL(f.srv.URL+"/inference"), WithHTTPClient(f.srv.Client()), WithSleep(rec.sleep))
		if err != nil {
			t.Fatal(err)
		}
		res, err := New(p).Encode(context.Background(), fixturePR(t), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.calls() != 1 || len(rec.waits) != 0 || !strings.Contains(res.Fallback, "asks to wait 12h0m0s") {
			t.Errorf("calls %d waits %v fallback %q", f.calls(), rec.waits, res.Fallback)
		}
		if len(res.Added()) == 0 || res.Added()[0].From != "none" {
			t.Errorf("fallback lessons %+v", res.Added())
		}
	})
}

func TestNewProviderSpecs(t *testing.T) {
	env := func(k string) string { return "" }
	for _, tc := range []struct{ spec, err string }{
		{"", ""}, {"none", ""}, {"ollama:qwen3:8b", ""},
		{"openai:gpt-4o", "OPENAI_API_KEY"}, {"anthropic:claude", "ANTHROPIC_API_KEY"}, {"github:openai/gpt-4.1", "GITHUB_TOKEN"},
		{"ollama", "has no model"}, {"ollama:", "has no model"}, {"bard:x", "unknown provider"}, {"OpenAI:gpt-4o", "OPENAI_API_KEY"},
	} {
		p, err := NewProvider(tc.spec, WithGetenv(env))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("NewProvider(%q) error = %v, want %q", tc.spec, err, tc.err)
		}
		if none := tc.spec == "" || tc.spec == "none"; err == nil && none != (p == nil) {
			t.Errorf("NewProvider(%q) = %v, want nil exactly for none", tc.spec, p)
		}
		if err == nil && p != nil && p.Name() != tc.spec {
			t.Errorf("NewProvider(%q).Name() = %q", tc.spec, p.Name())
		}
	}
}

// TestKeysAndPromptsNeverLogged runs every failure path with a key the
// server echoes back and checks that neither the log nor the result holds
// the key or any prompt text.
func TestKeysAndPromptsNeverLogged(t *testing.T) {
	echo := `{"error":{"message":"Incorrect API key provided: ` + testKey + `. You can find your API key at platform.","type":"invalid_request_error","code":"invalid_api_key"}}`
	for _, steps := range [][]step{
		{{status: 401, body: echo}},
		{{status: 503, body: echo}},
		{{status: 200, body: openAIOK(goodReply())}},
	} {
		f := newFake(t, "/v1/chat/completions", nil, steps...)
		logger, buf := capture()
		rec := &recorder{}
		p, err := NewProvider("openai:gpt-x", WithAPIKey(testKey), WithBaseURL(f.srv.URL+"/v1"), WithHTTPClient(f.srv.Client()), WithLogger(logger), WithSleep(rec.sleep))
		if err != nil {
			t.Fatal(err)
		}
		res, err := New(p, WithLogger(logger), WithRand(zeroReader{})).Encode(context.Background(), fixturePR(t), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		log := buf.String()
		if log == "" {
			t.Error("nothing logged")
		}
		for _, secret := range []string{testKey, "SECRETKEY", "Amazing new feature", "00000000000000000000000000000000", "You write lessons", "hello.conf"} {
			if strings.Contains(log, secret) || strings.Contains(res.Fallback, secret) {
				t.Errorf("%q leaked: log %s\nfallback %s", secret, log, res.Fallback)
			}
		}
	}
	var herr *HTTPError
	f := newFake(t, "/v1/chat/completions", nil, step{status: 401, body: echo})
	p, _ := NewProvider("openai:gpt-x", WithAPIKey(testKey), WithBaseURL(f.srv.URL+"/v1"), WithHTTPClient(f.srv.Client()))
	_, err := p.Reflect(context.Background(), Request{Schema: Schema})
	if !errors.As(err, &herr) || herr.StatusCode != 401 || strings.Contains(err.Error(), "SECRETKEY") {
		t.Errorf("err = %v", err)
	}
}

func TestOpenAICompatibleWithoutKey(t *testing.T) {
	f := newFake(t, "/v1/chat/completions", func(t *testing.T, r *http.Request, _ map[string]any) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("Authorization sent without a key: %q", r.Header.Get("Authorization"))
		}
	}, step{status: 200, body: openAIOK(goodReply())})
	env := map[string]string{"OPENAI_BASE_URL": f.srv.URL + "/v1"}
	p, err := NewProvider("openai:qwen3", WithGetenv(func(k string) string { return env[k] }), WithHTTPClient(f.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(p).Encode(context.Background(), fixturePR(t), nil, nil)
	if err != nil || res.Fallback != "" || len(res.Added()) != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestCallTimeoutFallsBack(t *testing.T) {
	block := make(chan struct{})
	f := newFake(t, "/v1/chat/completions", func(*testing.T, *http.Request, map[string]any) { <-block }, step{status: 200, body: openAIOK(goodReply())})
	defer close(block)
	p, _ := NewProvider("openai:x", WithAPIKey("k"), WithBaseURL(f.srv.URL+"/v1"), WithHTTPClient(f.srv.Client()))
	res, err := New(p, WithCallTimeout(30*time.Millisecond)).Encode(context.Background(), fixturePR(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Fallback, "deadline exceeded") || len(res.Added()) == 0 {
		t.Errorf("fallback %q, added %d", res.Fallback, len(res.Added()))
	}
}
