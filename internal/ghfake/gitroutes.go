package ghfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ServeHTTP serves the routes of the repository and answers 404 with a hint for any other.
func (g *GitRepo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.Serve(w, r) {
		gitError(w, http.StatusNotFound, fmt.Sprintf("ghfake: GitRepo %s/%s has no route %s %s; add it to internal/ghfake/gitroutes.go", g.Owner, g.Name, r.Method, r.URL.Path))
	}
}

// Serve answers r if it is one of the repository's routes and reports whether it did. Paths may
// carry go-github's enterprise prefix /api/v3 or the test prefix /api-v3.
func (g *GitRepo) Serve(w http.ResponseWriter, r *http.Request) bool {
	p := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/api/v3"), "/api-v3")
	prefix := "/repos/" + g.Owner + "/" + g.Name
	if p != prefix && !strings.HasPrefix(p, prefix+"/") {
		return false
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(p, prefix), "/")
	route, h := g.route(r.Method, rest)
	if h == nil {
		return false
	}
	w, done := observed(w, r, p)
	defer done()
	g.mu.Lock()
	g.Requests[r.Method+" "+route]++
	faults, perms := g.Faults, g.Permissions
	g.mu.Unlock()
	if faults != nil {
		if status, body := faults(r); status != 0 {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(status)
			io.WriteString(w, body)
			return true
		}
	}
	if need := writePermission(r.Method, route); need != "" && perms != nil && !perms[need] {
		w.Header().Set("X-Accepted-GitHub-Permissions", need+"=write")
		gitError(w, http.StatusForbidden, "Resource not accessible by integration")
		return true
	}
	h(w, r)
	return true
}

// RequestCount returns the total number of requests served.
func (g *GitRepo) RequestCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.Requests {
		n += c
	}
	return n
}

func writePermission(method, route string) string {
	if method == http.MethodGet {
		return ""
	}
	switch {
	case strings.HasPrefix(route, "git/"):
		return "contents"
	case strings.HasPrefix(route, "pulls"):
		return "pull-requests"
	case strings.HasPrefix(route, "issues/"):
		return "issues"
	}
	return ""
}

type gitHandler func(w http.ResponseWriter, r *http.Request)

// route maps a method and a path below /repos/o/r to a route name and handler.
func (g *GitRepo) route(method, rest string) (string, gitHandler) {
	seg := strings.Split(rest, "/")
	switch {
	case rest == "" && method == http.MethodGet:
		return "repo", g.getRepo
	case strings.HasPrefix(rest, "git/ref/") && method == http.MethodGet:
		return "git/ref", func(w http.ResponseWriter, r *http.Request) { g.getRef(w, strings.TrimPrefix(rest, "git/ref/")) }
	case rest == "git/refs" && method == http.MethodPost:
		return "git/refs", g.createRef
	case strings.HasPrefix(rest, "git/refs/") && method == http.MethodPatch:
		return "git/refs", func(w http.ResponseWriter, r *http.Request) { g.updateRef(w, r, strings.TrimPrefix(rest, "git/refs/")) }
	case strings.HasPrefix(rest, "git/refs/") && method == http.MethodDelete:
		return "git/refs", func(w http.ResponseWriter, r *http.Request) { g.deleteRef(w, strings.TrimPrefix(rest, "git/refs/")) }
	case len(seg) == 3 && seg[0] == "git" && seg[1] == "commits" && method == http.MethodGet:
		return "git/commits", func(w http.ResponseWriter, r *http.Request) { g.getCommit(w, seg[2]) }
	case rest == "git/commits" && method == http.MethodPost:
		return "git/commits", g.createCommit
	case rest == "git/trees" && method == http.MethodPost:
		return "git/trees", g.createTree
	case len(seg) == 3 && seg[0] == "git" && seg[1] == "trees" && method == http.MethodGet:
		return "git/trees", func(w http.ResponseWriter, r *http.Request) { g.getTree(w, seg[2]) }
	case rest == "git/blobs" && method == http.MethodPost:
		return "git/blobs", g.createBlob
	case len(seg) == 3 && seg[0] == "git" && seg[1] == "blobs" && method == http.MethodGet:
		return "git/blobs/sha", func(w http.ResponseWriter, r *http.Request) { g.getBlob(w, r, seg[2]) }
	case strings.HasPrefix(rest, "contents/") && method == http.MethodGet:
		return "contents", func(w http.ResponseWriter, r *http.Request) {
			g.getContents(w, r, strings.TrimPrefix(rest, "contents/"))
		}
	case rest == "pulls" && method == http.MethodGet:
		return "pulls", g.listPulls
	case rest == "pulls" && method == http.MethodPost:
		return "pulls", g.createPull
	case len(seg) == 2 && seg[0] == "pulls" && (method == http.MethodGet || method == http.MethodPatch):
		n, err := strconv.Atoi(seg[1])
		if err != nil {
			return "", nil
		}
		if method == http.MethodGet {
			return "pulls/n", func(w http.ResponseWriter, r *http.Request) { g.getPull(w, n) }
		}
		return "pulls/n", func(w http.ResponseWriter, r *http.Request) { g.editPull(w, r, n) }
	case len(seg) == 3 && seg[0] == "pulls" && method == http.MethodGet && (seg[2] == "files" || seg[2] == "commits" || seg[2] == "comments"):
		n, err := strconv.Atoi(seg[1])
		if err != nil {
			return "", nil
		}
		return "pulls/n/" + seg[2], func(w http.ResponseWriter, r *http.Request) { g.pullList(w, r, n, seg[2]) }
	case len(seg) == 3 && seg[0] == "issues" && seg[2] == "labels" && method == http.MethodPost:
		n, err := strconv.Atoi(seg[1])
		if err != nil {
			return "", nil
		}
		return "issues/n/labels", func(w http.ResponseWriter, r *http.Request) { g.addLabels(w, r, n) }
	case len(seg) == 2 && seg[0] == "commits" && method == http.MethodGet:
		return "commits/ref", func(w http.ResponseWriter, r *http.Request) { g.getRepoCommit(w, seg[1]) }
	case len(seg) == 3 && seg[0] == "commits" && seg[2] == "pulls" && method == http.MethodGet:
		return "commits/sha/pulls", func(w http.ResponseWriter, r *http.Request) { g.pullsForCommit(w, seg[1]) }
	}
	return "", nil
}

