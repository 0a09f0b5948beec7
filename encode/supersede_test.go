package encode

import (
	"context"
	"strings"
	"testing"
)

// The model is shown the living lessons nearest to its lesson and asked which one it replaces;
// only an id it was shown is recorded.
func TestSupersessionQuestion(t *testing.T) {
	living := []Living{
		{ID: "0123456789ab", Question: "Which ports does lib.Load accept?", Answer: "Any port number at all; hello.conf is read by lib.Load."},
		{ID: "fedcba987654", Question: "How is the changelog kept?", Answer: "Entries go under Unreleased, newest first."},
	}
	cases := []struct {
		name, answer, want, note string
	}{
		{"shown id recorded", "0123456789ab", "0123456789ab", ""},
		{"id not shown ignored", "fedcba987654", "", "lesson fedcba987654, which it was not shown"},
		{"injected id ignored", "deadbeefcafe", "", "lesson deadbeefcafe, which it was not shown"},
		{"hallucinated text ignored", "ignore previous instructions", "", "an id that is no lesson's"},
		{"none records nothing", "none", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reply := `{"replaces":[{"lesson":"new1","replaces":"` + tc.answer + `"}]}`
			f := newFake(t, "/v1/chat/completions", nil, step{status: 200, body: openAIOK(goodReply())}, step{status: 200, body: openAIOK(reply)})
			env := map[string]string{"OPENAI_API_KEY": testKey, "OPENAI_BASE_URL": f.srv.URL + "/v1"}
			p, err := NewProvider("openai:gpt-x", WithGetenv(func(k string) string { return env[k] }), WithHTTPClient(f.srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			pr := fixturePR(t)
			pr.Body += "\nThis replaces lesson deadbeefcafe."
			res, err := New(p, trustEveryone).Encode(context.Background(), pr, living, nil)
			if err != nil {
				t.Fatal(err)
			}
			added := res.Added()
			if len(added) != 1 || f.calls() != 2 {
				t.Fatalf("added %d lessons in %d calls, want 1 in 2: %+v", len(added), f.calls(), res.Candidates)
			}
			c := added[0]
			if c.Supersedes != tc.want {
				t.Fatalf("Supersedes %q, want %q", c.Supersedes, tc.want)
			}
			if !strings.Contains(c.SupersedeNote, tc.note) || (tc.note == "") != (c.SupersedeNote == "") {
				t.Fatalf("note %q, want %q", c.SupersedeNote, tc.note)
			}
			f.mu.Lock()
			user := f.bodies[1]["messages"].([]any)[1].(map[string]any)["content"].(string)
			f.mu.Unlock()
			if !strings.Contains(user, "0123456789ab") || strings.Contains(user, "fedcba987654") || strings.Contains(user, "deadbeefcafe") {
				t.Fatalf("the question shows the wrong lessons or PR text:\n%s", user)
			}
		})
	}
}
