package ghfake

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
)

// World is one fake GitHub for end-to-end runs of the action: a stateful GitRepo (git data,
// contents, pull requests, labels) in front of the CI fake Server (check runs, workflow runs,
// artifacts, statuses) behind one URL. Requests GitRepo knows are served by it; every other
// request is proxied to the CI server, so both fakes keep their own faults and counts while
// the client sees one API. Add CI results for commits the GitRepo makes with CI.Do.
type World struct {
	// URL is the API root to pass as GITHUB_API_URL (routes live under URL + "/api/v3/").
	URL string
	Git *GitRepo
	CI  *Server

	front *httptest.Server

	mu    sync.Mutex
	total int
	// Before, when set, runs before every request reaches either fake; a non-zero status
	// answers the request with that status and body instead (faults across both fakes).
	Before func(r *http.Request) (status int, body string)
}

// NewWorld starts a World over git and a CI server built from ci (its Owner, Name and
// DefaultBranch are taken from git). Call Close.
func NewWorld(git *GitRepo, ci Repo) *World {
	ci.Owner, ci.Name, ci.DefaultBranch = git.Owner, git.Name, git.DefaultBranch
	w := &World{Git: git, CI: NewServer(ci)}
	target, err := url.Parse(w.CI.URL)
	if err != nil {
		panic(err) // httptest URLs always parse
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	w.front = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.total++
		before := w.Before
		w.mu.Unlock()
		if before != nil {
			if status, body := before(r); status != 0 {
				rw.Header().Set("Content-Type", "application/json; charset=utf-8")
				rw.WriteHeader(status)
				rw.Write([]byte(body))
				return
			}
		}
		if git.Serve(rw, r) {
			return
		}
		proxy.ServeHTTP(rw, r)
	}))
	w.URL = w.front.URL
	return w
}

// Total is the number of API requests the World received.
func (w *World) Total() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// SetBefore installs (or with nil removes) the fault hook.
func (w *World) SetBefore(f func(r *http.Request) (int, string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Before = f
}

// Close stops the front and the CI servers.
func (w *World) Close() {
	w.front.Close()
	w.CI.Close()
}
