package ghfake

import (
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// This file holds GitRepo: a stateful, in-memory repository (blobs, flat trees, commits, refs
// and pull requests) that serves the Git Data, contents, pulls, labels and commit→pulls routes
// the action uses to read the store and to open its bot pull request. Responses are the real
// payloads in testdata/gitrepo (copied from octokit/routes, the OpenAPI examples and
// dependabot-core's fixtures) with the model's fields written over them.

//go:embed testdata/gitrepo/*.json
var gitPayloads embed.FS

// GitRepo is one repository owner/name. Seed it with CommitFiles and MergePull, serve it with
// ServeHTTP (it answers only /repos/{owner}/{name}/... routes it knows and reports whether it
// did through Handles), and inspect it with File, Ref and Pulls. It is safe for concurrent use.
type GitRepo struct {
	Owner, Name   string
	DefaultBranch string

	mu      sync.Mutex
	blobs   map[string][]byte
	trees   map[string]map[string]string // tree sha → path → blob sha (flat)
	commits map[string]*gitCommit
	refs    map[string]string // "heads/main" → commit sha
	pulls   []*GitPull
	now     time.Time
	// Faults, when set, runs before every request GitRepo serves; a non-zero status makes the
	// fake answer with that status and body instead.
	Faults func(r *http.Request) (status int, body string)
	// Permissions, when set, lists the token's write permissions ("contents",
	// "pull-requests", "issues"); a write without the permission gets GitHub's 403
	// "Resource not accessible by integration".
	Permissions map[string]bool
	// DenyCreatePR makes pull request creation fail like a repository whose "Allow GitHub
	// Actions to create and approve pull requests" setting is off.
	DenyCreatePR bool
	// Requests counts the requests served, by "METHOD route".
	Requests map[string]int
}

type gitCommit struct {
	SHA     string
	Tree    string
	Parents []string
	Message string
	Author  string // empty: made through the API without an author (verified bot commit)
	Date    time.Time
}

// GitPull is a pull request of a GitRepo.
type GitPull struct {
	Number            int
	Title, Body       string
	State             string // open or closed
	Merged            bool
	MergedAt          time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
	ClosedAt          time.Time
	Head, Base        string // branch names
	HeadOwner         string // the login owning the fork Head lives in; "" for the repository's own branch
	HeadSHA, BaseSHA  string
	MergeCommitSHA    string
	User              string
	AuthorAssociation string
	Labels            []string
	Commits           int
	// Files lists the paths the pull request changed.
	Files []string
	// ReviewComments are the pull request's review comments (GET /pulls/{n}/comments).
	ReviewComments []ReviewComment
	// Replayed lists the commits a rebase merge put on the base branch, oldest first (the
	// last is MergeCommitSHA); GET /commits/{sha}/pulls maps each to the pull request.
	Replayed []string
	// CommitSHAs are the branch's commits, oldest first (GET /pulls/{n}/commits); empty means
	// the head alone.
	CommitSHAs []string
}

// ReviewComment is a review comment on a pull request, made before its head commit and
// outdated by it (GitHub then omits its position).
type ReviewComment struct {
	ID                int64
	Path, Body        string
	User              string
	AuthorAssociation string
}

// NewGitRepo returns an empty repository whose default branch holds one commit with files.
func NewGitRepo(owner, name, defaultBranch string, files map[string]string) *GitRepo {
	g := &GitRepo{
		Owner: owner, Name: name, DefaultBranch: defaultBranch,
		blobs: map[string][]byte{}, trees: map[string]map[string]string{}, commits: map[string]*gitCommit{},
		refs: map[string]string{}, Requests: map[string]int{},
		now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC),
	}
	bs := map[string][]byte{}
	for p, c := range files {
		bs[p] = []byte(c)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	tree := g.applyLocked("", bs)
	g.refs["heads/"+defaultBranch] = g.commitLocked(tree, nil, "initial commit", "octocat")
	return g
}

// tickLocked advances the fake clock by one minute and returns it.
func (g *GitRepo) tickLocked() time.Time {
	g.now = g.now.Add(time.Minute)
	return g.now
}

// Now returns the fake clock.
func (g *GitRepo) Now() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now
}

