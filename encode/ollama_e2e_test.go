//go:build ollama_e2e

// End-to-end tests against a REAL Ollama server serving the tiny random-weight
// model of internal/tinygguf. Run them with .ci/ollama-e2e.sh, which builds the
// server, generates and registers the model, and sets:
//
//	OLLAMA_E2E_HOST   base URL of the server, e.g. http://127.0.0.1:41234
//	OLLAMA_E2E_MODEL  registered model name(s), comma-separated, e.g.
//	                  darwin-memo-tiny,darwin-memo-tiny-s5 (the first one is
//	                  used where one model is enough)
//
// The model's weights are random, so its text is gibberish: the tests pin no
// text, only protocol facts (a streamed reply that ends with done:true, token
// counts, JSON validity exactly when done_reason is "stop", repeatability)
// and that nothing it writes gets through the encoder's checks.
package encode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/darwin-memo/darwin-memo-action/encode"
)

// e2eTarget returns the server's base URL and the model names from the
// environment, or skips the test with a message saying how to run it.
func e2eTarget(t *testing.T) (*url.URL, []string) {
	t.Helper()
	host, list := os.Getenv("OLLAMA_E2E_HOST"), os.Getenv("OLLAMA_E2E_MODEL")
	if host == "" || list == "" {
		t.Skip("real-Ollama e2e test: OLLAMA_E2E_HOST and OLLAMA_E2E_MODEL are not set; run .ci/ollama-e2e.sh")
	}
	u, err := url.Parse(host)
	if err != nil || u.Scheme == "" || u.Host == "" {
		t.Fatalf("OLLAMA_E2E_HOST = %q: want a base URL such as http://127.0.0.1:11434 (%v)", host, err)
	}
	var models []string
	for _, m := range strings.Split(list, ",") {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	if len(models) == 0 {
		t.Fatalf("OLLAMA_E2E_MODEL = %q names no model", list)
	}
	return u, models
}

// exchange is one HTTP request/response pair seen by a recorder.
type exchange struct {
	method, path string
	reqBody      []byte
	status       int
	contentType  string
	respBody     []byte
}

// recorder is an http.RoundTripper that keeps a copy of every request and
// response body that passes through it, so a test can check what the real
// server sent on the wire while the code under test reads it normally.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	log  []*exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	x := &exchange{method: req.Method, path: req.URL.Path}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		x.reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	x.status, x.contentType = resp.StatusCode, resp.Header.Get("Content-Type")
	resp.Body = &teeBody{ReadCloser: resp.Body, x: x, mu: &r.mu}
	r.mu.Lock()
	r.log = append(r.log, x)
	r.mu.Unlock()
	return resp, nil
}

type teeBody struct {
	io.ReadCloser
	x  *exchange
	mu *sync.Mutex
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	b.x.respBody = append(b.x.respBody, p[:n]...)
	b.mu.Unlock()
	return n, err
}

func (r *recorder) exchanges(path string) []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []exchange
	for _, x := range r.log {
		if x.path == path {
			out = append(out, *x)
		}
	}
	return out
}

