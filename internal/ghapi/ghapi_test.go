package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/google/go-github/v62/github"
)

// recorder is an injected Sleep that records waits instead of sleeping.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) Sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return ctx.Err()
}

func (r *recorder) total() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var t time.Duration
	for _, w := range r.waits {
		t += w
	}
	return t
}

func TestNewClientURLs(t *testing.T) {
	tests := []struct {
		api, want string
		wantErr   bool
	}{
		{"", "https://api.github.com/", false},
		{"https://api.github.com", "https://api.github.com/", false},
		{"https://ghes.example.com/api/v3", "https://ghes.example.com/api/v3/", false},
		{"https://ghes.example.com", "https://ghes.example.com/api/v3/", false},
		{"not a url", "", true},
		{"/relative", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.api, func(t *testing.T) {
			c, tr, err := ghapi.NewClient(ghapi.Options{APIURL: tt.api, Token: "x"})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewClient(%q) succeeded", tt.api)
				}
				if !strings.Contains(err.Error(), "GITHUB_API_URL") {
					t.Errorf("error %q does not name GITHUB_API_URL", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.BaseURL.String(); got != tt.want {
				t.Errorf("BaseURL = %q, want %q", got, tt.want)
			}
			if tr == nil {
				t.Error("nil transport")
			}
		})
	}
}

func fakePR() ghfake.Repo {
	return ghfake.Repo{Pulls: []ghfake.PullRequest{{Number: 1, Merged: true, HeadSHA: ghfake.SHA("h"), MergeCommitSHA: ghfake.SHA("m")}}}
}

func TestRetries(t *testing.T) {
	future := time.Date(2030, 1, 1, 0, 0, 30, 0, time.UTC)
	now := func() time.Time { return future.Add(-30 * time.Second) }
	tests := []struct {
		name      string
		fault     ghfake.Fault
		policy    ghapi.Policy
		wantOK    bool
		wantHits  int
		wantWait  time.Duration
		checkErr  func(error) bool
		checkName string
	}{
		{name: "5xx twice then ok", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.ServerError, Times: 2},
			wantOK: true, wantHits: 3, wantWait: 500*time.Millisecond + time.Second},
		{name: "429 honours Retry-After", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.TooManyRequests, RetryAfter: 7},
			wantOK: true, wantHits: 2, wantWait: 7 * time.Second},
		{name: "429 without Retry-After backs off", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.TooManyRequests, NoRetryAfter: true},
			wantOK: true, wantHits: 2, wantWait: 500 * time.Millisecond},
		{name: "secondary rate limit honours Retry-After", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.SecondaryRateLimit, RetryAfter: 3},
			wantOK: true, wantHits: 2, wantWait: 3 * time.Second},
		{name: "secondary rate limit without Retry-After waits a minute", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.SecondaryRateLimit, NoRetryAfter: true},
			wantOK: true, wantHits: 2, wantWait: time.Minute},
		{name: "primary rate limit waits for reset", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.PrimaryRateLimit, Reset: future},
			policy: ghapi.Policy{Now: now}, wantOK: true, wantHits: 2, wantWait: 31 * time.Second},
		{name: "primary reset beyond the longest wait gives RateLimitError", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.PrimaryRateLimit, Reset: future.Add(time.Hour)},
			policy: ghapi.Policy{Now: now}, wantHits: 1,
			checkErr: func(err error) bool {
				var rl *github.RateLimitError
				return errors.As(err, &rl) && ghapi.IsRateLimit(err)
			}, checkName: "RateLimitError"},
		{name: "secondary beyond the longest wait gives AbuseRateLimitError", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.SecondaryRateLimit, RetryAfter: 600},
			wantHits: 1,
			checkErr: func(err error) bool {
				var ab *github.AbuseRateLimitError
				return errors.As(err, &ab) && ghapi.IsRateLimit(err)
			}, checkName: "AbuseRateLimitError"},
		{name: "persistent 5xx exhausts retries", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.ServerError, Times: -1},
			wantHits: 5, wantWait: 500*time.Millisecond + time.Second + 2*time.Second + 4*time.Second,
			checkErr: func(err error) bool { return ghapi.StatusCode(err) == 502 && ghapi.IsTransient(err) }, checkName: "502"},
		{name: "3 minutes bound total waiting", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.ServerError, Times: -1},
			policy: ghapi.Policy{MaxRetries: 50}, wantHits: 26, wantWait: 7500*time.Millisecond + 21*8*time.Second,
			checkErr: func(err error) bool { return ghapi.StatusCode(err) == 502 }, checkName: "502"},
		{name: "slow answer times out and is retried", fault: ghfake.Fault{Route: ghfake.RoutePull, Kind: ghfake.Slow, Delay: 5 * time.Second},
			policy: ghapi.Policy{AttemptTimeout: 100 * time.Millisecond}, wantOK: true, wantHits: 2, wantWait: 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := fakePR()
			repo.Faults = []ghfake.Fault{tt.fault}
			srv := ghfake.New(t, repo)
			rec := &recorder{}
			p := tt.policy
			p.Sleep = rec.Sleep
			var logs []string
			p.Logf = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
			c, tr := srv.NewClient(p)
			pr, _, err := c.PullRequests.Get(context.Background(), "o", "r", 1)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				if pr.GetHead().GetSHA() != ghfake.SHA("h") {
					t.Errorf("head sha = %q", pr.GetHead().GetSHA())
				}
			} else if err == nil || !tt.checkErr(err) {
				t.Fatalf("err = %v (%T), want %s", err, err, tt.checkName)
			}
			if got := srv.Count(ghfake.RoutePull); got != tt.wantHits {
				t.Errorf("server hits = %d, want %d", got, tt.wantHits)
			}
			if got := tr.Requests(); got != int64(tt.wantHits) {
				t.Errorf("transport requests = %d, want %d", got, tt.wantHits)
			}
			if got := rec.total(); got != tt.wantWait {
				t.Errorf("waited %v, want %v (%v)", got, tt.wantWait, rec.waits)
			}
			for _, l := range logs {
				if strings.Contains(l, ghfake.Token) {
					t.Errorf("log line leaks the token: %q", l)
				}
			}
			if auth := srv.AuthHeaders(); len(auth) != 1 || auth[0] != "Bearer "+ghfake.Token {
				t.Errorf("Authorization headers = %q", auth)
			}
		})
	}
}