func gitHash(kind string, b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func (g *GitRepo) blobLocked(b []byte) string {
	return g.ownBlobLocked(append([]byte(nil), b...))
}

// ownBlobLocked is blobLocked for bytes nobody else holds: they are kept, not copied.
func (g *GitRepo) ownBlobLocked(b []byte) string {
	sha := gitHash("blob", b)
	if _, ok := g.blobs[sha]; !ok {
		g.blobs[sha] = b
	}
	return sha
}

// treeLocked stores a flat tree and returns its sha.
func (g *GitRepo) treeLocked(entries map[string]string) string {
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "100644 %s\x00%s\n", p, entries[p])
	}
	sha := gitHash("tree", []byte(b.String()))
	cp := make(map[string]string, len(entries))
	for k, v := range entries {
		cp[k] = v
	}
	g.trees[sha] = cp
	return sha
}

// applyLocked writes files (nil content deletes) over baseTree and returns the new tree sha.
func (g *GitRepo) applyLocked(baseTree string, files map[string][]byte) string {
	entries := map[string]string{}
	for p, s := range g.trees[baseTree] {
		entries[p] = s
	}
	for p, c := range files {
		if c == nil {
			delete(entries, p)
			continue
		}
		entries[p] = g.blobLocked(c)
	}
	return g.treeLocked(entries)
}

func (g *GitRepo) commitLocked(tree string, parents []string, msg, author string) string {
	date := g.tickLocked()
	payload := fmt.Sprintf("tree %s\nparents %s\nauthor %s %d\n\n%s", tree, strings.Join(parents, " "), author, date.Unix(), msg)
	sha := gitHash("commit", []byte(payload))
	g.commits[sha] = &gitCommit{SHA: sha, Tree: tree, Parents: append([]string(nil), parents...), Message: msg, Author: author, Date: date}
	return sha
}

// CommitFiles commits files (a nil value deletes the path) on top of branch as author, moving
// the branch, and returns the new commit's sha. It creates the branch from the default branch
// if it does not exist.
func (g *GitRepo) CommitFiles(branch, author, msg string, files map[string][]byte) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.commitFilesLocked(branch, author, msg, files)
}

func (g *GitRepo) commitFilesLocked(branch, author, msg string, files map[string][]byte) string {
	return g.commitRefLocked("heads/"+branch, branch, author, msg, files)
}

// commitRefLocked is commitFilesLocked on the ref named ref ("heads/<branch>", or a fork's
// "pull/<n>/head"); branch is the head branch name open pull requests are matched by.
func (g *GitRepo) commitRefLocked(ref, branch, author, msg string, files map[string][]byte) string {
	parent, ok := g.refs[ref]
	if !ok {
		parent = g.refs["heads/"+g.DefaultBranch]
	}
	sha := g.commitLocked(g.applyLocked(g.commits[parent].Tree, files), []string{parent}, msg, author)
	g.refs[ref] = sha
	for _, p := range g.pulls {
		if p.State == "open" && p.Head == branch && p.HeadOwner == "" {
			p.HeadSHA = sha // as on GitHub, an open pull request's head follows its branch
		}
	}
	return sha
}

// headLabel is the pull request's head.label, "owner:branch", as the list's head filter
// matches it: the fork's owner for a fork's branch.
func (p *GitPull) headLabel(owner string) string {
	if p.HeadOwner != "" {
		owner = p.HeadOwner
	}
	return owner + ":" + p.Head
}

