package encode

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"
)

// PR is a merged pull request as the encoder reads it. Build one with
// Collect, or directly (demo, tests); Encode sanitises and caps every field
// itself, so a directly built PR is treated exactly like a collected one.
type PR struct {
	Owner, Repo string
	Number      int
	Title       string
	Body        string
	Labels      []string
	Author      string
	// AuthorAssociation is GitHub's author_association of the PR author
	// (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...).
	AuthorAssociation string
	MergedAt          time.Time
	Files             []File
	Reviews           []ReviewComment
	Commits           []Commit
	// CIFixed lists the tests that failed at an earlier head of the PR and
	// pass at its final head, as settle measured them (supplied by the
	// caller).
	CIFixed []CIFailure

	// suspicious maps a document id to why its text looks like an
	// injection attempt (hidden characters, role markers, "ignore previous
	// instructions", ...). Normalize fills it; lessons citing such a
	// document are rejected.
	suspicious map[string]string
}

// File is one changed file of a PR.
type File struct {
	Path      string
	Status    string // added, modified, removed, renamed, ...
	Additions int
	Deletions int
	// Patch is the unified diff hunks GitHub returns for the file (empty
	// for binary or very large files).
	Patch string
}

// ReviewComment is one review comment on a line of the diff.
type ReviewComment struct {
	ID                int64
	Path              string
	Body              string
	Author            string
	AuthorAssociation string
	// Addressed is true when a commit after the comment changed the code it
	// is attached to (GitHub marks such comments outdated).
	Addressed bool
	// Reply is true when the comment answers another comment.
	Reply bool
}

// Commit is one commit of a PR.
type Commit struct {
	SHA string
	// Author is the GitHub login of the commit's author ("" when GitHub
	// links the commit to no account), and AuthorAssociation that login's
	// author_association with the repository as the pull request and its
	// review comments show it ("" when they do not show it: not trusted).
	Author            string
	AuthorAssociation string
	// Committer is the GitHub login of the commit's committer, and Verified whether GitHub
	// verified its signature. GitHub links author and committer to accounts by the e-mail
	// addresses the commit claims, so a login other than the pull request author's is taken
	// only from a verified commit its author committed.
	Committer string
	Verified  bool
	// Message is the full commit message; documents keep its subject line
	// and its Lesson: lines.
	Message string
}

// CIFailure is a test that the PR fixed.
type CIFailure struct {
	Test    string // test id as settle reports it, e.g. "pkg.Class::name"
	Message string // first line(s) of the failure, optional
}

// Caps on every field of a PR (bytes unless named otherwise). A PR larger
// than this is cut, never rejected.
const (
	maxTitle         = 256
	maxBody          = 8 << 10
	maxLabels        = 20
	maxLabel         = 50
	maxPath          = 300
	maxFiles         = 300
	maxPatchLines    = 60
	maxPatch         = 2 << 10
	maxDiffTotal     = 24 << 10
	maxReviews       = 30
	maxReview        = 2 << 10
	maxCommits       = 100
	maxCommitSubject = 200
	maxCommitLessons = 5
	maxCIFailures    = 20
	maxCITest        = 300
	maxCIMessage     = 500
	maxAuthor        = 100
)