// ndjson splits a streamed /api/chat body into its messages.
func ndjson(t *testing.T, body []byte) []api.ChatResponse {
	t.Helper()
	var out []api.ChatResponse
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var m api.ChatResponse
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stream line %d is not a chat message: %v: %q", len(out)+1, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// seededRand is the nonce source: the same seed gives the same prompt.
func seededRand() io.Reader { return rand.NewChaCha8([32]byte{'e', '2', 'e'}) }

// mergedPR is a realistic merged PR: a flaky test fixed by pinning the time
// zone, with a CI failure it fixed, an addressed review comment and an
// explicit Lesson: line, so the deterministic encoder finds lessons in it.
func mergedPR() *encode.PR {
	return &encode.PR{
		Owner: "octocat", Repo: "calendar", Number: 7,
		Title: "Fix flaky TestParseDate by pinning the time zone to UTC",
		Body: "TestParseDate failed on runners whose local time zone is not UTC, because parseDate used time.Local.\n\n" +
			"Lesson: Which time zone does calendar.parseDate use? Always UTC; tests must not depend on the runner's local zone.\n",
		Labels:            []string{"bug", "tests"},
		Author:            "alice",
		AuthorAssociation: "MEMBER",
		MergedAt:          time.Date(2026, 11, 21, 22, 50, 1, 0, time.UTC),
		Files: []encode.File{
			{Path: "calendar/parse.go", Status: "modified", Additions: 3, Deletions: 1,
				Patch: "@@ -10,7 +10,9 @@ func parseDate(s string) (time.Time, error) {\n-\treturn time.ParseInLocation(layout, s, time.Local)\n+\t// Dates are stored in UTC; never depend on the machine's zone.\n+\treturn time.ParseInLocation(layout, s, time.UTC)\n }\n"},
			{Path: "calendar/parse_test.go", Status: "modified", Additions: 4, Deletions: 0,
				Patch: "@@ -1,5 +1,9 @@\n+func TestParseDateIgnoresLocalZone(t *testing.T) {\n+\tt.Setenv(\"TZ\", \"Asia/Tokyo\")\n+\tcheckParse(t)\n+}\n"},
		},
		Reviews: []encode.ReviewComment{{
			ID: 1001, Path: "calendar/parse.go", Author: "bob", AuthorAssociation: "OWNER",
			Body:      "Please add a test that sets TZ to a non-UTC zone, so this cannot regress.",
			Addressed: true,
		}},
		Commits: []encode.Commit{
			{SHA: "1111111aaaaaaa1111111aaaaaaa1111111aaaaa", Message: "calendar: parse dates in UTC"},
			{SHA: "2222222bbbbbbb2222222bbbbbbb2222222bbbbb", Message: "calendar: test parseDate under TZ=Asia/Tokyo"},
		},
		CIFixed: []encode.CIFailure{{Test: "calendar.TestParseDate", Message: "got 2026-11-21 09:00:00 +0900 JST, want 2026-11-21 00:00:00 +0000 UTC"}},
	}
}

// quietPR has nothing the deterministic encoder can turn into a lesson: any
// lesson encoding it yields must have come from the model.
func quietPR() *encode.PR {
	pr := mergedPR()
	pr.Number, pr.Body, pr.Reviews, pr.CIFixed = 8, "Tidy up the parser's comments.", nil, nil
	return pr
}

func ids(cs []encode.Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

type e2eEncoder struct {
	enc  *encode.Encoder
	rec  *recorder
	logs *bytes.Buffer
}

func newE2EEncoder(t *testing.T, base *url.URL, model string) e2eEncoder {
	t.Helper()
	rec := &recorder{next: http.DefaultTransport.(*http.Transport).Clone()}
	var logs bytes.Buffer
	p, err := encode.NewProvider("ollama:"+model,
		encode.WithBaseURL(base.String()),
		encode.WithHTTPClient(&http.Client{Transport: rec, Timeout: 2 * time.Minute}),
		encode.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	)
	if err != nil {
		t.Fatalf("NewProvider: %v", err)
	}
	return e2eEncoder{enc: encode.New(p, encode.WithRand(seededRand()), encode.WithCallTimeout(60*time.Second)), rec: rec, logs: &logs}
}

// TestOllamaE2EEncode runs the encoder's Ollama provider against the real
// server: the call must finish well inside its deadline, the streamed reply
// must end with done:true, and no lesson the random model wrote may pass.
func TestOllamaE2EEncode(t *testing.T) {
	base, models := e2eTarget(t)
	for _, model := range models {
		for _, tc := range []struct {
			name string
			pr   func() *encode.PR
		}{
			{"merged PR with lesson signals", mergedPR},
			{"PR without lesson signals", quietPR},
		} {
			t.Run(model+"/"+tc.name, func(t *testing.T) { testEncode(t, base, model, tc.pr) })
		}
	}
}

func testEncode(t *testing.T, base *url.URL, model string, pr func() *encode.PR) {
	provider := "ollama:" + model
	e := newE2EEncoder(t, base, model)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	start := time.Now()
	res, err := e.enc.Encode(ctx, pr(), nil, nil)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	t.Logf("Encode took %v; requested %q; fallback %q; %d candidates", elapsed, res.Requested, res.Fallback, len(res.Candidates))
	for _, c := range res.Candidates {
		t.Logf("  from %s: added=%v rejected=%q Q=%q A=%q", c.From, c.Added(), c.Rejected, c.Question, c.Answer)
	}
	if elapsed > 60*time.Second {
		t.Errorf("Encode took %v, want well under a minute for a 136k-parameter model", elapsed)
	}
	if res.Requested != provider {
		t.Errorf("Requested = %q, want %q", res.Requested, provider)
	}

	// The wire: one streamed /api/chat exchange that ends with done:true.
	chats := e.rec.exchanges("/api/chat")
	if len(chats) != 1 {
		t.Fatalf("%d /api/chat requests, want exactly 1 (no retries against a healthy server)", len(chats))
	}
	x := chats[0]
	var sent map[string]any
	if err := json.Unmarshal(x.reqBody, &sent); err != nil {
		t.Fatalf("request body: %v", err)
	}
	if stream, ok := sent["stream"]; ok && stream != true {
		t.Errorf("request stream = %v, want streaming", stream)
	}
	if !bytes.Equal(compactJSON(t, sent["format"]), compactJSON(t, encode.Schema)) {
		t.Errorf("request format = %s, want encode.Schema", compactJSON(t, sent["format"]))
	}
	opts, _ := sent["options"].(map[string]any)
	if opts["temperature"] != float64(0) || opts["seed"] == nil || opts["num_predict"] == nil {
		t.Errorf("request options = %v, want temperature 0, a seed and num_predict", opts)
	}
	if x.status != http.StatusOK || !strings.HasPrefix(x.contentType, "application/x-ndjson") {
		t.Fatalf("response %d %q, want 200 application/x-ndjson", x.status, x.contentType)
	}
	msgs := ndjson(t, x.respBody)
	if len(msgs) < 2 {
		t.Fatalf("stream had %d messages, want several", len(msgs))
	}
	last := msgs[len(msgs)-1]
	if !last.Done || slices.ContainsFunc(msgs[:len(msgs)-1], func(m api.ChatResponse) bool { return m.Done }) {
		t.Fatalf("done:true must be on the last message only; last = %+v", last)
	}
	if last.EvalCount <= 0 || last.PromptEvalCount <= 0 {
		t.Errorf("eval_count %d, prompt_eval_count %d, want both > 0", last.EvalCount, last.PromptEvalCount)
	}
	var text strings.Builder
	for _, m := range msgs {
		text.WriteString(m.Message.Content)
	}
	t.Logf("server: %d messages, done_reason %q, prompt %d tokens, reply %d tokens in %v: %.200q",
		len(msgs), last.DoneReason, last.PromptEvalCount, last.EvalCount, last.TotalDuration, text.String())
	switch last.DoneReason {
	case "stop":
		if !json.Valid([]byte(text.String())) {
			t.Errorf("done_reason stop, but the constrained reply is not valid JSON: %q", text.String())
		}
	case "length":
		if res.Fallback == "" {
			t.Errorf("reply cut at num_predict (done_reason length) but the encoder did not fall back")
		}
	default:
		t.Errorf("done_reason = %q, want stop or length", last.DoneReason)
	}

	// The point: nothing a random-weight model writes is accepted.
	for _, c := range res.Candidates {
		if c.From != "none" && c.Rejected == "" {
			t.Errorf("accepted a lesson from %s (random weights cannot ground one): Q=%q A=%q cites=%v",
				c.From, c.Question, c.Answer, c.Cites)
		}
	}
	// What is added is exactly what the deterministic encoder finds
	// when the encoder fell back, and nothing when the model validly
	// answered with zero lessons.
	det, err := encode.New(nil, encode.WithRand(seededRand())).Encode(ctx, pr(), nil, nil)
	if err != nil {
		t.Fatalf("deterministic Encode: %v", err)
	}
	want := []string{}
	if res.Fallback != "" {
		want = ids(det.Added())
		if !strings.Contains(res.Fallback, provider) {
			t.Errorf("Fallback = %q, want it to name %s", res.Fallback, provider)
		}
	}
	if got := ids(res.Added()); !slices.Equal(got, want) {
		t.Errorf("added %v, want %v (fallback %q)", got, want, res.Fallback)
	}

	// Prompt bodies never reach the logs.
	if strings.Contains(e.logs.String(), "Asia/Tokyo") || strings.Contains(e.logs.String(), "time.Local") {
		t.Errorf("the provider logged PR text:\n%s", e.logs.String())
	}

	// Same PR, same seed, same nonce: the same result from a real server.
	again, err := newE2EEncoder(t, base, model).enc.Encode(ctx, pr(), nil, nil)
	if err != nil {
		t.Fatalf("second Encode: %v", err)
	}
	if !slices.Equal(ids(again.Candidates), ids(res.Candidates)) || again.Fallback != res.Fallback {
		t.Errorf("not repeatable: first %v (%q), second %v (%q)", ids(res.Candidates), res.Fallback, ids(again.Candidates), again.Fallback)
	}
}

func compactJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, ok := v.([]byte)
	if rm, isRaw := v.(json.RawMessage); isRaw {
		b, ok = rm, true
	}
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("compact %q: %v", b, err)
	}
	// Re-marshal through any so that key order does not matter.
	var norm any
	if err := json.Unmarshal(out.Bytes(), &norm); err != nil {
		t.Fatal(err)
	}
	nb, _ := json.Marshal(norm)
	return nb
}

