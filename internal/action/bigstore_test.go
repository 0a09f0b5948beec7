package action

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// padStore returns store grown past the contents API's 1 MB limit with JSON whitespace, so
// it still parses as the same store.
func padStore(store []byte, size int) []byte {
	i := bytes.IndexByte(store, '{') + 1
	pad := bytes.Repeat([]byte(" "), size-len(store))
	return append(append(append([]byte{}, store[:i]...), pad...), store[i:]...)
}

// A store over 1 MB has no content in the contents API: it is read through the Git blobs API,
// every status checked. Before, it went through DownloadContents (a directory listing and the
// download_url host, with the token, status unchecked): a 503 page was parsed as the store.
func TestE2ELargeStoreReadThroughBlobs(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	big := padStore(store, 1<<20+4096)
	tests := []struct {
		name     string
		failures int  // 503s the blob route answers before it serves
		object   bool // the blob route ignores the raw media type and answers with the blob object
		wantCode int
		want     string // in the output
	}{
		{name: "read", wantCode: 0},
		{name: "a blob object instead of the raw bytes fails, never read as the store", object: true, wantCode: 1, want: "the contents API said"},
		{name: "one 503 is retried", failures: 1, wantCode: 0},
		{name: "persistent 503 fails with the status, never as a malformed store", failures: 100, wantCode: 1, want: "503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, big)
			pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
			var mu sync.Mutex
			blobs, n := 0, 0
			h.world.SetBefore(func(r *http.Request) (int, string) {
				mu.Lock()
				defer mu.Unlock()
				if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/git/blobs/") {
					blobs++
					if got := r.Header.Get("Accept"); got != rawBlobMediaType {
						t.Errorf("GET %s with Accept %q, want the raw media type %q", r.URL.Path, got, rawBlobMediaType)
					}
					if n < tt.failures {
						n++
						return http.StatusServiceUnavailable, "<html><body>503 Service Unavailable</body></html>"
					}
					if tt.object {
						doc, _ := h.git.File("main", storePath)
						return http.StatusOK, blobAnswer(doc)
					}
				}
				return 0, ""
			})
			res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
			mustCode(t, res, tt.wantCode)
			if blobs == 0 {
				t.Fatalf("the store was not read through the blobs API\n%s", res.stdout)
			}
			if tt.wantCode == 0 {
				if res.outputs["result"] != "settled" {
					t.Fatalf("outputs %v\n%s", res.outputs, res.stdout)
				}
				return
			}
			if !strings.Contains(res.stdout, tt.want) || !strings.Contains(res.stdout, "blobs API") || strings.Contains(res.stdout, "malformed") {
				t.Fatalf("want an error naming %q and the blobs API:\n%s", tt.want, res.stdout)
			}
		})
	}
}

