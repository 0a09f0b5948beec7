package encode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// fakeGitHub serves GET /repos/{o}/{r}/pulls/{n} and its files, commits
// and comments lists from testdata/github/<name>*.json, paginated by
// per_page with Link headers as GitHub does. overlay fields are set on the
// pull request object.
func fakeGitHub(t *testing.T, name string, overlay map[string]any) (*github.Client, *int) {
	t.Helper()
	read := func(suffix string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "github", name+suffix))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pull := map[string]any{}
	if err := json.Unmarshal(read(".json"), &pull); err != nil {
		t.Fatal(err)
	}
	for k, v := range overlay {
		pull[k] = v
	}
	calls := 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(pull)
	})
	list := func(suffix string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			calls++
			var items []json.RawMessage
			if err := json.Unmarshal(read(suffix), &items); err != nil {
				t.Errorf("%s: %v", suffix, err)
			}
			per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
			if per <= 0 || per > 100 {
				per = 30
			}
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if page < 1 {
				page = 1
			}
			lo, hi := (page-1)*per, page*per
			if lo > len(items) {
				lo = len(items)
			}
			if hi > len(items) {
				hi = len(items)
			}
			if hi < len(items) {
				q := r.URL.Query()
				q.Set("page", strconv.Itoa(page+1))
				w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			out := items[lo:hi]
			if out == nil {
				out = []json.RawMessage{}
			}
			json.NewEncoder(w).Encode(out)
		}
	}
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/files", list(".files.json"))
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/commits", list(".commits.json"))
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/comments", list(".comments.json"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: no route for %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	client := github.NewClient(srv.Client())
	client.BaseURL, _ = url.Parse(srv.URL + "/")
	return client, &calls
}

// getPull reads pull request n from the fake, as the action reads it before Collect.
func getPull(t *testing.T, client *github.Client, owner, repo string, n int) *github.PullRequest {
	t.Helper()
	gpr, _, err := client.PullRequests.Get(context.Background(), owner, repo, n)
	if err != nil {
		t.Fatal(err)
	}
	return gpr
}

func TestCollectMergedPR(t *testing.T) {
	client, _ := fakeGitHub(t, "octokit-pull-1347", map[string]any{"merged": true})
	pr, err := Collect(context.Background(), client, "octocat", "Hello-World", getPull(t, client, "octocat", "Hello-World", 1347),
		[]CIFailure{{Test: "lib.TestLoadRejectsPortZero", Message: "config_test.go:31: Load(port=0) returned nil, want ErrPort"}})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Title != "Amazing new feature" || pr.AuthorAssociation != "OWNER" || pr.Author != "octocat" {
		t.Errorf("title/association/author = %q %q %q", pr.Title, pr.AuthorAssociation, pr.Author)
	}
	if got := strings.Join(pr.Labels, ","); got != "bug" {
		t.Errorf("labels = %q", got)
	}
	if pr.MergedAt.Format("2006-01-02T15:04:05Z") != "2011-01-26T19:01:12Z" {
		t.Errorf("merged at %v", pr.MergedAt)
	}
	if len(pr.Files) != 5 || len(pr.Commits) != 3 || len(pr.Reviews) != 4 {
		t.Fatalf("files %d commits %d reviews %d, want 5 3 4", len(pr.Files), len(pr.Commits), len(pr.Reviews))
	}
	if pr.Files[0].Path != "Makefile" || pr.Files[3].Additions != 40 || pr.Files[3].Path != "lib/config.go" {
		t.Errorf("files not sorted by path or counts lost: %+v", pr.Files)
	}
	addressed := map[int64]bool{}
	for _, r := range pr.Reviews {
		addressed[r.ID] = r.Addressed
	}
	// 10: outdated and followed by a commit; 11: outdated but no later
	// commit; 12, 13: still attached to the head.
	if !addressed[10] || addressed[11] || addressed[12] || addressed[13] {
		t.Errorf("addressed = %v, want only 10", addressed)
	}
	for _, c := range pr.Commits {
		if c.Author != "octocat" || c.AuthorAssociation != "OWNER" {
			t.Errorf("commit %s author %q %q, want octocat OWNER (the pull request's author)", c.Short(), c.Author, c.AuthorAssociation)
		}
	}
	var ids []string
	for _, d := range pr.Documents() {
		ids = append(ids, d.ID)
	}
	want := "pr diff:Makefile diff:README diff:docs/config.md diff:lib/config.go diff:lib/config_test.go review:10 review:11 review:12 review:13 ci:lib.TestLoadRejectsPortZero commit:9c1b5b2 commit:a3e5f70 commit:6dcb09b"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("document ids\n got %s\nwant %s", got, want)
	}
}

func TestCollectRefusesUnmergedPR(t *testing.T) {
	for _, name := range []string{"octokit-pull-1347", "dependabot-pull-18"} {
		client, calls := fakeGitHub(t, name, nil)
		_, err := Collect(context.Background(), client, "o", "r", getPull(t, client, "o", "r", 1), nil)
		if err == nil || !strings.Contains(err.Error(), "not merged") {
			t.Errorf("%s: err = %v, want not merged", name, err)
		}
		if *calls != 1 {
			t.Errorf("%s: %d API calls after refusing, want 1 (the pull request's)", name, *calls)
		}
	}
}

func TestCollectReportsAPIErrors(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message":"Not Found","documentation_url":"https://docs.github.com/rest/pulls/pulls#get-a-pull-request"}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := github.NewClient(srv.Client())
	client.BaseURL, _ = url.Parse(srv.URL + "/")
	_, err := Collect(context.Background(), client, "o", "r", &github.PullRequest{Number: github.Int(9), Merged: github.Bool(true)}, nil)
	var gerr *github.ErrorResponse
	if err == nil || !strings.Contains(err.Error(), "o/r#9") || !errorsAs(err, &gerr) {
		t.Fatalf("err = %v, want a wrapped *github.ErrorResponse naming o/r#9", err)
	}
}
