// Package botpr maintains one bot pull request through the GitHub REST API alone: it commits a
// set of files with the Git Data API (tree on a base tree, a commit with no author so GitHub
// signs it, then create or force-update the branch), finds the open pull request by its head
// branch, creates it or updates its title and body, adds labels, and closes it when it has
// become empty. It never needs a checkout.
//
// Errors GitHub returns for missing permissions or a repository that forbids Actions to open
// pull requests are turned into messages that name the setting or permission to change.
package botpr

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/ctxtime"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
)

// Operation is what happened to the bot pull request, as reported in the action's
// pull-request-operation output.
type Operation string

// Operations.
const (
	OpNone    Operation = "none"
	OpCreated Operation = "created"
	OpUpdated Operation = "updated"
	OpClosed  Operation = "closed"
)

// Repo addresses one repository through a go-github client.
type Repo struct {
	Client      *github.Client
	Owner, Name string
	// Sleep waits between retries of a write that failed transiently (nil: a timer). The
	// transport retries only idempotent methods; every write here is safe to repeat: Git Data
	// objects are content-addressed and unreferenced until the branch moves, a ref update is
	// idempotent, labels are a set, and a repeated pull-request creation answers 422 "already
	// exists", which Upsert treats as an update.
	Sleep func(ctx context.Context, d time.Duration) error
}

// writeAttempts bounds the tries of one write.
const writeAttempts = 3

// retry runs a write, trying again after 1s, 2s when it fails transiently (5xx, rate limits,
// timeouts).
func (r Repo) retry(ctx context.Context, write func() error) error {
	for attempt := 1; ; attempt++ {
		err := write()
		if err == nil || attempt == writeAttempts || !ghapi.IsTransient(err) || ctx.Err() != nil {
			return err
		}
		sleep := r.Sleep
		if sleep == nil {
			sleep = ctxtime.Sleep
		}
		if serr := sleep(ctx, time.Duration(attempt)*time.Second); serr != nil {
			return err
		}
	}
}

// CommitRequest describes one commit of files on top of a parent commit.
type CommitRequest struct {
	// Branch is the branch name (without refs/heads/) to point at the new commit.
	Branch string
	// Parent is the commit the new commit is built on.
	Parent string
	// Files maps repository-relative paths to their new content.
	Files map[string][]byte
	// Message is the commit message.
	Message string
	// BranchExists says the branch is known to exist (skip the create attempt).
	BranchExists bool
}

// inlineLimit is the largest file Commit sends inside the tree request; larger ones, and files
// that are not UTF-8, go through a blob of their own.
const inlineLimit = 1 << 20

// needsBlob reports whether Commit uploads content as a blob of its own rather than sending
// it inside the tree request.
func needsBlob(content []byte) bool {
	return len(content) > inlineLimit || !utf8.Valid(content)
}

