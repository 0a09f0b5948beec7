package settle

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/google/go-github/v62/github"
)

// This file holds what the base walk asks of a commit beyond its parents: whether a commit on
// the base branch replays a pull request's commit (the same change, not the same words), and
// which merged pull requests GitHub says introduced a commit.

// sameChange reports whether the commit sha on the base branch, c, replays the pull request's
// commit pc: the same message and author name, and the same change against its parent
// (changeText). A message and an author name can be copied from any commit; a change that
// differs cannot pass for the pull request's. Whatever cannot be compared (GitHub gives no file
// list, or pages it) is not the same.
func (m *measurer) sameChange(ctx context.Context, sha string, pc *github.RepositoryCommit) (c *github.RepositoryCommit, same bool, err error) {
	c, err = m.repoCommit(ctx, sha)
	if err != nil || c == nil {
		return c, false, err
	}
	if !sameWords(c.GetCommit().GetMessage(), c.GetCommit().GetAuthor().GetName(), pc) {
		return c, false, nil
	}
	p, err := m.repoCommit(ctx, pc.GetSHA())
	if err != nil || p == nil {
		return c, false, err
	}
	ours, ok := changeText(c.Files)
	theirs, ok2 := changeText(p.Files)
	return c, ok && ok2 && ours == theirs, nil
}

// sameWords reports whether a commit's message and author name are those of the pull request's
// commit pc: what a rebase keeps, and what anyone can copy.
func sameWords(message, author string, pc *github.RepositoryCommit) bool {
	pcm := pc.GetCommit()
	return pcm != nil && strings.TrimSpace(message) == strings.TrimSpace(pcm.GetMessage()) && author == pcm.GetAuthor().GetName()
}

// repoCommit fetches a commit with its changed files (GET /repos/{owner}/{repo}/commits/{ref}).
// Files is nil when they cannot be read whole: the description does not promise "files", and
// GitHub pages a commit's files past 300. nil when GitHub has no such commit.
func (m *measurer) repoCommit(ctx context.Context, sha string) (*github.RepositoryCommit, error) {
	rc, resp, err := m.gh.Repositories.GetCommit(ctx, m.req.Owner, m.req.Repo, sha, &github.ListOptions{PerPage: 300})
	if err != nil {
		if s := ghapi.StatusCode(err); s == http.StatusNotFound || s == http.StatusUnprocessableEntity {
			return nil, nil
		}
		return nil, apiErr("get commit "+short(sha)+" with its files", err)
	}
	if resp.NextPage != 0 {
		rc.Files = nil
	}
	return rc, nil
}

// changeText renders the change a commit makes, as sameChange compares it: for each file, in
// name order, its name, status and former name, and what its patch removes and adds (patchID:
// like git's patch id, line numbers do not count, so a change replayed a few lines away is the
// same), or, where GitHub gives no patch (binary or large files), the blob it leaves. ok is
// false when there is no file list, or a file has neither a patch nor a blob sha.
func changeText(files []*github.CommitFile) (string, bool) {
	if files == nil {
		return "", false
	}
	lines := make([]string, 0, len(files))
	for _, f := range files {
		body := ""
		switch {
		case f.GetPatch() != "":
			body = "patch " + patchID(f.GetPatch())
		case f.GetSHA() != "":
			body = "blob " + f.GetSHA()
		default:
			return "", false
		}
		lines = append(lines, fmt.Sprintf("%q %q %q %s", f.GetFilename(), f.GetStatus(), f.GetPreviousFilename(), body))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), true
}

// patchID is what a patch changes: its hunks' removed and added lines, each hunk opened by "@@"
// without its line numbers, and without the context lines around them, so the same hunks
// replayed at other lines, or next to lines the base branch changed meanwhile, compare equal.
func patchID(patch string) string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			out = append(out, "@@")
		case strings.HasPrefix(l, "+"), strings.HasPrefix(l, "-"), strings.HasPrefix(l, "\\"):
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// mergedPRsOf lists the merged pull requests GitHub says introduced a commit on the base branch
// (GET /repos/{owner}/{repo}/commits/{sha}/pulls, first page).
func (m *measurer) mergedPRsOf(ctx context.Context, sha string) ([]*github.PullRequest, error) {
	prs, _, err := m.gh.PullRequests.ListPullRequestsWithCommit(ctx, m.req.Owner, m.req.Repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, apiErr("list the pull requests of "+short(sha), err)
	}
	var out []*github.PullRequest
	for _, pr := range prs {
		if isMerged(pr) {
			out = append(out, pr)
		}
	}
	return out, nil
}

