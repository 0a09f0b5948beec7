// Package demo runs the whole darwin-memo action, in process, against a fake GitHub holding a
// generated repository: merged pull requests from agents that consult the lessons, a poisoned
// lesson that breaks tests when followed, trivia nobody needs, near-duplicates, and useful
// lessons that fix tests. CI results are real JUnit XML in workflow-run artifacts, measured by
// settle.Measure through the REST API; the store is updated by the action's bot pull request,
// which a maintainer merges. Every figure the demo prints is read from the resulting store.
//
// No keys, no network: the fake GitHub listens on loopback, and the lesson encoder is the
// deterministic one.
package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/action"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

const (
	owner, repoName = "acme", "shop"
	storePath       = action.DefaultStore
	botBranch       = action.DefaultBranch
)

// Roles of the seeded lessons.
const (
	RoleUseful    = "useful"
	RolePoison    = "poison"
	RoleTrivia    = "trivia"
	RoleDuplicate = "duplicate"
	// RoleBorn is a lesson the action encoded from a merged pull request during the run.
	RoleBorn = "born"
	// RoleHeir is the consolidated lesson near-duplicates were merged into.
	RoleHeir = "heir"
)

// seed is a lesson the repository starts with.
type seed struct {
	role, question, answer string
	// fixes lists the tests an agent following this lesson makes pass; breaks those it breaks.
	fixes, breaks []string
}

var (
	portTests = []string{"integration::TestServerPorts", "integration::TestClientPorts", "integration::TestWebhookPorts",
		"integration::TestAdminPorts", "integration::TestMetricsPorts", "integration::TestGRPCPorts"}
	clockTests = []string{"clock::TestExpiry", "clock::TestRetryBackoff", "clock::TestLeaseRenewal",
		"clock::TestRateWindow", "clock::TestTokenRefresh", "clock::TestCacheTTL"}
	goldenTests = []string{"golden::TestRenderHTML", "golden::TestRenderJSON", "golden::TestRenderText",
		"golden::TestRenderCSV", "golden::TestRenderXML", "golden::TestRenderYAML"}
	otherTests = []string{"api::TestGet", "api::TestPost", "db::TestMigrate", "cli::TestHelp", "cli::TestVersion"}
)

var seeds = []seed{
	{role: RoleUseful, question: "Why do the integration tests fail with address already in use?",
		answer: "Start test servers on port 0 (TEST_PORT=0) so the kernel picks a free port; never hard-code 8080 in integration tests.",
		fixes:  portTests},
	{role: RoleUseful, question: "How do I make time-dependent clock tests deterministic?",
		answer: "Inject clock.Fake through the constructor and advance it in the test; never call time.Now or time.Sleep inside the expiry and backoff code.",
		fixes:  clockTests},
	{role: RolePoison, question: "What should I do when the golden render snapshots mismatch?",
		answer: "Delete the golden snapshot files under testdata; the render tests regenerate them on the next run.",
		breaks: goldenTests},
	{role: RoleTrivia, question: "What is the name of the project mascot?", answer: "The mascot is a gopher called Pip."},
	{role: RoleTrivia, question: "Which colour does the company logo use?", answer: "The logo is teal, hex 008080."},
	{role: RoleDuplicate, question: "How do I run the linter?", answer: "Run make lint before pushing."},
	{role: RoleDuplicate, question: "How do I run the linter locally?", answer: "Run make lint before pushing."},
}

// step is one merged pull request of the generated history.
type step struct {
	title string
	// query is the task an agent consults the lessons with (empty: a person's PR).
	query string
	// breaks and fixes are what the PR itself does to the suite, besides following advice.
	breaks, fixes []string
	lesson        string // a "Lesson:" line for the body (a birth)
	round         int
}

// rotate returns n tests of l starting at the i-th group, so no test flips often enough for
// settle's flaky quarantine (3 flips in 10 observations) to exclude it.
func rotate(l []string, i, n int) []string {
	start := (i * n) % len(l)
	return l[start : start+n]
}

