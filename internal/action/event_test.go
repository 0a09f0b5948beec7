package action

import (
	"os"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		event   string
		payload string
		file    string
		wantPR  int
		wantSHA string
		wantErr string
	}{
		{name: "merged (real webhook)", event: "pull_request_target", file: "events/pull_request.closed.merged.reallyfastci.json", wantPR: 3},
		{name: "merged pull_request", event: "pull_request", file: "events/pull_request.closed.merged.reallyfastci.json", wantPR: 3},
		{name: "closed unmerged (real webhook)", event: "pull_request_target", file: "events/pull_request.closed.not-merged.octokit-webhooks.json"},
		{name: "opened", event: "pull_request", payload: `{"action":"opened","pull_request":{"number":5}}`},
		{name: "no pull_request", event: "pull_request", payload: `{"action":"closed"}`, wantErr: "no pull_request"},
		{name: "push default", event: "push", payload: `{"ref":"refs/heads/main","after":"abcdef1234","repository":{"default_branch":"main"}}`, wantSHA: "abcdef1234"},
		{name: "push other branch", event: "push", payload: `{"ref":"refs/heads/dev","after":"abcdef1234","repository":{"default_branch":"main"}}`},
		{name: "push tag", event: "push", payload: `{"ref":"refs/tags/v1","after":"abcdef1234"}`},
		{name: "push delete", event: "push", payload: `{"ref":"refs/heads/main","after":"0000000000000000000000000000000000000000","repository":{"default_branch":"main"}}`},
		// The real workflow_run fixture was triggered by repository_dispatch, not a push: reconcile only.
		{name: "workflow_run (real webhook)", event: "workflow_run", file: "events/workflow_run.completed.octokit-webhooks.json"},
		{name: "workflow_run push", event: "workflow_run", payload: `{"action":"completed","workflow_run":{"head_sha":"feed","head_branch":"main","event":"push"},"repository":{"default_branch":"main"}}`, wantSHA: "feed"},
		{name: "workflow_run requested", event: "workflow_run", payload: `{"action":"requested","workflow_run":{"head_sha":"feed","head_branch":"main","event":"push"}}`},
		{name: "dispatch", event: "workflow_dispatch", payload: `{"inputs":{"pr-number":"#17"}}`, wantPR: 17},
		{name: "dispatch empty", event: "workflow_dispatch", payload: `{"inputs":{"pr-number":""}}`},
		{name: "dispatch bad", event: "workflow_dispatch", payload: `{"inputs":{"pr-number":"x"}}`, wantErr: "not a pull request number"},
		{name: "schedule", event: "schedule", payload: `{"schedule":"0 * * * *"}`},
		{name: "unsupported (real check_run)", event: "check_run", file: "events/check_run.completed.octokit-webhooks.json", wantErr: "not supported"},
		{name: "bad json", event: "push", payload: `{`, wantErr: "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := []byte(tt.payload)
			if tt.file != "" {
				p = readTestdata(t, tt.file)
			}
			tr, err := ParseEvent(tt.event, p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr.PR != tt.wantPR || tr.SHA != tt.wantSHA || tr.Note == "" {
				t.Fatalf("got %+v", tr)
			}
		})
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, name := range []string{"events/pull_request.closed.merged.reallyfastci.json", "events/workflow_run.completed.octokit-webhooks.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("pull_request_target", b)
		f.Add("workflow_run", b)
	}
	f.Add("workflow_dispatch", []byte(`{"inputs":{"pr-number":"3"}}`))
	f.Add("push", []byte(`{"ref":"refs/heads/main","after":"ab"}`))
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		tr, err := ParseEvent(name, payload)
		if err == nil && (tr.PR < 0 || tr.Note == "") {
			t.Fatalf("accepted with %+v", tr)
		}
	})
}