// otherMerged returns the first of prs that is not the measured pull request, or nil.
func (m *measurer) otherMerged(prs []*github.PullRequest) *github.PullRequest {
	for _, pr := range prs {
		if pr.GetNumber() != m.pr.GetNumber() {
			return pr
		}
	}
	return nil
}

// botFilesOnly reports whether the commit sha was introduced only by the lesson store's bot
// pull requests (Options.Bot: from its branch of this repository, besides the pull request
// measured) and changes nothing but the bot's files. A commit GitHub lists no files for, or
// pages its files, is not.
func (m *measurer) botFilesOnly(ctx context.Context, sha string, prs []*github.PullRequest) (bool, error) {
	bot := m.opts.Bot
	if bot.Branch == "" || len(bot.Paths) == 0 {
		return false, nil
	}
	for _, pr := range prs {
		if pr.GetNumber() == m.pr.GetNumber() {
			continue
		}
		head := pr.GetHead()
		if head.GetRef() != bot.Branch || !strings.EqualFold(head.GetRepo().GetFullName(), m.req.Owner+"/"+m.req.Repo) {
			return false, nil
		}
	}
	rc, err := m.repoCommit(ctx, sha)
	if err != nil || rc == nil {
		return false, err
	}
	if len(rc.Files) == 0 {
		return false, nil
	}
	for _, f := range rc.Files {
		if !slices.Contains(bot.Paths, f.GetFilename()) || (f.GetPreviousFilename() != "" && !slices.Contains(bot.Paths, f.GetPreviousFilename())) {
			return false, nil
		}
	}
	return true, nil
}

// sameTreeHead offers the head of another merged pull request, which introduced the commit c
// (without CI), as the before side: when the head holds c's tree and has CI, that CI tested
// exactly the code c holds (as for a pull request kept up to date with its base), so nothing of
// the other pull request's falls inside the measured interval. Otherwise sha is empty and lacks
// says what the head lacks.
func (m *measurer) sameTreeHead(ctx context.Context, c *github.Commit, pr *github.PullRequest) (got chosen, lacks string, err error) {
	head := pr.GetHead().GetSHA()
	if head == "" {
		return chosen{}, "no head", nil
	}
	hc, _, err := m.gh.Git.GetCommit(ctx, m.req.Owner, m.req.Repo, head)
	if err != nil {
		if s := ghapi.StatusCode(err); s == http.StatusNotFound || s == http.StatusUnprocessableEntity {
			return chosen{}, "no commit GitHub knows", nil
		}
		return chosen{}, "", apiErr("get the head "+short(head)+" of #"+fmt.Sprint(pr.GetNumber()), err)
	}
	if hc.GetTree().GetSHA() == "" || hc.GetTree().GetSHA() != c.GetTree().GetSHA() {
		return chosen{}, "another tree", nil
	}
	ci, err := m.ciAt(ctx, head)
	if err != nil {
		return chosen{}, "", err
	}
	if !ci.hasCI() {
		return chosen{}, "the same tree but no CI", nil
	}
	return chosen{head, ci}, "", nil
}

// prList names pull requests for a reason ("#3, #5"; "none").
func prList(prs []*github.PullRequest) string {
	if len(prs) == 0 {
		return "none"
	}
	s := make([]string, len(prs))
	for i, pr := range prs {
		s[i] = fmt.Sprintf("#%d", pr.GetNumber())
	}
	return strings.Join(s, ", ")
}

// MaxListedCommits is the most commits GitHub lists for a pull request; for a longer one the
// merge method cannot be told, and its base is base.sha (mergeParent).
const MaxListedCommits = 250

// WalkRequests bounds the requests the walk to the commit a merged pull request of commits
// commits landed on may make beyond the common case (MergedOnto, and Measure after it, within
// one run whose client remembers immutable reads, as ghapi's does): for a rebase it lists the
// pull request's commits (100 a page), reads each replayed commit and each pull request commit
// with its files, and asks twice which pull request introduced the oldest. A pull request of one
// commit walks nothing.
func WalkRequests(commits int) int {
	n := min(commits, MaxListedCommits)
	if n <= 1 {
		return 0
	}
	return (n+99)/100 + 2*n + 2
}
