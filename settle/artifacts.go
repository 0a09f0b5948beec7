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
// Zero fields take the defaults of DefaultLimits.
type Limits struct {
	// MaxArtifactBytes skips artifacts whose listed or downloaded size is
	// larger (default 64 MiB).
	MaxArtifactBytes int64
	// MaxEntryBytes caps one uncompressed zip entry (default 32 MiB).
	MaxEntryBytes int64
	// MaxTotalBytes caps everything unpacked from one artifact
	// (default 256 MiB).
	MaxTotalBytes int64
	// MaxEntries caps the entries of one zip (default 5000).
	MaxEntries int
	// MaxArtifacts caps the artifacts downloaded per SHA (default 8).
	MaxArtifacts int
}

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{MaxArtifactBytes: 64 << 20, MaxEntryBytes: 32 << 20, MaxTotalBytes: 256 << 20, MaxEntries: 5000, MaxArtifacts: 8}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxArtifactBytes <= 0 {
		l.MaxArtifactBytes = d.MaxArtifactBytes
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = d.MaxEntryBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxArtifacts <= 0 {
		l.MaxArtifacts = d.MaxArtifacts
	}
	return l
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

// readJUnitZip unpacks the *.xml entries of an artifact zip and parses the
// JUnit reports among them. Entries with absolute or parent-relative paths
// (zip slip), entries over the size caps or inflating suspiciously (zip
// bombs), and XML that is not JUnit are skipped with a note. A file that is
// JUnit but does not parse is an error.
func readJUnitZip(name string, data []byte, lim Limits) (*junit.Report, []string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("artifact %q: %v: %w", name, err, errTruncated)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, nil, fmt.Errorf("artifact %q has %d entries, more than %d", name, len(zr.File), lim.MaxEntries)
	}
	rep := &junit.Report{}
	var notes []string
	var total int64
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
			notes = append(notes, fmt.Sprintf("artifact %q: skipped %s (%d bytes, limit %d)", name, f.Name, f.UncompressedSize64, lim.MaxEntryBytes))
			continue
		}
		if f.CompressedSize64 > 0 && f.UncompressedSize64 > 1<<20 && f.UncompressedSize64/f.CompressedSize64 > maxCompressionRatio {
			notes = append(notes, fmt.Sprintf("artifact %q: skipped %s (compression ratio over %d)", name, f.Name, maxCompressionRatio))
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, notes, fmt.Errorf("artifact %q: open %s: %v: %w", name, f.Name, err, errTruncated)
		}
		body, err := io.ReadAll(io.LimitReader(rc, lim.MaxEntryBytes+1))
		rc.Close()
		if err != nil {
			return nil, notes, fmt.Errorf("artifact %q: read %s: %v: %w", name, f.Name, err, errTruncated)
		}
		if int64(len(body)) > lim.MaxEntryBytes {
			notes = append(notes, fmt.Sprintf("artifact %q: skipped %s (inflates past %d bytes)", name, f.Name, lim.MaxEntryBytes))
			continue
		}
		total += int64(len(body))
		if total > lim.MaxTotalBytes {
			return nil, notes, fmt.Errorf("artifact %q unpacks to more than %d bytes", name, lim.MaxTotalBytes)
		}
		r, err := junit.ParseBytes(name+"/"+f.Name, body)
		if errors.Is(err, junit.ErrNotJUnit) {
			notes = append(notes, fmt.Sprintf("artifact %q: %s is not JUnit XML", name, f.Name))
			continue
		}
		if err != nil {
			return nil, notes, err
		}
		rep.Merge(r)
		found++
	}
	if found == 0 {
		return nil, notes, nil
	}
	return rep, notes, nil
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
