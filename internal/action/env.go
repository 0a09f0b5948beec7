package action

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// Env is what the runner tells the action about the run, read from GITHUB_* variables.
type Env struct {
	EventName string
	EventPath string
	// Owner and Repo come from GITHUB_REPOSITORY.
	Owner, Repo string
	APIURL      string
	ServerURL   string
	RunID       int64
	RunAttempt  int64
	// OutputPath and SummaryPath are the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; empty
	// outside a runner, in which case outputs and the summary go to stdout instead.
	OutputPath  string
	SummaryPath string
	// Event is the raw event payload (nil when GITHUB_EVENT_PATH is unset).
	Event []byte
}

// LoadEnv reads the runner environment through go-githubactions with the given getenv, and the
// event payload from GITHUB_EVENT_PATH. Missing essentials are named with what to set.
func LoadEnv(getenv func(string) string) (Env, error) {
	gha := githubactions.New(githubactions.WithGetenv(getenv))
	// Context reads the event file itself but silently ignores a missing one; we read it below
	// with a clear error instead. Numeric parse failures come back joined; report them.
	ctx, cerr := gha.Context()
	var errs []error
	if cerr != nil {
		errs = append(errs, fmt.Errorf("runner environment: %w", cerr))
	}
	e := Env{
		EventName:   ctx.EventName,
		EventPath:   ctx.EventPath,
		APIURL:      strings.TrimRight(ctx.APIURL, "/"),
		ServerURL:   strings.TrimRight(ctx.ServerURL, "/"),
		RunID:       ctx.RunID,
		RunAttempt:  ctx.RunAttempt,
		OutputPath:  getenv("GITHUB_OUTPUT"),
		SummaryPath: getenv("GITHUB_STEP_SUMMARY"),
	}
	owner, repo, ok := strings.Cut(ctx.Repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		errs = append(errs, fmt.Errorf("GITHUB_REPOSITORY=%q is not owner/name; the runner sets it, so set it by hand only when running outside Actions", ctx.Repository))
	}
	e.Owner, e.Repo = owner, repo
	if e.EventName == "" {
		errs = append(errs, errors.New("GITHUB_EVENT_NAME is empty; run inside a workflow or set it (for example to workflow_dispatch)"))
	}
	if e.EventPath != "" {
		b, err := os.ReadFile(e.EventPath)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading the event payload GITHUB_EVENT_PATH=%q: %w", e.EventPath, err))
		}
		e.Event = b
	}
	if err := errors.Join(errs...); err != nil {
		return Env{}, err
	}
	return e, nil
}

// RepoURL is the web address of the repository, for links in the bot PR body.
func (e Env) RepoURL() string {
	return e.ServerURL + "/" + e.Owner + "/" + e.Repo
}
