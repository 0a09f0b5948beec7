package action

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Inputs reads one action input by its action.yml name. *githubactions.Action satisfies it: it
// upper-cases the name, keeps hyphens (github-token → INPUT_GITHUB-TOKEN) and trims spaces.
type Inputs interface {
	GetInput(name string) string
}

// Input names, exactly as declared in action.yml.
const (
	InputGitHubToken         = "github-token"
	InputStore               = "store"
	InputBranch              = "branch"
	InputBase                = "base"
	InputLabels              = "labels"
	InputScale               = "scale"
	InputExpireAfter         = "expire-after"
	InputLookback            = "lookback"
	InputWaitForCI           = "wait-for-ci"
	InputPRNumber            = "pr-number"
	InputLLM                 = "llm"
	InputLLMBaseURL          = "llm-base-url"
	InputTrustedAssociations = "trusted-associations"
	InputRender              = "render"
	InputRenderBudget        = "render-budget"
	InputArtifactName        = "artifact-name"
	InputDryRun              = "dry-run"
)

// Defaults of the optional inputs; action.yml declares the same values.
const (
	DefaultStore               = ".darwin-memo/lessons.json"
	DefaultBranch              = "darwin-memo/lessons"
	DefaultLabels              = "darwin-memo"
	DefaultScale               = 1.5
	DefaultExpireAfter         = 50
	DefaultLookback            = 30
	DefaultLLM                 = "none"
	DefaultTrustedAssociations = "OWNER,MEMBER,COLLABORATOR"
	DefaultRender              = ".darwin-memo/LESSONS.md"
	DefaultRenderBudget        = 25 * 1024
	// MaxLookback bounds how many recently merged pull requests one run examines.
	MaxLookback = 100
	// MaxWaitForCI bounds wait-for-ci so a run always ends well inside a job's time limit.
	MaxWaitForCI = 30 * time.Minute
)

// Config is the validated set of action inputs.
type Config struct {
	// Token authenticates every API call. Never log it; Run masks it.
	Token string
	// StorePath is the repository-relative path of the lesson store.
	StorePath string
	// Branch is the fixed head branch of the bot pull request.
	Branch string
	// Base is the branch the bot pull request targets; empty means the default branch.
	Base string
	// Labels are added to the bot pull request.
	Labels []string
	// Scale is the tanh normaliser of settlement credit (darwin-memo's resource_scale).
	Scale float64
	// ExpireAfter closes pending compat tickets after this many ticks; 0 means never.
	ExpireAfter int
	// Lookback is how many recently merged pull requests each run reconciles.
	Lookback int
	// WaitForCI is how long to poll for pending CI before leaving a pull request queued.
	WaitForCI time.Duration
	// PRNumber, when set, adds this merged pull request to the run (backfill, retry).
	PRNumber int
	// LLM selects the lesson encoder: none, ollama:<model>, openai:<model>,
	// anthropic:<model> or github:<model>.
	LLM string
	// LLMBaseURL overrides the provider's endpoint.
	LLMBaseURL string
	// TrustedAssociations are the author associations whose lessons are added; lessons of
	// everyone else are only proposed in the bot pull request's body.
	TrustedAssociations []string
	// RenderPath is the repository-relative Markdown rendering of the store; empty disables it.
	RenderPath string
	// RenderBudget is the hard byte budget of the rendering.
	RenderBudget int
	// ArtifactName filters the workflow-run artifacts searched for JUnit XML (a glob); empty
	// selects the artifacts whose names contain test, junit or report.
	ArtifactName string
	// DryRun reports what would happen and writes nothing.
	DryRun bool
}

