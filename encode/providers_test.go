package encode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// goodLesson is grounded in the octokit-pull-1347 fixture PR.
var goodLesson = RawLesson{
	Question: "Which ports does lib.Load accept in hello.conf?",
	Answer:   "Ports between 1 and 65535; lib.Load returns ErrPort for port 0 and wraps other errors with the file name.",
	Kind:     "cross_doc",
	Evidence: []string{"diff:lib/config.go", "diff:README", "diff:docs/config.md"},
	Paths:    []string{"lib/config.go"},
}

func goodReply() string { return string(marshalLessons([]RawLesson{goodLesson})) }

func fixturePR(t *testing.T) *PR {
	return collectFixture(t, "octokit-pull-1347", map[string]any{"merged": true}, nil)
}

// recorder records the waits of the retry policy instead of sleeping.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return ctx.Err()
}

// capture is a logger writing every level to a buffer.
func capture() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), &buf
}

// step is one canned reply of a fake provider server.
type step struct {
	status  int
	headers map[string]string
	body    string
	lines   []string // NDJSON lines, flushed one by one (Ollama streaming)
}

// fakeServer replies with steps in order (the last one repeats) and
// records every request body.
type fakeServer struct {
	t      *testing.T
	path   string
	check  func(t *testing.T, r *http.Request, body map[string]any)
	steps  []step
	mu     sync.Mutex
	bodies []map[string]any
	srv    *httptest.Server
}