// history is the generated sequence: features that break tests, agents that consult the
// lessons to fix them, agents that follow the poisoned lesson, linting chores that consult the
// duplicates, and people repairing what the poison broke.
func history(rounds int) []step {
	var out []step
	for i := 0; i < rounds; i++ {
		out = append(out,
			step{title: fmt.Sprintf("Add metrics endpoint v%d", i+1), breaks: rotate(portTests, i, 1)},
			step{title: fmt.Sprintf("Fix port clash in integration tests (%d)", i+1), query: "integration tests fail: address already in use on the test server port"},
			step{title: fmt.Sprintf("Add retry budget v%d", i+1), breaks: rotate(clockTests, i, 1),
				lesson: map[bool]string{true: fmt.Sprintf("Retry budget %d lives in internal/retry/budget.go and is read once at startup.", i+1)}[i < 2]},
			step{title: fmt.Sprintf("Stabilise clock tests (%d)", i+1), query: "expiry and backoff clock tests are flaky and time dependent"},
			step{title: fmt.Sprintf("Lint cleanup (%d)", i+1), query: "run the linter before pushing"},
		)
		if i < 3 {
			out = append(out,
				step{title: fmt.Sprintf("Update renderer output (%d)", i+1), query: "golden render snapshots mismatch after changing the renderer", round: i},
				step{title: fmt.Sprintf("Restore golden snapshots (%d)", i+1), fixes: goldenTests},
			)
		}
	}
	return out
}

// Options tune Run.
type Options struct {
	// Out receives the per-merge table and the final fates (nil: discarded).
	Out io.Writer
	// Rounds is the number of rounds of the generated history (0: DefaultRounds).
	Rounds int
	// MergeBotEvery merges the bot pull request after every n-th action run (0: 2), so the
	// demo also exercises updating an open bot pull request.
	MergeBotEvery int
}

// Row is one line of the per-merge table, read from the store after the action ran.
type Row struct {
	PR         int
	Title      string
	Consulted  string // role of the lesson whose ticket the PR carried ("" for none)
	Delta      string // "" when the PR carried no ticket
	Population int
	Births     int
	Deaths     int
	Merges     int
	Energy     float64 // total energy of the living population
	Tick       int
	BotPR      string // what the action did to the bot pull request
	BotPRNum   int    // the bot pull request it did it to (0 for none)
}

// Fate is what became of one lesson, read from the final store: every seeded lesson, then
// every lesson born during the run (role RoleBorn) and every heir of a merge (RoleHeir).
type Fate struct {
	Role, ID, Question string
	// Origin says where a lesson not seeded came from ("pr#4", "merge of b8ae93a9+7e401dd7").
	Origin string
	Alive  bool
	Energy float64
	// TicksToStarvation is a living lesson's runway, by the formula the bot pull request's
	// survivors table uses (lessons.Store.TicksToStarvation); nil for a pinned or dead one.
	TicksToStarvation *float64
	Uses              int
	// Cause is executed, starved or merged for dead lessons.
	Cause string
	// Heir is the consolidated lesson a merged one lives on in.
	Heir string
}

// Result is the outcome of a demo run.
type Result struct {
	Rows  []Row
	Fates []Fate
	// Store is the final store on the default branch.
	Store []byte
	// Requests is the number of API requests the fake GitHub served.
	Requests int
	// FinalTick is the tick of the final store.
	FinalTick int
	// LastBotPR is the title and body of the last bot pull request the action wrote, as a
	// maintainer saw it before merging it ("" when the action never opened one).
	LastBotPR string
	// BotPRs are the title and body of every bot pull request a maintainer merged, in order.
	BotPRs []string
}

// DefaultRounds is enough history for every fate: trivia, which no query retrieves, starve on
// the idle upkeep of new stores (docs/tuning.md) after about 25 rounds.
const DefaultRounds = 27