// Commit writes req.Files as one commit on top of req.Parent and points req.Branch at it,
// creating the branch or force-updating it. The commit carries no author or committer, so
// with GITHUB_TOKEN or an App token GitHub signs it as verified. It returns the commit's sha.
//
// Commit makes 4 requests (3 when the branch has to be created and does not exist; one more
// per non-UTF-8 file or file over 1 MB, which goes through a blob: base64 costs a large store
// a third more bytes but far less work than JSON-escaping it inline in the tree, where
// go-github's tree entry encoder escapes it and encoding/json checks the result once more). On failure the branch is left as it was:
// the ref moves only in the last request.
func (r Repo) Commit(ctx context.Context, req CommitRequest) (string, error) {
	parent, _, err := r.Client.Git.GetCommit(ctx, r.Owner, r.Name, req.Parent)
	if err != nil {
		return "", Explain(fmt.Errorf("reading parent commit %s: %w", req.Parent, err), "contents")
	}
	paths := slices.Sorted(maps.Keys(req.Files))
	entries := make([]*github.TreeEntry, 0, len(paths))
	for _, p := range paths {
		e := &github.TreeEntry{Path: github.String(p), Mode: github.String("100644"), Type: github.String("blob")}
		if c := req.Files[p]; !needsBlob(c) {
			e.Content = github.String(string(c))
		} else {
			var blob *github.Blob
			err := r.retry(ctx, func() (err error) {
				blob, err = r.createBlob(ctx, c)
				return err
			})
			if err != nil {
				return "", Explain(fmt.Errorf("creating blob for %s: %w", p, err), "contents")
			}
			e.SHA = blob.SHA
		}
		entries = append(entries, e)
	}
	var tree *github.Tree
	err = r.retry(ctx, func() (err error) {
		tree, _, err = r.Client.Git.CreateTree(ctx, r.Owner, r.Name, parent.GetTree().GetSHA(), entries)
		return err
	})
	if err != nil {
		return "", Explain(fmt.Errorf("creating tree: %w", err), "contents")
	}
	var commit *github.Commit
	err = r.retry(ctx, func() (err error) {
		commit, _, err = r.Client.Git.CreateCommit(ctx, r.Owner, r.Name, &github.Commit{
			Message: github.String(req.Message),
			Tree:    &github.Tree{SHA: tree.SHA},
			Parents: []*github.Commit{{SHA: github.String(req.Parent)}},
		}, nil)
		return err
	})
	if err != nil {
		return "", Explain(fmt.Errorf("creating commit: %w", err), "contents")
	}
	ref := &github.Reference{Ref: github.String("refs/heads/" + req.Branch), Object: &github.GitObject{SHA: commit.SHA}}
	if !req.BranchExists {
		err = r.retry(ctx, func() error {
			_, _, err := r.Client.Git.CreateRef(ctx, r.Owner, r.Name, ref)
			return err
		})
		if err == nil {
			return commit.GetSHA(), nil
		}
		if !isStatus(err, http.StatusUnprocessableEntity) {
			return "", Explain(fmt.Errorf("creating branch %s: %w", req.Branch, err), "contents")
		}
		// 422 "Reference already exists": someone created it meanwhile; force-update instead.
	}
	if err := r.retry(ctx, func() error {
		_, _, err := r.Client.Git.UpdateRef(ctx, r.Owner, r.Name, ref, true)
		return err
	}); err != nil {
		return "", Explain(fmt.Errorf("updating branch %s: %w", req.Branch, err), "contents")
	}
	return commit.GetSHA(), nil
}

// FindOpen returns the open pull request whose head is owner:branch and whose base is base, or
// nil when there is none. One request.
func (r Repo) FindOpen(ctx context.Context, branch, base string) (*github.PullRequest, error) {
	prs, _, err := r.Client.PullRequests.List(ctx, r.Owner, r.Name, &github.PullRequestListOptions{
		State: "open", Head: r.Owner + ":" + branch, Base: base, ListOptions: github.ListOptions{PerPage: 10},
	})
	if err != nil {
		return nil, Explain(fmt.Errorf("looking for the open bot pull request from %s: %w", branch, err), "pull-requests")
	}
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch && pr.GetState() == "open" {
			return pr, nil
		}
	}
	return nil, nil
}

// UpsertRequest describes the bot pull request.
type UpsertRequest struct {
	Branch, Base string
	Title, Body  string
	Labels       []string
	// Existing is the open pull request FindOpen returned, or nil.
	Existing *github.PullRequest
}

