package action

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"
	"gopkg.in/yaml.v3"
)

// envMap is a map-backed getenv.
type envMap map[string]string

func (m envMap) get(k string) string { return m[k] }

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	// go-githubactions keeps hyphens: github-token is read from INPUT_GITHUB-TOKEN.
	gha := githubactions.New(githubactions.WithGetenv(envMap{"INPUT_GITHUB-TOKEN": "  ghs_x  "}.get))
	c, err := ParseConfig(gha)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "ghs_x" || c.StorePath != DefaultStore || c.Branch != DefaultBranch || c.Scale != 1.5 ||
		c.ExpireAfter != 50 || c.Lookback != 30 || c.RenderPath != DefaultRender ||
		c.RenderBudget != 25*1024 || c.LLM != "none" || c.DryRun || len(c.Labels) != 1 || c.Labels[0] != "darwin-memo" {
		t.Fatalf("defaults: %+v", c)
	}
	if strings.Join(c.TrustedAssociations, ",") != "OWNER,MEMBER,COLLABORATOR" {
		t.Fatalf("associations %v", c.TrustedAssociations)
	}
}

func TestParseConfigValues(t *testing.T) {
	t.Parallel()
	gha := githubactions.New(githubactions.WithGetenv(envMap{
		"INPUT_GITHUB-TOKEN":         "t",
		"INPUT_STORE":                "./mem/lessons.json",
		"INPUT_BRANCH":               "refs/heads/bot/mem",
		"INPUT_LABELS":               "a, b\nb,c",
		"INPUT_SCALE":                "2.5",
		"INPUT_EXPIRE-AFTER":         "never",
		"INPUT_LOOKBACK":             "7",
		"INPUT_WAIT-FOR-CI":          "90",
		"INPUT_PR-NUMBER":            "#12",
		"INPUT_LLM":                  "ollama:qwen2.5:0.5b",
		"INPUT_RENDER":               "none",
		"INPUT_RENDER-BUDGET":        "4kb",
		"INPUT_DRY-RUN":              "TRUE",
		"INPUT_TRUSTED-ASSOCIATIONS": "owner",
	}.get))
	c, err := ParseConfig(gha)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Token: "t", StorePath: "mem/lessons.json", Branch: "bot/mem", Scale: 2.5, ExpireAfter: 0,
		Lookback: 7, WaitForCI: 90 * time.Second, PRNumber: 12, LLM: "ollama:qwen2.5:0.5b", RenderPath: "",
		RenderBudget: 4096, DryRun: true}
	if c.Token != want.Token || c.StorePath != want.StorePath || c.Branch != want.Branch || c.Scale != want.Scale ||
		c.ExpireAfter != 0 || c.Lookback != 7 || c.WaitForCI != want.WaitForCI || c.PRNumber != 12 || c.LLM != want.LLM ||
		c.RenderPath != "" || c.RenderBudget != 4096 || !c.DryRun {
		t.Fatalf("got %+v", c)
	}
	if strings.Join(c.Labels, "|") != "a|b|c" || strings.Join(c.TrustedAssociations, "|") != "OWNER" {
		t.Fatalf("lists %v %v", c.Labels, c.TrustedAssociations)
	}
}

