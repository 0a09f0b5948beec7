package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darwin-memo/darwin-memo-action/internal/storefind"
)

// TestMCPCommandSpeaksTheProtocolOnStdio runs `darwin-memo mcp` in process
// with its stdin and stdout connected to the SDK's own client.
func TestMCPCommandSpeaksTheProtocolOnStdio(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "lessons.json")
	var stderr bytes.Buffer
	clock := func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) }
	if code := run(context.Background(), []string{"add", "--store", store, "How do I run the integration tests?", "make itest"},
		&IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr, Now: clock}); code != 0 {
		t.Fatalf("add: %d %s", code, stderr.String())
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"mcp", "--store", store}, &IO{Stdin: inR, Stdout: outW, Stderr: &stderr, Now: clock})
		outW.Close()
		done <- code
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "consult", Arguments: map[string]any{"question": "how do I run the integration tests"}})
	if err != nil || res.IsError {
		t.Fatalf("consult: %v %+v", err, res)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(txt, "make itest") || !strings.Contains(txt, "<!-- darwin-memo: v") {
		t.Fatalf("consult text %q", txt)
	}
	cs.Close()
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("mcp exited %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mcp did not exit when its stdin closed")
	}
}

// findStore is the store storefind.Find gives a command working in dir (no home directory).
func findStore(dir string) string {
	p, _ := storefind.Find(dir, "")
	return p
}