// Upsert creates the bot pull request or updates the title and body of the existing one, then
// adds the labels. A 422 "A pull request already exists" on create (a race with another run)
// is treated as an update of the pull request found afterwards.
func (r Repo) Upsert(ctx context.Context, req UpsertRequest) (*github.PullRequest, Operation, error) {
	pr, op := req.Existing, OpUpdated
	if pr == nil {
		var created *github.PullRequest
		err := r.retry(ctx, func() (err error) {
			created, _, err = r.Client.PullRequests.Create(ctx, r.Owner, r.Name, &github.NewPullRequest{
				Title: github.String(req.Title), Head: github.String(req.Branch), Base: github.String(req.Base),
				Body: github.String(req.Body), MaintainerCanModify: github.Bool(false),
			})
			return err
		})
		switch {
		case err == nil:
			pr, op = created, OpCreated
		case alreadyExists(err):
			found, ferr := r.FindOpen(ctx, req.Branch, req.Base)
			if ferr != nil {
				return nil, OpNone, ferr
			}
			if found == nil {
				return nil, OpNone, fmt.Errorf("creating the bot pull request: GitHub says one already exists for %s but none is open: %w", req.Branch, err)
			}
			pr = found
		default:
			return nil, OpNone, Explain(fmt.Errorf("creating the bot pull request from %s into %s: %w", req.Branch, req.Base, err), "pull-requests")
		}
	}
	if op == OpUpdated && (pr.GetTitle() != req.Title || pr.GetBody() != req.Body) {
		var edited *github.PullRequest
		err := r.retry(ctx, func() (err error) {
			edited, _, err = r.Client.PullRequests.Edit(ctx, r.Owner, r.Name, pr.GetNumber(), &github.PullRequest{
				Title: github.String(req.Title), Body: github.String(req.Body),
			})
			return err
		})
		if err != nil {
			return nil, OpNone, Explain(fmt.Errorf("updating bot pull request #%d: %w", pr.GetNumber(), err), "pull-requests")
		}
		pr = edited
	}
	if missing := missingLabels(pr, req.Labels); len(missing) > 0 {
		if err := r.retry(ctx, func() error {
			_, _, err := r.Client.Issues.AddLabelsToIssue(ctx, r.Owner, r.Name, pr.GetNumber(), missing)
			return err
		}); err != nil {
			// Labels are decoration: the pull request exists, so report instead of failing.
			return pr, op, &LabelError{Number: pr.GetNumber(), Err: Explain(err, "issues")}
		}
	}
	return pr, op, nil
}

// LabelError reports labels that could not be added; the pull request itself is fine.
type LabelError struct {
	Number int
	Err    error
}

func (e *LabelError) Error() string {
	return fmt.Sprintf("adding labels to bot pull request #%d: %v", e.Number, e.Err)
}

func (e *LabelError) Unwrap() error { return e.Err }

func missingLabels(pr *github.PullRequest, want []string) []string {
	have := map[string]bool{}
	for _, l := range pr.Labels {
		have[l.GetName()] = true
	}
	var out []string
	for _, l := range want {
		if !have[l] {
			out = append(out, l)
		}
	}
	return out
}

// Close closes the bot pull request with a final body and deletes its branch, so the next run
// starts from the base branch again. A branch that is already gone is not an error.
func (r Repo) Close(ctx context.Context, number int, branch, body string) error {
	err := r.retry(ctx, func() error {
		_, _, err := r.Client.PullRequests.Edit(ctx, r.Owner, r.Name, number, &github.PullRequest{
			State: github.String("closed"), Body: github.String(body),
		})
		return err
	})
	if err != nil {
		return Explain(fmt.Errorf("closing bot pull request #%d: %w", number, err), "pull-requests")
	}
	return r.DeleteBranch(ctx, branch)
}

// DeleteBranch deletes a branch of a closed bot pull request. A branch that is already gone is
// not an error.
func (r Repo) DeleteBranch(ctx context.Context, branch string) error {
	if _, err := r.Client.Git.DeleteRef(ctx, r.Owner, r.Name, "heads/"+branch); err != nil && !isStatus(err, http.StatusUnprocessableEntity) && !isStatus(err, http.StatusNotFound) {
		return Explain(fmt.Errorf("deleting branch %s of a closed bot pull request: %w", branch, err), "contents")
	}
	return nil
}

// ErrPRCreationNotPermitted is returned when the repository does not allow GitHub Actions to
// open pull requests.
var ErrPRCreationNotPermitted = errors.New(`GitHub Actions is not permitted to create pull requests in this repository. ` +
	`Turn on Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests" ` +
	`(in an organization, allow it in the organization's Actions settings first), or pass a fine-grained PAT or GitHub App token as the github-token input`)

