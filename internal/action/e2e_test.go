package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

const storePath = ".darwin-memo/lessons.json"

var fixedNow = func() time.Time { return time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC) }

// harness is one repository on the fake GitHub plus a programmable CI measurer.
type harness struct {
	t     testing.TB
	git   *ghfake.GitRepo
	world *ghfake.World

	mu       sync.Mutex
	measure  map[int]settle.Result // by pull request number
	measured map[int]int           // calls per pull request
	measErr  error
	// fileLimits lower GitHub's file-size limits for the runs (zero: GitHub's).
	fileLimits FileLimits
}

func newHarness(t testing.TB, store []byte) *harness {
	t.Helper()
	files := map[string]string{"README.md": "# demo\n", "src/app.go": "package app\n"}
	if store != nil {
		files[storePath] = string(store)
	}
	h := &harness{t: t, git: ghfake.NewGitRepo("acme", "widgets", "main", files),
		measure: map[int]settle.Result{}, measured: map[int]int{}}
	h.world = ghfake.NewWorld(h.git, ghfake.Repo{})
	t.Cleanup(h.world.Close)
	return h
}

// seedStore returns a store with three lessons and their ids.
func seedStore(t *testing.T) ([]byte, []*lessons.Entry) {
	t.Helper()
	s := lessons.New(storePath, lessons.Options{Now: fixedNow})
	var es []*lessons.Entry
	for _, l := range [][2]string{
		{"How do I run the integration tests?", "Run make itest with DOCKER_HOST unset; the suite starts its own containers."},
		{"Which logger does the payments service use?", "Use the zap logger from internal/log; never fmt.Println in payments."},
		{"How are database migrations applied?", "Migrations in db/migrations run with goose up before the server starts."},
	} {
		e, err := s.Add(lessons.NewLesson{Question: l[0], Answer: l[1], Sources: []string{"seed"}})
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b, es
}

// ticketFor consults the store on main and returns the store-free ticket line.
func (h *harness) ticketFor(query string) string {
	h.t.Helper()
	b, ok := h.git.File("main", storePath)
	if !ok {
		h.t.Fatal("no store on main")
	}
	s, err := lessons.Parse(storePath, b)
	if err != nil {
		h.t.Fatal(err)
	}
	d, err := s.Decide(query, lessons.DecideOptions{})
	if err != nil || d.Silent {
		h.t.Fatalf("decide %q: silent=%v err=%v", query, d != nil && d.Silent, err)
	}
	return d.StoreFreeLine()
}

func (h *harness) merge(title, body string, m *settle.Result) *ghfake.GitPull {
	h.t.Helper()
	pr := h.git.MergePull(ghfake.MergeSpec{Title: title, Body: body,
		Files: map[string][]byte{"src/" + strings.ReplaceAll(strings.ToLower(title), " ", "_") + ".go": []byte("package app\n// " + title + "\n")}})
	if m != nil {
		h.mu.Lock()
		h.measure[pr.Number] = *m
		h.mu.Unlock()
	}
	return pr
}

func (h *harness) setMeasurement(pr int, m settle.Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.measure[pr] = m
}

func (h *harness) measurer(ctx context.Context, _ *github.Client, owner, repo string, pr *github.PullRequest, _ *settle.FlakyHistory) (*settle.Result, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.measured[pr.GetNumber()]++
	if h.measErr != nil {
		return nil, h.measErr
	}
	m, ok := h.measure[pr.GetNumber()]
	if !ok {
		return &settle.Result{Outcome: settle.Abstained, Reason: "no CI results"}, nil
	}
	return &m, nil
}

type runResult struct {
	code    int
	outputs map[string]string
	stdout  string
	summary string
}

// run runs `darwin-memo action` for an event with inputs.
func (h *harness) run(event, payload string, inputs map[string]string) runResult {
	h.t.Helper()
	dir := h.t.TempDir()
	evPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(evPath, []byte(payload), 0o644); err != nil {
		h.t.Fatal(err)
	}
	env := map[string]string{
		"INPUT_GITHUB-TOKEN": "ghs_secret_token_value", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": evPath,
		"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": h.world.URL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_RUN_ID": "777", "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	for k, v := range inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	var out bytes.Buffer
	code := Main(context.Background(), Options{
		Getenv: func(k string) string { return env[k] }, Stdout: &out, Now: fixedNow, Measure: h.measurer,
		Policy: ghapi.Policy{Sleep: ghfake.NoSleep, MaxRetries: 1}, Sleep: ghfake.NoSleep, FileLimits: h.fileLimits,
	})
	res := runResult{code: code, stdout: out.String(), outputs: parseOutputs(h.t, filepath.Join(dir, "output"))}
	if b, err := os.ReadFile(filepath.Join(dir, "summary")); err == nil {
		res.summary = string(b)
	}
	if strings.Contains(res.stdout, "ghs_secret_token_value") && !strings.Contains(res.stdout, "::add-mask::ghs_secret_token_value") {
		h.t.Fatal("token printed unmasked")
	}
	if strings.Count(res.stdout, "ghs_secret_token_value") > 1 {
		h.t.Fatalf("token printed beyond the mask command:\n%s", res.stdout)
	}
	return res
}

func parseOutputs(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return ghfake.ParseOutputs(b)
}

func mergedEvent(n int) string {
	return fmt.Sprintf(`{"action":"closed","number":%d,"pull_request":{"number":%d,"merged":true},"repository":{"default_branch":"main"}}`, n, n)
}

// botStore parses the store on the bot branch.
func (h *harness) botStore(branch string) *lessons.Store {
	h.t.Helper()
	b, ok := h.git.File(branch, storePath)
	if !ok {
		h.t.Fatalf("no store on %s", branch)
	}
	s, err := lessons.Parse(storePath, b)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) record(branch string) Record {
	h.t.Helper()
	b, _ := h.git.File(branch, storePath)
	r, err := ReadRecord(b)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func measured(delta int) *settle.Result {
	return &settle.Result{Outcome: settle.Measured, Delta: delta, Source: settle.SourceArtifacts, Before: settle.Side{SHA: ghfake.SHA("before")}, After: settle.Side{SHA: ghfake.SHA("after")}}
}

func (h *harness) openBotPRs() []ghfake.GitPull {
	var out []ghfake.GitPull
	for _, p := range h.git.Pulls() {
		if p.Head == DefaultBranch && p.State == "open" {
			out = append(out, p)
		}
	}
	return out
}

func mustCode(t *testing.T, r runResult, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit %d, want %d\n%s", r.code, want, r.stdout)
	}
}

func TestE2EMergedPRWithTicketOpensBotPR(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	line := h.ticketFor("how do I run the integration tests")
	pr := h.merge("Fix flaky itest", "Fixes the integration tests.\n\n"+line+"\n\nLesson: Run make itest twice when the docker daemon restarts.", measured(2))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	o := res.outputs
	if o["result"] != "settled" || o["delta"] != "2" || o["settled-tickets"] != "1" || o["pull-request-operation"] != "created" || o["pull-request-number"] == "" {
		t.Fatalf("outputs %v\n%s", o, res.stdout)
	}
	bots := h.openBotPRs()
	if len(bots) != 1 {
		t.Fatalf("bot PRs %+v", bots)
	}
	bot := bots[0]
	if !strings.Contains(bot.Body, "#1") || !strings.Contains(bot.Body, "Settlements") || !strings.Contains(bot.Body, "```mermaid") && len(h.record(DefaultBranch).Trend) > 1 {
		t.Fatalf("body:\n%s", bot.Body)
	}
	if strings.Join(bot.Labels, ",") != "darwin-memo" {
		t.Fatalf("labels %v", bot.Labels)
	}
	s := h.botStore(DefaultBranch)
	e, ok := s.Entry(es[0].ID)
	if !ok || e.Energy <= 1.0 || e.Uses != 1 {
		t.Fatalf("decider not credited: %+v", e)
	}
	if s.TickCount() != 1 {
		t.Fatalf("tick %d, want 1 (one landed settlement)", s.TickCount())
	}
	if got := s.Config().SupportingShare; got != 0.25 {
		t.Fatalf("supporting_share %v: an existing store keeps its persisted 0.25", got)
	}
	if o["births"] != "1" {
		t.Fatalf("births %s (Lesson: line)", o["births"])
	}
	if _, ok := h.git.File(DefaultBranch, DefaultRender); !ok {
		t.Fatal("no rendered LESSONS.md on the bot branch")
	}
	if h.git.CommitAuthor(h.git.Ref(DefaultBranch)) != "" {
		t.Fatal("bot commit has an author; it would not be verified")
	}
	if main, _ := h.git.File("main", storePath); !bytes.Equal(main, store) {
		t.Fatal("main's store changed: the action must only write its branch")
	}
	if !strings.Contains(res.summary, "Settlements") {
		t.Fatalf("step summary:\n%s", res.summary)
	}
}

func TestE2ESecondMergeUpdatesSameBotPRAndRerunIsIdempotent(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	bot1 := h.openBotPRs()[0]
	pr2 := h.merge("Fix payments logging", h.ticketFor("which logger does the payments service use"), measured(-2))
	res := h.run("pull_request_target", mergedEvent(pr2.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "updated" || res.outputs["pull-request-number"] != fmt.Sprint(bot1.Number) {
		t.Fatalf("outputs %v", res.outputs)
	}
	if n := len(h.openBotPRs()); n != 1 {
		t.Fatalf("%d open bot PRs", n)
	}
	s := h.botStore(DefaultBranch)
	a, _ := s.Entry(es[0].ID)
	if a == nil || a.Energy <= 1.0 {
		t.Fatalf("first settlement lost: %+v", a)
	}
	if b, ok := s.Entry(es[1].ID); ok && b.Energy >= 1.0 {
		t.Fatalf("second settlement missing: %+v", b)
	}
	body := h.openBotPRs()[0].Body
	if !strings.Contains(body, fmt.Sprintf("#%d", pr1.Number)) || !strings.Contains(body, fmt.Sprintf("#%d", pr2.Number)) {
		t.Fatalf("body lost a settlement:\n%s", body)
	}
	rec := h.record(DefaultBranch)
	if len(rec.Processed) != 2 {
		t.Fatalf("record %+v", rec)
	}
	// Rerun (same event again, and a dispatch): nothing settles twice, nothing is measured again.
	before, _ := h.git.File(DefaultBranch, storePath)
	for _, ev := range []struct{ name, payload string }{{"pull_request_target", mergedEvent(pr2.Number)}, {"workflow_dispatch", fmt.Sprintf(`{"inputs":{"pr-number":"%d"}}`, pr1.Number)}} {
		res = h.run(ev.name, ev.payload, nil)
		mustCode(t, res, 0)
		if res.outputs["result"] != "noop" || res.outputs["settled-tickets"] != "0" {
			t.Fatalf("%s rerun: %v", ev.name, res.outputs)
		}
	}
	after, _ := h.git.File(DefaultBranch, storePath)
	if !bytes.Equal(before, after) {
		t.Fatal("rerun changed the store")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.measured[pr1.Number] != 1 || h.measured[pr2.Number] != 1 {
		t.Fatalf("measured again: %v", h.measured)
	}
}

func TestE2EPendingCIStaysQueuedThenSettles(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), &settle.Result{Outcome: settle.Pending, Reason: "CI at the base is still running"})
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	// The tickets of the first reading are written at once (held until settled), so the bot
	// pull request opens with the record and no lesson moved.
	if res.outputs["result"] != "pending" || res.outputs["pull-request-operation"] != "created" || res.outputs["settled-tickets"] != "0" {
		t.Fatalf("outputs %v", res.outputs)
	}
	if rec := h.record(DefaultBranch); len(rec.Held[itoa(pr.Number)]) != 1 || len(rec.Processed) != 0 {
		t.Fatalf("record %+v", rec)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Energy != 1 || e.Uses != 0 {
		t.Fatalf("a pending PR moved a lesson: %+v", e)
	}
	// CI completes; a later run (any event) settles it.
	h.setMeasurement(pr.Number, *measured(1))
	res = h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	if e, _ := h.botStore(DefaultBranch).Entry(es[0].ID); e == nil || e.Energy <= 1 {
		t.Fatalf("not settled: %+v", e)
	}
}

func TestE2EAbstentionLeavesStoreUntouched(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	pr := h.merge("Docs only", h.ticketFor("how are database migrations applied"), nil) // no CI: abstain
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "abstained" || res.outputs["pull-request-operation"] != "none" {
		t.Fatalf("outputs %v", res.outputs)
	}
	if h.git.Ref(DefaultBranch) != "" || len(h.git.Pulls()) != 1 {
		t.Fatal("abstention wrote something")
	}
	if main, _ := h.git.File("main", storePath); !bytes.Equal(main, store) {
		t.Fatal("store changed")
	}
	if !strings.Contains(res.stdout, "::warning::") {
		t.Fatal("no warning for the abstention")
	}
}

func TestE2EBotPRMergedByPersonBetweenRuns(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	bot := h.openBotPRs()[0]
	if _, err := h.git.MergeOpenPull(bot.Number); err != nil {
		t.Fatal(err)
	}
	energyAfterFirst := h.botStore("main")
	e1, _ := energyAfterFirst.Entry(es[0].ID)
	pr3 := h.merge("Fix payments", h.ticketFor("which logger does the payments service use"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr3.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "created" || res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	// The first settlement is on main already; this run only charges it one tick of upkeep.
	if e, _ := s.Entry(es[0].ID); e == nil || math.Abs(e.Energy-(e1.Energy-0.05)) > 1e-9 || e.Uses != 1 {
		t.Fatalf("first lesson %+v vs after first merge %+v", e, e1)
	}
	rec := h.record(DefaultBranch)
	if len(rec.Processed) < 2 || !rec.has(pr1.Number) || !rec.has(pr3.Number) {
		t.Fatalf("record %+v", rec)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.measured[pr1.Number] != 1 {
		t.Fatal("merged bot PR made the action settle #1 again")
	}
}

func TestE2EMainEditedByPersonIsKept(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	// A person pins the migrations lesson and rewrites its answer on main.
	mainStore := h.botStore("main")
	if !mainStore.Pin(es[2].ID) {
		t.Fatal("pin")
	}
	e, _ := mainStore.Entry(es[2].ID)
	e.Answer = "Migrations run with goose up; never edit an applied migration."
	edited, err := mainStore.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	h.git.CommitFiles("main", "maintainer", "pin migrations lesson", map[string][]byte{storePath: edited})
	pr2 := h.merge("Fix payments", h.ticketFor("which logger does the payments service use"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr2.Number), nil)
	mustCode(t, res, 0)
	s := h.botStore(DefaultBranch)
	got, _ := s.Entry(es[2].ID)
	if got == nil || !got.Pinned || !strings.Contains(got.Answer, "never edit") {
		t.Fatalf("person's edit lost: %+v", got)
	}
	if a, _ := s.Entry(es[0].ID); a == nil || a.Energy <= 1 {
		t.Fatalf("bot's first settlement lost: %+v", a)
	}
	if len(h.record(DefaultBranch).Processed) != 2 {
		t.Fatal("record lost a PR")
	}
	// The bot branch is rebuilt on the new main.
	if p := h.git.Parents(h.git.Ref(DefaultBranch)); len(p) != 1 || p[0] != h.git.Ref("main") {
		t.Fatalf("bot commit not on main's tip: %v", p)
	}
}

func TestE2ENothingToDoAndEmptiedBotPRCloses(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["result"] != "noop" || res.outputs["pull-request-operation"] != "none" || h.git.Ref(DefaultBranch) != "" {
		t.Fatalf("outputs %v", res.outputs)
	}
	pr1 := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	mustCode(t, h.run("pull_request_target", mergedEvent(pr1.Number), nil), 0)
	bot := h.openBotPRs()[0]
	// A person copies the bot branch's store to main by hand: the bot PR has nothing left.
	b, _ := h.git.File(DefaultBranch, storePath)
	md, _ := h.git.File(DefaultBranch, DefaultRender)
	h.git.CommitFiles("main", "maintainer", "take lessons", map[string][]byte{storePath: b, DefaultRender: md})
	res = h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "closed" || h.git.Pull(bot.Number).State != "closed" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
}

func TestE2EMalformedStoreStopsBeforeAnyWrite(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []byte(`{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [{"question": 3}], "graveyard": []}`))
	pr := h.merge("Anything", "Lesson: Always run go vet before pushing.", measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 1)
	if !strings.Contains(res.stdout, "entries") || !strings.Contains(res.stdout, "::error::") {
		t.Fatalf("error does not name the JSON path:\n%s", res.stdout)
	}
	if h.git.Ref(DefaultBranch) != "" {
		t.Fatal("wrote a branch")
	}
}

func TestE2EDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), map[string]string{"dry-run": "true"})
	mustCode(t, res, 0)
	if res.outputs["result"] != "settled" || res.outputs["pull-request-operation"] != "none" || h.git.Ref(DefaultBranch) != "" || len(h.git.Pulls()) != 1 {
		t.Fatalf("dry run wrote: %v", res.outputs)
	}
	if !strings.Contains(res.stdout, "Dry run") {
		t.Fatalf("dry run did not print the plan:\n%s", res.stdout)
	}
}

func TestE2ENotPermittedToCreatePRIsExplained(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	h.git.DenyCreatePR = true
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 1)
	if !strings.Contains(res.stdout, "Allow GitHub Actions to create and approve pull requests") {
		t.Fatalf("%s", res.stdout)
	}
}

func TestE2EMissingPermissionIsNamed(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	h.git.Permissions = map[string]bool{"pull-requests": true, "issues": true}
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 1)
	if !strings.Contains(res.stdout, `permissions: {contents: write}`) {
		t.Fatalf("%s", res.stdout)
	}
}

// TestE2EFaultsEndClean injects a server error on every route the run uses, one at a time:
// each run either fails cleanly with the bot branch untouched, or succeeds (when the retry
// absorbs the fault), and a clean rerun always ends in the same store. The fast case injects a
// 502; the long sweep a 500 as well.
func TestE2EFaultsEndClean(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	// A reference run without faults gives the routes and the expected store.
	ref := newHarness(t, store)
	pr := ref.merge("Fix itest", ref.ticketFor("how do I run the integration tests")+"\nLesson: Run make itest twice when docker restarts.", measured(1))
	mustCode(t, ref.run("pull_request_target", mergedEvent(pr.Number), nil), 0)
	want, _ := ref.git.File(DefaultBranch, storePath)
	var routes []string
	for r := range ref.git.Requests {
		routes = append(routes, r)
	}
	if len(routes) < 8 {
		t.Fatalf("routes %v", routes)
	}
	for _, route := range routes {
		for _, status := range exhaustive.Or([]int{502}, []int{502, 500}) {
			t.Run(fmt.Sprintf("%s/%d", route, status), func(t *testing.T) {
				h := newHarness(t, store)
				pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests")+"\nLesson: Run make itest twice when docker restarts.", measured(1))
				method, name, _ := strings.Cut(route, " ")
				h.git.Faults = func(r *http.Request) (int, string) {
					if r.Method == method && routeName(r.URL.Path, name) {
						return status, `{"message":"Server Error"}`
					}
					return 0, ""
				}
				res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
				if res.code != 0 {
					// A failed run leaves no branch, or a branch holding one complete commit
					// (when only the pull request call failed): never a half-written one.
					if h.git.Ref(DefaultBranch) != "" {
						if got, _ := h.git.File(DefaultBranch, storePath); !bytes.Equal(got, want) {
							t.Fatalf("failed run left a branch with a different store\n%s", res.stdout)
						}
					}
					if strings.Contains(res.stdout, "panic") {
						t.Fatal(res.stdout)
					}
				}
				h.git.Faults = nil
				mustCode(t, h.run("pull_request_target", mergedEvent(pr.Number), nil), 0)
				got, _ := h.git.File(DefaultBranch, storePath)
				if !bytes.Equal(got, want) {
					t.Fatalf("after the fault and a clean rerun the store differs from the reference")
				}
			})
		}
	}
}

// routeName matches a request path against a GitRepo route name such as "git/refs".
func routeName(path, name string) bool {
	rest := path[strings.Index(path, "/repos/acme/widgets")+len("/repos/acme/widgets"):]
	rest = strings.TrimPrefix(rest, "/")
	seg := strings.Split(rest, "/")
	pat := strings.Split(name, "/")
	if name == "repo" {
		return rest == ""
	}
	if len(pat) > len(seg) {
		return false
	}
	for i, p := range pat {
		if p != "n" && p != "sha" && p != seg[i] {
			return false
		}
	}
	return true
}

func TestE2ERequestsPerMergedPRBounded(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	// One run over one merged PR, then one run over five.
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests")+"\nLesson: Run make itest twice when docker restarts.", measured(1))
	start := h.world.Total()
	mustCode(t, h.run("pull_request_target", mergedEvent(pr.Number), nil), 0)
	one := h.world.Total() - start
	var last *ghfake.GitPull
	for i := 0; i < 5; i++ {
		last = h.merge(fmt.Sprintf("Change %d", i), h.ticketFor("which logger does the payments service use"), measured(1))
	}
	start = h.world.Total()
	mustCode(t, h.run("pull_request_target", mergedEvent(last.Number), nil), 0)
	five := h.world.Total() - start
	perPR := float64(five-one) / 4
	t.Logf("requests: 1 PR %d, 5 PRs %d, marginal %.1f per PR (measurement excluded: injected)", one, five, perPR)
	if one > 25 || perPR > 8 {
		t.Fatalf("too many requests: one PR %d, marginal %.1f per PR", one, perPR)
	}
	_ = json.Valid
}

func TestE2EWaitForCIPollsUntilMeasured(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), &settle.Result{Outcome: settle.Pending, Reason: "base CI running"})
	dir := t.TempDir()
	evPath := filepath.Join(dir, "event.json")
	os.WriteFile(evPath, []byte(mergedEvent(pr.Number)), 0o644)
	env := map[string]string{
		"INPUT_GITHUB-TOKEN": "t", "INPUT_WAIT-FOR-CI": "2m", "GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": evPath,
		"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": h.world.URL, "GITHUB_OUTPUT": filepath.Join(dir, "out"),
	}
	now := fixedNow()
	var mu sync.Mutex
	sleeps := 0
	code := Main(context.Background(), Options{
		Getenv: func(k string) string { return env[k] }, Stdout: &bytes.Buffer{}, Measure: h.measurer,
		Policy: ghapi.Policy{Sleep: ghfake.NoSleep},
		Now:    func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(d)
			sleeps++
			if sleeps == 2 {
				h.setMeasurement(pr.Number, *measured(1)) // CI finished while we waited
			}
			return nil
		},
	})
	out := parseOutputs(t, env["GITHUB_OUTPUT"])
	if code != 0 || out["result"] != "settled" || sleeps != 2 {
		t.Fatalf("exit %d, outputs %v, sleeps %d", code, out, sleeps)
	}
}