// ParseConfig reads and validates every input. The runner does not enforce `required` and
// passes every value as a string, so each problem is reported with the input's name, the value
// and what to write instead; all problems are reported at once.
func ParseConfig(in Inputs) (Config, error) {
	p := inputParser{in: in}
	c := Config{
		Token:        in.GetInput(InputGitHubToken),
		StorePath:    p.repoPath(InputStore, DefaultStore, false),
		Branch:       p.branch(InputBranch, DefaultBranch, false),
		Base:         p.branch(InputBase, "", true),
		Labels:       p.list(InputLabels, DefaultLabels),
		Scale:        p.positiveFloat(InputScale, DefaultScale),
		ExpireAfter:  p.expireAfter(),
		Lookback:     p.intRange(InputLookback, DefaultLookback, 1, MaxLookback),
		WaitForCI:    p.duration(InputWaitForCI, 0, MaxWaitForCI),
		PRNumber:     p.intRange(InputPRNumber, 0, 1, math.MaxInt32),
		LLM:          p.llm(),
		LLMBaseURL:   p.url(InputLLMBaseURL),
		RenderPath:   p.repoPath(InputRender, DefaultRender, true),
		RenderBudget: p.budget(InputRenderBudget, DefaultRenderBudget),
		ArtifactName: in.GetInput(InputArtifactName),
		DryRun:       p.boolean(InputDryRun, false),
	}
	c.TrustedAssociations = p.associations()
	if c.Token == "" {
		p.fail(InputGitHubToken, "", "is empty; pass `github-token: ${{ github.token }}` (the default) or a PAT / GitHub App token")
	}
	if c.Base != "" && c.Base == c.Branch {
		p.fail(InputBranch, c.Branch, "is the same as input \"base\"; the bot needs a branch of its own")
	}
	if c.RenderPath != "" && c.RenderPath == c.StorePath {
		p.fail(InputRender, c.RenderPath, "is the store's own path; choose another file such as "+DefaultRender)
	}
	if c.StorePath != "" && !strings.HasSuffix(c.StorePath, ".json") {
		p.fail(InputStore, c.StorePath, "must name a .json file (darwin-memo's store format)")
	}
	if err := errors.Join(p.errs...); err != nil {
		return Config{}, fmt.Errorf("invalid action inputs (fix them in the workflow's `with:` block):\n%w", err)
	}
	return c, nil
}

// InputError names one invalid input.
type InputError struct {
	Input string
	Value string
	Msg   string
}

func (e *InputError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("input %q %s", e.Input, e.Msg)
	}
	return fmt.Sprintf("input %q: %q %s", e.Input, e.Value, e.Msg)
}

type inputParser struct {
	in   Inputs
	errs []error
}

func (p *inputParser) fail(name, value, msg string) {
	p.errs = append(p.errs, &InputError{Input: name, Value: value, Msg: msg})
}

func (p *inputParser) get(name, def string) string {
	if v := p.in.GetInput(name); v != "" {
		return v
	}
	return def
}

func (p *inputParser) boolean(name string, def bool) bool {
	v := p.in.GetInput(name)
	switch strings.ToLower(v) {
	case "":
		return def
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	p.fail(name, v, "is not a boolean; use true or false")
	return def
}

func (p *inputParser) positiveFloat(name string, def float64) float64 {
	v := p.in.GetInput(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		p.fail(name, v, "is not a positive finite number; use for example 1.5")
		return def
	}
	return f
}

func (p *inputParser) intRange(name string, def, lo, hi int) int {
	v := p.in.GetInput(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimPrefix(v, "#"))
	if err != nil || n < lo || n > hi {
		p.fail(name, v, fmt.Sprintf("is not a whole number from %d to %d", lo, hi))
		return def
	}
	return n
}

func (p *inputParser) expireAfter() int {
	v := p.in.GetInput(InputExpireAfter)
	switch strings.ToLower(v) {
	case "":
		return DefaultExpireAfter
	case "never", "0", "none", "off":
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		p.fail(InputExpireAfter, v, "is not a positive number of ticks; use for example 50, or never")
		return DefaultExpireAfter
	}
	return n
}

func (p *inputParser) duration(name string, def, hi time.Duration) time.Duration {
	v := p.in.GetInput(name)
	if v == "" || v == "0" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		// A bare number means seconds, as in `timeout-minutes`-style inputs people expect.
		if n, nerr := strconv.Atoi(v); nerr == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
	}
	if err != nil || d < 0 || d > hi {
		p.fail(name, v, fmt.Sprintf("is not a duration from 0s to %s; use for example 5m or 90s", hi))
		return def
	}
	return d
}

