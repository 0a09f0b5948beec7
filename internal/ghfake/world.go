package ghfake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
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

	front *loopback

	mu    sync.Mutex
	total int
	// Before, when set, runs before every request reaches either fake; a non-zero status
	// answers the request with that status and body instead (faults across both fakes).
	Before func(r *http.Request) (status int, body string)

	// rate limiting (SetRateLimit)
	limit       int
	clock       func() time.Time
	windowEnd   time.Time
	used        int
	rateLimited int
}

// NewWorld starts a World over git and a CI server built from ci (its Owner, Name and
// DefaultBranch are taken from git). Call Close.
func NewWorld(git *GitRepo, ci Repo) *World {
	ci.Owner, ci.Name, ci.DefaultBranch = git.Owner, git.Name, git.DefaultBranch
	w := &World{Git: git, CI: NewServer(ci)}
	target, err := url.Parse(w.CI.URL)
	if err != nil {
		panic(err) // loopback URLs always parse
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		w.mu.Lock()
		limited := w.limit > 0
		w.mu.Unlock()
		if limited { // the World's own X-RateLimit-* headers stand
			for _, k := range []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Used", "X-Ratelimit-Reset", "X-Ratelimit-Resource"} {
				resp.Header.Del(k)
			}
		}
		return nil
	}
	w.front = serveLoopback(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
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
		if w.rate(rw, r) {
			return
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

// SetRateLimit makes the World enforce GitHub's primary rate limit for a GITHUB_TOKEN:
// limit requests per hour of clock, counted across both fakes (GET /rate_limit is free, as
// on GitHub), with the X-RateLimit-* headers on every answer and 403 "API rate limit
// exceeded" once spent. limit 0 turns it off.
func (w *World) SetRateLimit(limit int, clock func() time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limit, w.clock, w.used, w.windowEnd = limit, clock, 0, time.Time{}
}

// RateLimited is the number of requests refused for the rate limit.
func (w *World) RateLimited() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rateLimited
}

// rate counts r against the limit and sets the headers; served reports that it answered r
// itself (GET /rate_limit, or a 403 once the limit is spent).
func (w *World) rate(rw http.ResponseWriter, r *http.Request) (served bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.limit == 0 {
		return false
	}
	now := w.clock()
	if !now.Before(w.windowEnd) {
		w.used, w.windowEnd = 0, now.Add(time.Hour)
	}
	free := r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/rate_limit")
	refused := !free && w.used >= w.limit
	if !free && !refused {
		w.used++
	}
	h := rw.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(w.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(w.limit-w.used))
	h.Set("X-RateLimit-Used", strconv.Itoa(w.used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(w.windowEnd.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	switch {
	case free:
		h.Set("Content-Type", "application/json; charset=utf-8")
		rw.WriteHeader(http.StatusOK)
		json.NewEncoder(rw).Encode(RateLimitJSON(w.limit, w.used, w.windowEnd))
		return true
	case refused:
		w.rateLimited++
		h.Set("Content-Type", "application/json; charset=utf-8")
		rw.WriteHeader(http.StatusForbidden)
		io.WriteString(rw, `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`)
		return true
	}
	return false
}
