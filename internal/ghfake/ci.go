package ghfake

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Route patterns served by installCI, usable with Count and Fault.Route.
const (
	RoutePull           = "GET /repos/{owner}/{repo}/pulls/{number}"
	RoutePulls          = "GET /repos/{owner}/{repo}/pulls"
	RoutePullCommits    = "GET /repos/{owner}/{repo}/pulls/{number}/commits"
	RouteGitCommit      = "GET /repos/{owner}/{repo}/git/commits/{sha}"
	RouteCommit         = "GET /repos/{owner}/{repo}/commits/{ref}"
	RouteCommitPulls    = "GET /repos/{owner}/{repo}/commits/{sha}/pulls"
	RouteCompare        = "GET /repos/{owner}/{repo}/compare/{basehead...}"
	RouteCheckRuns      = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
	RouteAnnotations    = "GET /repos/{owner}/{repo}/check-runs/{id}/annotations"
	RouteWorkflowRuns   = "GET /repos/{owner}/{repo}/actions/runs"
	RouteRunArtifacts   = "GET /repos/{owner}/{repo}/actions/runs/{id}/artifacts"
	RouteRunAttempt     = "GET /repos/{owner}/{repo}/actions/runs/{id}/attempts/{attempt}"
	RouteArtifactZip    = "GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"
	RouteCombinedStatus = "GET /repos/{owner}/{repo}/commits/{ref}/status"
	RouteRateLimit      = "GET /rate_limit"
)

func (s *Server) installCI() {
	s.HandleFunc(RoutePull, s.getPull)
	s.HandleFunc(RoutePulls, s.listPulls)
	s.HandleFunc(RoutePullCommits, s.listPullCommits)
	s.HandleFunc(RouteGitCommit, s.getGitCommit)
	s.HandleFunc(RouteCommit, s.getCommit)
	s.HandleFunc(RouteCommitPulls, s.commitPulls)
	s.HandleFunc(RouteCompare, s.compare)
	s.HandleFunc(RouteCheckRuns, s.listCheckRuns)
	s.HandleFunc(RouteAnnotations, s.listAnnotations)
	s.HandleFunc(RouteWorkflowRuns, s.listWorkflowRuns)
	s.HandleFunc(RouteRunArtifacts, s.listRunArtifacts)
	s.HandleFunc(RouteRunAttempt, s.getRunAttempt)
	s.HandleFunc(RouteArtifactZip, s.artifactZip)
	s.HandleFunc(RouteCombinedStatus, s.combinedStatus)
	s.HandleFunc(RouteRateLimit, s.rateLimit)
}

// rateLimit serves GET /rate_limit, which GitHub does not count against the limit.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.rateUsed-- // not counted
	used := s.rateUsed
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, RateLimitJSON(5000, used, s.Now().Add(time.Hour)))
}

// RateLimitJSON is a GET /rate_limit body (rate-limit-overview) with the core limit given and
// the other resources at GitHub's defaults.
func RateLimitJSON(limit, used int, reset time.Time) map[string]any {
	rl := func(l, u int) map[string]any {
		return map[string]any{"limit": l, "used": u, "remaining": max(0, l-u), "reset": reset.Unix()}
	}
	core := rl(limit, used)
	return map[string]any{
		"resources": map[string]any{"core": core, "search": rl(30, 0), "graphql": rl(5000, 0), "integration_manifest": rl(5000, 0),
			"code_search": rl(10, 0)},
		"rate": core,
	}
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	var pr *PullRequest
	for i := range s.repo.Pulls {
		if s.repo.Pulls[i].Number == n {
			p := s.repo.Pulls[i]
			pr = &p
		}
	}
	s.mu.Unlock()
	if pr == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.pullJSON(*pr))
}

