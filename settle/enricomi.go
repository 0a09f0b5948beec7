package settle

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/google/go-github/v62/github"
)

// DigestPrefix starts the machine-readable line EnricoMi's
// publish-unit-test-result-action writes at the end of its check-run summary.
const DigestPrefix = "[test-results]:data:application/gzip;base64,"

// Digest is the part of an EnricoMi check run's statistics the measurement reads: the counts
// of unique test cases (the digest also counts "runs", every execution across a matrix and
// retries, which a delta of tests must not).
type Digest struct {
	Tests      int `json:"tests"`
	TestsSucc  int `json:"tests_succ"`
	TestsSkip  int `json:"tests_skip"`
	TestsFail  int `json:"tests_fail"`
	TestsError int `json:"tests_error"`
}

// ErrNoDigest is returned by DecodeDigest when the summary has no digest.
var ErrNoDigest = errors.New("no [test-results] digest in check-run summary")

// maxDigestBytes caps the decompressed digest (a few hundred bytes in
// practice) against gzip bombs.
const maxDigestBytes = 64 << 10

// DecodeDigest finds the digest line in an EnricoMi check-run summary and
// decodes it: base64, then gzip, then JSON.
func DecodeDigest(summary string) (*Digest, error) {
	i := strings.Index(summary, DigestPrefix)
	if i < 0 {
		return nil, ErrNoDigest
	}
	enc := summary[i+len(DigestPrefix):]
	if j := strings.IndexAny(enc, "\r\n"); j >= 0 {
		enc = enc[:j]
	}
	enc = strings.TrimSpace(enc)
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("decode test-results digest: base64: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decode test-results digest: gzip: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxDigestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("decode test-results digest: gzip: %w", err)
	}
	if len(data) > maxDigestBytes {
		return nil, fmt.Errorf("decode test-results digest: larger than %d bytes", maxDigestBytes)
	}
	var d Digest
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("decode test-results digest: json: %w", err)
	}
	if _, err := d.unassigned(); err != nil {
		return nil, fmt.Errorf("decode test-results digest: %w", err)
	}
	return &d, nil
}

// unassigned returns how many of the digest's tests no status counts. Each test has one
// status, so the statuses count at most the tests: more, or a negative count, is an error.
// The statuses are added by sumCounts, so no sum of hostile counts can overflow (Counts
// adds failures and errors).
func (d *Digest) unassigned() (int, error) {
	sum, ok := sumCounts(d.TestsSucc, d.TestsSkip, d.TestsFail, d.TestsError)
	switch {
	case !ok || d.Tests < 0:
		return 0, errors.New("a test count is negative or overflows")
	case sum > d.Tests:
		return 0, fmt.Errorf("the statuses count more than the %d tests", d.Tests)
	}
	return d.Tests - sum, nil
}

// Counts returns the digest's per-test tallies.
func (d *Digest) Counts() junit.Counts {
	return junit.Counts{Tests: d.Tests, Passed: d.TestsSucc, Failed: d.TestsFail + d.TestsError, Skipped: d.TestsSkip}
}

// enricoNameSep joins file, class and test name in EnricoMi's lists
// (U+2011 NON-BREAKING HYPHEN between spaces).
const enricoNameSep = " \u2011 "

var (
	reAllTests     = regexp.MustCompile(`^(\d+) tests? found(?: \(test (\d+) to (\d+)\))?$`)
	reSkippedTests = regexp.MustCompile(`^(\d+) skipped tests? found(?: \(test (\d+) to (\d+)\))?$`)
	reRunsPrefix   = regexp.MustCompile(`^(?:All \d+ runs|\d+ out of \d+ runs) (failed|with error): (.+)$`)
)

// EnricoMiID turns a listed EnricoMi test name ("file ‑ class ‑ name",
// parts optional) into a test id: the parts joined with "::", so
// "class ‑ name" gives the same id as JUnit's classname::name.
func EnricoMiID(listed string) string {
	parts := strings.Split(strings.TrimSpace(listed), enricoNameSep)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return strings.Join(parts, "::")
}

// failureTitleKey is how EnricoMi names a test in a failure annotation
// title: "name (class)", or just "name".
func failureTitleKey(listed string) string {
	parts := strings.Split(strings.TrimSpace(listed), enricoNameSep)
	name := strings.TrimSpace(parts[len(parts)-1])
	if len(parts) >= 2 {
		return name + " (" + strings.TrimSpace(parts[len(parts)-2]) + ")"
	}
	return name
}