// MergeSpec describes a pull request that a person opens and squash-merges.
type MergeSpec struct {
	Title, Body       string
	User              string
	AuthorAssociation string // default MEMBER
	Branch            string // head branch; default pr-<n>
	// Fork, when set, is the login owning the fork the head branch lives in: the branch is
	// not one of the repository's (its commits are kept under refs/pull/<n>/head, as GitHub
	// keeps a fork's), and the pull request's head.repo and head.label name the fork.
	Fork   string
	Files  map[string][]byte
	Labels []string
	// ReviewComments are made on the pull request before its last commit.
	ReviewComments []ReviewComment
	// RebaseCommits, when set, makes the pull request one commit per element (after the
	// commit of Files, if any) and rebase-merges it: each commit is replayed onto the default
	// branch, and the merge commit sha is the last replayed commit.
	RebaseCommits []map[string][]byte
	// Method is how the pull request is merged: "squash" (the default: one commit with the
	// head's tree on the old tip), "merge" (a merge commit whose parents are the old tip and
	// the head) or "rebase" (the branch's commits replayed on the old tip, same messages and
	// authors, new shas; the last one is the merge_commit_sha, as on GitHub).
	Method string
	// Commits is the number of commits on the branch (default 1): the last one holds Files,
	// each earlier one adds a file of its own.
	Commits int
	// Message is the message of the commit holding Files (default: the title), e.g. with
	// trailers.
	Message string
	// BranchCommits, when set, are the branch's commits, oldest first, each with its own
	// message and author (Files, Commits and RebaseCommits are then not used).
	BranchCommits []BranchCommit
	// From is the commit the branch starts at (default: the default branch's tip).
	From string
	// StackedOn, when set, is the number of a pull request whose branch this one starts from (a
	// stacked branch): its commits not on the default branch (all of them once it was squashed
	// or rebased) are this pull request's first commits, as GitHub lists them.
	StackedOn int
}

// BranchCommit is one commit of a pull request's branch.
type BranchCommit struct {
	Message, Author string // empty: the title and the pull request's user
	Files           map[string][]byte
}