// Run generates the repository, runs the action after every merge, and returns what happened.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Rounds == 0 {
		opts.Rounds = DefaultRounds
	}
	if opts.MergeBotEvery == 0 {
		opts.MergeBotEvery = 2
	}
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	clock := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }

	cfg := lessons.RecommendedConfig()
	st := lessons.New(storePath, lessons.Options{Now: now, Config: &cfg})
	roles := map[string]seed{}
	for _, s := range seeds {
		e, err := st.Add(lessons.NewLesson{Question: s.question, Answer: s.answer, Sources: []string{"seed"}})
		if err != nil {
			return nil, err
		}
		roles[e.ID] = s
	}
	doc, err := st.Marshal()
	if err != nil {
		return nil, err
	}
	git := ghfake.NewGitRepo(owner, repoName, "main", map[string]string{
		storePath: string(doc), "README.md": "# shop\n", "go.mod": "module example.com/shop\n",
	})
	world := ghfake.NewWorld(git, ghfake.Repo{})
	defer world.Close()
	ci := &ciModel{world: world, state: map[string]bool{}}
	for _, t := range allTests() {
		ci.state[t] = true
	}
	ci.record(git.Ref("main"), ci.state, "push", "main")

	tmp, err := os.MkdirTemp("", "darwin-memo-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	res := &Result{}
	prev := storeAt(git, "main")
	fmt.Fprintf(out, "darwin-memo demo: %s/%s, %d seeded lessons (2 useful, 1 poisoned, 2 trivia, 2 near-duplicates), the action runs after every merge\n\n", owner, repoName, len(seeds))
	tw := tabwriter.NewWriter(out, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PR\tlesson used\tdelta\ttick\tliving\tborn\tdied\tmerged\ttotal energy\tbot PR\t pull request\t")
	runs := 0
	for _, s := range history(opts.Rounds) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		mainStore := storeAt(git, "main")
		if mainStore == nil {
			return nil, fmt.Errorf("demo: main has no readable store")
		}
		head := copyState(ci.state)
		for _, t := range s.breaks {
			head[t] = false
		}
		for _, t := range s.fixes {
			head[t] = true
		}
		body := "Generated change.\n"
		consulted := ""
		if s.query != "" {
			d, err := mainStore.Decide(s.query, lessons.DecideOptions{})
			if err != nil {
				return nil, err
			}
			if !d.Silent {
				body += "\nConsulted darwin-memo before starting:\n\n" + d.StoreFreeLine() + "\n"
				if sd, ok := roles[d.Decider]; ok {
					consulted = sd.role
					for _, t := range sd.fixes {
						head[t] = true
					}
					if len(sd.breaks) > 0 {
						// Following the poisoned advice deletes this round's golden snapshots.
						for _, t := range rotate(sd.breaks, s.round, 3) {
							head[t] = false
						}
					}
				} else {
					consulted = roleOf(mainStore, d.Decider)
				}
			}
		}
		if s.lesson != "" {
			body += "\nLesson: " + s.lesson + "\n"
		}
		clock = clock.Add(time.Hour)
		pr := git.MergePull(ghfake.MergeSpec{Title: s.title, Body: body, User: "agent-bot", AuthorAssociation: "MEMBER",
			Files: map[string][]byte{fmt.Sprintf("src/change_%03d.go", len(res.Rows)+1): []byte("package shop\n")}})
		ci.record(pr.HeadSHA, head, "pull_request", pr.Head)
		ci.record(pr.MergeCommitSHA, head, "push", "main")
		ci.state = head

		outputs, err := runAction(ctx, world, tmp, pr.Number, now)
		if err != nil {
			return nil, fmt.Errorf("demo: action run after #%d: %w", pr.Number, err)
		}
		runs++
		cur := storeAt(git, botBranch)
		if outputs["pull-request-operation"] == "none" || outputs["pull-request-operation"] == "closed" || cur == nil {
			cur = storeAt(git, "main")
		}
		row := diffRow(prev, cur)
		row.PR, row.Title, row.Consulted, row.BotPR = pr.Number, s.title, consulted, outputs["pull-request-operation"]
		fmt.Sscan(outputs["pull-request-number"], &row.BotPRNum)
		if outputs["settled-tickets"] != "0" {
			row.Delta = outputs["delta"]
		}
		res.Rows = append(res.Rows, row)
		bot := row.BotPR
		if row.BotPRNum > 0 && bot != "none" {
			bot = fmt.Sprintf("%s #%d", bot, row.BotPRNum)
		}
		fmt.Fprintf(tw, "#%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.2f\t%s\t %s\t\n", row.PR, dash(row.Consulted), dash(row.Delta), row.Tick,
			row.Population, row.Births, row.Deaths, row.Merges, row.Energy, bot, row.Title)
		prev = cur
		if runs%opts.MergeBotEvery == 0 {
			if err := mergeBot(git, ci, res); err != nil {
				return nil, err
			}
		}
	}
	if err := mergeBot(git, ci, res); err != nil {
		return nil, err
	}
	tw.Flush()
	fmt.Fprint(out, legend)
	final, ok := git.File("main", storePath)
	if !ok {
		return nil, fmt.Errorf("demo: no store on main at the end")
	}
	res.Store = final
	fs, err := lessons.Parse(storePath, final)
	if err != nil {
		return nil, fmt.Errorf("demo: final store: %w", err)
	}
	res.Fates = fates(fs, roles)
	res.FinalTick = fs.TickCount()
	res.Requests = world.Total()
	fmt.Fprintf(out, "\nFates, read from %s on main after the last bot pull request was merged (tick %d):\n\n", storePath, fs.TickCount())
	fw := tabwriter.NewWriter(out, 2, 0, 2, ' ', 0)
	fmt.Fprintln(fw, "role\tfrom\tlesson\tfate\tenergy\tuses\tquestion")
	for _, f := range res.Fates {
		fate := "alive"
		if !f.Alive {
			fate = f.Cause
			if f.Cause == "merged" {
				fate = "merged into " + f.Heir
			}
		}
		fmt.Fprintf(fw, "%s\t%s\t%s\t%s\t%.3f\t%d\t%s\n", f.Role, dash(f.Origin), f.ID, fate, f.Energy, f.Uses, f.Question)
	}
	fw.Flush()
	fmt.Fprintf(out, "\n%d merged pull requests, %d action runs, %d GitHub API requests to the in-process fake.\n", len(res.Rows), runs, res.Requests)
	if err := res.Check(); err != nil {
		fmt.Fprintf(out, "\nUNEXPECTED: %v\n", err)
		return res, &OutcomeError{err}
	}
	if notYet := res.NotYet(); len(notYet) > 0 {
		fmt.Fprintf(out, "\nNothing went wrong, but after %d rounds selection has not finished: %s. Run more rounds (the default, %d, shows every fate).\n",
			opts.Rounds, strings.Join(notYet, "; "), DefaultRounds)
		return res, nil
	}
	fmt.Fprintln(out, "\nSelection at work: the poisoned lesson was executed, the trivia starved, the near-duplicates merged, and the useful lessons are alive.")
	return res, nil
}

