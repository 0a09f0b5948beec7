package action

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Names of the inputs other code refers to; every input is in the table inputs.
const (
	InputGitHubToken = "github-token"
	InputLLM         = "llm"
)

// Defaults the action's messages name.
const (
	DefaultStore  = ".darwin-memo/lessons.json"
	DefaultBranch = "darwin-memo/lessons"
	DefaultRender = ".darwin-memo/LESSONS.md"
)

// Bounds of the inputs that take a range.
const (
	// MaxLookback bounds how many recently merged pull requests one run examines.
	MaxLookback = 100
	// MaxWaitForCI bounds wait-for-ci so a run always ends well inside a job's time limit.
	MaxWaitForCI = 30 * time.Minute
)

// input is one action input: its name and default exactly as action.yml declares them
// (TestInputsMatchActionYML holds the two together), and how its value, the default when
// empty, goes into a Config. A default that is an expression (${{ ... }}) is the runner's to
// fill: outside a runner the value stays empty.
type input struct {
	name, def string
	set       func(p *inputParser, c *Config, name, v string)
}

// inputs are the action's inputs in action.yml's order: the one place each is named,
// defaulted and parsed.
var inputs = []input{
	{InputGitHubToken, "${{ github.token }}", func(p *inputParser, c *Config, name, v string) { c.Token = v }},
	{"store", DefaultStore, func(p *inputParser, c *Config, name, v string) { c.StorePath = p.repoPath(name, v, false) }},
	{"branch", DefaultBranch, func(p *inputParser, c *Config, name, v string) { c.Branch = p.branch(name, v) }},
	{"base", "", func(p *inputParser, c *Config, name, v string) { c.Base = p.branch(name, v) }},
	{"labels", "darwin-memo", func(p *inputParser, c *Config, name, v string) { c.Labels = p.list(name, v) }},
	{"scale", "1.5", func(p *inputParser, c *Config, name, v string) { c.Scale = p.positiveFloat(name, v) }},
	{"expire-after", "50", func(p *inputParser, c *Config, name, v string) { c.ExpireAfter = p.expireAfter(name, v) }},
	{"lookback", "30", func(p *inputParser, c *Config, name, v string) { c.Lookback = p.intRange(name, v, 1, MaxLookback) }},
	{"wait-for-ci", "0", func(p *inputParser, c *Config, name, v string) { c.WaitForCI = p.duration(name, v, MaxWaitForCI) }},
	{"pr-number", "", func(p *inputParser, c *Config, name, v string) { c.PRNumber = p.intRange(name, v, 1, math.MaxInt32) }},
	{InputLLM, "none", func(p *inputParser, c *Config, name, v string) { c.LLM = p.llm(name, v) }},
	{"llm-base-url", "", func(p *inputParser, c *Config, name, v string) { c.LLMBaseURL = p.url(name, v) }},
	{"trusted-associations", "OWNER,MEMBER,COLLABORATOR", func(p *inputParser, c *Config, name, v string) { c.TrustedAssociations = p.associations(name, v) }},
	{"render", DefaultRender, func(p *inputParser, c *Config, name, v string) { c.RenderPath = p.repoPath(name, v, true) }},
	{"render-budget", "25kb", func(p *inputParser, c *Config, name, v string) { c.RenderBudget = p.budget(name, v) }},
	{"artifact-name", "", func(p *inputParser, c *Config, name, v string) { c.ArtifactName = v }},
	{"dry-run", "false", func(p *inputParser, c *Config, name, v string) { c.DryRun = p.boolean(name, v) }},
}

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
// and what to write instead; all problems are reported at once. GetInput reads an input by its
// action.yml name: it upper-cases the name, keeps hyphens (github-token → INPUT_GITHUB-TOKEN)
// and trims spaces.
func ParseConfig(in *githubactions.Action) (Config, error) {
	var p inputParser
	var c Config
	for _, i := range inputs {
		v := in.GetInput(i.name)
		if v == "" && !strings.HasPrefix(i.def, "${{") {
			v = i.def
		}
		i.set(&p, &c, i.name, v)
	}
	if c.Token == "" {
		p.fail(InputGitHubToken, "", "is empty; pass `github-token: ${{ github.token }}` (the default) or a PAT / GitHub App token")
	}
	if c.Base != "" && c.Base == c.Branch {
		p.fail("branch", c.Branch, "is the same as input \"base\"; the bot needs a branch of its own")
	}
	if c.RenderPath != "" && c.RenderPath == c.StorePath {
		p.fail("render", c.RenderPath, "is the store's own path; choose another file such as "+DefaultRender)
	}
	if c.StorePath != "" && !strings.HasSuffix(c.StorePath, ".json") {
		p.fail("store", c.StorePath, "must name a .json file (darwin-memo's store format)")
	}
	if err := errors.Join(p.errs...); err != nil {
		return Config{}, fmt.Errorf("invalid action inputs (fix them in the workflow's `with:` block):\n%w", err)
	}
	return c, nil
}