// listPulls serves GET /pulls with state (open, closed, all), in number order, each item in
// the pull-request-simple shape (merged_at, no merged, no commits), as GitHub does.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	s.mu.Lock()
	var sel []PullRequest
	for _, p := range s.repo.Pulls {
		if state == "all" || p.State == state {
			sel = append(sel, p)
		}
	}
	s.mu.Unlock()
	lo, hi := s.paginate(w, r, len(sel))
	out := make([]any, 0, hi-lo)
	for _, p := range sel[lo:hi] {
		out = append(out, SimplePull(s.pullJSON(p)))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) pullJSON(pr PullRequest) map[string]any {
	s.mu.Lock()
	owner, name := s.repo.Owner, s.repo.Name
	s.mu.Unlock()
	m := tplPull()
	full := owner + "/" + name
	set(m, "number", pr.Number)
	set(m, "id", 100000+pr.Number)
	set(m, "url", s.apiURL(fmt.Sprintf("/repos/%s/pulls/%d", full, pr.Number)))
	set(m, "html_url", fmt.Sprintf("https://github.com/%s/pull/%d", full, pr.Number))
	set(m, "title", pr.Title)
	set(m, "body", pr.Body)
	set(m, "state", pr.State)
	set(m, "merged", pr.Merged)
	set(m, "auto_merge", nil) // required since the 2019 payload the template comes from
	set(m, "commits", pr.Commits)
	set(m, "head.sha", pr.HeadSHA)
	set(m, "head.ref", pr.HeadRef)
	set(m, "head.label", owner+":"+pr.HeadRef)
	set(m, "base.sha", pr.BaseSHA)
	set(m, "base.ref", pr.BaseRef)
	set(m, "base.label", owner+":"+pr.BaseRef)
	set(m, "base.repo.full_name", full)
	set(m, "base.repo.name", name)
	set(m, "head.repo.full_name", full)
	if pr.MergeCommitSHA != "" {
		set(m, "merge_commit_sha", pr.MergeCommitSHA)
	} else {
		set(m, "merge_commit_sha", nil)
	}
	if pr.Merged {
		set(m, "merged_at", ts(pr.MergedAt))
		set(m, "closed_at", ts(pr.MergedAt))
	} else {
		set(m, "merged_at", nil)
		set(m, "merged_by", nil)
		if pr.State == "open" {
			set(m, "closed_at", nil)
		}
	}
	return m
}

func (s *Server) findCommit(sha string) (Commit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.repo.Commits {
		if c.SHA == sha {
			return c, true
		}
	}
	return Commit{}, false
}

func (s *Server) getGitCommit(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	c, ok := s.findCommit(r.PathValue("sha"))
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.gitCommitJSON(c))
}

// getCommit serves GET /commits/{ref} (the "commit" schema) with the commit's Change as its
// files.
func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	c, ok := s.findCommit(s.resolve(r.PathValue("ref")))
	if !ok {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+r.PathValue("ref"))
		return
	}
	s.mu.Lock()
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	api, html := apiFunc(s.URL+"/api/v3", full), "https://github.com/"+full
	paths := make([]string, 0, len(c.Change))
	for p := range c.Change {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	files := []any{}
	for _, p := range paths {
		files = append(files, map[string]any{"sha": gitHash("blob", []byte(c.Change[p])), "filename": p, "status": "modified",
			"additions": 1, "deletions": 0, "changes": 1, "patch": "@@ -1 +1 @@\n+" + c.Change[p],
			"blob_url": html + "/blob/" + c.SHA + "/" + p, "raw_url": html + "/raw/" + c.SHA + "/" + p,
			"contents_url": api("contents/" + p + "?ref=" + c.SHA)})
	}
	m := commitJSON(api, html, c.SHA, c.Message, c.Author, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), c.tree(), c.Parents)
	m["stats"] = map[string]any{"additions": len(paths), "deletions": 0, "total": len(paths)}
	m["files"] = files
	writeJSON(w, http.StatusOK, m)
}

