// Package ghfake is a fake of the GitHub REST API on loopback ports, for tests and the demo.
//
// It links no test support (neither testing nor net/http/httptest): the darwin-memo binary
// carries it for its demo command. New takes the small TB interface, which *testing.T meets.
//
// It is mounted the way go-github's own tests mount theirs (a ServeMux under
// an API prefix; both /api/v3/ as produced by WithEnterpriseURLs and
// go-github's /api-v3/ work), serves payloads built from real GitHub
// responses (testdata/api), pages list routes with Link headers, sends
// rate-limit headers, redirects artifact downloads (302) to a second server
// that fails the test if it receives an Authorization header, and injects
// faults (5xx, 429, primary and secondary rate limits, slow answers,
// truncated zips, 410 for expired artifacts).
//
// A scenario is a Repo value:
//
//	srv := ghfake.New(t, ghfake.Repo{
//		Commits: []ghfake.Commit{{SHA: ghfake.SHA("merge"), Parents: []string{ghfake.SHA("base"), ghfake.SHA("head")}}},
//		Pulls:   []ghfake.PullRequest{{Number: 7, Merged: true, HeadSHA: ghfake.SHA("head"), MergeCommitSHA: ghfake.SHA("merge")}},
//		Faults:  []ghfake.Fault{{Route: ghfake.RoutePull, Kind: ghfake.ServerError}},
//	})
//	client, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
//
// Every payload follows GitHub's published REST API description: the test binaries that serve
// through the fake install ghschema.Main as their TestMain, which validates every response
// strictly (no property the schema lacks, none it requires missing) and fails on any request
// that is not a described operation. Where GitHub behaves in ways the description does not
// say (the 1 MB contents limit, the artifact redirect), deviations.go keeps it, once.
//
// Routes are counted per pattern (Server.Count). Other packages extend the
// fake with more routes in their own files: add an installer method to the
// list in Server.install, use Server.HandleFunc, and keep any new state in
// Repo (guarded by Server.Do).
package ghfake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/google/go-github/v62/github"
)

// Token is the bearer token the fake expects on API routes when
// Server.RequireToken is set, and the one NewClient sends.
const Token = "ghfake-secret-token"

// RouteBlob names artifact downloads on the blob server, for faults and
// counts.
const RouteBlob = "GET /blob/{id}"

// Server is a running fake. Its fields are safe to read after New.
type Server struct {
	// URL is the GitHub Enterprise style root ("http://127.0.0.1:port");
	// pass it as GITHUB_API_URL. API routes live under URL + "/api/v3/".
	URL string
	// BlobURL is the root of the artifact blob server.
	BlobURL string

	t    TB
	api  *loopback
	blob *loopback
	mux  *http.ServeMux

	// Now is the server clock for rate-limit headers.
	Now func() time.Time

	mu       sync.Mutex
	repo     Repo
	counts   map[string]int
	total    int
	rateUsed int
	auth     []string // Authorization headers seen on API routes
	errs     []string // problems seen without a t
}

// TB is the part of testing.TB the fake uses: *testing.T and *testing.B satisfy it, and the
// fake need not import package testing.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// New starts a fake serving repo, reports its problems to t and closes it when the test ends.
func New(t TB, repo Repo) *Server {
	t.Helper()
	s := NewServer(repo)
	s.t = t
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake without a TB; call Close. Problems the
// fake would report to a test (an Authorization header at the blob server,
// an unknown route) are collected in Errors instead.
func NewServer(repo Repo) *Server {
	repo.fill()
	s := &Server{
		repo:   repo,
		counts: map[string]int{},
		mux:    http.NewServeMux(),
		Now:    time.Now,
	}
	s.install()
	s.api = serveLoopback(http.HandlerFunc(s.serveAPI))
	s.blob = serveLoopback(http.HandlerFunc(s.serveBlob))
	s.URL = s.api.URL
	s.BlobURL = s.blob.URL
	return s
}

// install registers every route group. Other files add theirs here.
func (s *Server) install() {
	s.installCI()
}

// Close stops both servers.
func (s *Server) Close() {
	s.api.Close()
	s.blob.Close()
}

// HandleFunc registers an API route with a Go 1.22 pattern relative to the
// API root, e.g. "POST /repos/{owner}/{repo}/git/trees". The pattern is also
// the name used by Count and Fault.Route.
func (s *Server) HandleFunc(pattern string, h func(w http.ResponseWriter, r *http.Request)) {
	s.mux.HandleFunc(pattern, h)
}

// Do runs f with the scenario state locked, for tests that change or
// inspect it while the server runs.
func (s *Server) Do(f func(repo *Repo)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.repo)
}

// Count returns how many requests reached route (a pattern, or RouteBlob).
func (s *Server) Count(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[route]
}

// Counts returns a copy of the per-route request counts.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// Total is the number of API requests served (blob downloads excluded).
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Errors returns the problems recorded by a server made with NewServer.
func (s *Server) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