// repoPath validates a repository-relative file path: the action reads and writes it through
// the contents and Git Data APIs, so it must be clean, relative and outside .git.
func (p *inputParser) repoPath(name, def string, allowEmpty bool) string {
	v := p.in.GetInput(name)
	if v == "" {
		return def
	}
	if allowEmpty && (strings.EqualFold(v, "none") || strings.EqualFold(v, "false")) {
		return ""
	}
	v = strings.TrimPrefix(v, "./")
	clean := path.Clean(v)
	switch {
	case strings.Contains(v, `\`):
		p.fail(name, v, "uses backslashes; write a repository-relative path with forward slashes")
	case path.IsAbs(v):
		p.fail(name, v, "is absolute; write a path relative to the repository root such as "+DefaultStore)
	case clean != v || clean == "." || strings.HasPrefix(clean, "../") || clean == "..":
		p.fail(name, v, "is not a clean repository-relative file path (no ./, .., // or trailing /)")
	case clean == ".git" || strings.HasPrefix(clean, ".git/"):
		p.fail(name, v, "points inside .git")
	default:
		return clean
	}
	return def
}

// branch validates a branch name with the rules of git check-ref-format that matter here.
func (p *inputParser) branch(name, def string, allowEmpty bool) string {
	v := strings.TrimPrefix(p.in.GetInput(name), "refs/heads/")
	if v == "" {
		if allowEmpty {
			return ""
		}
		return def
	}
	bad := v[0] == '-' || v[0] == '/' || strings.HasSuffix(v, "/") || strings.HasSuffix(v, ".") ||
		strings.HasSuffix(v, ".lock") || strings.Contains(v, "..") || strings.Contains(v, "//") ||
		strings.Contains(v, "@{") || v == "@"
	for _, r := range v {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) {
			bad = true
		}
	}
	if bad {
		p.fail(name, v, "is not a valid branch name (see git check-ref-format); use for example "+DefaultBranch)
		return def
	}
	return v
}

func (p *inputParser) list(name, def string) []string {
	v := p.get(name, def)
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' }) {
		f = strings.TrimSpace(f)
		if f == "" || seen[f] {
			continue
		}
		if len(f) > 50 {
			p.fail(name, f, "is longer than GitHub's 50-character label limit")
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

var knownAssociations = map[string]bool{
	"OWNER": true, "MEMBER": true, "COLLABORATOR": true, "CONTRIBUTOR": true,
	"FIRST_TIME_CONTRIBUTOR": true, "FIRST_TIMER": true, "MANNEQUIN": true, "NONE": true,
}

func (p *inputParser) associations() []string {
	var out []string
	for _, a := range p.list(InputTrustedAssociations, DefaultTrustedAssociations) {
		u := strings.ToUpper(a)
		if !knownAssociations[u] {
			p.fail(InputTrustedAssociations, a, "is not a GitHub author association; use OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR or NONE")
			continue
		}
		out = append(out, u)
	}
	return out
}

func (p *inputParser) llm() string {
	v := p.get(InputLLM, DefaultLLM)
	if v == "none" {
		return v
	}
	provider, model, ok := strings.Cut(v, ":")
	switch {
	case !ok || model == "":
		p.fail(InputLLM, v, "has no model; write provider:model, for example ollama:qwen2.5:0.5b, or none")
	case provider != "ollama" && provider != "openai" && provider != "anthropic" && provider != "github":
		p.fail(InputLLM, v, "names an unknown provider; use none, ollama:<model>, openai:<model>, anthropic:<model> or github:<model>")
	default:
		return v
	}
	return DefaultLLM
}

func (p *inputParser) url(name string) string {
	v := p.in.GetInput(name)
	if v == "" {
		return ""
	}
	if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		p.fail(name, v, "is not an http(s) URL")
		return ""
	}
	return v
}

// budget parses a byte size as the renderer does (lessons.ParseBudget): a number with an
// optional unit b, k, kb, m or mb (case-insensitive, k and m are ×1024).
func (p *inputParser) budget(name string, def int) int {
	v := p.in.GetInput(name)
	if v == "" {
		return def
	}
	n, err := lessons.ParseBudget(v)
	if err != nil {
		p.fail(name, v, "is not a byte size; use for example 25kb")
		return def
	}
	return n
}
