// Package ghapi builds the go-github client every part of the action uses:
// pointed at GITHUB_API_URL (GitHub Enterprise Server works through
// WithEnterpriseURLs), authenticated with a bearer token that only the API
// host (scheme, host and port) ever receives, and carried by a Transport that retries 5xx and rate-limit answers with capped
// backoff inside a bounded time budget, counts requests, and never logs the
// token.
package ghapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"golang.org/x/oauth2"
)

// DefaultAPIURL is the API root of github.com.
const DefaultAPIURL = "https://api.github.com"

// Options configure NewClient. The zero value talks to api.github.com
// without a token, with the default retry policy.
type Options struct {
	// APIURL is GITHUB_API_URL. Empty means DefaultAPIURL. Any other value
	// is passed to WithEnterpriseURLs (GHES, or an httptest fake).
	APIURL string
	// Token authenticates every request to the API's origin (Authorization:
	// Bearer). It is never logged, never sent by the download client and
	// never sent to another origin, not even across a redirect.
	Token string
	// UserAgent overrides go-github's default user agent.
	UserAgent string
	// Policy bounds retries; zero fields take its defaults.
	Policy Policy
}

// NewClient returns a go-github client for opts.APIURL and the Transport
// that carries it, so callers can read request counts.
func NewClient(opts Options) (*github.Client, *Transport, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	api := strings.TrimSpace(opts.APIURL)
	if api == "" {
		api = DefaultAPIURL
	}
	u, err := url.Parse(api)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, nil, fmt.Errorf("ghapi: GITHUB_API_URL %q is not an absolute URL (want e.g. https://ghes.example.com/api/v3)", api)
	}
	var inner http.RoundTripper = stripAuth{base}
	if opts.Token != "" {
		src := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: opts.Token, TokenType: "Bearer"})
		inner = bearer{source: src, origin: originOf(u), next: base}
	}
	tr := newTransport(inner, opts.Policy)
	c := github.NewClient(&http.Client{Transport: tr})
	if opts.UserAgent != "" {
		c.UserAgent = opts.UserAgent
	}
	if strings.TrimSuffix(api, "/") != DefaultAPIURL {
		c, err = c.WithEnterpriseURLs(api, api)
		if err != nil {
			return nil, nil, fmt.Errorf("ghapi: GITHUB_API_URL %q: %w", api, err)
		}
	}
	return c, tr, nil
}

// NewDownloadClient returns the plain HTTP client used for artifact
// redirect URLs (signed blob-storage links). It carries no credentials
// (any Authorization header is removed, also across redirects), follows at
// most 3 redirects, and retries like the API client (2 minutes per attempt
// unless policy says otherwise).
func NewDownloadClient(policy Policy) *http.Client {
	if policy.AttemptTimeout <= 0 {
		policy.AttemptTimeout = downloadTimeout
	}
	return &http.Client{
		Transport: newTransport(stripAuth{http.DefaultTransport.(*http.Transport).Clone()}, policy),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return fmt.Errorf("ghapi: artifact download redirected more than %d times", len(via))
			}
			req.Header.Del("Authorization")
			return nil
		},
	}
}

// stripAuth removes any Authorization header before a request leaves, a
// second guard (besides never adding one) that blob storage never sees the
// token.
type stripAuth struct{ next http.RoundTripper }

func (s stripAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		req = req.Clone(req.Context())
		req.Header.Del("Authorization")
	}
	return s.next.RoundTrip(req)
}

// bearer sends the token to the API's origin and to no other: every request passes through it,
// the first and each hop of a redirect, whether net/http follows the redirect or go-github does
// (DownloadArtifact sends the Location of a 301 straight to the transport). A request for
// another origin leaves without an Authorization header, even one its caller set. It takes the
// place of oauth2.Transport, which sets the header on every hop whatever its host.
type bearer struct {
	source oauth2.TokenSource
	origin string // originOf the API URL
	next   http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	if originOf(req.URL) != b.origin {
		return stripAuth{b.next}.RoundTrip(req)
	}
	tok, err := b.source.Token()
	if err != nil {
		return nil, fmt.Errorf("ghapi: token: %w", err)
	}
	req = req.Clone(req.Context())
	tok.SetAuthHeader(req)
	return b.next.RoundTrip(req)
}

// originOf is u's scheme, lower-case host name and port (the scheme's default port when u
// names none): two URLs share the token only when all three match.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// defaultTimeout is the per-attempt timeout when Policy.AttemptTimeout is 0;
// downloads of artifacts (up to tens of MB) get downloadTimeout.
const (
	defaultTimeout  = 30 * time.Second
	downloadTimeout = 2 * time.Minute
)
