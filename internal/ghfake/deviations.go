package ghfake

import (
	"fmt"
	"net/http"
	"time"
)

// GitHub's behaviour where it matters to the action but the OpenAPI description (the schemas
// ghschema checks the fake against) does not say it. Each is kept here, once, with its source.

// contentsInlineLimit: the contents API (GET /repos/{owner}/{repo}/contents/{path}) inlines a
// file's base64 content only up to 1 MB. "Between 1-100 MB: Only the raw or object custom
// media types are supported ... the content field will be an empty string and the encoding
// field will be "none"" (docs.github.com/rest/repos/contents#get-repository-content, notes on
// file size limits). The description's content-file schema allows that shape but does not
// say when it happens. Larger files are read through the Git blobs API.
const contentsInlineLimit = 1 << 20

// blobLimit: the Git blobs API serves blobs up to 100 MB ("This API supports blobs up to 100
// megabytes in size", docs.github.com/rest/git/blobs#get-a-blob), and pushes of files over
// 100 MB are refused (docs.github.com/repositories/working-with-files/managing-large-files/
// about-large-files-on-github).
const blobLimit = 100 << 20

// redirectArtifact answers GET /actions/artifacts/{id}/zip the way GitHub does: 302 to a
// signed, short-lived blob-storage URL on another host, which must be fetched without the
// token (the description says 302 and a Location header, not that the host differs or that
// credentials must not follow: docs.github.com/rest/actions/artifacts#download-an-artifact).
// The blob server fails the test if it receives an Authorization header.
func (s *Server) redirectArtifact(w http.ResponseWriter, a Artifact) {
	loc := fmt.Sprintf("%s/blob/%d?sig=%s&se=%d", s.BlobURL, a.ID, SHA(fmt.Sprint("sig", a.ID))[:16], s.Now().Add(time.Minute).Unix())
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusFound)
}
