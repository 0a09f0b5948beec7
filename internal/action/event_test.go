package action

import (
	"encoding/json"
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
		// patch edits the parsed real payload, to drive a path its example does not take.
		patch    func(map[string]any)
		wantNote string
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
		{name: "dispatch with another input's name", event: "workflow_dispatch", payload: `{"inputs":{"pr_number":"17","reason":"x"}}`, wantNote: "without a pr-number input (the action reads no other; given: pr_number, reason)"},
		{name: "schedule", event: "schedule", payload: `{"schedule":"0 * * * *"}`},
		{name: "unsupported (real check_run)", event: "check_run", file: "events/check_run.completed.octokit-webhooks.json", wantErr: "not supported"},
		{name: "bad json", event: "push", payload: `{`, wantErr: "not valid JSON"},

		// The real payloads of @octokit/webhooks-examples (testdata/events/SOURCES.md).
		{name: "examples: pull_request closed, not merged", event: "pull_request_target", file: "events/pull_request.closed.not-merged.octokit-webhooks-examples.json",
			wantNote: "closed without merging"},
		{name: "examples: pull_request closed, merged", event: "pull_request_target", file: "events/pull_request.closed.not-merged.octokit-webhooks-examples.json",
			patch: func(m map[string]any) {
				pr := m["pull_request"].(map[string]any)
				pr["merged"], pr["merged_at"] = true, "2019-05-15T15:20:40Z"
			}, wantPR: 2, wantNote: "merged"},
		{name: "examples: push to the default branch", event: "push", file: "events/push.default-branch.octokit-webhooks-examples.json",
			wantSHA: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", wantNote: "push of 6113728 to master"},
		{name: "examples: push to another branch", event: "push", file: "events/push.default-branch.octokit-webhooks-examples.json",
			patch: func(m map[string]any) { m["ref"] = "refs/heads/feature" }, wantNote: "not the default branch master"},
		{name: "examples: push of a tag", event: "push", file: "events/push.tag.octokit-webhooks-examples.json", wantNote: "is not a branch"},
		{name: "examples: tag deleted", event: "push", file: "events/push.tag-deleted.octokit-webhooks-examples.json", wantNote: "is not a branch"},
		{name: "examples: workflow_run completed (repository_dispatch)", event: "workflow_run", file: "events/workflow_run.completed.octokit-webhooks-examples.json",
			wantNote: "CI completed for a repository_dispatch on master"},
		{name: "examples: workflow_run completed for a push", event: "workflow_run", file: "events/workflow_run.completed.octokit-webhooks-examples.json",
			patch:   func(m map[string]any) { m["workflow_run"].(map[string]any)["event"] = "push" },
			wantSHA: "3484a3fb816e0859fd6e1cea078d76385ff50625", wantNote: "CI completed on 3484a3f of master"},
		{name: "examples: workflow_run requested", event: "workflow_run", file: "events/workflow_run.requested.octokit-webhooks-examples.json", wantNote: "not completed"},
		{name: "examples: workflow_dispatch, empty inputs", event: "workflow_dispatch", file: "events/workflow_dispatch.octokit-webhooks-examples.json", wantNote: "reconciling recently merged"},
		{name: "examples: workflow_dispatch with pr-number", event: "workflow_dispatch", file: "events/workflow_dispatch.octokit-webhooks-examples.json",
			patch: func(m map[string]any) { m["inputs"] = map[string]any{"pr-number": "42"} }, wantPR: 42, wantNote: "pull request #42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := []byte(tt.payload)
			if tt.file != "" {
				p = readTestdata(t, tt.file)
			}
			if tt.patch != nil {
				var m map[string]any
				if err := json.Unmarshal(p, &m); err != nil {
					t.Fatal(err)
				}
				tt.patch(m)
				var err error
				if p, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
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
			if tr.PR != tt.wantPR || tr.SHA != tt.wantSHA || tr.Note == "" || !strings.Contains(tr.Note, tt.wantNote) {
				t.Fatalf("got %+v, want PR %d SHA %q note containing %q", tr, tt.wantPR, tt.wantSHA, tt.wantNote)
			}
		})
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, name := range []string{"events/pull_request.closed.merged.reallyfastci.json", "events/workflow_run.completed.octokit-webhooks.json",
		"events/push.default-branch.octokit-webhooks-examples.json", "events/workflow_dispatch.octokit-webhooks-examples.json"} {
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
