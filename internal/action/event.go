package action

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Trigger is what the event adds to a run. Every run reconciles all recently merged pull
// requests anyway (a concurrency group cancels pending runs, so an event may never get its own
// run); the trigger only names extra work: a pull request that may lie outside the lookback
// window, or a base-branch commit to map to its pull request.
type Trigger struct {
	// PR is the merged pull request the event names, 0 if none.
	PR int
	// SHA is a default-branch commit whose pull request should be settled (push,
	// workflow_run); empty if none.
	SHA string
	// DefaultBranch is the repository's default branch from the payload, if present.
	DefaultBranch string
	// Note says in one line why the event did or did not name work, for the log.
	Note string
	// Body is the merged pull request's body as the event payload carries it (GitHub builds
	// the payload at the merge, so a later edit does not change it); nil when the payload has
	// none. It is the body PR's tickets are settled from.
	Body *string
}

// SupportedEvents lists the events the action understands.
var supportedEvents = []string{"pull_request", "pull_request_target", "push", "workflow_run", "workflow_dispatch", "schedule"}

// ParseEvent reads the event payload. Unknown events are an error naming the supported ones;
// a closed-but-unmerged pull request or a push to another branch names no work but is not an
// error (the run still reconciles).
func ParseEvent(name string, payload []byte) (Trigger, error) {
	var t Trigger
	var ev struct {
		Action      string `json:"action"`
		Number      int    `json:"number"`
		Ref         string `json:"ref"`
		After       string `json:"after"`
		PullRequest *struct {
			Number int             `json:"number"`
			Merged bool            `json:"merged"`
			Body   json.RawMessage `json:"body"`
		} `json:"pull_request"`
		Repository *struct {
			DefaultBranch string `json:"default_branch"`
		} `json:"repository"`
		WorkflowRun *struct {
			HeadSHA    string `json:"head_sha"`
			HeadBranch string `json:"head_branch"`
			Event      string `json:"event"`
		} `json:"workflow_run"`
		Inputs map[string]any `json:"inputs"`
	}
	if len(payload) > 0 {
		if err := json.Unmarshal(payload, &ev); err != nil {
			return t, fmt.Errorf("event payload of %s is not valid JSON: %w", name, err)
		}
	}
	if ev.Repository != nil {
		t.DefaultBranch = ev.Repository.DefaultBranch
	}
	switch name {
	case "pull_request", "pull_request_target":
		if ev.PullRequest == nil {
			return t, fmt.Errorf("%s event payload has no pull_request object", name)
		}
		n := ev.PullRequest.Number
		if n == 0 {
			n = ev.Number
		}
		switch {
		case ev.Action != "closed":
			t.Note = fmt.Sprintf("pull request #%d was %s, not merged; reconciling only (trigger on `types: [closed]`)", n, ev.Action)
		case !ev.PullRequest.Merged:
			t.Note = fmt.Sprintf("pull request #%d was closed without merging; reconciling only", n)
		default:
			t.PR = n
			if raw := ev.PullRequest.Body; raw != nil {
				var body *string // null: a pull request without a description
				if err := json.Unmarshal(raw, &body); err != nil {
					return t, fmt.Errorf("%s event payload: pull_request.body is not a string: %w", name, err)
				}
				if body == nil {
					body = new(string)
				}
				t.Body = body
			}
			t.Note = fmt.Sprintf("pull request #%d merged", n)
		}
	case "push":
		branch := strings.TrimPrefix(ev.Ref, "refs/heads/")
		switch {
		case !strings.HasPrefix(ev.Ref, "refs/heads/"):
			t.Note = fmt.Sprintf("push to %s is not a branch; reconciling only", ev.Ref)
		case t.DefaultBranch != "" && branch != t.DefaultBranch:
			t.Note = fmt.Sprintf("push to %s, not the default branch %s; reconciling only", branch, t.DefaultBranch)
		case isZeroSHA(ev.After):
			t.Note = "push deleted the branch; reconciling only"
		default:
			t.SHA = ev.After
			t.Note = fmt.Sprintf("push of %s to %s", short(ev.After), branch)
		}
	case "workflow_run":
		wr := ev.WorkflowRun
		switch {
		case wr == nil:
			return t, fmt.Errorf("workflow_run event payload has no workflow_run object")
		case ev.Action != "completed":
			t.Note = fmt.Sprintf("workflow run is %s, not completed; reconciling only (trigger on `types: [completed]`)", ev.Action)
		case wr.Event == "push" && (t.DefaultBranch == "" || wr.HeadBranch == t.DefaultBranch):
			t.SHA = wr.HeadSHA
			t.Note = fmt.Sprintf("CI completed on %s of %s", short(wr.HeadSHA), wr.HeadBranch)
		default:
			t.Note = fmt.Sprintf("CI completed for a %s on %s; reconciling", wr.Event, wr.HeadBranch)
		}
	case "workflow_dispatch":
		// The workflow's dispatch input pr-number (README's workflow), which the runner also
		// passes as the action input of the same name.
		if v, ok := ev.Inputs["pr-number"]; ok {
			if s := strings.TrimPrefix(strings.TrimSpace(fmt.Sprint(v)), "#"); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil || n <= 0 {
					return t, fmt.Errorf("workflow_dispatch input \"pr-number\"=%q is not a pull request number", s)
				}
				t.PR = n
			}
		}
		if t.PR != 0 {
			t.Note = fmt.Sprintf("dispatched for pull request #%d", t.PR)
		} else if others := slices.Sorted(maps.Keys(ev.Inputs)); len(others) > 0 && !slices.Contains(others, "pr-number") {
			t.Note = fmt.Sprintf("dispatched without a pr-number input (the action reads no other; given: %s); reconciling recently merged pull requests", strings.Join(others, ", "))
		} else {
			t.Note = "dispatched; reconciling recently merged pull requests"
		}
	case "schedule":
		t.Note = "scheduled; reconciling recently merged pull requests"
	default:
		return t, fmt.Errorf("event %q is not supported; trigger the action on one of %s", name, strings.Join(supportedEvents, ", "))
	}
	return t, nil
}

func isZeroSHA(s string) bool { return strings.Trim(s, "0") == "" }

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