// commitPulls serves GET /commits/{sha}/pulls: the pull requests whose merge commit, head or
// replayed commits hold the commit, in the pull-request-simple shape.
func (s *Server) commitPulls(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	sha := r.PathValue("sha")
	s.mu.Lock()
	var sel []PullRequest
	for _, p := range s.repo.Pulls {
		if p.MergeCommitSHA == sha || p.HeadSHA == sha || slices.Contains(p.Replayed, sha) {
			sel = append(sel, p)
		}
	}
	s.mu.Unlock()
	out := make([]any, 0, len(sel))
	for _, p := range sel {
		out = append(out, SimplePull(s.pullJSON(p)))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) gitCommitJSON(c Commit) map[string]any {
	m := tplGitCommit()
	s.mu.Lock()
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	set(m, "sha", c.SHA)
	set(m, "url", s.apiURL("/repos/"+full+"/git/commits/"+c.SHA))
	set(m, "html_url", "https://github.com/"+full+"/commit/"+c.SHA)
	if c.Message != "" {
		set(m, "message", c.Message)
	}
	set(m, "author.name", c.Author)
	set(m, "committer.name", c.Author)
	set(m, "tree.sha", c.tree())
	parents := make([]any, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{
			"sha":      p,
			"url":      s.apiURL("/repos/" + full + "/git/commits/" + p),
			"html_url": "https://github.com/" + full + "/commit/" + p,
		})
	}
	set(m, "parents", parents)
	return m
}

// resolve turns a branch name or SHA into a commit SHA.
func (s *Server) resolve(ref string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sha, ok := s.repo.Branches[ref]; ok {
		return sha
	}
	return ref
}

func (s *Server) ancestors(sha string) []string {
	var order []string
	seen := map[string]bool{}
	queue := []string{sha}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if seen[x] {
			continue
		}
		seen[x] = true
		order = append(order, x)
		if c, ok := s.findCommit(x); ok {
			queue = append(queue, c.Parents...)
		}
	}
	return order
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	baseSHA, headSHA := s.resolve(base), s.resolve(head)
	if _, ok := s.findCommit(baseSHA); !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if _, ok := s.findCommit(headSHA); !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	inBase := map[string]bool{}
	for _, a := range s.ancestors(baseSHA) {
		inBase[a] = true
	}
	mergeBase := ""
	ahead := 0
	for _, a := range s.ancestors(headSHA) {
		if inBase[a] {
			mergeBase = a
			break
		}
		ahead++
	}
	if mergeBase == "" {
		writeError(w, http.StatusNotFound, "No common ancestor")
		return
	}
	mb, _ := s.findCommit(mergeBase)
	bc, _ := s.findCommit(baseSHA)
	status := "diverged"
	switch {
	case mergeBase == baseSHA && ahead == 0:
		status = "identical"
	case mergeBase == baseSHA:
		status = "ahead"
	case mergeBase == headSHA:
		status = "behind"
	}
	s.mu.Lock()
	owner := s.repo.Owner
	full := owner + "/" + s.repo.Name
	s.mu.Unlock()
	api := apiFunc(s.URL+"/api/v3", full)
	html := "https://github.com/" + full
	commit := func(c Commit) map[string]any {
		return commitJSON(api, html, c.SHA, c.Message, c.Author, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), c.tree(), c.Parents)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"url":               api("compare/" + base + "..." + head),
		"html_url":          html + "/compare/" + base + "..." + head,
		"permalink_url":     html + "/compare/" + owner + ":" + bc.SHA[:7] + "..." + owner + ":" + headSHA[:7],
		"diff_url":          html + "/compare/" + base + "..." + head + ".diff",
		"patch_url":         html + "/compare/" + base + "..." + head + ".patch",
		"status":            status,
		"ahead_by":          ahead,
		"behind_by":         0,
		"total_commits":     ahead,
		"base_commit":       commit(bc),
		"merge_base_commit": commit(mb),
		"commits":           []any{},
		"files":             []any{},
	})
}

