package settle

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

// Limits bound what Measure downloads and unpacks from workflow artifacts.
// The zero value means DefaultLimits.
type Limits struct {
	// MaxArtifactBytes skips artifacts whose listed or downloaded size is
	// larger (default 64 MiB).
	MaxArtifactBytes int64
	// MaxEntryBytes caps one uncompressed zip entry (default 32 MiB).
	MaxEntryBytes int64
	// MaxEntries caps the entries of one zip (default 5000).
	MaxEntries int
	// MaxArtifacts caps the artifacts downloaded per SHA (default 8).
	MaxArtifacts int
	// MaxCommitBytes caps the XML unpacked from all the artifacts of one
	// SHA (default 256 MiB). Past it the measurement abstains for good.
	MaxCommitBytes int64
	// MaxCases caps the testcases read at one SHA, duplicates included
	// (default 200,000). Past it the measurement abstains for good.
	MaxCases int
}

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{MaxArtifactBytes: 64 << 20, MaxEntryBytes: 32 << 20, MaxEntries: 5000, MaxArtifacts: 8,
		MaxCommitBytes: 256 << 20, MaxCases: 200_000}
}

// maxCompressionRatio rejects entries that inflate more than this (zip
// bombs); real JUnit XML compresses about 10-30x.
const maxCompressionRatio = 200

// errTruncated marks a download that is not a complete zip; it is worth
// fetching again, and if it stays broken the measurement is pending.
var errTruncated = errors.New("artifact download is not a complete zip")

// fetchBlob GETs a signed artifact URL with a client that carries no
// credentials, reading at most max bytes.
func fetchBlob(ctx context.Context, hc *http.Client, u *url.URL, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download artifact from %s: %w", u.Host, scrubURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download artifact from %s: %s: %w", u.Host, resp.Status, errTruncated)
	}
	if resp.ContentLength > max {
		return nil, fmt.Errorf("artifact is %d bytes, more than the %d byte limit", resp.ContentLength, max)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("download artifact from %s: %v: %w", u.Host, scrubURLError(err), errTruncated)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("artifact is more than the %d byte limit", max)
	}
	return data, nil
}

// scrubURLError drops the signed query string from url.Error text.
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}

// errOverCap marks JUnit results past the per-commit caps (MaxCommitBytes,
// MaxCases): a property of the reports themselves, so measuring again would
// give the same answer and the abstention is final.
var errOverCap = errors.New("over the per-commit limit")

// budget is what is left of the per-commit caps for the next artifact.
type budget struct {
	bytes int64
	cases int
}

// tallyJUnitZip streams the *.xml entries of an artifact zip through the
// JUnit parser into a tally: per-test statuses only, never a document or a
// testcase list, so memory does not grow with the size of the XML. Nothing
// is written to disk. Entries with absolute or parent-relative paths (zip
// slip), entries over the size caps or inflating suspiciously (zip bombs),
// and XML that is not JUnit are skipped with a note. A file that is JUnit
// but does not parse is an error; going past what is left of the
// per-commit budget is an error wrapping errOverCap. read is the number of
// XML bytes unpacked. The tally is nil when the zip holds no JUnit report.
func tallyJUnitZip(name string, data []byte, lim Limits, left budget) (t *junit.Tally, read int64, notes []string, err error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, 0, nil, fmt.Errorf("artifact %q: %v: %w", name, err, errTruncated)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, 0, nil, fmt.Errorf("artifact %q has %d entries, more than %d", name, len(zr.File), lim.MaxEntries)
	}
	if left.bytes <= 0 || left.cases <= 0 {
		return nil, 0, nil, fmt.Errorf("artifact %q: the reports before it used up the per-commit limit: %w", name, errOverCap)
	}
	rep := &junit.Tally{MaxCases: left.cases}
	found := 0
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !strings.EqualFold(path.Ext(f.Name), ".xml") {
			continue
		}
		if unsafePath(f.Name) {
			notes = append(notes, fmt.Sprintf("artifact %q: skipped unsafe path %q", name, f.Name))
			continue
		}
		if f.UncompressedSize64 > uint64(lim.MaxEntryBytes) {
			notes = append(notes, fmt.Sprintf("artifact %q: skipped %q (%d bytes, limit %d)", name, f.Name, f.UncompressedSize64, lim.MaxEntryBytes))
			continue
		}
		if f.CompressedSize64 > 0 && f.UncompressedSize64 > 1<<20 && f.UncompressedSize64/f.CompressedSize64 > maxCompressionRatio {
			notes = append(notes, fmt.Sprintf("artifact %q: skipped %q (compression ratio over %d)", name, f.Name, maxCompressionRatio))
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, read, notes, fmt.Errorf("artifact %q: open %q: %v: %w", name, f.Name, err, errTruncated)
		}
		cr := &capReader{r: rc, entry: lim.MaxEntryBytes, commit: left.bytes - read, commitMax: lim.MaxCommitBytes}
		err = rep.Add(name+"/"+f.Name, cr)
		rc.Close()
		read += cr.n
		switch {
		case cr.err != nil && errors.Is(cr.err, errOverCap):
			return nil, read, notes, fmt.Errorf("artifact %q: %w", name, cr.err)
		case cr.err != nil:
			return nil, read, notes, fmt.Errorf("artifact %q: read %q: %w", name, f.Name, cr.err)
		case errors.Is(err, junit.ErrTooManyCases):
			return nil, read, notes, fmt.Errorf("artifact %q: more than %d testcases at this commit: %w", name, lim.MaxCases, errOverCap)
		case errors.Is(err, junit.ErrNotJUnit):
			notes = append(notes, fmt.Sprintf("artifact %q: %q is not JUnit XML", name, f.Name))
			continue
		case err != nil:
			return nil, read, notes, err
		}
		found++
	}
	if found == 0 {
		return nil, read, notes, nil
	}
	return rep, read, notes, nil
}

// capReader counts what it reads and fails past the entry and commit caps
// (an artifact's XML is within its commit's). err keeps the first error of the underlying reader or of a
// cap, so the caller can tell them from XML syntax errors.
type capReader struct {
	r             io.Reader
	n             int64
	entry, commit int64
	commitMax     int64 // for the message
	err           error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	switch {
	case c.n > c.commit:
		c.err = fmt.Errorf("the reports at this commit unpack to more than %d bytes of XML: %w", c.commitMax, errOverCap)
	case c.n > c.entry:
		c.err = fmt.Errorf("an entry inflates past %d bytes", c.entry)
	case err != nil && err != io.EOF:
		c.err = fmt.Errorf("%v: %w", err, errTruncated)
	}
	if c.err != nil {
		return n, c.err
	}
	return n, err
}

func unsafePath(name string) bool {
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return true
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// artifactMatches applies the artifact name filter: a path.Match glob when
// given, else names mentioning test, junit or report.
func artifactMatches(pattern, name string) bool {
	if pattern != "" {
		ok, err := path.Match(pattern, name)
		return err == nil && ok
	}
	n := strings.ToLower(name)
	return strings.Contains(n, "test") || strings.Contains(n, "junit") || strings.Contains(n, "report")
}
