package mcpserver_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

var clock = func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }

// writeStore writes a store holding lessons (question, answer pairs) to
// dir/lessons.json and returns its path and the ids in order.
func writeStore(t *testing.T, dir string, qa ...string) (string, []string) {
	t.Helper()
	path := filepath.Join(dir, "lessons.json")
	s := lessons.New(path, lessons.Options{Now: clock})
	var ids []string
	for i := 0; i+1 < len(qa); i += 2 {
		e, err := s.Add(lessons.NewLesson{Question: qa[i], Answer: qa[i+1]})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if err := s.SaveAs(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

// connect starts a server over path and returns a client session speaking
// the real protocol to it through the SDK's own client.
func connect(t *testing.T, path string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := mcpserver.New(mcpserver.Options{Store: path, Version: "test", Now: clock})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return res, sb.String()
}

func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return v
}

func TestListsToolsWithSchemasAndResource(t *testing.T) {
	path, _ := writeStore(t, t.TempDir(), "How do I run the integration tests?", "make itest; they need the fake GitHub on port 8080")
	cs := connect(t, path)
	ctx := context.Background()
	if got := cs.InitializeResult().ServerInfo.Name; got != "darwin-memo" {
		t.Errorf("server name %q", got)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "consult") {
		t.Errorf("instructions do not tell the model to consult: %q", cs.InitializeResult().Instructions)
	}
	want := map[string][]string{"consult": {"question"}, "search": {"query"}, "lesson": {"id"}}
	seen := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		seen[tool.Name] = true
		req, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if tool.Description == "" || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: want a description and a read-only annotation", tool.Name)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Required   []string                  `json:"required"`
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		if strings.Join(schema.Required, ",") != strings.Join(req, ",") {
			t.Errorf("%s: required %v, want %v", tool.Name, schema.Required, req)
		}
		for name, p := range schema.Properties {
			if p["description"] == nil {
				t.Errorf("%s.%s has no description for the model", tool.Name, name)
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("tools %v, want %v", seen, want)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if strings.Join(uris, ",") != mcpserver.ResourceURI {
		t.Errorf("resources %v", uris)
	}
}

func TestConsultAnswersWithAVerifiableTicket(t *testing.T) {
	path, ids := writeStore(t, t.TempDir(),
		"How do I run the integration tests?", "make itest; they need the fake GitHub on port 8080",
		"Which Go version builds the module?", "Go 1.24 or newer; go.mod says so")
	cs := connect(t, path)
	res, txt := call(t, cs, "consult", map[string]any{"question": "how do I run the integration tests"})
	if res.IsError {
		t.Fatalf("consult failed: %s", txt)
	}
	out := structured[mcpserver.ConsultOutput](t, res)
	if out.Silent || out.LessonID != ids[0] || !strings.Contains(out.Answer, "make itest") {
		t.Fatalf("consult = %+v", out)
	}
	if !strings.HasPrefix(out.Ticket, "<!-- darwin-memo: v") || !strings.Contains(txt, out.Ticket) || !strings.Contains(txt, "pull request body") {
		t.Fatalf("ticket %q not handed out with its instructions in %q", out.Ticket, txt)
	}
	if want := "Darwin-Memo: v"; !strings.HasPrefix(out.Trailer, want) || len(lessons.TrailerTicketLines("x\n\n"+out.Trailer)) != 1 {
		t.Fatalf("trailer %q", out.Trailer)
	}
	// Hosts that hand the model only the text content (not structuredContent) must not lose
	// the trailer form the tool's documentation promises.
	if !strings.Contains(txt, out.Trailer) {
		t.Fatalf("the text result lacks the trailer %q: %q", out.Trailer, txt)
	}
	// The line the agent pastes is the one the bot parses and verifies.
	body := "Fixes the flaky test.\n\n" + out.Ticket + "\n"
	tickets, errs := lessons.ParseTickets(body)
	if len(errs) > 0 || len(tickets) != 1 {
		t.Fatalf("ParseTickets(%q) = %v, %v", body, tickets, errs)
	}
	base, err := lessons.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := base.VerifyTicket(tickets[0], lessons.VerifyOptions{}); err != nil {
		t.Fatalf("the bot would refuse the consulted ticket: %v", err)
	}
}

func TestSilenceAndErrorsAgentsCanActOn(t *testing.T) {
	dir := t.TempDir()
	path, ids := writeStore(t, dir, "How do I run the integration tests?", "make itest; they need the fake GitHub on port 8080")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"living": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	cs := connect(t, path)
	csBad := connect(t, bad)
	csNone := connect(t, filepath.Join(dir, "missing", "lessons.json"))
	cases := []struct {
		name    string
		cs      *mcp.ClientSession
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"nothing relevant", cs, "consult", map[string]any{"question": "what colour is the kubernetes dashboard"}, false, "Do not invent one"},
		{"empty question", cs, "consult", map[string]any{"question": "  "}, true, "question is empty"},
		{"oversized question", cs, "consult", map[string]any{"question": strings.Repeat("tests ", 1000)}, true, "at most 4096"},
		{"top out of range", cs, "consult", map[string]any{"question": "integration tests", "top": 99}, true, "top must be between"},
		{"missing argument", cs, "consult", map[string]any{}, true, "question"},
		{"no store yet", csNone, "consult", map[string]any{"question": "integration tests"}, false, "no store"},
		{"no store yet, search", csNone, "search", map[string]any{"query": "integration tests"}, false, "no store"},
		{"malformed store", csBad, "consult", map[string]any{"question": "integration tests"}, true, "darwin-memo doctor"},
		{"unknown id", cs, "lesson", map[string]any{"id": "0123456789ab"}, true, "unknown lesson id"},
		{"known id", cs, "lesson", map[string]any{"id": ids[0]}, false, "integration tests"},
		{"search hit", cs, "search", map[string]any{"query": "integration tests port"}, false, ids[0]},
		{"search silent", cs, "search", map[string]any{"query": "dashboard colour"}, false, "No lesson qualifies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, txt := call(t, c.cs, c.tool, c.args)
			if res.IsError != c.isError || !strings.Contains(txt, c.want) {
				t.Errorf("IsError=%v %q; want IsError=%v containing %q", res.IsError, txt, c.isError, c.want)
			}
		})
	}
	// The server is still up after every error.
	if res, txt := call(t, cs, "consult", map[string]any{"question": "how do I run the integration tests"}); res.IsError || !strings.Contains(txt, "make itest") {
		t.Fatalf("after errors: %q", txt)
	}
	// Read-only: the directory is byte for byte as it was.
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Errorf("the server changed the directory:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}

// snapshot maps every file under dir to its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		m[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func TestRereadsAStoreThatChangesOnDisk(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeStore(t, dir, "How do I run the integration tests?", "make itest")
	cs := connect(t, path)
	if _, txt := call(t, cs, "consult", map[string]any{"question": "how do I release the action"}); !strings.Contains(txt, "Do not invent") {
		t.Fatalf("before: %q", txt)
	}
	s, err := lessons.LoadWith(context.Background(), path, lessons.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(lessons.NewLesson{Question: "How do I release the action?", Answer: "push a v1.x.y tag; the release workflow moves v1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Make the change visible even on filesystems with coarse timestamps.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if _, txt := call(t, cs, "consult", map[string]any{"question": "how do I release the action"}); !strings.Contains(txt, "release workflow moves v1") {
		t.Fatalf("after the store changed: %q", txt)
	}
}

func TestResourceRendersTheLivingLessons(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeStore(t, dir, "How do I run the integration tests?", "make itest")
	cs := connect(t, path)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" || !strings.Contains(res.Contents[0].Text, "make itest") {
		t.Fatalf("resource = %+v", res.Contents)
	}
	csNone := connect(t, filepath.Join(dir, "nope.json"))
	res, err = csNone.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("missing store: %v %+v", err, res)
	}
}

// A store replaced on disk by one of the same size within the file system's timestamp
// granularity (two CLI commands in a row, each saving by rename) is re-read too: the
// server compares the file's identity, not only its size and modification time.
func TestRereadsAStoreReplacedWithinOneTimestampTick(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeStore(t, dir, "How do I run the integration tests?", "make itest")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, path)
	if _, txt := call(t, cs, "consult", map[string]any{"question": "how do I run the integration tests"}); !strings.Contains(txt, "make itest") {
		t.Fatalf("before: %q", txt)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "make itest", "make jtest", 1)
	if changed == string(data) {
		t.Fatal("the answer is not in the file")
	}
	if err := storedoc.WriteFileAtomic(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, txt := call(t, cs, "consult", map[string]any{"question": "how do I run the integration tests"}); !strings.Contains(txt, "make jtest") {
		t.Fatalf("after the store was replaced by one of the same size and time: %q", txt)
	}
}