// PermissionError names a permission the token lacks.
type PermissionError struct {
	// Permission is the job permission to grant, for example "contents".
	Permission string
	Err        error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("the token lacks the %q write permission; add `permissions: {%s: write}` to the job (or the workflow) that runs darwin-memo "+
		"(under the `pull_request` event, pull requests from forks always get a read-only token: trigger on `pull_request_target` instead): %v",
		e.Permission, e.Permission, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Explain turns the GitHub errors people can fix into errors that say how: the 403 of a
// repository that does not let Actions open pull requests, and a 403 "Resource not accessible
// by integration" (a missing job permission, named from GitHub's X-Accepted-GitHub-Permissions
// header, or else the permission the caller says the call needs). Other errors pass unchanged.
func Explain(err error, need string) error {
	var er *github.ErrorResponse
	if err == nil || !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusForbidden {
		return err
	}
	msg := strings.ToLower(er.Message)
	if strings.Contains(msg, "not permitted to create or approve pull requests") {
		return fmt.Errorf("%w: %v", ErrPRCreationNotPermitted, err)
	}
	if strings.Contains(msg, "resource not accessible") {
		perm := need
		if h := er.Response.Header.Get("X-Accepted-GitHub-Permissions"); h != "" {
			if name, _, ok := strings.Cut(strings.Split(h, ",")[0], "="); ok && name != "" {
				perm = strings.TrimSpace(name)
			}
		}
		return &PermissionError{Permission: perm, Err: err}
	}
	return err
}

func isStatus(err error, status int) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == status
}

func alreadyExists(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	for _, e := range er.Errors {
		if strings.Contains(strings.ToLower(e.Message), "already exists") {
			return true
		}
	}
	return strings.Contains(strings.ToLower(er.Message), "already exists")
}

// createBlob is go-github's Git.CreateBlob with base64 content, sending the same bytes
// ({"content":"...","encoding":"base64"} and a newline) but encoding them as they are sent:
// the generic path holds a large store's base64 twice (the string, then the JSON body grown
// by doubling) for one request.
func (r Repo) createBlob(ctx context.Context, content []byte) (*github.Blob, error) {
	req, err := r.Client.NewRequest(http.MethodPost, fmt.Sprintf("repos/%v/%v/git/blobs", r.Owner, r.Name), nil)
	if err != nil {
		return nil, err
	}
	const head, tail = `{"content":"`, `","encoding":"base64"}` + "\n"
	body := func() io.ReadCloser {
		return io.NopCloser(io.MultiReader(strings.NewReader(head), &base64Reader{src: content}, strings.NewReader(tail)))
	}
	req.Body, req.GetBody = body(), func() (io.ReadCloser, error) { return body(), nil }
	req.ContentLength = int64(len(head) + base64.StdEncoding.EncodedLen(len(content)) + len(tail))
	req.Header.Set("Content-Type", "application/json")
	blob := new(github.Blob)
	if _, err := r.Client.Do(ctx, req, blob); err != nil {
		return nil, err
	}
	return blob, nil
}

// base64Reader reads src in standard base64, encoding as it is read.
type base64Reader struct {
	src  []byte
	pend []byte // encoded bytes a short read left over
	tmp  [4]byte
}

func (r *base64Reader) Read(p []byte) (int, error) {
	if len(r.pend) > 0 {
		n := copy(p, r.pend)
		r.pend = r.pend[n:]
		return n, nil
	}
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	k := len(p) / 4 * 3 // whole groups, so no padding before the end
	if k == 0 {
		k = min(3, len(r.src))
		base64.StdEncoding.Encode(r.tmp[:], r.src[:k])
		r.src, r.pend = r.src[k:], r.tmp[:base64.StdEncoding.EncodedLen(k)]
		return r.Read(p)
	}
	k = min(k, len(r.src))
	base64.StdEncoding.Encode(p, r.src[:k])
	r.src = r.src[k:]
	return base64.StdEncoding.EncodedLen(k), nil
}
