package ghfake

import (
	"fmt"
	"strings"
	"time"
)

// This file keeps the fake's payloads in the shapes of GitHub's current REST API description
// (the subset in ghschema/testdata, checked strictly by ghschema in every test binary that
// serves through the fake). The real payloads the fake starts from (testdata, some from 2019
// and 2020) predate fields GitHub has added or dropped since; each fix-up says which.

// conformRepo brings a repository object of the 2020 pulls-get doc example to the current
// "repository" schema (the shape of head.repo and base.repo): it lost network_count,
// subscribers_count and template_repository (full-repository only) and gained forks,
// open_issues, watchers and license.
func conformRepo(repo map[string]any) map[string]any {
	for _, k := range []string{"network_count", "subscribers_count", "template_repository"} {
		delete(repo, k)
	}
	repo["forks"] = repo["forks_count"]
	repo["open_issues"] = repo["open_issues_count"]
	repo["watchers"] = repo["watchers_count"]
	repo["license"] = nil
	return repo
}

// fullRepo is GET /repos/{owner}/{repo} (full-repository): the repository object plus the
// counts only the single-repository GET has.
func fullRepo(owner, name, defaultBranch string) map[string]any {
	m := gitPayload("pulls-get.example.json")
	repo := conformRepo(m["base"].(map[string]any)["repo"].(map[string]any))
	repo["network_count"], repo["subscribers_count"], repo["has_discussions"] = 0, 0, false
	repo["name"], repo["full_name"], repo["default_branch"], repo["private"] = name, owner+"/"+name, defaultBranch, false
	repo["html_url"] = "https://github.com/" + owner + "/" + name
	repo["owner"].(map[string]any)["login"] = owner
	return repo
}

// labelJSON is a label (the "label" schema: description and node_id are required).
func labelJSON(api func(string) string, i int, name string) map[string]any {
	return map[string]any{"id": 208045946 + i, "node_id": fmt.Sprintf("LA_%d", 208045946+i), "url": api("labels/" + name),
		"name": name, "description": "", "color": "ededed", "default": false}
}

// commitJSON is a commit as the commits, pull-request commits and compare routes serve it
// (the "commit" schema): the git commit under "commit" (no sha, node_id or html_url there),
// GitHub users (or null, for an author GitHub does not know) beside it.
func commitJSON(api func(string) string, htmlBase, sha, message, author string, date time.Time, tree string, parents []string) map[string]any {
	who := map[string]any{"name": author, "email": author + "@users.noreply.github.com", "date": date.UTC().Format(time.RFC3339)}
	ps := []any{}
	for _, p := range parents {
		ps = append(ps, map[string]any{"sha": p, "url": api("commits/" + p), "html_url": htmlBase + "/commit/" + p})
	}
	return map[string]any{
		"sha": sha, "node_id": "C_" + sha[:12], "url": api("commits/" + sha), "html_url": htmlBase + "/commit/" + sha,
		"comments_url": api("commits/" + sha + "/comments"),
		"commit": map[string]any{
			"url": api("git/commits/" + sha), "author": who, "committer": who, "message": message, "comment_count": 0,
			"tree": map[string]any{"sha": tree, "url": api("git/trees/" + tree)},
		},
		"author": nil, "committer": nil, "parents": ps,
	}
}

// apiFunc returns the URL builder for /repos/{full}/... under base ("https://api.github.com").
func apiFunc(base, full string) func(string) string {
	return func(p string) string { return strings.TrimSuffix(base, "/") + "/repos/" + full + "/" + p }
}

// minimalRepo is the minimal-repository object (the "repository" of a combined status): the
// repository object without the merge settings only the repository schema has.
func minimalRepo(apiRoot, owner, name string) map[string]any {
	repo := fullRepo(owner, name, "main")
	for _, k := range []string{"network_count", "subscribers_count", "allow_rebase_merge", "allow_squash_merge", "allow_merge_commit",
		"allow_auto_merge", "allow_update_branch", "master_branch", "starred_at", "anonymous_access_enabled"} {
		delete(repo, k)
	}
	repo["url"] = strings.TrimSuffix(apiRoot, "/") + "/api/v3/repos/" + owner + "/" + name
	return repo
}