// inputParser parses input values, collecting every problem.
type inputParser struct {
	errs []error
}

// fail notes one invalid input, naming it and the value.
func (p *inputParser) fail(name, value, msg string) {
	if value == "" {
		p.errs = append(p.errs, fmt.Errorf("input %q %s", name, msg))
		return
	}
	p.errs = append(p.errs, fmt.Errorf("input %q: %q %s", name, value, msg))
}

func (p *inputParser) boolean(name, v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	p.fail(name, v, "is not a boolean; use true or false")
	return false
}

func (p *inputParser) positiveFloat(name, v string) float64 {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		p.fail(name, v, "is not a positive finite number; use for example 1.5")
		return 0
	}
	return f
}

// intRange parses a whole number from lo to hi (a leading # allowed); empty is 0.
func (p *inputParser) intRange(name, v string, lo, hi int) int {
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(v, "#"))
	if err != nil || n < lo || n > hi {
		p.fail(name, v, fmt.Sprintf("is not a whole number from %d to %d", lo, hi))
		return 0
	}
	return n
}

func (p *inputParser) expireAfter(name, v string) int {
	switch strings.ToLower(v) {
	case "never", "0", "none", "off":
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		p.fail(name, v, "is not a positive number of ticks; use for example 50, or never")
		return 0
	}
	return n
}

func (p *inputParser) duration(name, v string, hi time.Duration) time.Duration {
	if v == "0" {
		return 0
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
		return 0
	}
	return d
}

// repoPath validates a repository-relative file path: the action reads and writes it through
// the contents and Git Data APIs, so it must be clean, relative and outside .git. With
// allowNone, "none" and "false" mean no file ("").
func (p *inputParser) repoPath(name, v string, allowNone bool) string {
	if allowNone && (strings.EqualFold(v, "none") || strings.EqualFold(v, "false")) {
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
	return ""
}

// branch validates a branch name with the rules of git check-ref-format that matter here;
// empty stays empty.
func (p *inputParser) branch(name, v string) string {
	if v == "" {
		return ""
	}
	v = strings.TrimPrefix(v, "refs/heads/")
	if v == "" {
		p.fail(name, "refs/heads/", "names no branch")
		return ""
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
		return ""
	}
	return v
}

func (p *inputParser) list(name, v string) []string {
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

func (p *inputParser) associations(name, v string) []string {
	var out []string
	for _, a := range p.list(name, v) {
		u := strings.ToUpper(a)
		if !knownAssociations[u] {
			p.fail(name, a, "is not a GitHub author association; use OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR or NONE")
			continue
		}
		out = append(out, u)
	}
	return out
}

func (p *inputParser) llm(name, v string) string {
	if v == "none" {
		return v
	}
	provider, model, ok := strings.Cut(v, ":")
	switch {
	case !ok || model == "":
		p.fail(name, v, "has no model; write provider:model, for example ollama:qwen2.5:0.5b, or none")
	case provider != "ollama" && provider != "openai" && provider != "anthropic" && provider != "github":
		p.fail(name, v, "names an unknown provider; use none, ollama:<model>, openai:<model>, anthropic:<model> or github:<model>")
	default:
		return v
	}
	return ""
}

func (p *inputParser) url(name, v string) string {
	if v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		p.fail(name, v, "is not an http(s) URL")
		return ""
	}
	return v
}

// budget parses a byte size as the renderer does (lessons.ParseBudget): a number with an
// optional unit b, k, kb, m or mb (case-insensitive, k and m are ×1024).
func (p *inputParser) budget(name, v string) int {
	n, err := lessons.ParseBudget(v)
	if err != nil {
		p.fail(name, v, "is not a byte size; use for example 25kb")
		return 0
	}
	return n
}
