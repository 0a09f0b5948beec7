package encode

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// perPage is how many files, commits and review comments Collect reads of a pull request: one
// page of each list, the largest GitHub serves.
const perPage = 100

// Collect completes gpr, a merged pull request of owner/repo as the REST API
// returned it (from GET /pulls/{n} or a list), with the first page of 100 of
// its changed files, its commits and its review comments. ciFixed is the
// list of tests the PR fixed, as settle measured them. It returns the PR
// normalised (see PR.Normalize). It fails when the pull request is not
// merged, because lessons come only from merged work.
func Collect(ctx context.Context, client *github.Client, owner, repo string, gpr *github.PullRequest, ciFixed []CIFailure) (*PR, error) {
	number := gpr.GetNumber()
	where := fmt.Sprintf("%s/%s#%d", owner, repo, number)
	// GET /pulls/{n} always has "merged"; merged_at alone is trusted only
	// when "merged" is absent (list-shaped payloads).
	if !gpr.GetMerged() && (gpr.Merged != nil || gpr.MergedAt == nil) {
		return nil, fmt.Errorf("encode: pull request %s is not merged; lessons are encoded only from merged pull requests", where)
	}
	pr := &PR{
		Owner:             owner,
		Repo:              repo,
		Number:            number,
		Title:             gpr.GetTitle(),
		Body:              gpr.GetBody(),
		Author:            gpr.GetUser().GetLogin(),
		AuthorAssociation: gpr.GetAuthorAssociation(),
		MergedAt:          gpr.GetMergedAt().Time,
		CIFixed:           ciFixed,
	}
	for _, l := range gpr.Labels {
		pr.Labels = append(pr.Labels, l.GetName())
	}

	lo := &github.ListOptions{PerPage: perPage}
	files, _, err := client.PullRequests.ListFiles(ctx, owner, repo, number, lo)
	if err != nil {
		return nil, fmt.Errorf("encode: list files of %s: %w", where, err)
	}
	for _, f := range files {
		pr.Files = append(pr.Files, File{
			Path:      f.GetFilename(),
			Status:    f.GetStatus(),
			Additions: f.GetAdditions(),
			Deletions: f.GetDeletions(),
			Patch:     f.GetPatch(),
		})
	}

	commits, _, err := client.PullRequests.ListCommits(ctx, owner, repo, number, lo)
	if err != nil {
		return nil, fmt.Errorf("encode: list commits of %s: %w", where, err)
	}
	var commitTimes []time.Time
	for _, c := range commits {
		pr.Commits = append(pr.Commits, Commit{SHA: c.GetSHA(), Message: c.GetCommit().GetMessage(), Author: c.GetAuthor().GetLogin(),
			Committer: c.GetCommitter().GetLogin(), Verified: c.GetCommit().GetVerification().GetVerified()})
		t := c.GetCommit().GetCommitter().GetDate().Time
		if t.IsZero() {
			t = c.GetCommit().GetAuthor().GetDate().Time
		}
		commitTimes = append(commitTimes, t)
	}

	co := &github.PullRequestListCommentsOptions{Sort: "created", Direction: "asc", ListOptions: *lo}
	comments, _, err := client.PullRequests.ListComments(ctx, owner, repo, number, co)
	if err != nil {
		return nil, fmt.Errorf("encode: list review comments of %s: %w", where, err)
	}
	for _, c := range comments {
		created := c.GetCreatedAt().Time
		pr.Reviews = append(pr.Reviews, ReviewComment{
			ID:                c.GetID(),
			Path:              c.GetPath(),
			Body:              c.GetBody(),
			Author:            c.GetUser().GetLogin(),
			AuthorAssociation: c.GetAuthorAssociation(),
			Reply:             c.GetInReplyTo() != 0,
			Addressed:         c.Position == nil && slices.ContainsFunc(commitTimes, created.Before),
		})
	}
	pr.commitAssociations()
	return pr.Normalize(), nil
}

// commitAssociations gives each commit its author's author_association: GitHub reports none
// for commits, so it is the one the pull request or a review comment shows for the same login.
// GitHub takes a commit's login from the e-mail address the commit claims, so a commit claiming
// the pull request author is the author's (they pushed it), and one claiming anyone else counts
// only when GitHub verified its signature and that login committed it: an outsider's commit
// inside a member's pull request cannot pass for a trusted reviewer's by naming their e-mail.
// Any other commit, and one by no GitHub account, keeps "" and is not trusted.
func (p *PR) commitAssociations() {
	known := map[string]string{}
	for _, r := range p.Reviews {
		if r.Author != "" {
			known[strings.ToLower(r.Author)] = r.AuthorAssociation
		}
	}
	for i := range p.Commits {
		c := &p.Commits[i]
		if c.Author == "" || c.AuthorAssociation != "" {
			continue
		}
		switch {
		case p.Author != "" && strings.EqualFold(c.Author, p.Author):
			c.AuthorAssociation = p.AuthorAssociation
		case c.Verified && strings.EqualFold(c.Committer, c.Author):
			c.AuthorAssociation = known[strings.ToLower(c.Author)]
		}
	}
}