// TestInputsMatchActionYML: the input table names every input action.yml declares, in its
// order, with the default action.yml declares.
func TestInputsMatchActionYML(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Inputs yaml.Node `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(b, &meta); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	var declared []string
	for i := 0; i+1 < len(meta.Inputs.Content); i += 2 {
		var in struct {
			Default string `yaml:"default"`
		}
		if err := meta.Inputs.Content[i+1].Decode(&in); err != nil {
			t.Fatalf("action.yml input %s: %v", meta.Inputs.Content[i].Value, err)
		}
		declared = append(declared, meta.Inputs.Content[i].Value+"="+in.Default)
	}
	var table []string
	for _, in := range inputs {
		table = append(table, in.name+"="+in.def)
	}
	if !slices.Equal(table, declared) {
		t.Errorf("the input table (config.go) and action.yml differ:\ntable:      %q\naction.yml: %q", table, declared)
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   envMap
		input string // the input every error must name
	}{
		{"empty token", envMap{}, "github-token"},
		{"scale nan", envMap{"INPUT_SCALE": "NaN"}, "scale"},
		{"scale zero", envMap{"INPUT_SCALE": "0"}, "scale"},
		{"lookback big", envMap{"INPUT_LOOKBACK": "1000"}, "lookback"},
		{"lookback word", envMap{"INPUT_LOOKBACK": "all"}, "lookback"},
		{"store absolute", envMap{"INPUT_STORE": "/etc/passwd.json"}, "store"},
		{"store escape", envMap{"INPUT_STORE": "../x.json"}, "store"},
		{"store git", envMap{"INPUT_STORE": ".git/config.json"}, "store"},
		{"store not json", envMap{"INPUT_STORE": "lessons.yaml"}, "store"},
		{"branch bad", envMap{"INPUT_BRANCH": "a..b"}, "branch"},
		{"branch space", envMap{"INPUT_BRANCH": "my branch"}, "branch"},
		{"branch prefix only", envMap{"INPUT_BRANCH": "refs/heads/"}, "branch"},
		{"branch equals base", envMap{"INPUT_BRANCH": "main", "INPUT_BASE": "main"}, "branch"},
		{"dry-run word", envMap{"INPUT_DRY-RUN": "maybe"}, "dry-run"},
		{"llm provider", envMap{"INPUT_LLM": "gpt4"}, "llm"},
		{"llm unknown", envMap{"INPUT_LLM": "bard:x"}, "llm"},
		{"budget", envMap{"INPUT_RENDER-BUDGET": "lots"}, "render-budget"},
		{"wait", envMap{"INPUT_WAIT-FOR-CI": "2h"}, "wait-for-ci"},
		{"expire", envMap{"INPUT_EXPIRE-AFTER": "-3"}, "expire-after"},
		{"association", envMap{"INPUT_TRUSTED-ASSOCIATIONS": "FRIEND"}, "trusted-associations"},
		{"render is store", envMap{"INPUT_RENDER": DefaultStore}, "render"},
		{"url", envMap{"INPUT_LLM-BASE-URL": "localhost:11434"}, "llm-base-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.name != "empty token" {
				tt.env["INPUT_GITHUB-TOKEN"] = "t"
			}
			_, err := ParseConfig(githubactions.New(githubactions.WithGetenv(tt.env.get)))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), `input "`+tt.input+`"`) {
				t.Fatalf("message %q", err)
			}
		})
	}
}

func TestParseConfigReportsAllProblems(t *testing.T) {
	t.Parallel()
	_, err := ParseConfig(githubactions.New(githubactions.WithGetenv(envMap{"INPUT_SCALE": "x", "INPUT_LOOKBACK": "y"}.get)))
	for _, in := range []string{"github-token", "scale", "lookback"} {
		if err == nil || !strings.Contains(err.Error(), `"`+in+`"`) {
			t.Fatalf("missing %s in %v", in, err)
		}
	}
}

// The render-budget input is read as the renderer reads a budget.
func TestRenderBudgetInput(t *testing.T) {
	t.Parallel()
	validInputs := func(in map[string]string) *githubactions.Action {
		env := envMap{"INPUT_GITHUB-TOKEN": "t"}
		for k, v := range in {
			env["INPUT_"+strings.ToUpper(k)] = v
		}
		return githubactions.New(githubactions.WithGetenv(env.get))
	}
	for in, want := range map[string]int{"25kb": 25600, "4096": 4096, "1m": 1 << 20, "2 KB": 2048, "10b": 10} {
		c, err := ParseConfig(validInputs(map[string]string{"render-budget": in}))
		if err != nil || c.RenderBudget != want {
			t.Errorf("%q: %d %v, want %d", in, c.RenderBudget, err, want)
		}
	}
	for _, in := range []string{"0", "0.5", "-1kb", "kb", "1tb", "NaN", "2gb"} {
		if _, err := ParseConfig(validInputs(map[string]string{"render-budget": in})); err == nil || !strings.Contains(err.Error(), `"render-budget"`) {
			t.Errorf("%q: error %v", in, err)
		}
	}
}

func TestLoadEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ev := filepath.Join(dir, "event.json")
	if err := os.WriteFile(ev, []byte(`{"action":"closed"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := LoadEnv(envMap{
		"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": ev, "GITHUB_REPOSITORY": "o/r",
		"GITHUB_API_URL": "http://127.0.0.1:1/", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "42",
		"GITHUB_OUTPUT": "/x/out", "GITHUB_STEP_SUMMARY": "/x/sum",
	}.get)
	if err != nil {
		t.Fatal(err)
	}
	if e.Owner != "o" || e.Repo != "r" || e.APIURL != "http://127.0.0.1:1" || e.RunID != 42 ||
		string(e.Event) != `{"action":"closed"}` || e.OutputPath != "/x/out" || e.RepoURL() != "https://github.com/o/r" {
		t.Fatalf("%+v", e)
	}
}

func TestLoadEnvErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  envMap
		want string
	}{
		{"no repo", envMap{"GITHUB_EVENT_NAME": "push"}, "GITHUB_REPOSITORY"},
		{"bad repo", envMap{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r/x"}, "owner/name"},
		{"no event name", envMap{"GITHUB_REPOSITORY": "o/r"}, "GITHUB_EVENT_NAME"},
		{"missing event file", envMap{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": "/nonexistent/event.json"}, "GITHUB_EVENT_PATH"},
		{"bad run id", envMap{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "x"}, "runner environment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadEnv(tt.env.get)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want mention of %s", err, tt.want)
			}
		})
	}
}