// AuthHeaders returns the distinct Authorization headers seen on API routes.
func (s *Server) AuthHeaders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// NoSleep is a ghapi Policy.Sleep that returns at once, so retry tests
// never wait.
func NoSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// NewClient returns a go-github client for this fake built by ghapi (so the
// retry transport is exercised), sending Token.
func (s *Server) NewClient(p ghapi.Policy) (*github.Client, *ghapi.Transport) {
	c, tr, err := ghapi.NewClient(ghapi.Options{APIURL: s.URL, Token: Token, Policy: p})
	if err != nil {
		panic(err) // s.URL is always a valid absolute URL
	}
	return c, tr
}

func (s *Server) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.t != nil {
		s.t.Errorf("ghfake: %s", msg)
		return
	}
	s.mu.Lock()
	s.errs = append(s.errs, msg)
	s.mu.Unlock()
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/api/v3/"):
		path = strings.TrimPrefix(path, "/api/v3")
	case strings.HasPrefix(path, "/api-v3/"):
		path = strings.TrimPrefix(path, "/api-v3")
	default:
		s.errorf("request %s %s is outside /api/v3/: did you use an absolute endpoint URL rather than a relative one?", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = path
	r2.URL.RawPath = ""
	_, pattern := s.mux.Handler(r2)
	if pattern == "" {
		s.errorf("no route for %s %s: register one with Server.HandleFunc", r.Method, path)
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	// A request the fake has no route for already fails the test (errorf above); every
	// routed exchange goes to the observer (ghschema: the route must be a described
	// operation and the response must validate).
	w, done := observed(w, r, path)
	defer done()
	s.mu.Lock()
	s.counts[pattern]++
	s.total++
	s.rateUsed++
	if a := r.Header.Get("Authorization"); a != "" && !contains(s.auth, a) {
		s.auth = append(s.auth, a)
	}
	fault := s.fault(pattern, false)
	s.mu.Unlock()
	s.rateHeaders(w)
	if fault != nil && s.inject(w, r, fault) {
		return
	}
	s.mux.ServeHTTP(w, r2)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// fault returns a copy of the first fault that fires for pattern. Callers
// hold s.mu.
func (s *Server) fault(pattern string, blob bool) *Fault {
	for i := range s.repo.Faults {
		f := &s.repo.Faults[i]
		match := f.Route == pattern || (f.Route == "" && !blob)
		if !match {
			continue
		}
		if f.take() {
			c := *f
			return &c
		}
	}
	return nil
}

func (s *Server) rateHeaders(w http.ResponseWriter) {
	s.mu.Lock()
	used := s.rateUsed
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, 5000-used)))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(s.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version", "2022-11-28")
}

// inject writes the fault's answer; it returns false when the request should
// still be served normally (Slow, and faults that only apply to blobs).
func (s *Server) inject(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	retryAfter := strconv.Itoa(f.RetryAfter)
	if f.RetryAfter == 0 {
		retryAfter = "1"
	}
	switch f.Kind {
	case ServerError:
		writeError(w, http.StatusBadGateway, "Server Error")
	case TooManyRequests:
		if !f.NoRetryAfter {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeError(w, http.StatusTooManyRequests, "API rate limit exceeded")
	case SecondaryRateLimit:
		if !f.NoRetryAfter {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/resources-in-the-rest-api#secondary-rate-limits"}`)
	case PrimaryRateLimit:
		reset := f.Reset
		if reset.IsZero() {
			reset = s.Now()
		}
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`)
	case Slow:
		select {
		case <-r.Context().Done():
			return true
		case <-time.After(f.Delay):
		}
		return false
	case Gone:
		writeError(w, http.StatusGone, "Gone")
	default:
		return false
	}
	return true
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic(err)
	}
}

// apiURL returns an absolute API URL for p (which starts with "/").
func (s *Server) apiURL(p string) string { return s.URL + "/api/v3" + p }

// paginate slices items for the request's page/per_page and sets the Link
// header the way GitHub does (next, last, first, prev).
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	s.mu.Lock()
	if s.repo.PageSize > 0 && per > s.repo.PageSize {
		per = s.repo.PageSize
	}
	s.mu.Unlock()
	page, _ := strconv.Atoi(q.Get("page"))
	if page <= 0 {
		page = 1
	}
	last := (n + per - 1) / per
	if last == 0 {
		last = 1
	}
	lo = min((page-1)*per, n)
	hi = min(lo+per, n)
	link := func(p int, rel string) string {
		q2 := url.Values{}
		for k, v := range q {
			q2[k] = v
		}
		q2.Set("page", strconv.Itoa(p))
		q2.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<%s?%s>; rel="%s"`, s.apiURL(r.URL.Path), q2.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	return lo, hi
}

// checkRepo answers 404 unless the path names the scenario's repository.
func (s *Server) checkRepo(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	ok := strings.EqualFold(r.PathValue("owner"), s.repo.Owner) && strings.EqualFold(r.PathValue("repo"), s.repo.Name)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return ok
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