// A directory named lessons.json is not a store: the search goes on to the parents, as git
// skips a .git that is not a repository, instead of ending on it and failing to read it.
func TestFindStoreSkipsADirectoryNamedLessonsJSON(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a")
	bogus := filepath.Join(sub, ".darwin-memo", "lessons.json")
	for _, d := range []string{filepath.Join(root, ".git"), filepath.Join(root, ".darwin-memo"), bogus} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(root, ".darwin-memo", "lessons.json")
	if got := findStore(sub); got != want {
		t.Errorf("without a store: %q, want %q", got, want)
	}
	if r := runCLI(t, "add", "--store", want, "Which logger do we use?", "zap, from internal/log"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	if got := findStore(sub); got != want {
		t.Errorf("with the root's store: %q, want %q", got, want)
	}
	t.Chdir(sub)
	if r := runCLI(t, "decide", "which logger do we use"); r.code != 0 || !strings.Contains(r.stdout, "zap, from internal/log") {
		t.Fatalf("decide: %+v", r)
	}
}

// decide --register in a subdirectory registers its ticket in the repository's store, the
// one decide without --register consults (docs/cli.md: without --store, decide uses the
// first store up to the repository root), instead of saying there is no store.
func TestDecideRegisterFindsTheRepositoryStore(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "pkg")
	for _, d := range []string{filepath.Join(root, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(root, ".darwin-memo", "lessons.json")
	if r := runCLI(t, "add", "--store", store, "Which logger do we use?", "zap, from internal/log"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	t.Chdir(sub)
	r := runCLI(t, "decide", "--register", "which logger do we use")
	if r.code != 0 || !strings.Contains(r.stdout, `"ticket":"darwin-memo-ticket: `) {
		t.Fatalf("decide --register from a subdirectory: %+v", r)
	}
	if r := runCLI(t, "stats", "--json", "--store", store); !strings.Contains(r.stdout, `"pending":1,`) {
		t.Fatalf("the repository's store holds no pending ticket: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(sub, ".darwin-memo")); err == nil {
		t.Fatal("decide --register created a store in the subdirectory")
	}
}

// With --store, a missing store is that path alone: the note does not claim that the
// working directory and its parents were searched.
func TestNoStoreNoteSaysWhetherItSearched(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	const searched = "looked in the working directory and its parents"
	for _, cmd := range []string{"decide", "query"} {
		if r := runCLI(t, cmd, "--store", filepath.Join(root, "none.json"), "how do I run the tests"); r.code != 0 || !strings.Contains(r.stderr, "no store at") || strings.Contains(r.stderr, searched) {
			t.Errorf("%s --store: %+v", cmd, r)
		}
		if r := runCLI(t, cmd, "how do I run the tests"); r.code != 0 || !strings.Contains(r.stderr, searched) {
			t.Errorf("%s without --store: %+v", cmd, r)
		}
	}
}

// decide --kind or --source ranks only some lessons, but CI verifies a ticket by re-running
// its query over all of them: a ticket naming a lesson that query does not retrieve would be
// refused, so decide gives none and says why instead of handing out a ticket that cannot settle.
func TestDecideWithFiltersGivesNoTicketCIWouldRefuse(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "lessons.json")
	for _, qa := range [][]string{
		{"How do I run the integration tests?", "make itest"},
		{"How do I run the integration tests quickly?", "make itest-fast"},
		{"Integration tests: how do I run them in CI?", "the itest job"},
		{"How do I run the integration tests on macOS?", "use colima"},
		// Lessons that answer the query in their answers, below the four above.
		{"--kind", "experience", "integration tests flaky port", "port 8080 must be free when you run the integration tests"},
		{"--source", "pr#9", "integration tests database", "docker compose up db first, then run the integration tests"},
	} {
		if r := runCLI(t, append([]string{"add", "--store", store}, qa...)...); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	base := filepath.Join(dir, "base.json")
	b, _ := os.ReadFile(store)
	if err := os.WriteFile(base, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const q = "how do I run the integration tests"
	for _, c := range []struct {
		filter     []string
		query      string
		answer     string
		wantTicket bool
	}{
		{[]string{"--kind", "experience"}, q, "port 8080 must be free", false},
		{[]string{"--source", "pr#9"}, q, "docker compose up db first", false},
		{[]string{"--kind", "experience"}, "integration tests flaky port", "port 8080 must be free", true},
	} {
		r := runCLI(t, append(append([]string{"decide", "--store", store}, c.filter...), c.query)...)
		var out struct {
			Answer *string
			Ticket *string
			Reason string
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || out.Answer == nil || !strings.HasPrefix(*out.Answer, c.answer) {
			t.Fatalf("%v: %+v (%v)", c.filter, r, err)
		}
		if !c.wantTicket {
			if out.Ticket != nil || out.Reason != "unverifiable_ticket" || !strings.Contains(r.stderr, "would refuse") {
				t.Errorf("%v: a ticket CI would refuse: %+v", c.filter, r)
			}
			continue
		}
		if out.Ticket == nil {
			t.Fatalf("%v: no ticket: %+v", c.filter, r)
		}
		body := filepath.Join(dir, "body.md")
		if err := os.WriteFile(body, []byte(*out.Ticket+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, "settle", "--store", store, "--base", base, "--body", body, "1"); r.code != 0 {
			t.Errorf("%v: the ticket decide gave was not settled: %+v", c.filter, r)
		}
	}
}

// A working directory reached through a symbolic link is searched as git searches it, along
// its real path: the repository's store is found, and a store in the parent of the link,
// outside the repository, is not taken for it.
func TestFindStoreFollowsTheRealPathOfASymlinkedDirectory(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "src", "repo")
	sub := filepath.Join(root, "pkg")
	outside := filepath.Join(tmp, "home")
	for _, d := range []string{filepath.Join(root, ".git"), sub, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(root, ".darwin-memo", "lessons.json")
	decoy := filepath.Join(outside, ".darwin-memo", "lessons.json")
	if r := runCLI(t, "add", "--store", want, "Which logger do we use?", "zap, from internal/log"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	if r := runCLI(t, "add", "--store", decoy, "Which logger do we use?", "logrus, from a store outside the repository"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	link := filepath.Join(outside, "pkg")
	if err := os.Symlink(sub, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	realWant, err := filepath.EvalSymlinks(want)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := filepath.EvalSymlinks(findStore(link)); err != nil || got != realWant {
		t.Errorf("findStore(%q) = %q (%v), want %q", link, got, err, realWant)
	}
	t.Chdir(link)
	if r := runCLI(t, "decide", "which logger do we use"); r.code != 0 || !strings.Contains(r.stdout, "zap, from internal/log") {
		t.Fatalf("decide in a symlinked directory: %+v", r)
	}
}

// TestDecideFindsTheStoreAndSaysWhyItIsSilent runs decide and query the way
// an agent does, in a subdirectory without --store: they find the
// repository's store, and a silent answer says whether there is no store,
// nothing relevant, or only imported lessons still on probation.
func TestDecideFindsTheStoreAndSaysWhyItIsSilent(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "pkg", "deep")
	for _, d := range []string{filepath.Join(root, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(sub)
	if r := runCLI(t, "decide", "how do I run the integration tests"); r.code != 0 || !strings.Contains(r.stdout, `"reason":"no_store"`) || !strings.Contains(r.stderr, "no store at") {
		t.Fatalf("no store: %+v", r)
	}
	foreign := filepath.Join(root, "foreign.json")
	if r := runCLI(t, "add", "--store", foreign, "How do I run the integration tests?", "make itest"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	store := filepath.Join(root, ".darwin-memo", "lessons.json")
	if r := runCLI(t, "add", "--store", store, "Which logger do we use?", "zap, from internal/log"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	if r := runCLI(t, "import", "--store", store, foreign); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	if r := runCLI(t, "decide", "which logger do we use"); r.code != 0 || !strings.Contains(r.stdout, "zap, from internal/log") {
		t.Fatalf("decide from a subdirectory did not find the repository's store: %+v", r)
	}
	r := runCLI(t, "decide", "how do I run the integration tests")
	if r.code != 0 || !strings.Contains(r.stdout, `"reason":"probation"`) || !strings.Contains(r.stdout, `"question":"How do I run the integration tests?","probation":3`) || !strings.Contains(r.stderr, "on probation") {
		t.Fatalf("probation: %+v", r)
	}
	if r := runCLI(t, "decide", "what colour is the dashboard"); !strings.Contains(r.stdout, `"reason":"nothing_relevant"`) {
		t.Fatalf("nothing relevant: %+v", r)
	}
	if r := runCLI(t, "query", "which logger"); r.code != 0 || !strings.Contains(r.stdout, "zap") {
		t.Fatalf("query from a subdirectory: %+v", r)
	}
}

// TestProvisionalDecideMeasuresImports: a store whose only match is an
// import on probation answers provisionally when asked, with a ticket CI can
// settle; positive settlements graduate the import even though a store this
// project creates pays supporters nothing (supporting_share 0).
func TestProvisionalDecideMeasuresImports(t *testing.T) {
	dir := t.TempDir()
	foreign, store := filepath.Join(dir, "foreign.json"), filepath.Join(dir, "lessons.json")
	if r := runCLI(t, "add", "--store", foreign, "How do I run the integration tests?", "make itest"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	if r := runCLI(t, "import", "--store", store, foreign); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	for i := 0; i < 3; i++ {
		r := runCLI(t, "decide", "--store", store, "--provisional", "how do I run the integration tests")
		if r.code != 0 || !strings.Contains(r.stdout, "(provisional: imported lesson on probation") {
			t.Fatalf("round %d: provisional decide: %+v", i, r)
		}
		var out struct{ Ticket string }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !strings.Contains(out.Ticket, " d=- s=") {
			t.Fatalf("round %d: ticket %q (%v)", i, out.Ticket, err)
		}
		body := filepath.Join(dir, "body.md")
		if err := os.WriteFile(body, []byte(out.Ticket+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		base := filepath.Join(dir, "base.json")
		b, _ := os.ReadFile(store)
		if err := os.WriteFile(base, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, "settle", "--store", store, "--base", base, "--body", body, "2"); r.code != 0 {
			t.Fatalf("round %d: settle: %+v", i, r)
		}
	}
	r := runCLI(t, "decide", "--store", store, "how do I run the integration tests")
	if r.code != 0 || strings.Contains(r.stdout, "provisional") || !strings.Contains(r.stdout, `"answer":"make itest`) {
		t.Fatalf("after three positive settlements the import should have graduated and decide: %+v", r)
	}
}

// darwin-memo mcp answers every request written before its stdin closes and exits 0; a line
// that is not JSON ends it, after the answers before it, with exit 1 and the reason on stderr.
func TestMCPCommandAnswersUntilItsInputEnds(t *testing.T) {
	store := fixtureStore(t)
	const (
		initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
		initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		consult     = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"consult","arguments":{"question":"how do I run the integration tests"}}}`
	)
	for _, tt := range []struct {
		name   string
		lines  []string
		code   int
		stderr string
	}{
		{"requests then EOF", []string{initialize, initialized, consult}, exitOK, ""},
		{"a line that is not JSON", []string{initialize, initialized, consult, "not json at all"}, exitError, "mcp server: reading a JSON-RPC message: invalid character"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"mcp", "--store", store},
				&IO{Stdin: strings.NewReader(strings.Join(tt.lines, "\n") + "\n"), Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { return fixed }})
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.stderr)
			}
			for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout %q lacks %s", stdout.String(), want)
				}
			}
		})
	}
}