// Normalize returns a copy of p with every text field sanitised (see
// Sanitize) and capped, lists capped and put in a deterministic order
// (files by path, reviews by id, CI failures by test id; commits keep their
// order). Normalize is idempotent.
func (p *PR) Normalize() *PR {
	q := &PR{
		Owner:             oneLine(Sanitize(p.Owner)),
		Repo:              oneLine(Sanitize(p.Repo)),
		Number:            p.Number,
		Title:             capText(oneLine(Sanitize(p.Title)), maxTitle),
		Body:              capText(strings.TrimSpace(Sanitize(p.Body)), maxBody),
		Author:            capText(oneLine(Sanitize(p.Author)), maxAuthor),
		AuthorAssociation: strings.ToUpper(oneLine(Sanitize(p.AuthorAssociation))),
		MergedAt:          p.MergedAt.UTC(),
		suspicious:        map[string]string{},
	}
	maps.Copy(q.suspicious, p.suspicious)
	q.flag("pr", true, p.Title, p.Body)
	q.flag("pr", true, p.Labels...)
	seen := map[string]bool{}
	for _, l := range p.Labels {
		l = capText(oneLine(Sanitize(l)), maxLabel)
		if l == "" || seen[l] || len(q.Labels) == maxLabels {
			continue
		}
		seen[l] = true
		q.Labels = append(q.Labels, l)
	}
	sort.Strings(q.Labels)

	files := make([]File, 0, len(p.Files))
	for _, f := range p.Files {
		raw := f
		f.Path = capText(oneLine(Sanitize(f.Path)), maxPath)
		f.Status = capText(oneLine(Sanitize(f.Status)), 20)
		q.flag("diff:"+f.Path, false, raw.Path, raw.Patch)
		f.Patch = capText(capLines(Sanitize(f.Patch), maxPatchLines), maxPatch)
		if f.Path == "" {
			continue
		}
		files = append(files, f)
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	if len(files) > maxFiles {
		files = files[:maxFiles]
	}
	total := 0
	for i := range files {
		total += len(files[i].Patch)
		if total > maxDiffTotal {
			files[i].Patch = ""
		}
	}
	q.Files = files

	reviews := make([]ReviewComment, 0, len(p.Reviews))
	for _, r := range p.Reviews {
		q.flag(fmt.Sprintf("review:%d", r.ID), true, r.Path, r.Body)
		r.Path = capText(oneLine(Sanitize(r.Path)), maxPath)
		r.Body = capText(strings.TrimSpace(Sanitize(r.Body)), maxReview)
		r.Author = capText(oneLine(Sanitize(r.Author)), maxAuthor)
		r.AuthorAssociation = strings.ToUpper(oneLine(Sanitize(r.AuthorAssociation)))
		if r.Body == "" {
			continue
		}
		reviews = append(reviews, r)
	}
	sort.SliceStable(reviews, func(i, j int) bool { return reviews[i].ID < reviews[j].ID })
	if len(reviews) > maxReviews {
		reviews = reviews[:maxReviews]
	}
	q.Reviews = reviews

	for _, c := range p.Commits {
		if len(q.Commits) == maxCommits {
			break
		}
		c.SHA = strings.ToLower(oneLine(Sanitize(c.SHA)))
		c.Author = capText(oneLine(Sanitize(c.Author)), maxAuthor)
		c.AuthorAssociation = strings.ToUpper(oneLine(Sanitize(c.AuthorAssociation)))
		q.flag("commit:"+c.Short(), true, c.Message)
		c.Message = commitText(Sanitize(c.Message))
		if c.SHA == "" {
			continue
		}
		q.Commits = append(q.Commits, c)
	}

	seenTest := map[string]bool{}
	for _, f := range p.CIFixed {
		raw := f
		f.Test = capText(oneLine(Sanitize(f.Test)), maxCITest)
		f.Message = capText(strings.TrimSpace(Sanitize(f.Message)), maxCIMessage)
		q.flag("ci:"+f.Test, true, raw.Test, raw.Message)
		if f.Test == "" || seenTest[f.Test] {
			continue
		}
		seenTest[f.Test] = true
		q.CIFixed = append(q.CIFixed, f)
	}
	sort.SliceStable(q.CIFixed, func(i, j int) bool { return q.CIFixed[i].Test < q.CIFixed[j].Test })
	if len(q.CIFixed) > maxCIFailures {
		q.CIFixed = q.CIFixed[:maxCIFailures]
	}
	return q
}

// commitText keeps a commit message's subject line and its Lesson: lines,
// each capped, so that a long message body never reaches the model.
func commitText(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	out := []string{capText(oneLine(lines[0]), maxCommitSubject)}
	n := 0
	for _, l := range lines[1:] {
		if _, ok := lessonLine(l); ok && n < maxCommitLessons {
			out = append(out, capText(oneLine(l), maxCommitSubject*2))
			n++
		}
	}
	return strings.Join(out, "\n")
}

// Short returns the first 7 characters of the commit SHA.
func (c Commit) Short() string {
	if len(c.SHA) > 7 {
		return c.SHA[:7]
	}
	return c.SHA
}

// Document is one piece of PR evidence that a lesson can cite.
type Document struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // pr, diff, review, ci, commit
	Text string `json:"text"`
	// Path is the file the document is about (diff and review documents).
	Path string `json:"path,omitempty"`
	// Suspicious says why the document's raw text looks like an injection
	// attempt; lessons citing it are rejected. Never sent to the model.
	Suspicious string `json:"-"`
}

// Documents returns the documents of a normalised PR (see Normalize), in a
// deterministic order: pr, diff:<path> by path, review:<id> by id,
// ci:<test> by test id, commit:<sha7> in commit order.
func (p *PR) Documents() []Document {
	var docs []Document
	var b strings.Builder
	fmt.Fprintf(&b, "Title: %s\n", p.Title)
	if len(p.Labels) > 0 {
		fmt.Fprintf(&b, "Labels: %s\n", strings.Join(p.Labels, ", "))
	}
	if p.Body != "" {
		fmt.Fprintf(&b, "\n%s\n", p.Body)
	}
	docs = append(docs, Document{ID: "pr", Kind: "pr", Text: strings.TrimSpace(b.String())})
	for _, f := range p.Files {
		text := fmt.Sprintf("%s (%s, +%d -%d)", f.Path, f.Status, f.Additions, f.Deletions)
		if f.Patch != "" {
			text += "\n" + f.Patch
		}
		docs = append(docs, Document{ID: "diff:" + f.Path, Kind: "diff", Text: text, Path: f.Path})
	}
	for _, r := range p.Reviews {
		docs = append(docs, Document{
			ID:   fmt.Sprintf("review:%d", r.ID),
			Kind: "review",
			Text: fmt.Sprintf("On %s: %s", r.Path, r.Body),
			Path: r.Path,
		})
	}
	for _, c := range p.CIFixed {
		text := "Fixed failing test " + c.Test
		if c.Message != "" {
			text += ": " + c.Message
		}
		docs = append(docs, Document{ID: "ci:" + c.Test, Kind: "ci", Text: text})
	}
	seen := map[string]bool{}
	for _, c := range p.Commits {
		id := "commit:" + c.Short()
		if seen[id] {
			continue
		}
		seen[id] = true
		docs = append(docs, Document{ID: id, Kind: "commit", Text: c.Message})
	}
	for i := range docs {
		docs[i].Suspicious = p.suspicious[docs[i].ID]
	}
	return docs
}

// flag records why the raw texts of document id look like an injection
// attempt, if they do (the first reason wins). prose enables the role
// marker check, which code ("user: root" in YAML) would trip.
func (p *PR) flag(id string, prose bool, raws ...string) {
	if _, done := p.suspicious[id]; done {
		return
	}
	for _, raw := range raws {
		if why := suspicious(raw, prose); why != "" {
			p.suspicious[id] = why
			return
		}
	}
}
