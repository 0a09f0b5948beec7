package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"github.com/darwin-memo/darwin-memo-action/internal/ctxtime"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/logsafe"
	"github.com/darwin-memo/darwin-memo-action/internal/mdsafe"
	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/internal/version"
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
	// Policy bounds the GitHub client's retries (zero fields: ghapi's defaults).
	Policy ghapi.Policy
	// Measure measures merged pull requests (nil: settle.Measure).
	Measure Measurer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Sleep waits while CI is pending under wait-for-ci (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
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
	// Which build runs comes first in the log, before anything can fail.
	fmt.Fprintln(out, versionLine(opts.Getenv))
	gha := githubactions.New(githubactions.WithGetenv(opts.Getenv), githubactions.WithWriter(out))
	// Mask the token before anything can print it.
	if tok := gha.GetInput(InputGitHubToken); tok != "" {
		gha.AddMask(tok)
	}
	o, env, err := run(ctx, gha, out, opts)
	if err != nil {
		// Error text can quote GitHub and artifacts (zip entry names, API messages): the
		// annotation and the log lines go through logsafe, the summary through a code fence
		// longer than any backtick run in the text.
		logsafe.Command(out, "error", oneLine(err.Error()))
		logsafe.Lines(out, err.Error())
		if p := opts.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			gha.AddStepSummary("# darwin-memo: failed\n\nFix the cause below and rerun (workflow_dispatch): a rerun resumes where this run stopped and settles nothing twice.\n\n" + mdsafe.CodeBlock(err.Error()))
		}
		return ExitError
	}
	writeOutputs(gha, out, env, o)
	return ExitOK
}

// versionLine is the build's version line plus, when the runner names it, the action reference
// the workflow used: the runner builds `uses: OWNER/REPO@v1` from the Dockerfile without a
// version, and the reference is then the only hint of which release runs.
func versionLine(getenv func(string) string) string {
	line := version.Get().String()
	if ref := getenv("GITHUB_ACTION_REF"); ref != "" {
		line += "; uses: " + strings.TrimPrefix(getenv("GITHUB_ACTION_REPOSITORY")+"@"+ref, "@")
	}
	return line
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
	// Every log line passes through logsafe.Escape: log arguments quote pull requests,
	// branch names, CI results and artifacts.
	logf := func(format string, args ...any) { logsafe.Printf(out, format, args...) }
	logf("darwin-memo action on %s/%s: %s", env.Owner, env.Repo, trig.Note)
	policy := opts.Policy
	if policy.Logf == nil {
		policy.Logf = logf
	}
	client, tr, err := ghapi.NewClient(ghapi.Options{APIURL: env.APIURL, Token: cfg.Token, Policy: policy, UserAgent: "darwin-memo-action"})
	if err != nil {
		return nil, env, err
	}
	measure := opts.Measure
	if measure == nil {
		measure = SettleMeasurer(cfg.ArtifactName, env.RunID, BotFiles(cfg))
	}
	encOpts := []encode.Option{encode.WithGetenv(opts.Getenv), encode.WithLogger(encoderLogger(out))}
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
	now, sleep := opts.Now, opts.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = ctxtime.Sleep
	}
	runID := ""
	runURL := ""
	if env.RunID != 0 {
		runID = strconv.FormatInt(env.RunID, 10) + ":" + strconv.FormatInt(max(env.RunAttempt, 1), 10)
		runURL = fmt.Sprintf("%s/actions/runs/%d", env.RepoURL(), env.RunID)
	}
	r := &Runner{
		Client: client, Config: cfg, Owner: env.Owner, Repo: env.Repo, RepoURL: env.RepoURL(), RunURL: runURL, RunID: runID,
		Measure: measure, Now: now, Sleep: sleep, Logf: logf,
		// Trust is checked per author of every source (the pull request's author and each cited
		// reviewer) against the trusted-associations input, never widened to every author.
		Encoder:    encode.New(provider, append(encOpts, encode.WithTrustedAssociations(cfg.TrustedAssociations...))...),
		Rate:       tr.Rate,
		FileLimits: opts.FileLimits,
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
			if err := setOutput(env.OutputPath, kv[0], kv[1]); err != nil {
				logsafe.Command(out, "error", err.Error())
			}
		} else {
			logsafe.Printf(out, "%s=%s", kv[0], kv[1])
		}
	}
	summary := report.Summary(o.Report, o.Headline()) + "\n" + apiUsage(o) + "\n"
	if env.SummaryPath != "" {
		gha.AddStepSummary(summary)
	}
	if env.SummaryPath == "" || o.Report.DryRun {
		logsafe.Lines(out, summary)
	}
	if o.Result == ResultAbstained {
		logsafe.Command(out, "warning", "abstained: nothing measurable; see the step summary")
	}
}

// setOutput appends name<<DELIM, value, DELIM to the GITHUB_OUTPUT file with a delimiter
// drawn from crypto/rand for every output, as actions/toolkit does: go-githubactions uses a
// fixed delimiter, which a value could close to set outputs of its own.
func setOutput(path, name, value string) error {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return fmt.Errorf("setting output %s: %w", name, err)
	}
	delim := "ghadelimiter_" + hex.EncodeToString(raw[:])
	if strings.Contains(name, "\n") || strings.Contains(value, delim) {
		return fmt.Errorf("setting output %s: the value contains the delimiter", name)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("setting output %s: %w", name, err)
	}
	_, err = fmt.Fprintf(f, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("setting output %s: %w", name, err)
	}
	return nil
}

func prNumber(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// encoderLogger is the encoder's slog.Logger: one step-log line per record,
// without the time (the runner stamps each line), each passed through
// logsafe, since its attributes quote model replies.
func encoderLogger(out io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{out}, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// logWriter writes what a slog handler formats through logsafe.Lines.
type logWriter struct{ w io.Writer }

func (l logWriter) Write(p []byte) (int, error) {
	logsafe.Lines(l.w, string(p))
	return len(p), nil
}
