package ghapi

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// Reads whose answer cannot change: Git objects, a commit with its changed files
// (GET /commits/{sha}) and files at a commit, named by their sha.
// Within one transport's life (one run of the action) each is sent once; repeats are answered
// from memory and do not count as requests. A merged pull request (GET /pulls/{n}) and its
// commit list are remembered too: what the run reads of them (head, base, merge commit,
// commits) does not change once merged, and the run reads them for the ticket check, the
// measurement and the encoder; its changed files, for the citations and the encoder.
var (
	memoPath = regexp.MustCompile(`/repos/[^/]+/[^/]+/((git/)?commits/[0-9a-f]{40}|git/(trees|blobs)/[0-9a-f]{40}|contents/.+|pulls/[0-9]+(/commits|/files)?)$`)
	shaRef   = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

type memoEntry struct {
	status int
	header http.Header
	body   []byte
}

func memoKey(req *http.Request) (string, bool) {
	if req.Method != http.MethodGet || !memoPath.MatchString(req.URL.Path) {
		return "", false
	}
	if strings.Contains(req.URL.Path, "/contents/") && !shaRef.MatchString(req.URL.Query().Get("ref")) {
		return "", false // a branch name moves
	}
	return req.URL.String() + "\x00" + req.Header.Get("Accept"), true
}

// memoGet answers req from memory when it was read before.
func (t *Transport) memoGet(key string, req *http.Request) *http.Response {
	t.mu.Lock()
	e, ok := t.memo[key]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	return &http.Response{Status: http.StatusText(e.status), StatusCode: e.status, Header: e.header.Clone(),
		Body: io.NopCloser(bytes.NewReader(e.body)), ContentLength: int64(len(e.body)), Request: req,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

// memoLimit is the largest answer kept: a larger one (a big store's blob) would stay in memory
// for the whole run, and its reader, which knows it, keeps it once itself.
const memoLimit = 1 << 20

// memoPut keeps a 200 answer and returns a response that reads it again. An answer over
// memoLimit is passed on as it streams, not kept.
func (t *Transport) memoPut(key string, resp *http.Response) (*http.Response, error) {
	if resp.ContentLength > memoLimit {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, memoLimit+1))
	if err == nil && len(body) > memoLimit {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return resp, nil
	}
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.memo == nil {
		t.memo = map[string]memoEntry{}
	}
	t.memo[key] = memoEntry{status: resp.StatusCode, header: resp.Header.Clone(), body: body}
	t.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