// shortPrompt is a request for which the default tiny model, unlike with
// the encoder's long prompt, writes whole (gibberish) lessons and stops.
type shortPrompt struct{ encode.Provider }

func (p shortPrompt) Reflect(ctx context.Context, req encode.Request) (string, error) {
	req.System = "Extract lessons for coding agents as JSON."
	req.User = "PR #7: fix flaky TestParseDate by pinning the time zone to UTC in parse_test.go."
	return p.Provider.Reflect(ctx, req)
}

// TestOllamaE2EGibberishRejected sends the real model's complete,
// schema-valid lessons through the encoder's checks: every one must be
// rejected, and the encoder must fall back to the deterministic encoder.
func TestOllamaE2EGibberishRejected(t *testing.T) {
	base, models := e2eTarget(t)
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			p, err := encode.NewProvider("ollama:"+model, encode.WithBaseURL(base.String()),
				encode.WithHTTPClient(&http.Client{Timeout: time.Minute}))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			res, err := encode.New(shortPrompt{p}, encode.WithRand(seededRand())).Encode(ctx, mergedPR(), nil, nil)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			var fromModel []encode.Candidate
			for _, c := range res.Candidates {
				if c.From != "none" {
					fromModel = append(fromModel, c)
					t.Logf("model lesson rejected=%q Q=%.80q A=%.80q cites=%v", c.Rejected, c.Question, c.Answer, c.Cites)
				}
			}
			if len(fromModel) == 0 {
				t.Skipf("%s wrote no complete lesson for this prompt (fallback %q): the rejection path was not exercised", model, res.Fallback)
			}
			for _, c := range fromModel {
				if c.Rejected == "" {
					t.Errorf("accepted a lesson written by random weights: Q=%q A=%q cites=%v", c.Question, c.Answer, c.Cites)
				}
			}
			if !strings.Contains(res.Fallback, "rejected") {
				t.Errorf("Fallback = %q, want it to say every lesson the model wrote was rejected", res.Fallback)
			}
			det, err := encode.New(nil, encode.WithRand(seededRand())).Encode(ctx, mergedPR(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ids(res.Added()), ids(det.Added()); !slices.Equal(got, want) {
				t.Errorf("added %v, want the deterministic encoder's %v", got, want)
			}
		})
	}
}