// legend explains the per-merge table.
const legend = `
  PR            the merged pull request; numbers skip where the bot's own pull requests took them
  lesson used   which lesson the agent's ticket named: the role of a seeded lesson, "heir" for the
                lesson the duplicates were merged into, "born" for one encoded during the run;
                "-" when the pull request carried no ticket (a person's change, or a silent consult)
  delta         the measured CI pass delta settled for the ticket (tests fixed minus tests broken);
                0 means CI was measured and nothing changed; "-" means no ticket was settled
  tick          the store's tick after the run (the action ticks once when a settlement landed)
  living, born, died, merged
                the living population after the run, and the lessons born, dead and consolidated
                in it (merged counts the new heir; its members are among the dead)
  total energy  the sum of the living lessons' balances
  bot PR        what the action did to its one open pull request: created (the maintainer merged
                the previous one, as the demo does after every second run), updated, or none
`

// OutcomeError is returned by Run when selection produced a wrong fate (Result.Check). Run has
// already printed it.
type OutcomeError struct{ Err error }

func (e *OutcomeError) Error() string { return e.Err.Error() }
func (e *OutcomeError) Unwrap() error { return e.Err }

// NotYet lists the fates a history this short has not reached yet, which Check does not count
// as wrong: trivia never used and still paying upkeep, a poisoned lesson already losing energy,
// near-duplicates before the first consolidation tick.
func (r *Result) NotYet() []string {
	var out []string
	for _, f := range r.Fates {
		if !f.Alive {
			continue
		}
		switch f.Role {
		case RoleTrivia:
			if f.TicksToStarvation == nil {
				out = append(out, fmt.Sprintf("trivia %s is pinned and cannot starve", f.ID))
				break
			}
			out = append(out, fmt.Sprintf("trivia %s starves in %s more ticks", f.ID, strconv.FormatFloat(*f.TicksToStarvation, 'f', 1, 64)))
		case RolePoison:
			out = append(out, fmt.Sprintf("poisoned lesson %s is down to %.3f and not executed yet", f.ID, f.Energy))
		case RoleDuplicate:
			out = append(out, fmt.Sprintf("duplicate %s awaits the consolidation every %d ticks", f.ID, lessons.DefaultConfig().ConsolidateEvery))
		}
	}
	return out
}