// ParseFailureTitle extracts the test part of an EnricoMi failure
// annotation title: "<t> failed", "<t> with error", "All N runs failed: <t>",
// "M out of N runs with error: <t>". ok is false for other titles.
func ParseFailureTitle(title string) (test string, ok bool) {
	title = strings.TrimSpace(title)
	if m := reRunsPrefix.FindStringSubmatch(title); m != nil {
		return m[2], true
	}
	if t, found := strings.CutSuffix(title, " failed"); found && t != "" {
		return t, true
	}
	if t, found := strings.CutSuffix(title, " with error"); found && t != "" {
		return t, true
	}
	return "", false
}

// EnricoMiResults rebuilds per-test results from the annotations of an
// EnricoMi check run: the "N tests found" lists name every test, "N skipped
// tests found" the skipped ones, failure annotations (warning for failures,
// failure for errors) the failed ones; the rest passed. It checks the result
// against the digest and returns an error (so the caller falls back to
// counts) when the lists are missing, truncated or disagree with it.
func EnricoMiResults(d *Digest, anns []*github.CheckRunAnnotation) (map[string]junit.Status, error) {
	if left, err := d.unassigned(); err != nil || left != 0 {
		return nil, fmt.Errorf("digest counts do not add up (%d tests: %d passed, %d skipped, %d failed, %d errors)",
			d.Tests, d.TestsSucc, d.TestsSkip, d.TestsFail, d.TestsError)
	}
	var all, skipped []string
	allChunks, skipChunks := 0, 0
	for _, a := range anns {
		if a.GetAnnotationLevel() != "notice" {
			continue
		}
		t := strings.TrimSpace(a.GetTitle())
		if reAllTests.MatchString(t) {
			all = append(all, splitLines(a.GetRawDetails())...)
			allChunks++
		} else if reSkippedTests.MatchString(t) {
			skipped = append(skipped, splitLines(a.GetRawDetails())...)
			skipChunks++
		}
	}
	if allChunks == 0 {
		if d.Tests == 0 {
			return map[string]junit.Status{}, nil
		}
		return nil, fmt.Errorf("no \"tests found\" annotation listing the %d tests (check_run_annotations lacks \"all tests\")", d.Tests)
	}
	if len(all) != d.Tests {
		return nil, fmt.Errorf("annotations list %d tests, digest says %d", len(all), d.Tests)
	}
	res := make(map[string]junit.Status, len(all))
	byTitle := map[string][]string{}
	for _, name := range all {
		id := EnricoMiID(name)
		if _, dup := res[id]; dup {
			return nil, fmt.Errorf("test %q listed twice", id)
		}
		res[id] = junit.Passed
		k := failureTitleKey(name)
		byTitle[k] = append(byTitle[k], id)
	}
	if d.TestsSkip > 0 && skipChunks == 0 {
		return nil, fmt.Errorf("digest has %d skipped tests but no \"skipped tests found\" annotation", d.TestsSkip)
	}
	for _, name := range skipped {
		id := EnricoMiID(name)
		if _, ok := res[id]; !ok {
			return nil, fmt.Errorf("skipped test %q is not in the test list", id)
		}
		res[id] = junit.Skipped
	}
	for _, a := range anns {
		if l := a.GetAnnotationLevel(); l != "warning" && l != "failure" {
			continue
		}
		t, ok := ParseFailureTitle(a.GetTitle())
		if !ok {
			continue
		}
		ids := byTitle[t]
		if len(ids) != 1 {
			if len(ids) > 1 {
				return nil, fmt.Errorf("failure annotation %q matches %d tests", a.GetTitle(), len(ids))
			}
			continue // suite-level log annotations and the like
		}
		res[ids[0]] = junit.Failed
	}
	c := junit.Count(res)
	if c.Failed != d.TestsFail+d.TestsError || c.Skipped != d.TestsSkip || c.Passed != d.TestsSucc {
		return nil, fmt.Errorf("annotations give %d passed, %d failed, %d skipped; digest says %d, %d, %d",
			c.Passed, c.Failed, c.Skipped, d.TestsSucc, d.TestsFail+d.TestsError, d.TestsSkip)
	}
	return res, nil
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// atoi parses a decimal count, or -1.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
