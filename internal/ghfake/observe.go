package ghfake

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"
)

// Exchange is one API request the fake answered and its response, as handed to an observer.
type Exchange struct {
	Method string
	// Path is relative to the API root ("/repos/o/r/pulls"), the enterprise prefix removed.
	Path  string
	Query url.Values
	// Status, Header and Body are the response as written.
	Status int
	Header http.Header
	Body   []byte
}

var (
	observeMu sync.RWMutex
	observer  func(Exchange)
)

// Observe makes every fake (Server, GitRepo, World) hand each API exchange to f; nil stops it.
// f must be safe for concurrent use. Tests install it in TestMain to hold the fake to GitHub's
// published description (package ghschema); artifact blob downloads, which are not API
// requests, and faults a World.Before hook answers are not observed. It returns the observer
// it replaced (a benchmark sets nil for its timed part and restores it).
func Observe(f func(Exchange)) (previous func(Exchange)) {
	observeMu.Lock()
	defer observeMu.Unlock()
	previous, observer = observer, f
	return previous
}

func currentObserver() func(Exchange) {
	observeMu.RLock()
	defer observeMu.RUnlock()
	return observer
}

// recorder captures a response for the observer.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// observed wraps w when an observer is installed; done hands the exchange over.
func observed(w http.ResponseWriter, r *http.Request, apiPath string) (http.ResponseWriter, func()) {
	f := currentObserver()
	if f == nil {
		return w, func() {}
	}
	rec := &recorder{ResponseWriter: w}
	return rec, func() {
		if rec.status == 0 {
			return // not answered here (GitRepo.Serve declined it)
		}
		f(Exchange{Method: r.Method, Path: apiPath, Query: r.URL.Query(), Status: rec.status,
			Header: rec.Header().Clone(), Body: rec.body.Bytes()})
	}
}
