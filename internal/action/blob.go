package action

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
)

// readFile reads path at a commit through the contents API; found is false on 404. A file
// over 1 MB comes from the contents API without content (encoding "none"): its bytes are then
// read through the Git blobs API by the blob sha the contents API gave, with the token sent
// only to the API and every status checked (a 5xx is retried by the transport, then is an
// error; it is never parsed as the file). GitHub refuses files over 100 MB, and so does the
// blobs API, so larger files cannot exist.
func (r *Runner) readFile(ctx context.Context, path, ref string) (data []byte, found bool, err error) {
	data, _, found, err = r.readFileSHA(ctx, path, ref)
	return data, found, err
}

// readFileSHA is readFile that also returns the file's blob sha. A blob this run read already
// as the base branch's store (Runner.mainBlob) is not downloaded again.
func (r *Runner) readFileSHA(ctx context.Context, path, ref string) (data []byte, sha string, found bool, err error) {
	data, found, err = r.readContents(ctx, path, ref, &sha)
	return data, sha, found, err
}

func (r *Runner) readContents(ctx context.Context, path, ref string, sha *string) (data []byte, found bool, err error) {
	fc, _, resp, err := r.Client.Repositories.GetContents(ctx, r.Owner, r.Repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, false, nil
		}
		return nil, false, botpr.Explain(fmt.Errorf("reading %s at %s: %w", path, short(ref), err), "contents")
	}
	if fc == nil {
		return nil, false, fmt.Errorf("reading %s at %s: it is a directory, not a file", path, short(ref))
	}
	*sha = fc.GetSHA()
	if *sha != "" && *sha == r.mainBlob.sha {
		return r.mainBlob.doc, true, nil
	}
	if fc.GetEncoding() == "none" || (fc.GetSize() > 0 && fc.Content == nil) {
		b, err := r.readBlob(ctx, path, ref, fc.GetSHA(), fc.GetSize())
		if err != nil {
			return nil, false, err
		}
		return b, true, nil
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, false, fmt.Errorf("decoding %s at %s: %w", path, short(ref), err)
	}
	return []byte(s), true, nil
}

// rawBlobMediaType is the media type GitHub's description of GET /git/blobs/{file_sha} offers
// for a blob's bytes: "application/vnd.github.raw+json: Returns the raw blob data" (without
// it, the answer is the blob object, its content base64).
const rawBlobMediaType = "application/vnd.github.raw+json"

// readBlob reads a file over 1 MB through GET /git/blobs/{sha} (GitHub serves blobs up to
// 100 MB this way) with the raw media type, so the store arrives as its bytes, read straight
// into one buffer of the file's size: no base64 to send, hold or decode. A server that answers
// with the blob object instead is understood too (blobBytes).
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
	body, err := readAnswer(resp.Body, size)
	resp.Body.Close()
	if err != nil {
		return nil, fail(err)
	}
	b, err := blobBytes(body, size)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s through the blobs API: %w", path, short(ref), err)
	}
	return b, nil
}

// readAnswer reads an answer to the raw media type for a blob of size bytes: into a buffer of
// exactly that size when it is the blob's bytes, and on, bounded, when it is longer (a blob
// object: base64 with escaped line breaks, a third longer than the blob, and its fields).
func readAnswer(body io.Reader, size int) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(body, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:n], nil // shorter than the blob: blobBytes says so
	case err != nil:
		return nil, err
	}
	var one [1]byte
	if k, err := io.ReadFull(body, one[:]); k == 0 {
		if errors.Is(err, io.EOF) {
			return buf, nil // exactly size bytes
		}
		return nil, err
	}
	limit := int64(size)/3*4 + int64(size)/10 + 64<<10
	rest, err := io.ReadAll(io.LimitReader(body, limit))
	if err != nil {
		return nil, err
	}
	if int64(len(rest)) == limit {
		return nil, fmt.Errorf("the answer is longer than a blob of %d bytes can be, in any encoding", size)
	}
	return append(append(buf, one[0]), rest...), nil
}

