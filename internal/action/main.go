package action

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Exit codes of `darwin-memo action`.
const (
	ExitOK    = 0
	ExitError = 1
)

// Options are the injected dependencies of Main; zero fields take the real thing.
type Options struct {
	// Getenv reads the runner environment (required).
	Getenv func(string) string
	// Stdout receives the log and workflow commands.
	Stdout io.Writer
	// HTTPBase is the transport under the GitHub client's retry layer (nil: the default).
	HTTPBase http.RoundTripper
	// Policy bounds the GitHub client's retries (zero fields: ghapi's defaults).
	Policy ghapi.Policy
	// Measure measures merged pull requests (nil: settle.Measure).
	Measure Measurer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Sleep waits while CI is pending under wait-for-ci (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
	// EncoderOptions are passed to the lesson encoder (tests inject fakes).
	EncoderOptions []encode.Option
	// FileLimits bound the files written to the bot branch (zero: GitHub's 50 MB warning
	// and 100 MB limit; tests lower them).
	FileLimits FileLimits
}

// Main runs `darwin-memo action`: it reads the inputs and the runner environment, reconciles,
// writes the outputs and the step summary, and returns the exit code. Errors are printed as
// ::error:: workflow commands with what to do.
func Main(ctx context.Context, opts Options) int {
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	gha := githubactions.New(githubactions.WithGetenv(opts.Getenv), githubactions.WithWriter(out))
	// Mask the token before anything can print it.
	if tok := gha.GetInput(InputGitHubToken); tok != "" {
		gha.AddMask(tok)
	}
	o, env, err := run(ctx, gha, out, opts)
	if err != nil {
		gha.Errorf("%s", oneLine(err.Error()))
		fmt.Fprintln(out, err.Error())
		if p := opts.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			gha.AddStepSummary("# darwin-memo: failed\n\nFix the cause below and rerun (workflow_dispatch): a rerun resumes where this run stopped and settles nothing twice.\n\n```\n" + err.Error() + "\n```\n")
		}
		return ExitError
	}
	writeOutputs(gha, out, env, o)
	return ExitOK
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func run(ctx context.Context, gha *githubactions.Action, out io.Writer, opts Options) (*Outcome, Env, error) {
	cfg, err := ParseConfig(gha)
	if err != nil {
		return nil, Env{}, err
	}
	env, err := LoadEnv(opts.Getenv)
	if err != nil {
		return nil, env, fmt.Errorf("darwin-memo action needs the GitHub Actions runner environment: %w", err)
	}
	trig, err := ParseEvent(env.EventName, env.Event)
	if err != nil {
		return nil, env, err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	logf("darwin-memo action on %s/%s: %s", env.Owner, env.Repo, trig.Note)
	policy := opts.Policy
	if policy.Logf == nil {
		policy.Logf = logf
	}
	policy.Memo = true // a run reads the same commits and files at a sha several times
	client, tr, err := ghapi.NewClient(ghapi.Options{APIURL: env.APIURL, Token: cfg.Token, Base: opts.HTTPBase, Policy: policy, UserAgent: "darwin-memo-action"})
	if err != nil {
		return nil, env, err
	}
	measure := opts.Measure
	if measure == nil {
		measure = SettleMeasurer(cfg.ArtifactName, env.RunID, nil)
	}
	encOpts := append([]encode.Option{encode.WithGetenv(opts.Getenv)}, opts.EncoderOptions...)
	if cfg.LLMBaseURL != "" {
		encOpts = append(encOpts, encode.WithBaseURL(cfg.LLMBaseURL))
	}
	if strings.HasPrefix(cfg.LLM, "github:") {
		encOpts = append(encOpts, encode.WithAPIKey(cfg.Token))
	}
	provider, err := encode.NewProvider(cfg.LLM, encOpts...)
	if err != nil {
		return nil, env, fmt.Errorf("input %q: %w", InputLLM, err)
	}
	runID := ""
	runURL := ""
	if env.RunID != 0 {
		runID = strconv.FormatInt(env.RunID, 10) + ":" + strconv.FormatInt(max(env.RunAttempt, 1), 10)
		runURL = fmt.Sprintf("%s/actions/runs/%d", env.RepoURL(), env.RunID)
	}
	r := &Runner{
		Client: client, Config: cfg, Owner: env.Owner, Repo: env.Repo, RepoURL: env.RepoURL(), RunURL: runURL, RunID: runID,
		Measure: measure, Now: opts.Now, Sleep: opts.Sleep, Logf: logf,
		Encoder:         encode.New(provider, encOpts...),
		TrustingEncoder: encode.New(provider, append(encOpts, encode.WithTrustAllAuthors(true))...),
		Render:          RenderStore,
		Rate:            rateSource(tr),
		FileLimits:      opts.FileLimits,
	}
	o, err := r.Run(ctx, trig)
	logf("%d GitHub API request(s), %d retried", tr.Requests(), tr.Retries())
	if err != nil {
		return nil, env, err
	}
	o.Requests, o.Retries, o.Rate = tr.Requests(), tr.Retries(), tr.Rate()
	return o, env, nil
}

// writeOutputs sets the step outputs and appends the step summary. Outside a runner (no
// GITHUB_OUTPUT or GITHUB_STEP_SUMMARY) they are printed instead.
func writeOutputs(gha *githubactions.Action, out io.Writer, env Env, o *Outcome) {
	outputs := [][2]string{
		{"result", o.Result},
		{"delta", strconv.FormatFloat(o.Delta, 'g', -1, 64)},
		{"settled-tickets", strconv.Itoa(o.SettledTickets)},
		{"births", strconv.Itoa(o.Births)},
		{"deaths", strconv.Itoa(o.Deaths)},
		{"pull-request-number", prNumber(o.PRNumber)},
		{"pull-request-operation", string(o.Operation)},
	}
	for _, kv := range outputs {
		if env.OutputPath != "" {
			gha.SetOutput(kv[0], kv[1])
		} else {
			fmt.Fprintf(out, "%s=%s\n", kv[0], kv[1])
		}
	}
	summary := report.Summary(o.Report, o.Headline()) + "\n" + apiUsage(o) + "\n"
	if env.SummaryPath != "" {
		gha.AddStepSummary(summary)
	}
	if env.SummaryPath == "" || o.Report.DryRun {
		fmt.Fprintln(out, summary)
	}
	if o.Result == ResultAbstained {
		gha.Warningf("abstained: nothing measurable; see the step summary")
	}
}

func prNumber(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// RenderStore renders the store for agents that read Markdown at task start, within budget
// bytes, labelled with the store file's name.
func RenderStore(s *lessons.Store, storePath string, budget int) ([]byte, error) {
	return s.Render(lessons.RenderOptions{Budget: budget, Label: path.Base(storePath)})
}
