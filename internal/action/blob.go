package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
)

// readFile reads path at a commit through the contents API, with the file's blob sha; found is
// false on 404. A file over 1 MB comes from the contents API without content (encoding
// "none"): its bytes are then read through the Git blobs API by the blob sha the contents API
// gave, with the token sent only to the API and every status checked (a 5xx is retried by the
// transport, then is an error; it is never parsed as the file). GitHub refuses files over
// 100 MB, and so does the blobs API, so larger files cannot exist. A blob this run read
// already as the base branch's store (Runner.mainBlob) is not downloaded again.
func (r *Runner) readFile(ctx context.Context, path, ref string) (data []byte, sha string, found bool, err error) {
	fc, _, resp, err := r.Client.Repositories.GetContents(ctx, r.Owner, r.Repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, "", false, nil
		}
		return nil, "", false, botpr.Explain(fmt.Errorf("reading %s at %s: %w", path, short(ref), err), "contents")
	}
	if fc == nil {
		return nil, "", false, fmt.Errorf("reading %s at %s: it is a directory, not a file", path, short(ref))
	}
	sha = fc.GetSHA()
	if sha != "" && sha == r.mainBlob.sha {
		return r.mainBlob.doc, sha, true, nil
	}
	if fc.GetEncoding() == "none" || (fc.GetSize() > 0 && fc.Content == nil) {
		b, err := r.readBlob(ctx, path, ref, sha, fc.GetSize())
		if err != nil {
			return nil, "", false, err
		}
		return b, sha, true, nil
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, "", false, fmt.Errorf("decoding %s at %s: %w", path, short(ref), err)
	}
	return []byte(s), sha, true, nil
}

// rawBlobMediaType is the media type GitHub's description of GET /git/blobs/{file_sha} offers
// for a blob's bytes: "application/vnd.github.raw+json: Returns the raw blob data" (without
// it, the answer is the blob object, its content base64).
const rawBlobMediaType = "application/vnd.github.raw+json"

// readBlob reads a file over 1 MB through GET /git/blobs/{sha} (GitHub serves blobs up to
// 100 MB this way) with the raw media type, so the store arrives as its bytes, read straight
// into one buffer of the file's size.
func (r *Runner) readBlob(ctx context.Context, path, ref, sha string, size int) ([]byte, error) {
	if sha == "" {
		return nil, fmt.Errorf("reading %s at %s: the contents API gave no blob sha for a %d-byte file", path, short(ref), size)
	}
	fail := func(err error) error {
		return botpr.Explain(fmt.Errorf("reading %s at %s through the blobs API (blob %s, %d bytes): %w", path, short(ref), short(sha), size, err), "contents")
	}
	req, err := r.Client.NewRequest(http.MethodGet, fmt.Sprintf("repos/%v/%v/git/blobs/%v", r.Owner, r.Repo, sha), nil)
	if err != nil {
		return nil, fail(err)
	}
	req.Header.Set("Accept", rawBlobMediaType)
	resp, err := r.Client.BareDo(ctx, req)
	if err != nil {
		return nil, fail(err)
	}
	defer resp.Body.Close()
	b, err := readExactly(resp.Body, size)
	if err != nil {
		return nil, fail(err)
	}
	return b, nil
}

// readExactly reads an answer that must be exactly size bytes: the blob's bytes. A shorter or
// longer answer (a cut transfer, or a blob object from a server that ignored the media type)
// is an error, never a wrong store; reading stops one byte past size.
func readExactly(body io.Reader, size int) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(body, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return nil, fmt.Errorf("got %d bytes, the contents API said %d", n, size)
	case err != nil:
		return nil, err
	}
	var one [1]byte
	if k, err := io.ReadFull(body, one[:]); k > 0 {
		return nil, fmt.Errorf("got more than the %d bytes the contents API said", size)
	} else if !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf, nil
}