// Check verifies the outcome the demo is meant to show, from the fates read off the store. A
// fate a short history has not reached yet (NotYet) is no problem; a wrong one is: a poisoned
// lesson that gained energy or died of another cause, trivia that was used or died otherwise,
// duplicates dead of another cause or alive after a consolidation tick, a useful lesson dead.
func (r *Result) Check() error {
	var problems []string
	for _, f := range r.Fates {
		switch f.Role {
		case RolePoison:
			if f.Alive && f.Energy >= lessons.SpawnEnergy || !f.Alive && f.Cause != "executed" {
				problems = append(problems, fmt.Sprintf("poisoned lesson %s is %s at %.3f, want executed", f.ID, fateWord(f), f.Energy))
			}
		case RoleTrivia:
			if f.Alive && f.Uses > 0 || !f.Alive && f.Cause != "starved" {
				problems = append(problems, fmt.Sprintf("trivia %s is %s after %d uses, want starved", f.ID, fateWord(f), f.Uses))
			}
		case RoleDuplicate:
			if f.Alive && r.FinalTick >= lessons.DefaultConfig().ConsolidateEvery || !f.Alive && f.Cause != "merged" {
				problems = append(problems, fmt.Sprintf("duplicate %s is %s, want merged", f.ID, fateWord(f)))
			}
		case RoleUseful:
			if !f.Alive {
				problems = append(problems, fmt.Sprintf("useful lesson %s is %s, want alive", f.ID, fateWord(f)))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("demo outcome: %s", strings.Join(problems, "; "))
	}
	return nil
}

func fateWord(f Fate) string {
	if f.Alive {
		return "alive"
	}
	return f.Cause
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func allTests() []string {
	var out []string
	for _, l := range [][]string{portTests, clockTests, goldenTests, otherTests} {
		out = append(out, l...)
	}
	return out
}

func copyState(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func roleOf(s *lessons.Store, id string) string {
	e, ok := s.Entry(id)
	if !ok {
		return "unknown"
	}
	if e.Kind == lessons.KindConsolidated || len(e.Lineage) > 0 {
		return RoleHeir
	}
	return RoleBorn
}

func storeAt(git *ghfake.GitRepo, ref string) *lessons.Store {
	b, ok := git.File(ref, storePath)
	if !ok {
		return nil
	}
	s, err := lessons.Parse(storePath, b)
	if err != nil {
		return nil
	}
	return s
}

// diffRow compares the store before and after one action run.
func diffRow(prev, cur *lessons.Store) Row {
	row := Row{Population: len(cur.Living()), Tick: cur.TickCount()}
	before := map[string]bool{}
	if prev != nil {
		for _, e := range prev.Living() {
			before[e.ID] = true
		}
	}
	for _, e := range cur.Living() {
		row.Energy += e.Energy
		if !before[e.ID] {
			if e.Kind == lessons.KindConsolidated {
				row.Merges++
			} else {
				row.Births++
			}
		}
	}
	for id := range before {
		if _, ok := cur.Entry(id); !ok {
			row.Deaths++
		}
	}
	return row
}

// fates reads what became of every seeded lesson.
func fates(s *lessons.Store, roles map[string]seed) []Fate {
	heir := map[string]string{}
	cause := s.Causes()
	for _, l := range [][]*lessons.Entry{s.Living(), s.Graveyard()} {
		for _, e := range l {
			for _, m := range e.Lineage {
				heir[m] = e.ID
			}
		}
	}
	var out []Fate
	for _, sd := range seeds {
		for id, r := range roles {
			if r.question != sd.question {
				continue
			}
			f := Fate{Role: r.role, ID: id, Question: r.question, Origin: "seed"}
			if e, ok := s.Entry(id); ok {
				f.Alive, f.Energy, f.Uses, f.TicksToStarvation = e.Alive(), e.Energy, e.Uses, s.TicksToStarvation(e)
			} else if e, ok := s.Dead(id); ok {
				f.Energy, f.Uses = e.Energy, e.Uses
				f.Cause = cause(id)
				f.Heir = heir[id]
			}
			out = append(out, f)
		}
	}
	// then every lesson that was not seeded, in the order the store keeps them
	for _, l := range [][]*lessons.Entry{s.Living(), s.Graveyard()} {
		for _, e := range l {
			if _, seeded := roles[e.ID]; seeded {
				continue
			}
			f := Fate{Role: RoleBorn, ID: e.ID, Question: e.Question, Energy: e.Energy, Uses: e.Uses, Origin: strings.Join(prSources(e.Sources), ",")}
			if e.Kind == lessons.KindConsolidated {
				f.Role = RoleHeir
				var members []string
				for _, m := range e.Lineage {
					members = append(members, m[:min(8, len(m))])
				}
				f.Origin = "merge of " + strings.Join(members, "+")
			}
			if live, ok := s.Entry(e.ID); ok && live == e {
				f.Alive, f.TicksToStarvation = e.Alive(), s.TicksToStarvation(e)
			} else {
				f.Cause, f.Heir = cause(e.ID), heir[e.ID]
			}
			out = append(out, f)
		}
	}
	return out
}

// prSources keeps the pr#N labels of a lesson's sources.
func prSources(sources []string) []string {
	var out []string
	for _, src := range sources {
		if strings.HasPrefix(src, "pr#") {
			out = append(out, src)
		}
	}
	return out
}

// mergeBot merges the open bot pull request, as a maintainer reviewing it would, and records
// CI for the new tip of main (the suite is unchanged: the bot only touches the store).
func mergeBot(git *ghfake.GitRepo, ci *ciModel, res *Result) error {
	for _, p := range git.Pulls() {
		if p.State == "open" && p.Head == botBranch {
			res.LastBotPR = "# " + p.Title + "\n\n" + p.Body
			res.BotPRs = append(res.BotPRs, res.LastBotPR)
			sha, err := git.MergeOpenPull(p.Number)
			if err != nil {
				return err
			}
			ci.record(sha, ci.state, "push", "main")
		}
	}
	return nil
}

// runAction runs `darwin-memo action` for a merged pull request with the runner environment a
// workflow on pull_request_target would give it, and returns its outputs.
func runAction(ctx context.Context, world *ghfake.World, tmp string, pr int, now func() time.Time) (map[string]string, error) {
	dir, err := os.MkdirTemp(tmp, "run-")
	if err != nil {
		return nil, err
	}
	event := fmt.Sprintf(`{"action":"closed","number":%d,"pull_request":{"number":%d,"merged":true},"repository":{"default_branch":"main"}}`, pr, pr)
	evPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(evPath, []byte(event), 0o600); err != nil {
		return nil, err
	}
	env := map[string]string{
		"INPUT_GITHUB-TOKEN": ghfake.Token, "GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": evPath,
		"GITHUB_REPOSITORY": owner + "/" + repoName, "GITHUB_API_URL": world.URL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		// The action runs after every merge, so a short lookback sees every merge.
		"INPUT_LOOKBACK": "10",
	}
	var log bytes.Buffer
	code := action.Main(ctx, action.Options{Getenv: func(k string) string { return env[k] }, Stdout: &log, Now: now,
		Policy: ghapi.Policy{Sleep: ghfake.NoSleep}})
	if code != action.ExitOK {
		return nil, fmt.Errorf("exit %d:\n%s", code, log.String())
	}
	b, err := os.ReadFile(env["GITHUB_OUTPUT"])
	if err != nil {
		return nil, err
	}
	return ghfake.ParseOutputs(b), nil
}

// ciModel records CI results in the fake: for every commit, a completed job check run and a
// workflow run whose artifact holds the suite's JUnit XML.
type ciModel struct {
	world *ghfake.World
	state map[string]bool
	next  int64
}

func (c *ciModel) record(sha string, state map[string]bool, event, branch string) {
	c.next++
	runID := 9000 + c.next
	conclusion := "success"
	for _, ok := range state {
		if !ok {
			conclusion = "failure"
		}
	}
	xml := junitXML(state)
	started := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(c.next) * time.Minute)
	c.world.CI.Do(func(r *ghfake.Repo) {
		r.CheckRuns = append(r.CheckRuns, ghfake.CheckRun{ID: runID, Name: "test", HeadSHA: sha, Status: "completed",
			Conclusion: conclusion, AppSlug: "github-actions", StartedAt: started})
		r.WorkflowRuns = append(r.WorkflowRuns, ghfake.WorkflowRun{ID: runID, Name: "CI", WorkflowID: 1, HeadSHA: sha,
			HeadBranch: branch, Event: event, Status: "completed", Conclusion: conclusion, RunAttempt: 1, CreatedAt: started})
		r.Artifacts = append(r.Artifacts, ghfake.Artifact{ID: 50000 + c.next, RunID: runID, Name: "junit-results",
			Zip: ghfake.Zip(map[string][]byte{"junit.xml": xml})})
	})
}

// junitXML renders the suite as go-junit-report would.
func junitXML(state map[string]bool) []byte {
	ids := make([]string, 0, len(state))
	for id := range state {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	failures := 0
	for _, ok := range state {
		if !ok {
			failures++
		}
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<testsuites tests="%d" failures="%d">`+"\n", len(ids), failures)
	fmt.Fprintf(&b, `  <testsuite name="example.com/shop" tests="%d" failures="%d" errors="0" time="1.234">`+"\n", len(ids), failures)
	for _, id := range ids {
		class, name, _ := strings.Cut(id, "::")
		if state[id] {
			fmt.Fprintf(&b, `    <testcase classname="%s" name="%s" time="0.010"></testcase>`+"\n", class, name)
		} else {
			fmt.Fprintf(&b, `    <testcase classname="%s" name="%s" time="0.020"><failure message="Failed">%s failed</failure></testcase>`+"\n", class, name, name)
		}
	}
	b.WriteString("  </testsuite>\n</testsuites>\n")
	return b.Bytes()
}