// blobBytes returns the blob from an answer to GET /git/blobs/{sha} with the raw media type:
// the answer itself, or the decoded content of a blob object from a server that ignores the
// media type. The size the contents API gave tells the two apart without guessing from the
// bytes (a store is a JSON object too): the object for a blob of n bytes is always longer than
// n (its base64 alone is a third longer), so an answer of exactly n bytes is the blob.
func blobBytes(body []byte, size int) ([]byte, error) {
	if len(body) == size {
		return body, nil
	}
	b, err := decodeBlob(body)
	if err != nil {
		return nil, fmt.Errorf("got %d bytes, neither the %d bytes the contents API said nor a blob object: %w", len(body), size, err)
	}
	if len(b) != size {
		return nil, fmt.Errorf("got %d bytes, the contents API said %d", len(b), size)
	}
	return b, nil
}

// decodeBlob returns the bytes of a blob object (GitHub's answer to GET /git/blobs/{sha} without
// the raw media type). The content of a large blob is most of the answer: it is found with a
// scan of the object's top level and decoded straight from the answer's bytes (base64 with
// escaped line breaks); an answer the scan does not expect is read with encoding/json instead.
func decodeBlob(body []byte) ([]byte, error) {
	if content, enc, ok := scanBlob(body); ok && enc == "base64" {
		return decodeBase64Lines(content)
	}
	var blob struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if err := json.Unmarshal(body, &blob); err != nil {
		return nil, fmt.Errorf("the answer is not a blob object: %w", err)
	}
	switch blob.Encoding {
	case "base64":
		return decodeBase64Lines([]byte(blob.Content))
	case "utf-8":
		return []byte(blob.Content), nil
	default:
		return nil, fmt.Errorf("unknown encoding %q", blob.Encoding)
	}
}

// scanBlob finds the "content" and "encoding" strings of a JSON object whose members are all
// strings or numbers, and whose content holds no escape but \n. ok is false for anything else.
func scanBlob(b []byte) (content []byte, encoding string, ok bool) {
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
			i++
		}
	}
	str := func() ([]byte, bool) { // the raw bytes between the quotes
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		start := i + 1
		for j := start; j < len(b); j++ {
			switch b[j] {
			case '"':
				i = j + 1
				return b[start:j], true
			case '\\':
				j++
			}
		}
		return nil, false
	}
	ws()
	if i >= len(b) || b[i] != '{' {
		return nil, "", false
	}
	i++
	var haveContent bool
	for {
		ws()
		key, ok := str()
		if !ok || bytes.IndexByte(key, '\\') >= 0 {
			return nil, "", false
		}
		ws()
		if i >= len(b) || b[i] != ':' {
			return nil, "", false
		}
		i++
		ws()
		if i < len(b) && b[i] == '"' {
			v, ok := str()
			if !ok {
				return nil, "", false
			}
			switch string(key) {
			case "content":
				content, haveContent = v, true
			case "encoding":
				encoding = string(v)
			}
		} else {
			for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '-' || b[i] == '.' || b[i] == 'e' || b[i] == 'E' || b[i] == '+' || b[i] >= 'a' && b[i] <= 'z') {
				i++ // a number, true, false or null
			}
		}
		ws()
		if i >= len(b) {
			return nil, "", false
		}
		if b[i] == '}' {
			i++
			ws()
			return content, encoding, haveContent && i == len(b)
		}
		if b[i] != ',' {
			return nil, "", false
		}
		i++
	}
}

// decodeBase64Lines decodes base64 whose lines are broken by JSON's escaped \n (or by raw
// line breaks, which the decoder skips). It overwrites content.
func decodeBase64Lines(content []byte) ([]byte, error) {
	clean := content[:0] // in place: the answer's buffer is the caller's to spend
	for rest := content; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\\')
		if i < 0 {
			clean = append(clean, rest...)
			break
		}
		clean = append(clean, rest[:i]...)
		if i+1 >= len(rest) || rest[i+1] != 'n' {
			return nil, errors.New("content is not base64: an escape other than a line break")
		}
		rest = rest[i+2:]
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
	n, err := base64.StdEncoding.Decode(out, clean)
	if err != nil {
		return nil, fmt.Errorf("content is not base64: %w", err)
	}
	return out[:n], nil
}
