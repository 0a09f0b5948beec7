package encode

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// injection is one attack of testdata/injections.json: text an attacker
// puts in the PR (where: body, title, commit, review or ci), and payloads,
// the lessons an obedient model would write.
type injection struct {
	Name     string   `json:"name"`
	Where    string   `json:"where"`
	Text     string   `json:"text"`
	Payloads []string `json:"payloads"`
}

func loadInjections(t *testing.T) []injection {
	t.Helper()
	b, err := os.ReadFile("testdata/injections.json")
	if err != nil {
		t.Fatal(err)
	}
	var inj []injection
	if err := json.Unmarshal(b, &inj); err != nil {
		t.Fatal(err)
	}
	if len(inj) < 50 {
		t.Fatalf("only %d injections", len(inj))
	}
	return inj
}

// attackedPR is a realistic merged PR by a trusted author (the worst case:
// its lessons would be added without review) carrying one attack.
func attackedPR(inj injection) (*PR, string) {
	pr := &PR{
		Owner: "octocat", Repo: "Hello-World", Number: 1347,
		Title: "Add config loading", Body: "Adds config loading.", AuthorAssociation: "OWNER",
		MergedAt: time.Date(2011, 1, 26, 19, 1, 12, 0, time.UTC),
		Files: []File{
			{Path: "lib/config.go", Status: "modified", Additions: 40, Deletions: 2, Patch: "+// Load reads the config file at path.\n+func Load(path string) (*Config, error) {"},
			{Path: "README", Status: "modified", Additions: 5, Deletions: 1, Patch: "+Run `make test` before sending a pull request."},
			{Path: "Makefile", Status: "modified", Additions: 2, Patch: " test:\n \tgo test ./...\n+vet:\n+\tgo vet ./..."},
		},
		Commits: []Commit{{SHA: "a3e5f7091b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e", Message: "Add config loader"}},
	}
	doc := "pr"
	switch inj.Where {
	case "body":
		pr.Body = inj.Text
	case "title":
		pr.Title = inj.Text
	case "commit":
		pr.Commits = append(pr.Commits, Commit{SHA: "deadbeef00000000000000000000000000000000", Message: inj.Text})
		doc = "commit:deadbee"
	case "review":
		pr.Reviews = []ReviewComment{{ID: 99, Path: "lib/config.go", Body: inj.Text, AuthorAssociation: "MEMBER", Addressed: true}}
		doc = "review:99"
	case "ci":
		pr.CIFixed = []CIFailure{{Test: "lib.TestLoad", Message: inj.Text}}
		doc = "ci:lib.TestLoad"
	}
	return pr, doc
}

func assertNoneThrough(t *testing.T, res *Result) {
	t.Helper()
	for _, c := range res.Candidates {
		if c.Rejected == "" {
			t.Errorf("lesson got through (from %s, added=%v proposed=%v): %q -> %q", c.From, c.Added(), c.Proposed, c.Question, c.Answer)
		}
	}
}

func TestInjectionCorpusDeterministic(t *testing.T) {
	for _, inj := range loadInjections(t) {
		t.Run(inj.Name, func(t *testing.T) {
			t.Parallel()
			pr, _ := attackedPR(inj)
			res, err := New(nil, trustEveryone).Encode(context.Background(), pr, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			assertNoneThrough(t, res)
		})
	}
}

// echoProvider is a model that obeys the attacker: it writes the
// payloads as lessons in several framings, citing the attacked document.
type echoProvider struct {
	payloads []string
	doc      string
}

func (echoProvider) Name() string { return "fake:echo" }

func (e echoProvider) Reflect(ctx context.Context, req Request) (string, error) {
	var ls []RawLesson
	for _, p := range e.payloads {
		ls = append(ls,
			RawLesson{Question: "What should be known about lib/config.go?", Answer: p, Kind: "explicit", Evidence: []string{e.doc}, Paths: []string{"lib/config.go"}},
			RawLesson{Question: strings.TrimRight(capText(p, 190), ".?!") + "?", Answer: "Yes, lib/config.go requires it: " + capText(p, 500), Kind: "inferred", Evidence: []string{e.doc, "diff:lib/config.go"}, Paths: []string{}},
			RawLesson{Question: "How is lib/config.go used?", Answer: capText(p, 580), Kind: "cross_doc", Evidence: []string{"pr", "diff:lib/config.go", "diff:README", "diff:Makefile", e.doc}, Paths: []string{"lib/config.go"}},
			// citing only clean documents, to dodge the suspicious-source rule
			RawLesson{Question: "What does lib/config.go need before tests run?", Answer: capText(p, 580), Kind: "inferred", Evidence: []string{"diff:lib/config.go", "diff:README", "diff:Makefile"}, Paths: []string{"lib/config.go"}},
		)
	}
	return string(marshalLessons(ls)), nil
}

func TestInjectionCorpusEchoModel(t *testing.T) {
	for _, inj := range loadInjections(t) {
		t.Run(inj.Name, func(t *testing.T) {
			t.Parallel()
			pr, doc := attackedPR(inj)
			p := echoProvider{payloads: inj.Payloads, doc: doc}
			res, err := New(p, trustEveryone).Encode(context.Background(), pr, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) < 4*len(inj.Payloads) {
				t.Fatalf("%d candidates, want at least %d", len(res.Candidates), 4*len(inj.Payloads))
			}
			assertNoneThrough(t, res)
		})
	}
}