// GitHub warns about files over 50 MB and refuses files over 100 MB; a store under 50 MB is the
// supported size, and one over 40 MB nears it. The bot pull request says so above the first
// two, and the run refuses, writing nothing, above the last. The limits are scaled down here
// (FileLimits) so the test stays small.
func TestE2EStoreSizeLimits(t *testing.T) {
	t.Parallel()
	store, _ := seedStore(t)
	tests := []struct {
		name     string
		limits   FileLimits
		wantCode int
		want     string // in the bot pull request body, or in the output on failure
	}{
		{name: "under all", limits: FileLimits{Near: 1 << 20, Warn: 1 << 20, Max: 2 << 20}, wantCode: 0},
		{name: "nearing the supported size", limits: FileLimits{Near: 1024, Warn: 1 << 20, Max: 2 << 20}, wantCode: 0,
			want: storePath + " is "},
		{name: "over the supported size", limits: FileLimits{Near: 512, Warn: 1024, Max: 2 << 20}, wantCode: 0,
			want: "over the supported size \\(under 1024 bytes, about 30,000 lessons with history\\): GitHub warns"},
		{name: "over the limit", limits: FileLimits{Warn: 512, Max: 1024}, wantCode: 1, want: "over GitHub's 1024 bytes file limit: nothing was written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, store)
			h.fileLimits = tt.limits
			pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
			res := h.run("pull_request_target", mergedEvent(pr.Number), nil)
			mustCode(t, res, tt.wantCode)
			if tt.wantCode != 0 {
				if !strings.Contains(res.stdout, tt.want) || h.git.Ref(DefaultBranch) != "" {
					t.Fatalf("want %q and no bot branch:\n%s", tt.want, res.stdout)
				}
				return
			}
			prs := h.openBotPRs()
			if len(prs) != 1 {
				t.Fatalf("%d bot pull requests", len(prs))
			}
			if tt.want != "" && !strings.Contains(prs[0].Body, tt.want) {
				t.Fatalf("bot pull request body lacks %q:\n%s", tt.want, prs[0].Body)
			}
			if strings.HasPrefix(tt.name, "nearing") && !strings.Contains(prs[0].Body, "nearing the supported size \\(under 1.0 MB, about 30,000 lessons with history") {
				t.Fatalf("bot pull request body does not say the store nears the supported size:\n%s", prs[0].Body)
			}
			if tt.want == "" && strings.Contains(prs[0].Body, "supported size") {
				t.Fatalf("unexpected size warning:\n%s", prs[0].Body)
			}
			if !strings.Contains(res.summary, "GitHub API: ") || !strings.Contains(res.summary, "request(s) in this run") {
				t.Fatalf("the step summary does not report the requests used:\n%s", res.summary)
			}
		})
	}
}

// A store the commit uploads as a blob of its own (over 1 MB) is uploaded once, with the
// commit; a run whose rendering fails uploads nothing, and one whose upload fails writes no
// branch.
func TestE2EStoreBlob(t *testing.T) {
	t.Parallel()
	doc := bigStoreDoc(1200)
	tests := []struct {
		name     string
		inputs   map[string]string
		failBlob bool // POST /git/blobs answers 503 every time
		wantCode int
		want     string // in the output on failure
		uploads  bool   // a failed run tried an upload
	}{
		{name: "committed"},
		{name: "rendering fails", inputs: map[string]string{"render-budget": "10"}, wantCode: 1, want: "rendering "},
		{name: "upload fails", failBlob: true, wantCode: 1, want: "creating blob for " + storePath, uploads: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, doc)
			s, err := lessons.Parse(storePath, doc)
			if err != nil {
				t.Fatal(err)
			}
			pr := h.merge("Fix it", h.ticketFor(s.Living()[7].Question), measured(1))
			var mu sync.Mutex
			posted := 0
			h.world.SetBefore(func(r *http.Request) (int, string) {
				if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git/blobs") {
					return 0, ""
				}
				mu.Lock()
				defer mu.Unlock()
				posted++
				if tt.failBlob {
					return http.StatusServiceUnavailable, `{"message":"Service Unavailable"}`
				}
				return 0, ""
			})
			res := h.run("pull_request_target", mergedEvent(pr.Number), tt.inputs)
			mustCode(t, res, tt.wantCode)
			if tt.wantCode != 0 {
				if !strings.Contains(res.stdout, tt.want) || h.git.Ref(DefaultBranch) != "" || (posted > 0) != tt.uploads {
					t.Fatalf("want %q, uploads %v (%d made) and no bot branch:\n%s", tt.want, tt.uploads, posted, res.stdout)
				}
				return
			}
			if posted != 1 {
				t.Fatalf("%d blob uploads, want 1 (the store)", posted)
			}
			got, ok := h.git.File(DefaultBranch, storePath)
			if !ok || len(got) <= 1<<20 {
				t.Fatalf("bot branch store: found %v, %d bytes", ok, len(got))
			}
			if _, err := lessons.Parse(storePath, got); err != nil {
				t.Fatalf("bot branch store does not load: %v", err)
			}
			if md, ok := h.git.File(DefaultBranch, DefaultRender); !ok || !bytes.Contains(md, []byte("rendered by darwin-memo")) {
				t.Fatalf("bot branch rendering: found %v\n%s", ok, md)
			}
		})
	}
}