func (s *Server) checkRunJSON(c CheckRun) map[string]any {
	m := tplCheckRun()
	s.mu.Lock()
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	set(m, "id", c.ID)
	set(m, "name", c.Name)
	set(m, "head_sha", c.HeadSHA)
	set(m, "status", c.Status)
	if c.Status == "completed" {
		set(m, "conclusion", c.Conclusion)
		set(m, "completed_at", ts(c.StartedAt.Add(time.Minute)))
	} else {
		set(m, "conclusion", nil)
		set(m, "completed_at", nil)
	}
	set(m, "started_at", ts(c.StartedAt))
	set(m, "url", s.apiURL(fmt.Sprintf("/repos/%s/check-runs/%d", full, c.ID)))
	set(m, "html_url", fmt.Sprintf("https://github.com/%s/runs/%d", full, c.ID))
	set(m, "details_url", fmt.Sprintf("https://github.com/%s/runs/%d", full, c.ID))
	if c.DetailsURL != "" {
		set(m, "details_url", c.DetailsURL)
	}
	set(m, "output.title", c.Title)
	set(m, "output.summary", c.Summary)
	set(m, "output.text", c.Text)
	set(m, "output.annotations_count", len(c.Annotations))
	set(m, "output.annotations_url", s.apiURL(fmt.Sprintf("/repos/%s/check-runs/%d/annotations", full, c.ID)))
	set(m, "app.slug", c.AppSlug)
	set(m, "app.name", c.AppSlug)
	set(m, "pull_requests", []any{})
	return m
}