func gitError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func gitJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func gitRaw(w http.ResponseWriter, status int, name string) {
	b, _ := gitPayloads.ReadFile("testdata/gitrepo/" + name)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

func (g *GitRepo) api(path string) string {
	return "https://api.github.com/repos/" + g.Owner + "/" + g.Name + "/" + path
}

func (g *GitRepo) getRepo(w http.ResponseWriter, r *http.Request) {
	gitJSON(w, 200, fullRepo(g.Owner, g.Name, g.DefaultBranch))
}

func (g *GitRepo) refPayload(ref, sha string) map[string]any {
	m := gitPayload("get-ref.git-ref.json")
	m["ref"] = "refs/" + ref
	m["url"] = g.api("git/refs/" + ref)
	obj := m["object"].(map[string]any)
	obj["sha"] = sha
	obj["url"] = g.api("git/commits/" + sha)
	return m
}

func (g *GitRepo) getRef(w http.ResponseWriter, ref string) {
	g.mu.Lock()
	sha, ok := g.refs[ref]
	g.mu.Unlock()
	if !ok {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	gitJSON(w, 200, g.refPayload(ref, sha))
}

func (g *GitRepo) createRef(w http.ResponseWriter, r *http.Request) {
	var in struct{ Ref, SHA string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !strings.HasPrefix(in.Ref, "refs/") {
		gitError(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/'")
		return
	}
	ref := strings.TrimPrefix(in.Ref, "refs/")
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.refs[ref]; ok {
		gitRaw(w, http.StatusUnprocessableEntity, "422-reference-already-exists.dependabot.json")
		return
	}
	if g.commits[in.SHA] == nil {
		gitError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	g.refs[ref] = in.SHA
	gitJSON(w, http.StatusCreated, g.refPayload(ref, in.SHA))
}

func (g *GitRepo) updateRef(w http.ResponseWriter, r *http.Request, ref string) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		gitError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	old, ok := g.refs[ref]
	switch {
	case !ok:
		gitError(w, http.StatusUnprocessableEntity, "Reference does not exist")
	case g.commits[in.SHA] == nil:
		gitError(w, http.StatusUnprocessableEntity, "Object does not exist")
	case !in.Force && !g.ancestorsLocked(in.SHA)[old]:
		gitError(w, http.StatusUnprocessableEntity, "Update is not a fast forward")
	default:
		g.refs[ref] = in.SHA
		g.syncPullHeadsLocked(ref)
		gitJSON(w, 200, g.refPayload(ref, in.SHA))
	}
}

// syncPullHeadsLocked moves the head sha of open pull requests whose head branch moved.
func (g *GitRepo) syncPullHeadsLocked(ref string) {
	for _, p := range g.pulls {
		if p.State == "open" && p.HeadOwner == "" && "heads/"+p.Head == ref {
			p.HeadSHA = g.refs[ref]
			p.UpdatedAt = g.tickLocked()
		}
	}
}

func (g *GitRepo) deleteRef(w http.ResponseWriter, ref string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.refs[ref]; !ok {
		gitError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	delete(g.refs, ref)
	for _, p := range g.pulls {
		if p.State == "open" && p.HeadOwner == "" && "heads/"+p.Head == ref {
			p.State, p.ClosedAt = "closed", g.tickLocked()
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (g *GitRepo) commitPayload(c *gitCommit) map[string]any {
	m := gitPayload("get-commit.git-commit-2.json")
	m["sha"] = c.SHA
	m["node_id"] = "C_" + c.SHA[:12]
	m["url"] = g.api("git/commits/" + c.SHA)
	m["html_url"] = "https://github.com/" + g.Owner + "/" + g.Name + "/commit/" + c.SHA
	m["message"] = c.Message
	who := map[string]any{"date": c.Date.Format(time.RFC3339), "name": c.Author, "email": c.Author + "@users.noreply.github.com"}
	if c.Author == "" {
		who = map[string]any{"date": c.Date.Format(time.RFC3339), "name": "github-actions[bot]", "email": "41898282+github-actions[bot]@users.noreply.github.com"}
	}
	m["author"], m["committer"] = who, who
	m["tree"] = map[string]any{"sha": c.Tree, "url": g.api("git/trees/" + c.Tree)}
	parents := []any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": g.api("git/commits/" + p), "html_url": "https://github.com/" + g.Owner + "/" + g.Name + "/commit/" + p})
	}
	m["parents"] = parents
	if c.Author == "" {
		m["verification"] = map[string]any{"verified": true, "reason": "valid", "signature": "-----BEGIN PGP SIGNATURE-----\nfake\n-----END PGP SIGNATURE-----", "payload": "tree " + c.Tree, "verified_at": c.Date.Format(time.RFC3339)}
	}
	return m
}

func (g *GitRepo) getCommit(w http.ResponseWriter, sha string) {
	g.mu.Lock()
	c := g.commits[sha]
	g.mu.Unlock()
	if c == nil {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	gitJSON(w, 200, g.commitPayload(c))
}

func (g *GitRepo) createCommit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
		Author  *struct {
			Name string `json:"name"`
		} `json:"author"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		gitError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.trees[in.Tree]; !ok {
		gitError(w, http.StatusUnprocessableEntity, "Tree SHA does not exist")
		return
	}
	for _, p := range in.Parents {
		if g.commits[p] == nil {
			gitError(w, http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	author := ""
	if in.Author != nil {
		author = in.Author.Name
	}
	sha := g.commitLocked(in.Tree, in.Parents, in.Message, author)
	gitJSON(w, http.StatusCreated, g.commitPayload(g.commits[sha]))
}

func (g *GitRepo) treePayload(sha string, entries map[string]string) map[string]any {
	m := gitPayload("create_tree.json")
	m["sha"] = sha
	m["url"] = g.api("git/trees/" + sha)
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	list := []any{}
	for _, p := range paths {
		list = append(list, map[string]any{"path": p, "mode": "100644", "type": "blob", "size": len(g.blobs[entries[p]]), "sha": entries[p], "url": g.api("git/blobs/" + entries[p])})
	}
	m["tree"] = list
	m["truncated"] = false
	return m
}

func (g *GitRepo) createTree(w http.ResponseWriter, r *http.Request) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string  `json:"path"`
			Mode    string  `json:"mode"`
			Type    string  `json:"type"`
			SHA     *string `json:"sha"`
			Content *string `json:"content"`
		} `json:"tree"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		gitError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.trees[in.BaseTree]; in.BaseTree != "" && !ok {
		gitError(w, http.StatusUnprocessableEntity, "base_tree is not a valid tree oid")
		return
	}
	entries := map[string]string{}
	for p, s := range g.trees[in.BaseTree] {
		entries[p] = s
	}
	for _, e := range in.Tree {
		if e.Path == "" || strings.HasPrefix(e.Path, "/") || e.Mode != "100644" || e.Type != "blob" {
			gitError(w, http.StatusUnprocessableEntity, "Invalid tree info")
			return
		}
		switch {
		case e.Content != nil:
			entries[e.Path] = g.blobLocked([]byte(*e.Content))
		case e.SHA == nil:
			delete(entries, e.Path)
		default:
			if _, ok := g.blobs[*e.SHA]; !ok {
				gitError(w, http.StatusUnprocessableEntity, "Invalid tree info: sha "+*e.SHA+" is not a blob")
				return
			}
			entries[e.Path] = *e.SHA
		}
	}
	sha := g.treeLocked(entries)
	gitJSON(w, http.StatusCreated, g.treePayload(sha, entries))
}

func (g *GitRepo) getTree(w http.ResponseWriter, sha string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	entries, ok := g.trees[sha]
	if !ok {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	gitJSON(w, 200, g.treePayload(sha, entries))
}

func (g *GitRepo) createBlob(w http.ResponseWriter, r *http.Request) {
	// A large store's blob is most of the body: it is read into one buffer of the announced
	// length, not grown by doubling.
	var body []byte
	var err error
	if r.ContentLength > 0 && r.ContentLength <= 256<<20 {
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(r.Body)
	}
	if err != nil {
		gitError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	var b []byte
	// The shape go-github sends, base64 content (no escapes), is cut out of the body as it
	// is and decoded from its bytes: encoding/json is slow on huge strings.
	const head, tail = `{"content":"`, `","encoding":"base64"}`
	if t := bytes.TrimRight(body, "\n"); bytes.HasPrefix(t, []byte(head)) && bytes.HasSuffix(t, []byte(tail)) &&
		bytes.IndexByte(t[len(head):len(t)-len(tail)], '"') < 0 && bytes.IndexByte(t[len(head):len(t)-len(tail)], '\\') < 0 {
		// Decoded in place, over the body it is read from: no second buffer (line breaks,
		// which the decoder skips, would shift its chunks: such content is decoded apart).
		lo, hi := len(head), len(t)-len(tail)
		var n int
		var err error
		if enc := t[lo:hi]; bytes.IndexByte(enc, '\n') >= 0 || bytes.IndexByte(enc, '\r') >= 0 {
			b = make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
			n, err = base64.StdEncoding.Decode(b, enc)
			copy(body, b[:n])
		} else {
			n, err = decodeBase64InPlace(body, lo, hi)
		}
		if err != nil {
			gitError(w, http.StatusUnprocessableEntity, "content is not valid Base64")
			return
		}
		b = body[:n:n]
	} else {
		var in struct{ Content, Encoding string }
		if err := json.Unmarshal(body, &in); err != nil {
			gitError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		b = []byte(in.Content)
		if in.Encoding == "base64" {
			d, err := base64.StdEncoding.DecodeString(in.Content)
			if err != nil {
				gitError(w, http.StatusUnprocessableEntity, "content is not valid Base64")
				return
			}
			b = d
		}
	}
	body = nil
	g.mu.Lock()
	sha := g.ownBlobLocked(b)
	g.mu.Unlock()
	gitJSON(w, http.StatusCreated, map[string]any{"sha": sha, "url": g.api("git/blobs/" + sha)})
}

// decodeBase64InPlace decodes the standard base64 text buf[lo:hi] into buf from its start
// and returns the decoded length, as base64.StdEncoding.Decode would. It decodes a chunk at a
// time into a small buffer and copies it back: the output of a chunk (3/4 of its length,
// starting at 3/4 of its offset) only overwrites text already decoded.
func decodeBase64InPlace(buf []byte, lo, hi int) (int, error) {
	const chunk = 4 << 10 // a multiple of 4: whole quanta; padding only in the last
	var tmp [chunk / 4 * 3]byte
	n := 0
	for i := lo; i < hi; i += chunk {
		m, err := base64.StdEncoding.Decode(tmp[:], buf[i:min(i+chunk, hi)])
		if err != nil {
			return 0, err
		}
		n += copy(buf[n:], tmp[:m])
		if m < len(tmp) && i+chunk < hi { // padding before the end
			return 0, base64.CorruptInputError(i - lo + m/3*4)
		}
	}
	return n, nil
}

// getBlob serves GET /git/blobs/{sha}: the raw bytes for the raw media type
// (application/vnd.github.raw, or go-github's application/vnd.github.v3.raw), else the blob
// object with base64 content. GitHub serves blobs up to 100 MB this way.
func (g *GitRepo) getBlob(w http.ResponseWriter, r *http.Request, sha string) {
	g.mu.Lock()
	b, ok := g.blobs[sha]
	g.mu.Unlock()
	if !ok {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	if len(b) > blobLimit {
		gitError(w, http.StatusForbidden, "This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API.")
		return
	}
	if strings.Contains(r.Header.Get("Accept"), ".raw") {
		w.Header().Set("Content-Type", "application/vnd.github.raw")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b)
		return
	}
	// Written by hand (base64 needs no JSON escaping), with GitHub's line break every 60
	// characters (each line, the last one too, followed by an escaped \n), and encoded as it is
	// written: encoding/json is slow on a large store's content, and a copy of it would be
	// the fake's cost, not the action's.
	head := fmt.Appendf(nil, `{"sha":%q,"node_id":%q,"size":%d,"url":%q,"content":"`, sha, "B_"+sha[:12], len(b), g.api("git/blobs/"+sha))
	const tail = `","encoding":"base64"}`
	lines := max(1, (len(b)+44)/45) // 45 bytes make a line of 60 characters
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(head)+base64.StdEncoding.EncodedLen(len(b))+2*lines+len(tail)))
	w.WriteHeader(http.StatusOK)
	out := writeBlobContent(w, append(make([]byte, 0, 64<<10), head...), b)
	w.Write(append(out, tail...))
}

// writeBlobContent writes b's base64 as GitHub's blob answer spells it, a line break (escaped)
// after every 60 characters and after the last line, through out (scratch holding what is not
// written yet), and returns out with what is left to write.
func writeBlobContent(w io.Writer, out, b []byte) []byte {
	// A block of 256 lines is encoded in one call, then cut into lines.
	const block = 45 * 256
	enc := make([]byte, base64.StdEncoding.EncodedLen(block))
	for rest := b; ; {
		k := min(block, len(rest))
		e := enc[:base64.StdEncoding.EncodedLen(k)]
		base64.StdEncoding.Encode(e, rest[:k])
		rest = rest[k:]
		if len(e) == 0 { // an empty blob: one empty line
			out = append(out, `\n`...)
		}
		for len(e) > 0 {
			n := min(60, len(e))
			out = append(out, e[:n]...)
			out = append(out, `\n`...)
			e = e[n:]
		}
		if len(rest) == 0 {
			break
		}
		if len(out) > 40<<10 {
			w.Write(out)
			out = out[:0]
		}
	}
	return out
}

func (g *GitRepo) getContents(w http.ResponseWriter, r *http.Request, path string) {
	ref := r.URL.Query().Get("ref")
	g.mu.Lock()
	sha := g.resolveLocked(ref)
	c := g.commits[sha]
	var blob string
	var ok bool
	if c != nil {
		blob, ok = g.trees[c.Tree][path]
	}
	content := g.blobs[blob]
	g.mu.Unlock()
	if c == nil {
		gitError(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	if !ok {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	m := gitPayload("get-repo-content.content-file-response-if-content-is-a-file.json")
	name := path[strings.LastIndex(path, "/")+1:]
	m["name"], m["path"], m["sha"], m["size"] = name, path, blob, len(content)
	m["url"] = g.api("contents/" + path + "?ref=" + ref)
	if len(content) > contentsInlineLimit {
		// Files over 1 MB come back with encoding "none" and no content (deviations.go).
		m["encoding"], m["content"] = "none", ""
	} else {
		// GitHub wraps base64 at 60 columns with \n, which go-github's GetContent tolerates.
		enc := base64.StdEncoding.EncodeToString(content)
		var b strings.Builder
		for len(enc) > 60 {
			b.WriteString(enc[:60] + "\n")
			enc = enc[60:]
		}
		b.WriteString(enc)
		m["encoding"], m["content"] = "base64", b.String()
	}
	gitJSON(w, 200, m)
}

func (g *GitRepo) pullPayload(p *GitPull) map[string]any {
	m := gitPayload("pulls-get.example.json")
	full := g.Owner + "/" + g.Name
	m["url"] = g.api(fmt.Sprintf("pulls/%d", p.Number))
	m["html_url"] = fmt.Sprintf("https://github.com/%s/pull/%d", full, p.Number)
	m["issue_url"] = g.api(fmt.Sprintf("issues/%d", p.Number))
	m["number"], m["id"], m["node_id"] = p.Number, 1000+p.Number, fmt.Sprintf("PR_%d", p.Number)
	m["state"], m["title"], m["body"], m["locked"], m["draft"] = p.State, p.Title, p.Body, false, false
	user := m["user"].(map[string]any)
	user["login"] = p.User
	labels := []any{}
	for i, l := range p.Labels {
		labels = append(labels, labelJSON(g.api, i, l))
	}
	m["labels"] = labels
	m["auto_merge"] = nil
	m["milestone"], m["assignee"], m["merged_by"] = nil, nil, nil
	m["assignees"], m["requested_reviewers"], m["requested_teams"] = []any{}, []any{}, []any{}
	ts := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.Format(time.RFC3339)
	}
	m["created_at"], m["updated_at"], m["closed_at"], m["merged_at"] = ts(p.CreatedAt), ts(p.UpdatedAt), ts(p.ClosedAt), ts(p.MergedAt)
	if p.MergeCommitSHA != "" {
		m["merge_commit_sha"] = p.MergeCommitSHA
	} else {
		m["merge_commit_sha"] = nil
	}
	for key, side := range map[string][2]string{"head": {p.Head, p.HeadSHA}, "base": {p.Base, p.BaseSHA}} {
		owner := g.Owner
		if key == "head" && p.HeadOwner != "" {
			owner = p.HeadOwner // a fork's branch: the fork's owner, label and repository
		}
		s := m[key].(map[string]any)
		s["ref"], s["sha"], s["label"] = side[0], side[1], owner+":"+side[0]
		s["user"].(map[string]any)["login"] = owner
		if repo, ok := s["repo"].(map[string]any); ok {
			conformRepo(repo)
			repo["name"], repo["full_name"] = g.Name, owner+"/"+g.Name
			repo["owner"].(map[string]any)["login"] = owner
			repo["fork"] = owner != g.Owner
		}
	}
	m["author_association"], m["merged"], m["commits"] = p.AuthorAssociation, p.Merged, p.Commits
	m["changed_files"] = len(p.Files)
	return m
}

// reviewer is a simple-user as the real payloads carry it, with login.
func reviewer(login string) map[string]any {
	u := gitPayload("pulls-get.example.json")["user"].(map[string]any)
	u["login"] = login
	return u
}

// fullOnlyPullFields are the properties of GitHub's pull-request schema (GET /pulls/{n}) that
// its pull-request-simple schema (the items of GET /pulls and GET /commits/{sha}/pulls) does
// not have: a list item never says "merged" (only merged_at) nor how many commits it has.
var fullOnlyPullFields = []string{"merged", "mergeable", "rebaseable", "mergeable_state", "merged_by",
	"comments", "review_comments", "maintainer_can_modify", "commits", "additions", "deletions", "changed_files"}

// SimplePull turns a full pull request payload into a list item (pull-request-simple).
func SimplePull(m map[string]any) map[string]any {
	for _, k := range fullOnlyPullFields {
		delete(m, k)
	}
	return m
}

func (g *GitRepo) getPull(w http.ResponseWriter, n int) {
	g.mu.Lock()
	p := g.pullLocked(n)
	var m map[string]any
	if p != nil {
		m = g.pullPayload(p)
	}
	g.mu.Unlock()
	if p == nil {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	gitJSON(w, 200, m)
}

// listPulls implements state, head (owner:branch), base, sort (created, updated), direction,
// per_page and page, with a Link header like GitHub's.
func (g *GitRepo) listPulls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	sortBy := q.Get("sort")
	if sortBy == "" {
		sortBy = "created"
	}
	dir := q.Get("direction")
	if dir == "" {
		dir = "desc"
		if sortBy != "created" {
			dir = "desc"
		}
	}
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	if perPage > 100 {
		perPage = 100
	}
	page, _ := strconv.Atoi(q.Get("page"))
	if page <= 0 {
		page = 1
	}
	headFilter := q.Get("head")
	g.mu.Lock()
	var sel []*GitPull
	for _, p := range g.pulls {
		if state != "all" && p.State != state {
			continue
		}
		if headFilter != "" && headFilter != p.headLabel(g.Owner) {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		sel = append(sel, p)
	}
	key := func(p *GitPull) time.Time {
		if sortBy == "updated" {
			return p.UpdatedAt
		}
		return p.CreatedAt
	}
	sort.SliceStable(sel, func(i, j int) bool {
		ki, kj := key(sel[i]), key(sel[j])
		if ki.Equal(kj) {
			if dir == "asc" {
				return sel[i].Number < sel[j].Number
			}
			return sel[i].Number > sel[j].Number
		}
		if dir == "asc" {
			return ki.Before(kj)
		}
		return ki.After(kj)
	})
	total := len(sel)
	lo, hi := (page-1)*perPage, page*perPage
	if lo > total {
		lo = total
	}
	if hi > total {
		hi = total
	}
	out := []any{}
	for _, p := range sel[lo:hi] {
		out = append(out, SimplePull(g.pullPayload(p)))
	}
	g.mu.Unlock()
	if hi < total {
		u := *r.URL
		qq := u.Query()
		qq.Set("page", strconv.Itoa(page+1))
		u.RawQuery = qq.Encode()
		last := *r.URL
		ql := last.Query()
		ql.Set("page", strconv.Itoa((total+perPage-1)/perPage))
		last.RawQuery = ql.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next", <http://%s%s>; rel="last"`, r.Host, u.RequestURI(), r.Host, last.RequestURI()))
	}
	gitJSON(w, 200, out)
}

func (g *GitRepo) createPull(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title, Head, Base, Body string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		gitError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.DenyCreatePR {
		gitError(w, http.StatusForbidden, "GitHub Actions is not permitted to create or approve pull requests.")
		return
	}
	head := strings.TrimPrefix(in.Head, g.Owner+":")
	if _, ok := g.refs["heads/"+in.Base]; !ok {
		gitRaw(w, http.StatusUnprocessableEntity, "422-validation-failed.invalid-base.dependabot.json")
		return
	}
	headSHA, ok := g.refs["heads/"+head]
	if !ok {
		gitJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"resource": "PullRequest", "field": "head", "code": "invalid"}}})
		return
	}
	for _, p := range g.pulls {
		if p.State == "open" && p.Head == head && p.Base == in.Base {
			gitJSON(w, http.StatusUnprocessableEntity, map[string]any{
				"message": "Validation Failed",
				"errors": []any{map[string]any{"resource": "PullRequest", "code": "custom",
					"message": fmt.Sprintf("A pull request already exists for %s:%s.", g.Owner, head)}},
				"documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"})
			return
		}
	}
	baseSHA := g.refs["heads/"+in.Base]
	if g.ancestorsLocked(baseSHA)[headSHA] {
		gitJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"resource": "PullRequest", "code": "custom", "message": "No commits between " + in.Base + " and " + head}}})
		return
	}
	now := g.tickLocked()
	p := &GitPull{Number: len(g.pulls) + 1, Title: in.Title, Body: in.Body, State: "open", CreatedAt: now, UpdatedAt: now,
		Head: head, Base: in.Base, HeadSHA: headSHA, BaseSHA: baseSHA, User: "github-actions[bot]", AuthorAssociation: "NONE", Commits: 1}
	g.pulls = append(g.pulls, p)
	gitJSON(w, http.StatusCreated, g.pullPayload(p))
}

func (g *GitRepo) editPull(w http.ResponseWriter, r *http.Request, n int) {
	var in struct {
		Title, Body, State *string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		gitError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pullLocked(n)
	if p == nil {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	if in.Title != nil {
		p.Title = *in.Title
	}
	if in.Body != nil {
		p.Body = *in.Body
	}
	if in.State != nil && !p.Merged {
		if *in.State != "open" && *in.State != "closed" {
			gitError(w, http.StatusUnprocessableEntity, "Validation Failed")
			return
		}
		if p.State == "open" && *in.State == "closed" {
			p.ClosedAt = g.now
		}
		p.State = *in.State
	}
	p.UpdatedAt = g.tickLocked()
	gitJSON(w, 200, g.pullPayload(p))
}

func (g *GitRepo) addLabels(w http.ResponseWriter, r *http.Request, n int) {
	var labels []string
	if err := json.NewDecoder(r.Body).Decode(&labels); err != nil {
		// The REST API also accepts {"labels": [...]}.
		gitError(w, http.StatusUnprocessableEntity, "Invalid request: labels must be an array of strings")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pullLocked(n)
	if p == nil {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	for _, l := range labels {
		found := false
		for _, have := range p.Labels {
			found = found || have == l
		}
		if !found {
			p.Labels = append(p.Labels, l)
		}
	}
	out := []any{}
	for i, l := range p.Labels {
		out = append(out, labelJSON(g.api, i, l))
	}
	gitJSON(w, 200, out)
}

// getRepoCommit serves GET /repos/{owner}/{repo}/commits/{ref} (the "commit" schema): the commit
// with its stats and files, each file's change against the first parent (every file added for a
// root commit) with a patch that removes the old lines and adds the new ones.
func (g *GitRepo) getRepoCommit(w http.ResponseWriter, ref string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.commits[g.resolveLocked(ref)]
	if c == nil {
		gitError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return
	}
	var parentTree map[string]string
	if len(c.Parents) > 0 {
		parentTree = g.trees[g.commits[c.Parents[0]].Tree]
	}
	tree := g.trees[c.Tree]
	paths := map[string]bool{}
	for p := range parentTree {
		paths[p] = true
	}
	for p := range tree {
		paths[p] = true
	}
	names := make([]string, 0, len(paths))
	for p := range paths {
		if parentTree[p] != tree[p] {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	html := "https://github.com/" + g.Owner + "/" + g.Name
	files := []any{}
	adds, dels := 0, 0
	for _, p := range names {
		before, after := parentTree[p], tree[p]
		status, sha := "modified", after
		switch {
		case before == "":
			status = "added"
		case after == "":
			status, sha = "removed", before
		}
		old, cur := diffLines(g.blobs[before]), diffLines(g.blobs[after])
		var patch strings.Builder
		fmt.Fprintf(&patch, "@@ -%d,%d +%d,%d @@", min(1, len(old)), len(old), min(1, len(cur)), len(cur))
		for _, l := range old {
			patch.WriteString("\n-" + l)
		}
		for _, l := range cur {
			patch.WriteString("\n+" + l)
		}
		adds, dels = adds+len(cur), dels+len(old)
		files = append(files, map[string]any{"sha": sha, "filename": p, "status": status,
			"additions": len(cur), "deletions": len(old), "changes": len(cur) + len(old), "patch": patch.String(),
			"blob_url": html + "/blob/" + c.SHA + "/" + p, "raw_url": html + "/raw/" + c.SHA + "/" + p,
			"contents_url": g.api("contents/" + p + "?ref=" + c.SHA)})
	}
	author := c.Author
	if author == "" {
		author = "github-actions[bot]"
	}
	m := commitJSON(g.api, html, c.SHA, c.Message, author, c.Date, c.Tree, c.Parents)
	m["stats"] = map[string]any{"additions": adds, "deletions": dels, "total": adds + dels}
	m["files"] = files
	gitJSON(w, 200, m)
}

// diffLines splits a file's content into the lines a patch lists.
func diffLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// renamesLocked pairs the files a pull request removed with the files it added with the same
// content, old path to new, as git's rename detection does for a file moved unchanged (GitHub
// lists it once, status "renamed" with previous_filename). Each side pairs once, in path order.
func (g *GitRepo) renamesLocked(p *GitPull) map[string]string {
	head, base := g.commits[p.HeadSHA], g.commits[p.BaseSHA]
	if head == nil || base == nil {
		return nil
	}
	removed := map[string]string{} // blob: path
	var added []string
	for _, path := range p.Files {
		_, inHead := g.trees[head.Tree][path]
		b, inBase := g.trees[base.Tree][path]
		switch {
		case inBase && !inHead:
			if _, dup := removed[b]; !dup {
				removed[b] = path
			}
		case inHead && !inBase:
			added = append(added, path)
		}
	}
	out := map[string]string{}
	for _, path := range added {
		b := g.trees[head.Tree][path]
		if from, ok := removed[b]; ok {
			out[from] = path
			delete(removed, b)
		}
	}
	return out
}

// pullsForCommit lists the pull requests associated with a commit: those whose merge commit or
// head is that commit.
func (g *GitRepo) pullsForCommit(w http.ResponseWriter, sha string) {
	g.mu.Lock()
	out := []any{}
	// GitHub's description: "Lists the merged pull request that introduced the commit to the
	// repository. If the commit is not present in the default branch, will return merged and
	// open pull requests associated with the commit."
	onDefault := g.ancestorsLocked(g.refs["heads/"+g.DefaultBranch])[sha]
	for _, p := range g.pulls {
		mc := g.commits[p.MergeCommitSHA]
		introduced := p.MergeCommitSHA == sha || slices.Contains(p.Replayed, sha) ||
			mc != nil && len(mc.Parents) > 1 && slices.Contains(p.CommitSHAs, sha) // merged with a merge commit
		associated := p.HeadSHA == sha || slices.Contains(p.CommitSHAs, sha)
		if introduced || !onDefault && associated {
			out = append(out, SimplePull(g.pullPayload(p)))
		}
	}
	g.mu.Unlock()
	gitJSON(w, 200, out)
}

// pullList serves a merged pull request's files (with a unified-diff patch of the added
// content), commits and review comments (none in this model), one page.
func (g *GitRepo) pullList(w http.ResponseWriter, r *http.Request, n int, what string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pullLocked(n)
	if p == nil {
		gitError(w, http.StatusNotFound, "Not Found")
		return
	}
	out := []any{}
	switch what {
	case "files":
		head, base := g.commits[p.HeadSHA], g.commits[p.BaseSHA]
		renamedTo := g.renamesLocked(p)
		isTarget := map[string]bool{}
		for _, to := range renamedTo {
			isTarget[to] = true
		}
		for _, path := range p.Files {
			if to, ok := renamedTo[path]; ok {
				// One entry for the rename, under its new name, as git's rename detection
				// lists a file that moved unchanged (a pure rename has no patch).
				b := g.trees[head.Tree][to]
				out = append(out, map[string]any{"sha": b, "filename": to, "status": "renamed", "previous_filename": path,
					"additions": 0, "deletions": 0, "changes": 0,
					"blob_url":     "https://github.com/" + g.Owner + "/" + g.Name + "/blob/" + p.HeadSHA + "/" + to,
					"raw_url":      "https://github.com/" + g.Owner + "/" + g.Name + "/raw/" + p.HeadSHA + "/" + to,
					"contents_url": g.api("contents/" + to + "?ref=" + p.HeadSHA)})
				continue
			}
			if isTarget[path] {
				continue // listed as its rename
			}
			var after, before []byte
			status := "modified"
			if head != nil {
				if b, ok := g.trees[head.Tree][path]; ok {
					after = g.blobs[b]
				} else {
					status = "removed"
				}
			}
			if base != nil {
				if b, ok := g.trees[base.Tree][path]; ok {
					before = g.blobs[b]
				} else if status != "removed" {
					status = "added"
				}
			}
			lines := strings.Split(strings.TrimRight(string(after), "\n"), "\n")
			del := strings.Count(string(before), "\n")
			var patch strings.Builder
			fmt.Fprintf(&patch, "@@ -0,%d +1,%d @@", del, len(lines))
			for _, l := range lines {
				patch.WriteString("\n+" + l)
			}
			out = append(out, map[string]any{"sha": gitHash("blob", after), "filename": path, "status": status,
				"additions": len(lines), "deletions": del, "changes": len(lines) + del, "patch": patch.String(),
				"blob_url":     "https://github.com/" + g.Owner + "/" + g.Name + "/blob/" + p.HeadSHA + "/" + path,
				"raw_url":      "https://github.com/" + g.Owner + "/" + g.Name + "/raw/" + p.HeadSHA + "/" + path,
				"contents_url": g.api("contents/" + path + "?ref=" + p.HeadSHA)})
		}
	case "commits":
		shas := p.CommitSHAs
		if len(shas) == 0 {
			shas = []string{p.HeadSHA}
		}
		shas = shas[:min(len(shas), MaxPullCommits)]
		for _, sha := range shas {
			c := g.commits[sha]
			if c == nil {
				continue
			}
			author := c.Author
			if author == "" {
				author = "github-actions[bot]"
			}
			out = append(out, commitJSON(g.api, "https://github.com/"+g.Owner+"/"+g.Name, c.SHA, c.Message, author, c.Date, c.Tree, c.Parents))
		}
	case "comments":
		// pull-request-review-comment: made when the pull request opened, before its head
		// commit, which outdated it (an outdated comment has no position).
		created := p.CreatedAt.Add(-time.Minute).Format(time.RFC3339)
		for _, rc := range p.ReviewComments {
			url := g.api(fmt.Sprintf("pulls/comments/%d", rc.ID))
			html := fmt.Sprintf("https://github.com/%s/%s/pull/%d#discussion_r%d", g.Owner, g.Name, p.Number, rc.ID)
			prURL := g.api(fmt.Sprintf("pulls/%d", p.Number))
			out = append(out, map[string]any{"url": url, "id": rc.ID, "node_id": fmt.Sprintf("PRRC_%d", rc.ID),
				"pull_request_review_id": rc.ID + 1000, "diff_hunk": "@@ -0,0 +1 @@", "path": rc.Path,
				"commit_id": p.HeadSHA, "original_commit_id": p.BaseSHA,
				"user": reviewer(rc.User),
				"body": rc.Body, "created_at": created, "updated_at": created, "html_url": html, "pull_request_url": prURL,
				"author_association": rc.AuthorAssociation,
				"_links":             map[string]any{"self": map[string]any{"href": url}, "html": map[string]any{"href": html}, "pull_request": map[string]any{"href": prURL}}})
		}
	}
	gitJSON(w, 200, out)
}