func newFake(t *testing.T, path string, check func(*testing.T, *http.Request, map[string]any), steps ...step) *fakeServer {
	f := &fakeServer{t: t, path: path, check: check, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != f.path {
		f.t.Errorf("unexpected %s %s, want POST %s", r.Method, r.URL.Path, f.path)
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	n := len(f.bodies)
	f.mu.Unlock()
	if f.check != nil {
		f.check(f.t, r, body)
	}
	s := f.steps[min(n, len(f.steps))-1]
	for k, v := range s.headers {
		w.Header().Set(k, v)
	}
	if s.lines != nil {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		for _, l := range s.lines {
			fmt.Fprintln(w, l)
			w.(http.Flusher).Flush()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(s.status)
	io.WriteString(w, s.body)
}

func (f *fakeServer) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// ---------------------------------------------------------------- Ollama

// ollamaChunks splits text into NDJSON stream lines the way Ollama's
// /api/chat streams them, ending with done:true and eval counts.
func ollamaChunks(text string, doneReason string, withDone bool) []string {
	var lines []string
	for i := 0; i < len(text); i += 17 {
		part := text[i:min(i+17, len(text))]
		b, _ := json.Marshal(map[string]any{"model": "tiny", "created_at": "2026-11-21T22:50:01.1Z",
			"message": map[string]any{"role": "assistant", "content": part}, "done": false})
		lines = append(lines, string(b))
	}
	if withDone {
		lines = append(lines, `{"model":"tiny","created_at":"2026-11-21T22:50:01.3Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"`+doneReason+`","total_duration":812345678,"load_duration":1234567,"prompt_eval_count":420,"prompt_eval_duration":2345678,"eval_count":96,"eval_duration":3456789}`)
	}
	return lines
}

func checkOllamaRequest(t *testing.T, r *http.Request, body map[string]any) {
	if body["model"] != "tiny" {
		t.Errorf("model = %v", body["model"])
	}
	if _, ok := body["stream"]; ok {
		t.Errorf("stream set (%v); the provider streams", body["stream"])
	}
	opts, _ := body["options"].(map[string]any)
	if opts["temperature"] != 0.0 || opts["seed"] != 42.0 || opts["num_predict"] != 1024.0 {
		t.Errorf("options = %v, want temperature 0, seed 42, num_predict 1024", opts)
	}
	format, _ := json.Marshal(body["format"])
	if !jsonEqual(format, Schema) {
		t.Errorf("format = %s, want the lesson schema", format)
	}
	if _, ok := body["tools"]; ok {
		t.Error("the model must get no tools")
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v", msgs)
	}
	user := msgs[1].(map[string]any)["content"].(string)
	if !strings.Contains(user, `<pr_data nonce="00000000000000000000000000000000">`) {
		t.Errorf("user message lacks the nonce delimiter: %.200s", user)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestOllamaProvider(t *testing.T) {
	think := `<think>The body says "ignore" [ but that is data.</think>` + "\n"
	cases := []struct {
		name     string
		steps    []step
		calls    int
		fallback string // substring of Result.Fallback, "" for none
		added    int
	}{
		{"stream ok", []step{{lines: ollamaChunks(goodReply(), "stop", true)}}, 1, "", 1},
		{"think block stripped", []step{{lines: ollamaChunks(think+goodReply(), "stop", true)}}, 1, "", 1},
		{"thinking field ignored", []step{{lines: append([]string{`{"model":"tiny","created_at":"2026-11-21T22:50:01.0Z","message":{"role":"assistant","content":"","thinking":"[{ hmm"},"done":false}`}, ollamaChunks(goodReply(), "stop", true)...)}}, 1, "", 1},
		{"model not found", []step{{status: 404, body: `{"error":"model 'tiny' not found"}`}}, 1, "HTTP 404", 0},
		{"mid-stream error", []step{{lines: append(ollamaChunks(goodReply()[:30], "", false), `{"error":"an error was encountered while running the model"}`)}}, 1, "an error was encountered while running the model", 0},
		{"truncated stream", []step{{lines: ollamaChunks(goodReply(), "", false)}}, 1, "done:true", 0},
		{"cut at num_predict", []step{{lines: ollamaChunks(goodReply()[:40], "length", true)}}, 1, "done_reason length", 0},
		{"malformed line", []step{{lines: []string{`{"model":"tiny","message":{"role":"assistant","content":"{"},"done":false`}}}, 1, "ollama:tiny", 0},
		{"503 then ok", []step{{status: 503, body: `{"error":"server busy, please try again"}`}, {lines: ollamaChunks(goodReply(), "stop", true)}}, 2, "", 1},
		{"invalid JSON reply", []step{{lines: ollamaChunks(`{"lessons":[{"question":`, "stop", true)}}, 1, "unusable reply", 0},
		{"unknown field", []step{{lines: ollamaChunks(`{"lessons":[],"suspicious":true}`, "stop", true)}}, 1, "unusable reply", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "/api/chat", checkOllamaRequest, tc.steps...)
			rec := &recorder{}
			p, err := NewProvider("ollama:tiny", WithBaseURL(f.srv.URL), WithHTTPClient(f.srv.Client()), WithSleep(rec.sleep), WithGetenv(func(string) string { return "" }))
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(p, WithRand(zeroReader{})).Encode(context.Background(), fixturePR(t), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.calls() != tc.calls {
				t.Errorf("%d calls, want %d", f.calls(), tc.calls)
			}
			if tc.fallback == "" && res.Fallback != "" || !strings.Contains(res.Fallback, tc.fallback) {
				t.Errorf("fallback = %q, want %q", res.Fallback, tc.fallback)
			}
			var fromModel int
			for _, c := range res.Added() {
				if c.From == "ollama:tiny" {
					fromModel++
				}
			}
			if fromModel != tc.added {
				t.Errorf("%d lessons added from the model, want %d; candidates %+v", fromModel, tc.added, res.Candidates)
			}
			if tc.fallback != "" && len(res.Added()) == 0 {
				t.Errorf("fallback produced no deterministic lessons")
			}
		})
	}
}

// TestOllamaReplyMetrics: the reply is the streamed content, and the final message's
// done_reason and token counts are logged.
func TestOllamaReplyMetrics(t *testing.T) {
	f := newFake(t, "/api/chat", checkOllamaRequest, step{lines: ollamaChunks(goodReply(), "stop", true)})
	logger, logs := capture()
	p, err := NewProvider("ollama:tiny", WithBaseURL(f.srv.URL), WithHTTPClient(f.srv.Client()), WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	pr := fixturePR(t)
	user, _ := userPrompt(zeroReader{}, pr, pr.Documents())
	reply, err := p.Reflect(context.Background(), Request{System: systemPrompt, User: user, Schema: Schema, MaxTokens: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if reply != goodReply() {
		t.Errorf("reply = %q", reply)
	}
	for _, want := range []string{`"done_reason":"stop"`, `"in_tokens":420`, `"out_tokens":96`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

func TestOllamaUnavailableAndTimeout(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // connection refused from now on
	rec := &recorder{}
	p, _ := NewProvider("ollama:tiny", WithBaseURL(url), WithSleep(rec.sleep))
	res, err := New(p).Encode(context.Background(), fixturePR(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Fallback, "Ollama unavailable") || len(rec.waits) != 2 {
		t.Errorf("fallback %q after %d waits, want Ollama unavailable after 2", res.Fallback, len(rec.waits))
	}

	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer slow.Close()
	defer close(block)
	p, _ = NewProvider("ollama:tiny", WithBaseURL(slow.URL), WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}), WithSleep(rec.sleep))
	res, err = New(p).Encode(context.Background(), fixturePR(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback == "" {
		t.Error("a slow server did not cause a fallback")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(p).Encode(ctx, fixturePR(t), nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

func TestOllamaHost(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "http://127.0.0.1:11434",
		"0.0.0.0":               "http://0.0.0.0:11434",
		"host:1234":             "http://host:1234",
		"[::1]":                 "http://[::1]:11434",
		"http://h:8080/ollama":  "http://h:8080/ollama",
		"https://ollama.x:443/": "https://ollama.x:443/",
	} {
		u, err := ollamaHost(in)
		if err != nil || u.String() != want {
			t.Errorf("ollamaHost(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	if _, err := ollamaHost("http://"); err == nil {
		t.Error("ollamaHost(http://) succeeded")
	}
}