func (s *Server) listCheckRuns(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	sha := s.resolve(r.PathValue("ref"))
	q := r.URL.Query()
	s.mu.Lock()
	var runs []CheckRun
	for _, c := range s.repo.CheckRuns {
		if c.HeadSHA != sha {
			continue
		}
		if n := q.Get("check_name"); n != "" && c.Name != n {
			continue
		}
		if st := q.Get("status"); st != "" && c.Status != st {
			continue
		}
		runs = append(runs, c)
	}
	s.mu.Unlock()
	if q.Get("filter") != "all" { // "latest" is GitHub's default
		newest := map[string]CheckRun{}
		for _, c := range runs {
			if o, ok := newest[c.Name]; !ok || c.StartedAt.After(o.StartedAt) || (c.StartedAt.Equal(o.StartedAt) && c.ID > o.ID) {
				newest[c.Name] = c
			}
		}
		runs = runs[:0]
		for _, k := range sortedKeys(newest) {
			runs = append(runs, newest[k])
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	lo, hi := s.paginate(w, r, len(runs))
	out := make([]any, 0, hi-lo)
	for _, c := range runs[lo:hi] {
		out = append(out, s.checkRunJSON(c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": out})
}

func (s *Server) listAnnotations(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	var anns []Annotation
	found := false
	for _, c := range s.repo.CheckRuns {
		if c.ID == id {
			anns, found = c.Annotations, true
		}
	}
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	if !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	lo, hi := s.paginate(w, r, len(anns))
	out := make([]any, 0, hi-lo)
	for _, a := range anns[lo:hi] {
		out = append(out, map[string]any{
			"path":             a.Path,
			"blob_href":        "https://github.com/" + full + "/blob/HEAD/" + a.Path,
			"start_line":       a.StartLine,
			"end_line":         a.EndLine,
			"start_column":     nil,
			"end_column":       nil,
			"annotation_level": a.Level,
			"title":            a.Title,
			"message":          a.Message,
			"raw_details":      a.RawDetails,
		})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) workflowRunJSON(run WorkflowRun) map[string]any {
	m := tplWorkflowRun()
	s.mu.Lock()
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	set(m, "id", run.ID)
	set(m, "name", run.Name)
	set(m, "display_title", run.Name)
	set(m, "workflow_id", run.WorkflowID)
	set(m, "head_sha", run.HeadSHA)
	set(m, "head_branch", run.HeadBranch)
	set(m, "event", run.Event)
	set(m, "status", run.Status)
	if run.Status == "completed" {
		set(m, "conclusion", run.Conclusion)
	} else {
		set(m, "conclusion", nil)
	}
	set(m, "run_attempt", run.RunAttempt)
	set(m, "created_at", ts(run.CreatedAt))
	set(m, "updated_at", ts(run.CreatedAt.Add(time.Minute)))
	set(m, "run_started_at", ts(run.attemptStart(run.RunAttempt)))
	set(m, "url", s.apiURL(fmt.Sprintf("/repos/%s/actions/runs/%d", full, run.ID)))
	set(m, "html_url", fmt.Sprintf("https://github.com/%s/actions/runs/%d", full, run.ID))
	set(m, "artifacts_url", s.apiURL(fmt.Sprintf("/repos/%s/actions/runs/%d/artifacts", full, run.ID)))
	set(m, "head_commit.id", run.HeadSHA)
	set(m, "pull_requests", []any{})
	return m
}

func (s *Server) listWorkflowRuns(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	var runs []WorkflowRun
	for _, run := range s.repo.WorkflowRuns {
		if v := q.Get("head_sha"); v != "" && run.HeadSHA != v {
			continue
		}
		if v := q.Get("event"); v != "" && run.Event != v {
			continue
		}
		if v := q.Get("branch"); v != "" && run.HeadBranch != v {
			continue
		}
		if v := q.Get("status"); v != "" && run.Status != v && run.Conclusion != v {
			continue
		}
		runs = append(runs, run)
	}
	s.mu.Unlock()
	// GitHub lists newest first.
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].CreatedAt.After(runs[j].CreatedAt) })
	lo, hi := s.paginate(w, r, len(runs))
	out := make([]any, 0, hi-lo)
	for _, run := range runs[lo:hi] {
		out = append(out, s.workflowRunJSON(run))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "workflow_runs": out})
}

func (s *Server) artifactJSON(a Artifact, run WorkflowRun) map[string]any {
	m := tplArtifact()
	s.mu.Lock()
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	set(m, "id", a.ID)
	set(m, "name", a.Name)
	set(m, "size_in_bytes", a.Size)
	set(m, "expired", a.Expired)
	set(m, "url", s.apiURL(fmt.Sprintf("/repos/%s/actions/artifacts/%d", full, a.ID)))
	set(m, "archive_download_url", s.apiURL(fmt.Sprintf("/repos/%s/actions/artifacts/%d/zip", full, a.ID)))
	created := a.CreatedAt
	if created.IsZero() {
		created = run.attemptStart(run.RunAttempt)
	}
	set(m, "created_at", ts(created))
	set(m, "expires_at", ts(created.Add(90*24*time.Hour)))
	set(m, "workflow_run.id", run.ID)
	set(m, "workflow_run.head_sha", run.HeadSHA)
	set(m, "workflow_run.head_branch", run.HeadBranch)
	return m
}

// runLocked returns a copy of the workflow run id (the last one declared with it), nil if none.
func (s *Server) runLocked(id int64) *WorkflowRun {
	var run *WorkflowRun
	for i := range s.repo.WorkflowRuns {
		if s.repo.WorkflowRuns[i].ID == id {
			x := s.repo.WorkflowRuns[i]
			run = &x
		}
	}
	return run
}

// getRunAttempt serves one attempt of a workflow run: the run as it stood then (its
// run_attempt and run_started_at).
func (s *Server) getRunAttempt(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	n, _ := strconv.Atoi(r.PathValue("attempt"))
	s.mu.Lock()
	run := s.runLocked(id)
	s.mu.Unlock()
	if run == nil || n < 1 || n > run.RunAttempt {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	at := *run
	at.RunAttempt = n
	writeJSON(w, http.StatusOK, s.workflowRunJSON(at))
}

func (s *Server) listRunArtifacts(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	run := s.runLocked(id)
	var arts []Artifact
	for _, a := range s.repo.Artifacts {
		if a.RunID == id {
			arts = append(arts, a)
		}
	}
	s.mu.Unlock()
	if run == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	lo, hi := s.paginate(w, r, len(arts))
	out := make([]any, 0, hi-lo)
	for _, a := range arts[lo:hi] {
		out = append(out, s.artifactJSON(a, *run))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(arts), "artifacts": out})
}

func (s *Server) findArtifact(id int64) (Artifact, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.repo.Artifacts {
		if a.ID == id {
			return a, true
		}
	}
	return Artifact{}, false
}

func (s *Server) artifactZip(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	a, ok := s.findArtifact(id)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if a.Expired {
		writeError(w, http.StatusGone, "Artifact has expired")
		return
	}
	s.redirectArtifact(w, a)
}

func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request) {
	if a := r.Header.Get("Authorization"); a != "" {
		s.errorf("artifact blob download received an Authorization header (%d bytes): the token must never leave for blob storage", len(a))
		http.Error(w, "authorization not allowed on signed URLs", http.StatusBadRequest)
		return
	}
	idStr, ok := strings.CutPrefix(r.URL.Path, "/blob/")
	id, err := strconv.ParseInt(idStr, 10, 64)
	if !ok || err != nil || r.Method != http.MethodGet || r.URL.Query().Get("sig") == "" {
		http.Error(w, "bad blob request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.counts[RouteBlob]++
	f := s.fault(RouteBlob, true)
	s.mu.Unlock()
	a, found := s.findArtifact(id)
	if !found {
		http.Error(w, "BlobNotFound", http.StatusNotFound)
		return
	}
	body := a.Zip
	if f != nil {
		switch f.Kind {
		case TruncatedZip:
			body = body[:len(body)/2]
		case Slow:
			select {
			case <-r.Context().Done():
				return
			case <-time.After(f.Delay):
			}
		case ServerError:
			http.Error(w, "ServerBusy", http.StatusServiceUnavailable)
			return
		case Gone:
			http.Error(w, "AuthenticationFailed: signature expired", http.StatusForbidden)
			return
		}
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func (s *Server) combinedStatus(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	sha := s.resolve(r.PathValue("ref"))
	s.mu.Lock()
	latest := map[string]Status{}
	var order []string
	for _, st := range s.repo.Statuses {
		if st.SHA != sha {
			continue
		}
		if _, ok := latest[st.Context]; !ok {
			order = append(order, st.Context)
		}
		latest[st.Context] = st
	}
	owner, name := s.repo.Owner, s.repo.Name
	full := owner + "/" + name
	s.mu.Unlock()
	state := "pending"
	if len(order) > 0 {
		state = "success"
	}
	var list []Status
	for _, c := range order {
		st := latest[c]
		list = append(list, st)
		switch st.State {
		case "error", "failure":
			state = "failure"
		case "pending":
			if state != "failure" {
				state = "pending"
			}
		}
	}
	lo, hi := s.paginate(w, r, len(list))
	out := make([]any, 0, hi-lo)
	for i, st := range list[lo:hi] {
		out = append(out, map[string]any{
			"id":          9000 + lo + i,
			"node_id":     fmt.Sprintf("SC_%d", 9000+lo+i),
			"avatar_url":  "https://avatars.githubusercontent.com/oa/4223?v=3",
			"url":         s.apiURL("/repos/" + full + "/statuses/" + sha),
			"state":       st.State,
			"description": st.Description,
			"target_url":  st.TargetURL,
			"context":     st.Context,
			"created_at":  "2026-01-01T00:00:00Z",
			"updated_at":  "2026-01-01T00:00:00Z",
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"state":       state,
		"sha":         sha,
		"total_count": len(list),
		"statuses":    out,
		"commit_url":  s.apiURL("/repos/" + full + "/commits/" + sha),
		"url":         s.apiURL("/repos/" + full + "/commits/" + sha + "/status"),
		"repository":  minimalRepo(s.api.URL, owner, name),
	})
}

// MaxPullCommits is how many commits GitHub lists for a pull request ("Lists a maximum of 250
// commits for a pull request", GET /pulls/{pull_number}/commits); its "commits" count may be
// larger.
const MaxPullCommits = 250

func (s *Server) listPullCommits(w http.ResponseWriter, r *http.Request) {
	if !s.checkRepo(w, r) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	var shas []string
	found := false
	for _, p := range s.repo.Pulls {
		if p.Number == n {
			shas, found = p.CommitSHAs, true
		}
	}
	full := s.repo.Owner + "/" + s.repo.Name
	s.mu.Unlock()
	if !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	shas = shas[:min(len(shas), MaxPullCommits)]
	lo, hi := s.paginate(w, r, len(shas))
	out := make([]any, 0, hi-lo)
	for _, sha := range shas[lo:hi] {
		c, ok := s.findCommit(sha)
		if !ok {
			s.errorf("pull request #%d lists commit %s that Repo.Commits does not declare", n, sha)
			continue
		}
		out = append(out, commitJSON(apiFunc(s.URL+"/api/v3", full), "https://github.com/"+full, c.SHA, c.Message, c.Author,
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), c.tree(), c.Parents))
	}
	writeJSON(w, http.StatusOK, out)
}