// MergePull opens a pull request from a branch on top of the default branch's tip, holding
// spec.Files in spec.Commits commits, and merges it by spec.Method. The old tip is the pull
// request's base sha. It returns the merged pull request.
func (g *GitRepo) MergePull(spec MergeSpec) *GitPull {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(g.pulls) + 1
	if spec.Branch == "" {
		spec.Branch = fmt.Sprintf("pr-%d", n)
	}
	if spec.User == "" {
		spec.User = "octocat"
	}
	if spec.AuthorAssociation == "" {
		spec.AuthorAssociation = "MEMBER"
	}
	base := g.refs["heads/"+g.DefaultBranch]
	ref := "heads/" + spec.Branch
	if spec.Fork != "" {
		ref = fmt.Sprintf("pull/%d/head", n)
	}
	g.refs[ref] = base
	if spec.From != "" {
		g.refs[ref] = spec.From
	}
	var stacked []string // the commits of the pull request this one is stacked on, not on base
	if under := g.pullLocked(spec.StackedOn); under != nil {
		onBase := g.ancestorsLocked(base)
		for _, sha := range under.CommitSHAs {
			if !onBase[sha] {
				stacked = append(stacked, sha)
			}
		}
		g.refs[ref] = under.HeadSHA
	}
	// The branch's commits, oldest first: spec.Commits-1 commits adding a part file each,
	// the commit of Files, then one per RebaseCommits element.
	var steps []map[string][]byte
	for k := 1; k < spec.Commits; k++ {
		steps = append(steps, map[string][]byte{fmt.Sprintf("%s-part-%d.txt", spec.Branch, k): []byte(fmt.Sprintf("part %d\n", k))})
	}
	if len(spec.RebaseCommits) == 0 || len(spec.Files) > 0 {
		steps = append(steps, spec.Files)
	}
	steps = append(steps, spec.RebaseCommits...)
	method := spec.Method
	if len(spec.RebaseCommits) > 0 {
		method = "rebase"
	}
	filesStep := -1
	if len(spec.RebaseCommits) == 0 || len(spec.Files) > 0 {
		filesStep = max(spec.Commits-1, 0)
	}
	if len(spec.BranchCommits) > 0 {
		steps, filesStep = nil, -1
		for _, bc := range spec.BranchCommits {
			steps = append(steps, bc.Files)
		}
	}
	var shas []string
	for i, files := range steps {
		msg, author := spec.Title, spec.User
		if len(steps) > 1 {
			msg = fmt.Sprintf("%s (%d/%d)", spec.Title, i+1, len(steps))
		}
		if i == filesStep && spec.Message != "" {
			msg = spec.Message
		}
		if len(spec.BranchCommits) > 0 {
			if bc := spec.BranchCommits[i]; bc.Message != "" {
				msg = bc.Message
			}
			if bc := spec.BranchCommits[i]; bc.Author != "" {
				author = bc.Author
			}
		}
		shas = append(shas, g.commitRefLocked(ref, spec.Branch, author, msg, files))
	}
	head := shas[len(shas)-1]
	shas = append(stacked, shas...)
	created := g.now
	var mergeSHA string
	var replayed []string
	switch method {
	case "merge":
		mergeSHA = g.commitLocked(g.commits[head].Tree, []string{base, head}, fmt.Sprintf("Merge pull request #%d from %s/%s", n, g.Owner, spec.Branch), spec.User)
	case "rebase":
		// Each commit's changes are replayed onto the tip, same message and author, new sha.
		mergeSHA = base
		for i, files := range steps {
			c := g.commits[shas[i]]
			mergeSHA = g.commitLocked(g.applyLocked(g.commits[mergeSHA].Tree, files), []string{mergeSHA}, c.Message, c.Author)
			replayed = append(replayed, mergeSHA)
		}
	default:
		mergeSHA = g.commitLocked(g.commits[head].Tree, []string{base}, fmt.Sprintf("%s (#%d)", spec.Title, n), spec.User)
	}
	g.refs["heads/"+g.DefaultBranch] = mergeSHA
	var paths []string
	seenPath := map[string]bool{}
	for _, files := range steps {
		for p := range files {
			if !seenPath[p] {
				seenPath[p] = true
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	pr := &GitPull{
		Number: n, Title: spec.Title, Body: spec.Body, State: "closed", Merged: true,
		MergedAt: g.now, ClosedAt: g.now, CreatedAt: created, UpdatedAt: g.now,
		Head: spec.Branch, HeadOwner: spec.Fork, Base: g.DefaultBranch, HeadSHA: head, BaseSHA: base, MergeCommitSHA: mergeSHA,
		User: spec.User, AuthorAssociation: spec.AuthorAssociation, Labels: spec.Labels, Commits: len(shas), Files: paths,
		ReviewComments: spec.ReviewComments, Replayed: replayed, CommitSHAs: shas,
	}
	g.pulls = append(g.pulls, pr)
	return g.copyPull(pr)
}

// MergeOpenPull squash-merges an open pull request (for example the bot's) as a person would:
// the default branch gets a commit with the head's tree on top of its tip. It returns the
// merge commit's sha.
func (g *GitRepo) MergeOpenPull(number int) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.pullLocked(number)
	if pr == nil || pr.State != "open" {
		return "", fmt.Errorf("pull request #%d is not open", number)
	}
	base := g.refs["heads/"+pr.Base]
	head := g.refs["heads/"+pr.Head]
	// A three-way merge of flat trees: the head's changes relative to the merge base win over
	// the base branch only for paths the head changed.
	mb := g.mergeBaseLocked(base, head)
	tree := g.threeWayLocked(g.commits[mb].Tree, g.commits[base].Tree, g.commits[head].Tree)
	sha := g.commitLocked(tree, []string{base}, fmt.Sprintf("%s (#%d)", pr.Title, number), "maintainer")
	g.refs["heads/"+pr.Base] = sha
	pr.State, pr.Merged, pr.MergedAt, pr.ClosedAt, pr.UpdatedAt = "closed", true, g.now, g.now, g.now
	pr.HeadSHA, pr.BaseSHA, pr.MergeCommitSHA = head, base, sha
	return sha, nil
}

func (g *GitRepo) ancestorsLocked(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] || g.commits[s] == nil {
			continue
		}
		seen[s] = true
		stack = append(stack, g.commits[s].Parents...)
	}
	return seen
}

func (g *GitRepo) mergeBaseLocked(a, b string) string {
	anc := g.ancestorsLocked(a)
	queue := []string{b}
	seen := map[string]bool{}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if anc[s] {
			return s
		}
		if seen[s] || g.commits[s] == nil {
			continue
		}
		seen[s] = true
		queue = append(queue, g.commits[s].Parents...)
	}
	return a
}

