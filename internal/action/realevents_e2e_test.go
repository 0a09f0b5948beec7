package action

import (
	"encoding/json"
	"strconv"
	"testing"
)

// realEvent loads a real webhook payload from testdata/events and points it at this harness's
// repository: patch rewrites the fields that name a pull request or a commit.
func realEvent(t *testing.T, file string, patch func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readTestdata(t, "events/"+file), &m); err != nil {
		t.Fatal(err)
	}
	m["repository"].(map[string]any)["default_branch"] = "main"
	patch(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The whole action driven by real deliveries, each naming a merge the lookback does not reach (a captured merged pull_request, and the push and
// workflow_dispatch examples of @octokit/webhooks-examples), not hand-written payloads.
func TestE2ERealWebhookPayloads(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	tests := []struct {
		name, event, file string
		patch             func(m map[string]any, n int, mergeSHA, body string)
	}{
		{"pull_request_target closed merged (captured delivery)", "pull_request_target", "pull_request.closed.merged.reallyfastci.json",
			func(m map[string]any, n int, _, body string) {
				// The delivery carries the body as it stood at the merge: the tickets come from it.
				m["number"] = n
				m["pull_request"].(map[string]any)["number"] = n
				m["pull_request"].(map[string]any)["body"] = body
			}},
		{"push of the merge commit to the default branch", "push", "push.default-branch.octokit-webhooks-examples.json",
			func(m map[string]any, _ int, sha, _ string) { m["ref"], m["after"] = "refs/heads/main", sha }},
		{"workflow_dispatch with pr-number", "workflow_dispatch", "workflow_dispatch.octokit-webhooks-examples.json",
			func(m map[string]any, n int, _, _ string) { m["inputs"] = map[string]any{"pr-number": strconv.Itoa(n)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, store)
			pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
			// A later merge fills the lookback of 1: only the event can name the first one.
			h.merge("Docs", "no ticket", nil)
			payload := realEvent(t, tt.file, func(m map[string]any) { tt.patch(m, pr.Number, pr.MergeCommitSHA, pr.Body) })
			res := h.run(tt.event, payload, map[string]string{"lookback": "1"})
			mustCode(t, res, 0)
			if res.outputs["result"] != "settled" || res.outputs["pull-request-operation"] != "created" {
				t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
			}
		})
	}
}