func TestPostNotRetriedOn5xx(t *testing.T) {
	srv := ghfake.New(t, ghfake.Repo{Faults: []ghfake.Fault{{Route: "POST /repos/{owner}/{repo}/pulls", Kind: ghfake.ServerError, Times: -1}}})
	srv.HandleFunc("POST /repos/{owner}/{repo}/pulls", func(w http.ResponseWriter, r *http.Request) {
		t.Error("handler reached despite the fault")
	})
	rec := &recorder{}
	c, _ := srv.NewClient(ghapi.Policy{Sleep: rec.Sleep})
	_, _, err := c.PullRequests.Create(context.Background(), "o", "r", &github.NewPullRequest{Title: github.String("x")})
	if ghapi.StatusCode(err) != 502 {
		t.Fatalf("err = %v, want 502", err)
	}
	if n := srv.Count("POST /repos/{owner}/{repo}/pulls"); n != 1 {
		t.Errorf("POST sent %d times, want 1", n)
	}
}

func TestPostRetriedOn429WithBody(t *testing.T) {
	var bodies []string
	srv := ghfake.New(t, ghfake.Repo{Faults: []ghfake.Fault{{Route: "POST /repos/{owner}/{repo}/pulls", Kind: ghfake.TooManyRequests}}})
	srv.HandleFunc("POST /repos/{owner}/{repo}/pulls", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"number":5}`)
	})
	c, _ := srv.NewClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	pr, _, err := c.PullRequests.Create(context.Background(), "o", "r", &github.NewPullRequest{Title: github.String("x")})
	if err != nil || pr.GetNumber() != 5 {
		t.Fatalf("Create = %v, %v", pr, err)
	}
	if len(bodies) != 1 || !strings.Contains(bodies[0], `"title":"x"`) {
		t.Errorf("replayed body = %q", bodies)
	}
}

func TestSleepHonoursContext(t *testing.T) {
	srv := ghfake.New(t, ghfake.Repo{Pulls: fakePR().Pulls, Faults: []ghfake.Fault{{Route: ghfake.RoutePull, Kind: ghfake.TooManyRequests, RetryAfter: 30}}})
	c, _ := srv.NewClient(ghapi.Policy{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := c.PullRequests.Get(ctx, "o", "r", 1)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the transport slept through a cancelled context")
	}
}

func TestDownloadClientNeverSendsToken(t *testing.T) {
	var got []string
	blob := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	defer blob.Close()
	hc := ghapi.NewDownloadClient(ghapi.Policy{Sleep: ghfake.NoSleep})
	req, _ := http.NewRequest("GET", blob.URL+"/x?sig=1", nil)
	req.Header.Set("Authorization", "Bearer leaked")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != 1 || got[0] != "" {
		t.Errorf("Authorization seen by blob storage: %q", got)
	}
}

func TestIsTransient(t *testing.T) {
	if ghapi.IsTransient(nil) || ghapi.IsTransient(context.Canceled) {
		t.Error("nil/cancel reported transient")
	}
	if !ghapi.IsTransient(context.DeadlineExceeded) || !ghapi.IsTransient(&github.AcceptedError{}) {
		t.Error("deadline/202 not transient")
	}
	er := &github.ErrorResponse{Response: &http.Response{StatusCode: 404}}
	if ghapi.IsTransient(er) || ghapi.StatusCode(er) != 404 {
		t.Error("404 misclassified")
	}
}