func (g *GitRepo) threeWayLocked(baseTree, ours, theirs string) string {
	out := map[string]string{}
	for p, s := range g.trees[ours] {
		out[p] = s
	}
	paths := map[string]bool{}
	for p := range g.trees[baseTree] {
		paths[p] = true
	}
	for p := range g.trees[theirs] {
		paths[p] = true
	}
	for p := range paths {
		b, t := g.trees[baseTree][p], g.trees[theirs][p]
		if b == t {
			continue
		}
		if t == "" {
			delete(out, p)
		} else {
			out[p] = t
		}
	}
	return g.treeLocked(out)
}

// File returns a file's content at a ref (a branch name or a commit sha).
func (g *GitRepo) File(ref, path string) ([]byte, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sha := g.resolveLocked(ref)
	c := g.commits[sha]
	if c == nil {
		return nil, false
	}
	b, ok := g.trees[c.Tree][path]
	if !ok {
		return nil, false
	}
	return append([]byte(nil), g.blobs[b]...), true
}

// Ref returns the commit sha a branch points at, or "".
func (g *GitRepo) Ref(branch string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refs["heads/"+branch]
}

// Parents returns a commit's parent shas.
func (g *GitRepo) Parents(sha string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.commits[sha]; c != nil {
		return append([]string(nil), c.Parents...)
	}
	return nil
}

// CommitAuthor returns the author a commit was made with ("" for an API commit without one).
func (g *GitRepo) CommitAuthor(sha string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.commits[sha]; c != nil {
		return c.Author
	}
	return ""
}

// Pulls returns copies of every pull request, oldest first.
func (g *GitRepo) Pulls() []GitPull {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]GitPull, len(g.pulls))
	for i, p := range g.pulls {
		out[i] = *g.copyPull(p)
	}
	return out
}

// Pull returns a copy of pull request n, or nil.
func (g *GitRepo) Pull(n int) *GitPull {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p := g.pullLocked(n); p != nil {
		return g.copyPull(p)
	}
	return nil
}

// ClosePull closes an open pull request without merging it, as a person would.
func (g *GitRepo) ClosePull(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p := g.pullLocked(n); p != nil {
		p.State, p.ClosedAt, p.UpdatedAt = "closed", g.tickLocked(), g.now
	}
}

// EditPullBody replaces a pull request's body as its author would through the web page (it
// may be merged already); like every edit on GitHub, it moves updated_at.
func (g *GitRepo) EditPullBody(n int, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p := g.pullLocked(n); p != nil {
		p.Body, p.UpdatedAt = body, g.tickLocked()
	}
}

func (g *GitRepo) copyPull(p *GitPull) *GitPull {
	c := *p
	c.Labels = append([]string(nil), p.Labels...)
	c.Files = append([]string(nil), p.Files...)
	c.CommitSHAs = append([]string(nil), p.CommitSHAs...)
	return &c
}

func (g *GitRepo) pullLocked(n int) *GitPull {
	if n >= 1 && n <= len(g.pulls) {
		return g.pulls[n-1]
	}
	return nil
}

// resolveLocked turns a branch name, "heads/x", "refs/heads/x" or a full sha into a commit sha.
func (g *GitRepo) resolveLocked(ref string) string {
	if ref == "" {
		ref = g.DefaultBranch
	}
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/"), "heads/")
	if s, ok := g.refs["heads/"+ref]; ok {
		return s
	}
	if _, ok := g.commits[ref]; ok {
		return ref
	}
	return ""
}

// gitPayloadCache holds each embedded payload decoded once; gitPayload hands out deep copies.
var gitPayloadCache sync.Map // name → map[string]any

// gitPayload returns a fresh decoded copy of one embedded real payload.
func gitPayload(name string) map[string]any {
	if v, ok := gitPayloadCache.Load(name); ok {
		return deepCopy(v.(map[string]any)).(map[string]any)
	}
	b, err := gitPayloads.ReadFile("testdata/gitrepo/" + name)
	if err != nil {
		panic(fmt.Sprintf("ghfake: missing embedded payload %s: %v", name, err))
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("ghfake: payload %s: %v", name, err))
	}
	gitPayloadCache.Store(name, m)
	return deepCopy(m).(map[string]any)
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, x := range t {
			c[k] = deepCopy(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = deepCopy(x)
		}
		return c
	}
	return v
}