func TestE2ECompatTicketsVerifiedAtBase(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)
	// An agent consults with a compat ticket: `darwin-memo decide` registers it in the store,
	// and the agent's pull request commits the store with the ticket pending.
	s, _ := lessons.Parse(storePath, store)
	d, err := s.Decide("how do I run the integration tests", lessons.DecideOptions{Register: true})
	if err != nil || d.Ticket == nil {
		t.Fatal(err)
	}
	withTicket, _ := s.Marshal()
	pr1 := h.git.MergePull(ghfake.MergeSpec{Title: "Fix itest", Body: "darwin-memo-ticket: " + d.Ticket.ID,
		Files: map[string][]byte{storePath: withTicket, "src/itest.go": []byte("package app\n")}})
	h.setMeasurement(pr1.Number, *measured(1))
	// A second pull request names the same ticket: it was already pending at its base, so it
	// did not open it, and must not settle it (ticket hijack).
	pr2 := h.merge("Hijack", "darwin-memo-ticket: "+d.Ticket.ID, measured(-5))
	res := h.run("pull_request_target", mergedEvent(pr2.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["settled-tickets"] != "1" || res.outputs["delta"] != "1" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	bot := h.botStore(DefaultBranch)
	if len(bot.Pending()) != 0 {
		t.Fatalf("ticket still pending: %v", bot.Pending())
	}
	if e, _ := bot.Entry(es[0].ID); e == nil || e.Energy <= 1 {
		t.Fatalf("compat ticket not settled positively: %+v", e)
	}
	rec := h.record(DefaultBranch)
	var hijack Processed
	for _, p := range rec.Processed {
		if p.PR == pr2.Number {
			hijack = p
		}
	}
	if hijack.Outcome != OutcomeRefused || len(hijack.Refused) != 1 {
		t.Fatalf("hijack not refused: %+v", hijack)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.measured[pr2.Number] != 0 {
		t.Fatal("measured a pull request whose only ticket was refused")
	}
}

func TestE2EUntrustedAuthorLessonsAreProposedOnly(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	h := newHarness(t, store)
	line := h.ticketFor("how do I run the integration tests")
	pr := h.git.MergePull(ghfake.MergeSpec{Title: "Drive-by fix", User: "stranger", AuthorAssociation: "FIRST_TIME_CONTRIBUTOR",
		Body:  line + "\nLesson: Run make itest with DOCKER_BUILDKIT=1 to reuse the container cache.",
		Files: map[string][]byte{"src/itest.go": []byte("package app\n")}})
	h.setMeasurement(pr.Number, *measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["births"] != "0" || res.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v", res.outputs)
	}
	body := h.openBotPRs()[0].Body
	if !strings.Contains(body, "Proposed, not added") || !strings.Contains(body, "DOCKER_BUILDKIT") {
		t.Fatalf("proposal missing from body:\n%s", body)
	}
}

func TestE2ETransientFaultsAreRetried(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	for _, status := range []int{429, 502, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			h := newHarness(t, store)
			pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
			var mu sync.Mutex
			hits := map[string]int{}
			// Every route fails once, then answers.
			h.world.SetBefore(func(r *http.Request) (int, string) {
				mu.Lock()
				defer mu.Unlock()
				key := r.Method + " " + r.URL.Path
				hits[key]++
				if hits[key] == 1 {
					return status, `{"message":"try again"}`
				}
				return 0, ""
			})
			res := h.run("pull_request_target", mergedEvent(pr.Number), map[string]string{})
			if res.code != 0 || res.outputs["result"] != "settled" || res.outputs["pull-request-operation"] != "created" {
				t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
			}
		})
	}
}

func TestE2EFreshRepositoryGetsItsFirstStore(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil) // no store yet
	res := h.run("workflow_dispatch", `{"inputs":{}}`, nil)
	mustCode(t, res, 0)
	if res.outputs["pull-request-operation"] != "none" {
		t.Fatalf("empty repository opened a bot PR: %v", res.outputs)
	}
	pr := h.merge("Speed up CI", "Lesson: Cache the Go module download in CI with actions/setup-go cache: true.", nil)
	res = h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, res, 0)
	if res.outputs["births"] != "1" || res.outputs["pull-request-operation"] != "created" || res.outputs["result"] != "noop" {
		t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
	}
	s := h.botStore(DefaultBranch)
	if len(s.Living()) != 1 || !strings.Contains(s.Living()[0].Answer, "setup-go") {
		t.Fatalf("store %+v", s.Living())
	}
	if got := s.Config().SupportingShare; got != 0 {
		t.Fatalf("supporting_share %v: a store the action creates starts with lessons.RecommendedConfig", got)
	}
	if md, _ := h.git.File(DefaultBranch, DefaultRender); !strings.Contains(string(md), "setup-go") {
		t.Fatalf("rendering:\n%s", md)
	}
}
