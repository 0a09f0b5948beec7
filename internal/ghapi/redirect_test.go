package ghapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

// authLog records the Authorization header of every request a server saw.
type authLog struct {
	mu  sync.Mutex
	got []string
}

func (l *authLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, r.URL.Path+" "+r.Header.Get("Authorization"))
}

func (l *authLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

// TestTokenStaysOnAPIHost redirects API requests from the API server (127.0.0.1) to a second
// server on another host (localhost, another port: the check is on scheme, host and port) along
// both redirect paths the action uses: net/http's redirect following (302 on a plain API call)
// and go-github's own following of 301 in DownloadArtifact. The token must reach the API server
// and never the other one.
func TestTokenStaysOnAPIHost(t *testing.T) {
	var api, other authLog
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r)
		switch {
		case strings.HasSuffix(r.URL.Path, "/zip"):
			w.Header().Set("Location", "https://blob.example/artifact.zip?sig=1")
			w.WriteHeader(http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":1,"name":"r","full_name":"o/r"}`)
		}
	}))
	defer foreign.Close()
	fu, err := url.Parse(foreign.URL)
	if err != nil {
		t.Fatal(err)
	}
	foreignBase := "http://localhost:" + fu.Port()
	apiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.add(r)
		switch {
		case strings.HasSuffix(r.URL.Path, "/zip"):
			w.Header().Set("Location", foreignBase+r.URL.Path)
			w.WriteHeader(http.StatusMovedPermanently)
		case strings.HasSuffix(r.URL.Path, "/same-host"):
			w.Header().Set("Location", "/api/v3/repos/o/r")
			w.WriteHeader(http.StatusFound)
		case r.URL.Path == "/api/v3/repos/o/r":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":1,"name":"r","full_name":"o/r"}`)
		default:
			w.Header().Set("Location", foreignBase+r.URL.Path)
			w.WriteHeader(http.StatusFound)
		}
	}))
	defer apiSrv.Close()

	c, _, err := ghapi.NewClient(ghapi.Options{APIURL: apiSrv.URL, Token: "ghs_secret", Policy: ghapi.Policy{Sleep: ghfake.NoSleep}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// net/http follows the 302 to the other host.
	if _, _, err := c.Repositories.Get(ctx, "o", "elsewhere"); err != nil {
		t.Fatalf("get through a cross-host redirect: %v", err)
	}
	// go-github follows the 301 itself and returns the other host's 302 Location.
	u, _, err := c.Actions.DownloadArtifact(ctx, "o", "r", 7, 1)
	if err != nil {
		t.Fatalf("DownloadArtifact: %v", err)
	}
	if u.Host != "blob.example" {
		t.Errorf("artifact URL = %s", u)
	}
	// A redirect on the API host itself keeps the token.
	req, err := c.NewRequest("GET", "repos/o/r/same-host", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(ctx, req, nil); err != nil {
		t.Fatalf("same-host redirect: %v", err)
	}

	for _, g := range other.all() {
		if !strings.HasSuffix(g, " ") {
			t.Errorf("the other host received %q", g)
		}
	}
	if n := len(other.all()); n != 2 {
		t.Errorf("the other host saw %d requests, want 2 (the test did not exercise both redirect paths)", n)
	}
	for _, g := range api.all() {
		if !strings.HasSuffix(g, " Bearer ghs_secret") {
			t.Errorf("the API host received %q, want the token", g)
		}
	}
	if n := len(api.all()); n != 4 {
		t.Errorf("the API host saw %d requests, want 4", n)
	}
}
