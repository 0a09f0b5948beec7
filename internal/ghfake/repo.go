package ghfake

import (
	"crypto/sha1"
	"encoding/hex"
	"time"
)

// Repo declares everything the fake serves for one repository. Zero values
// are filled in by New: Owner "o", Name "r", DefaultBranch "main".
type Repo struct {
	Owner, Name   string
	DefaultBranch string
	// Branches maps a branch name to the SHA of its tip (used by compare).
	Branches map[string]string

	Commits      []Commit
	Pulls        []PullRequest
	CheckRuns    []CheckRun
	WorkflowRuns []WorkflowRun
	Artifacts    []Artifact
	Statuses     []Status

	// PageSize, when > 0, caps per_page on every list route so tests
	// exercise Link paging with few items.
	PageSize int
	// Faults are injected in order; see Fault.
	Faults []Fault
}

// Commit is a git commit (GET /git/commits/{sha}).
type Commit struct {
	SHA     string
	Parents []string
	Message string
	Author  string // default "Monalisa Octocat" (the fixture's author)
	// Change is what the commit changed against its first parent: path → the content it
	// leaves (GET /commits/{ref} serves each as a modified file); nil changes nothing.
	Change map[string]string
	// Tree is the sha of the commit's tree; default one of its own.
	Tree string
}

func (c Commit) tree() string {
	if c.Tree != "" {
		return c.Tree
	}
	return SHA("tree:" + c.SHA)
}

// PullRequest is served by GET /pulls/{number} on top of the real payload
// of a merged pull request.
type PullRequest struct {
	Number         int
	Title, Body    string
	State          string // default "closed" when Merged, else "open"
	Merged         bool
	MergedAt       time.Time
	HeadSHA        string
	HeadRef        string
	BaseSHA        string
	BaseRef        string // default Repo.DefaultBranch
	MergeCommitSHA string
	Commits        int // number of commits in the PR; default len(CommitSHAs) or 1
	// CommitSHAs are the PR's commits, oldest first, each declared in
	// Repo.Commits; served by GET /pulls/{number}/commits.
	CommitSHAs []string
	// Replayed are the commits a rebase merge put on the base branch (the last is
	// MergeCommitSHA); GET /commits/{sha}/pulls maps each to the pull request, as it does the
	// merge commit and the head.
	Replayed []string
}

// CheckRun is one check run on a commit.
type CheckRun struct {
	ID         int64 // default: position + 1
	Name       string
	HeadSHA    string
	Status     string // default "completed"
	Conclusion string // only when completed
	AppSlug    string // default "github-actions"
	StartedAt  time.Time
	Title      string
	Summary    string
	Text       string
	// DetailsURL overrides details_url; GitHub Actions job check runs
	// point it at ".../actions/runs/<run id>/job/<job id>".
	DetailsURL string
	// Annotations are served by GET /check-runs/{id}/annotations.
	Annotations []Annotation
}

// Annotation is a check-run annotation.
type Annotation struct {
	Path       string
	StartLine  int
	EndLine    int
	Level      string // notice, warning, failure
	Title      string
	Message    string
	RawDetails string
}

// WorkflowRun is a GitHub Actions workflow run.
type WorkflowRun struct {
	ID         int64 // default: 1000 + position
	Name       string
	WorkflowID int64
	HeadSHA    string
	HeadBranch string
	Event      string // default "pull_request"
	Status     string // default "completed"
	Conclusion string
	RunAttempt int
	CreatedAt  time.Time
	// AttemptStarts, when set, is when each attempt started, attempt 1 first (a re-run adds an
	// attempt; its run_started_at is the newest attempt's start). Default: every attempt at
	// CreatedAt.
	AttemptStarts []time.Time
}

// attemptStart is when attempt n of the run started.
func (w WorkflowRun) attemptStart(n int) time.Time {
	if n >= 1 && n <= len(w.AttemptStarts) {
		return w.AttemptStarts[n-1]
	}
	return w.CreatedAt
}

// Artifact is a workflow-run artifact; Zip is served through the 302
// redirect to the blob server.
type Artifact struct {
	ID      int64 // default: 5000 + position
	RunID   int64
	Name    string
	Zip     []byte
	Size    int64 // default len(Zip); may lie to test size caps
	Expired bool  // listed as expired; the zip route answers 410
	// CreatedAt is when the artifact was uploaded (default: when its run's newest attempt
	// started); a re-run job uploads its artifacts during the new attempt.
	CreatedAt time.Time
}

// Status is one commit status (external CI).
type Status struct {
	SHA         string
	Context     string
	State       string // error, failure, pending, success
	Description string
	TargetURL   string
}

// SHA derives a stable 40-hex commit id from a readable name, so scenarios
// can say SHA("base") instead of inventing hashes.
func SHA(name string) string {
	sum := sha1.Sum([]byte(name))
	return hex.EncodeToString(sum[:])
}

func (r *Repo) fill() {
	if r.Owner == "" {
		r.Owner = "o"
	}
	if r.Name == "" {
		r.Name = "r"
	}
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	for i := range r.Pulls {
		p := &r.Pulls[i]
		if p.State == "" {
			p.State = "open"
			if p.Merged {
				p.State = "closed"
			}
		}
		if p.BaseRef == "" {
			p.BaseRef = r.DefaultBranch
		}
		if p.HeadRef == "" {
			p.HeadRef = "feature"
		}
		if p.Commits == 0 {
			p.Commits = max(1, len(p.CommitSHAs))
		}
		if p.Merged && p.MergedAt.IsZero() {
			p.MergedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		}
	}
	for i := range r.Commits {
		if r.Commits[i].Author == "" {
			r.Commits[i].Author = "Monalisa Octocat"
		}
	}
	for i := range r.CheckRuns {
		c := &r.CheckRuns[i]
		if c.ID == 0 {
			c.ID = int64(i + 1)
		}
		if c.Status == "" {
			c.Status = "completed"
		}
		if c.AppSlug == "" {
			c.AppSlug = "github-actions"
		}
		if c.StartedAt.IsZero() {
			c.StartedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		}
	}
	for i := range r.WorkflowRuns {
		w := &r.WorkflowRuns[i]
		if w.ID == 0 {
			w.ID = int64(1000 + i)
		}
		if w.Event == "" {
			w.Event = "pull_request"
		}
		if w.Status == "" {
			w.Status = "completed"
		}
		if w.RunAttempt == 0 {
			w.RunAttempt = 1
		}
		if w.WorkflowID == 0 {
			w.WorkflowID = 77
		}
		if w.CreatedAt.IsZero() {
			w.CreatedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		}
	}
	for i := range r.Artifacts {
		a := &r.Artifacts[i]
		if a.ID == 0 {
			a.ID = int64(5000 + i)
		}
		if a.Size == 0 {
			a.Size = int64(len(a.Zip))
		}
	}
}