// TestOllamaE2EUnknownModel: the real server's 404 surfaces as an
// *encode.HTTPError naming the status, and Encode falls back.
func TestOllamaE2EUnknownModel(t *testing.T) {
	base, _ := e2eTarget(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := encode.NewProvider("ollama:darwin-memo-no-such-model", encode.WithBaseURL(base.String()),
		encode.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Reflect(ctx, encode.Request{System: "s", User: "u", Schema: encode.Schema, MaxTokens: 16})
	var he *encode.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Fatalf("Reflect with an unknown model: error = %v, want an *encode.HTTPError with status 404", err)
	}
	res, err := encode.New(p, encode.WithRand(seededRand())).Encode(ctx, mergedPR(), nil, nil)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !strings.Contains(res.Fallback, "404") {
		t.Errorf("Fallback = %q, want it to report the 404", res.Fallback)
	}
	if len(res.Added()) == 0 {
		t.Error("the fallback to the deterministic encoder added nothing for a PR with an explicit Lesson: line")
	}
}

// TestOllamaE2EDeadline: a context deadline stops a real call promptly.
func TestOllamaE2EDeadline(t *testing.T) {
	base, models := e2eTarget(t)
	p, err := encode.NewProvider("ollama:"+models[0], encode.WithBaseURL(base.String()),
		encode.WithHTTPClient(&http.Client{Timeout: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	// A nonce no other test uses, so the server cannot answer from its
	// prompt cache: evaluating the ~2,400-token prompt alone takes far longer
	// than the deadline.
	nonce := rand.NewChaCha8([32]byte{'d', 'e', 'a', 'd', 'l', 'i', 'n', 'e'})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = encode.New(p, encode.WithRand(nonce)).Encode(ctx, mergedPR(), nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Encode past its deadline: error = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Encode returned %v after a 30 ms deadline, want promptly", d)
	}
}

// TestOllamaE2EChatSchemaStream talks to the server with the official api
// client alone (no encoder), so a failure here points at the server or the
// model rather than at the encoder.
func TestOllamaE2EChatSchemaStream(t *testing.T) {
	base, models := e2eTarget(t)
	model := models[0]
	client := api.NewClient(base, &http.Client{Timeout: 2 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	run := func() (string, api.ChatResponse, int) {
		t.Helper()
		var (
			content strings.Builder
			final   api.ChatResponse
			chunks  int
			done    bool
		)
		err := client.Chat(ctx, &api.ChatRequest{
			Model:  model,
			Format: encode.Schema,
			Messages: []api.Message{
				{Role: "system", Content: "Extract lessons for coding agents as JSON."},
				{Role: "user", Content: "PR #7: fix flaky TestParseDate by pinning the time zone to UTC in parse_test.go."},
			},
			Options: map[string]any{"temperature": 0, "seed": 42, "num_predict": 1024},
		}, func(r api.ChatResponse) error {
			chunks++
			content.WriteString(r.Message.Content)
			if r.Done {
				done, final = true, r
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Chat: %v", err)
		}
		if !done {
			t.Fatal("stream ended without done:true")
		}
		return content.String(), final, chunks
	}

	text, final, chunks := run()
	t.Logf("%d chunks, done_reason %q, eval_count %d: %.200q", chunks, final.DoneReason, final.EvalCount, text)
	if final.EvalCount <= 0 || chunks < 2 {
		t.Errorf("eval_count %d over %d chunks, want a streamed reply", final.EvalCount, chunks)
	}
	if (final.DoneReason == "stop") != json.Valid([]byte(text)) {
		t.Errorf("done_reason %q but JSON valid = %v: with a schema the reply is valid exactly when it stopped", final.DoneReason, json.Valid([]byte(text)))
	}
	text2, final2, _ := run()
	if text2 != text || final2.DoneReason != final.DoneReason {
		t.Errorf("temperature 0 + fixed seed is not repeatable:\n first %q (%s)\nsecond %q (%s)", text, final.DoneReason, text2, final2.DoneReason)
	}
}
