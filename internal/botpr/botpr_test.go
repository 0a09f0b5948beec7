package botpr

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

func newRepo(t *testing.T) (*ghfake.GitRepo, Repo) {
	t.Helper()
	g := ghfake.NewGitRepo("o", "r", "main", map[string]string{"README.md": "hi\n", ".darwin-memo/lessons.json": "{}"})
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	c, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	noSleep := func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	return g, Repo{Client: c, Owner: "o", Name: "r", Sleep: noSleep}
}

func TestCommitCreatesVerifiedCommitAndBranch(t *testing.T) {
	t.Parallel()
	g, r := newRepo(t)
	ctx := context.Background()
	main := g.Ref("main")
	sha, err := r.Commit(ctx, CommitRequest{Branch: "bot/x", Parent: main, Message: "m",
		Files: map[string][]byte{".darwin-memo/lessons.json": []byte(`{"a":1}`), "bin.dat": {0xff, 0xfe}}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Ref("bot/x") != sha || g.Ref("main") != main {
		t.Fatalf("refs: bot %s main %s", g.Ref("bot/x"), g.Ref("main"))
	}
	if b, _ := g.File("bot/x", ".darwin-memo/lessons.json"); string(b) != `{"a":1}` {
		t.Fatalf("store %q", b)
	}
	if b, _ := g.File("bot/x", "README.md"); string(b) != "hi\n" {
		t.Fatalf("README.md, which the commit does not name, is %q", b)
	}
	if b, _ := g.File("bot/x", "bin.dat"); string(b) != "\xff\xfe" {
		t.Fatalf("binary %q", b)
	}
	if p := g.Parents(sha); len(p) != 1 || p[0] != main {
		t.Fatalf("parents %v", p)
	}
	if g.CommitAuthor(sha) != "" {
		t.Fatal("commit has an author; GitHub would not sign it")
	}
	c, _, err := r.Client.Git.GetCommit(ctx, "o", "r", sha)
	if err != nil || !c.GetVerification().GetVerified() {
		t.Fatalf("not verified: %v %v", c.GetVerification(), err)
	}
	// Second commit force-updates the existing branch, built again on main (not on the branch).
	sha2, err := r.Commit(ctx, CommitRequest{Branch: "bot/x", Parent: main, Message: "m2", BranchExists: true,
		Files: map[string][]byte{".darwin-memo/lessons.json": []byte(`{"a":2}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Ref("bot/x") != sha2 {
		t.Fatal("branch not moved")
	}
	if _, ok := g.File("bot/x", "README.md"); !ok {
		t.Fatal("rebuilt branch should start from main again")
	}
	// The branch exists but the caller did not know: 422 on create falls back to update.
	sha3, err := r.Commit(ctx, CommitRequest{Branch: "bot/x", Parent: main, Message: "m3",
		Files: map[string][]byte{"x": []byte("3")}})
	if err != nil || g.Ref("bot/x") != sha3 {
		t.Fatalf("fallback: %v", err)
	}
}

func TestCommitFailureLeavesBranch(t *testing.T) {
	t.Parallel()
	for _, route := range []string{"/git/trees", "/git/commits", "/git/refs"} {
		t.Run(route, func(t *testing.T) {
			g, r := newRepo(t)
			ctx := context.Background()
			first, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}})
			if err != nil {
				t.Fatal(err)
			}
			g.Faults = func(req *http.Request) (int, string) {
				if req.Method != http.MethodGet && strings.HasSuffix(strings.TrimRight(req.URL.Path, "/"), route) || (route == "/git/refs" && req.Method == http.MethodPatch) {
					return 502, `{"message":"Server Error"}`
				}
				return 0, ""
			}
			if _, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "2", BranchExists: true, Files: map[string][]byte{"a": []byte("2")}}); err == nil {
				t.Fatal("no error")
			}
			if g.Ref("bot") != first {
				t.Fatal("branch moved on a failed commit")
			}
		})
	}
}

func TestUpsertCreateUpdateLabelsClose(t *testing.T) {
	t.Parallel()
	g, r := newRepo(t)
	ctx := context.Background()
	if _, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}}); err != nil {
		t.Fatal(err)
	}
	existing, err := r.FindOpen(ctx, "bot", "main")
	if err != nil || existing != nil {
		t.Fatalf("FindOpen on empty: %v %v", existing, err)
	}
	pr, op, err := r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b1", Labels: []string{"darwin-memo", "bot"}})
	if err != nil || op != OpCreated {
		t.Fatalf("create: %v %v", op, err)
	}
	n := pr.GetNumber()
	if got := g.Pull(n); got.State != "open" || got.Body != "b1" || strings.Join(got.Labels, ",") != "darwin-memo,bot" {
		t.Fatalf("created %+v", got)
	}
	existing, err = r.FindOpen(ctx, "bot", "main")
	if err != nil || existing.GetNumber() != n {
		t.Fatalf("FindOpen: %v %v", existing, err)
	}
	before := g.RequestCount()
	pr, op, err = r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b2", Labels: []string{"darwin-memo"}, Existing: existing})
	if err != nil || op != OpUpdated || pr.GetNumber() != n || g.Pull(n).Body != "b2" {
		t.Fatalf("update: %v %v %+v", op, err, g.Pull(n))
	}
	if d := g.RequestCount() - before; d != 1 {
		t.Fatalf("update used %d requests, want 1 (edit only; labels present)", d)
	}
	// Create again without knowing: 422 already exists → update.
	_, op, err = r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b3"})
	if err != nil || op != OpUpdated || g.Pull(n).Body != "b3" {
		t.Fatalf("422 fallback: %v %v", op, err)
	}
	if err := r.Close(ctx, n, "bot", "closed: empty"); err != nil {
		t.Fatal(err)
	}
	if got := g.Pull(n); got.State != "closed" || got.Merged || g.Ref("bot") != "" {
		t.Fatalf("close: %+v ref %q", got, g.Ref("bot"))
	}
}

func TestUpsertRealAlreadyExistsPayload(t *testing.T) {
	t.Parallel()
	// dependabot-core's recorded 422 for a duplicate pull request, then the list that finds it.
	body, err := os.ReadFile("testdata/422-validation-failed.pull-request-already-exists.dependabot.json")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/repos/o/r/pulls", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(422)
		w.Write(body)
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/pulls", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("head") != "o:bot" || r.URL.Query().Get("state") != "open" {
			t.Errorf("list query %v", r.URL.Query())
		}
		w.Write([]byte(`[{"number":7,"state":"open","title":"t","body":"old","head":{"ref":"bot"},"labels":[{"name":"darwin-memo"}]}]`))
	})
	mux.HandleFunc("PATCH /api/v3/repos/o/r/pulls/7", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"number":7,"state":"open","title":"t","body":"new","head":{"ref":"bot"},"labels":[{"name":"darwin-memo"}]}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, _ := github.NewClient(nil).WithEnterpriseURLs(srv.URL, srv.URL)
	pr, op, err := Repo{Client: c, Owner: "o", Name: "r"}.Upsert(context.Background(), UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "new", Labels: []string{"darwin-memo"}})
	if err != nil || op != OpUpdated || pr.GetNumber() != 7 {
		t.Fatalf("%v %v %v", pr, op, err)
	}
}

func TestExplainedErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("actions may not create PRs", func(t *testing.T) {
		g, r := newRepo(t)
		g.DenyCreatePR = true
		if _, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}}); err != nil {
			t.Fatal(err)
		}
		_, _, err := r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b"})
		if !errors.Is(err, ErrPRCreationNotPermitted) || !strings.Contains(err.Error(), "Allow GitHub Actions to create and approve pull requests") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("missing contents permission", func(t *testing.T) {
		g, r := newRepo(t)
		g.Permissions = map[string]bool{"pull-requests": true}
		_, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}})
		var pe *PermissionError
		if !errors.As(err, &pe) || pe.Permission != "contents" || !strings.Contains(err.Error(), "contents: write") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("missing pull-requests permission", func(t *testing.T) {
		g, r := newRepo(t)
		g.Permissions = map[string]bool{"contents": true}
		if _, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}}); err != nil {
			t.Fatal(err)
		}
		_, _, err := r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b"})
		var pe *PermissionError
		if !errors.As(err, &pe) || pe.Permission != "pull-requests" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("labels without issues permission still leave the PR", func(t *testing.T) {
		g, r := newRepo(t)
		g.Permissions = map[string]bool{"contents": true, "pull-requests": true}
		if _, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}}); err != nil {
			t.Fatal(err)
		}
		pr, op, err := r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b", Labels: []string{"x"}})
		var le *LabelError
		if !errors.As(err, &le) || pr == nil || op != OpCreated {
			t.Fatalf("%v %v %v", pr, op, err)
		}
	})
}

func TestTransientWriteFailuresAreRetried(t *testing.T) {
	t.Parallel()
	g, r := newRepo(t)
	ctx := context.Background()
	failed := map[string]bool{}
	var mu sync.Mutex
	g.Faults = func(req *http.Request) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		key := req.Method + " " + req.URL.Path
		if req.Method != http.MethodGet && !failed[key] {
			failed[key] = true
			return 502, `{"message":"Server Error"}`
		}
		return 0, ""
	}
	if _, err := r.Commit(ctx, CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "1", Files: map[string][]byte{"a": []byte("1")}}); err != nil {
		t.Fatal(err)
	}
	pr, op, err := r.Upsert(ctx, UpsertRequest{Branch: "bot", Base: "main", Title: "t", Body: "b", Labels: []string{"x"}})
	if err != nil || op != OpCreated || len(g.Pulls()) != 1 || strings.Join(g.Pull(pr.GetNumber()).Labels, ",") != "x" {
		t.Fatalf("%v %v %+v", op, err, g.Pulls())
	}
}

// A file over 1 MB (a large store) goes to GitHub as a base64 blob, not JSON-escaped inside the
// tree; it lands byte for byte, and small files still go inline (one request fewer).
func TestCommitLargeFileThroughABlob(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitRepo("o", "r", "main", map[string]string{"README.md": "hi\n"})
	var mu sync.Mutex
	blobs := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git/blobs") {
			mu.Lock()
			blobs++
			mu.Unlock()
		}
		g.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	c, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := Repo{Client: c, Owner: "o", Name: "r", Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}
	big := []byte(`{"question": "` + strings.Repeat(`q \"é\" `, 1<<18) + `"}`)
	if _, err := r.Commit(context.Background(), CommitRequest{Branch: "bot", Parent: g.Ref("main"), Message: "m",
		Files: map[string][]byte{"big.json": big, "small.md": []byte("# small\n")}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := g.File("bot", "big.json"); string(b) != string(big) {
		t.Fatalf("the large file changed on the way (%d bytes, want %d)", len(b), len(big))
	}
	if b, _ := g.File("bot", "small.md"); string(b) != "# small\n" {
		t.Fatalf("small file %q", b)
	}
	if blobs != 1 {
		t.Fatalf("%d blobs created, want 1 (the large file)", blobs)
	}
}
