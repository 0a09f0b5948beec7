// Package junit reads JUnit XML test reports as written by the mainstream
// producers (pytest, Maven Surefire, Gradle, go-junit-report, gotestsum,
// jest-junit, mocha-junit-reporter, PHPUnit, cargo-nextest, Bazel, TestNG,
// ctest) and reduces them to one Status per test id.
//
// The rules follow darwin-memo's settle-ci (semantics §7.2): a testcase starts
// as passed; an <error> or <failure> child fails it; <skipped> makes it
// unmeasured unless it already failed; any other child is ignored. Duplicate
// ids (rerun plugins, matrix copies) combine so that any failure wins, a pass
// beats a skip, and a test is skipped only if every occurrence was. On top of
// that, rerun elements are understood: a testcase whose only failures are
// <flakyFailure>/<flakyError> (Surefire, nextest) passed on a rerun and is
// reported as Flaky, never as a pass or a failure; <rerunFailure>/<rerunError>
// next to a final <failure>/<error> leave the test failed.
//
// See docs/junit.md for why this package uses encoding/xml instead of a
// third-party JUnit library.
package junit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Status is the measured outcome of one test.
type Status string

// The statuses a test can have. A test absent from a result map was not run
// at all, which differs from Skipped (run but unmeasured).
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	// Flaky means the test failed and then passed on a rerun within the same
	// report. It is present but unmeasured: never counted as a transition.
	Flaky Status = "flaky"
)

// Measured reports whether s is a definite pass or failure.
func (s Status) Measured() bool { return s == Passed || s == Failed }

// rank orders statuses for duplicate ids: a failure wins, then flaky, then a
// pass, then a skip.
func (s Status) rank() int {
	switch s {
	case Failed:
		return 3
	case Flaky:
		return 2
	case Passed:
		return 1
	}
	return 0
}

// Combine returns the status of a test seen twice with statuses a and b.
func Combine(a, b Status) Status {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Case is one <testcase> element.
type Case struct {
	// ID is classname + "::" + name, or just name when classname is empty.
	ID        string
	Suite     string // innermost enclosing <testsuite name>
	Classname string
	Name      string
	File      string
	Status    Status
	// Errored is true when the final outcome came from an <error> (or
	// <rerunError>) rather than a <failure>.
	Errored bool
	// Reruns counts rerun/flaky elements (flakyFailure, rerunFailure, ...).
	Reruns int
	// Message is the first line of the failure, error or skip message,
	// capped at 200 bytes.
	Message string
}

// Report is the parsed content of one or more JUnit XML documents.
type Report struct {
	// Cases holds every testcase in document order, duplicates included.
	Cases []Case
	// CollectionErrors lists testcases that carry an <error> while their
	// classname is empty: how pytest reports a module that failed to
	// collect. darwin-memo abstains on these; see HasCollectionError.
	CollectionErrors []string
}

// MaxDepth bounds element nesting so hostile input cannot exhaust the stack
// of a caller that walks it; encoding/xml itself does not recurse.
const MaxDepth = 256

// ErrNotJUnit is wrapped by Parse when the document's root element is not
// <testsuites>, <testsuite> or <testcase>.
var ErrNotJUnit = errors.New("not a JUnit XML report")

// Parse reads one JUnit XML document. It accepts <testsuites> and
// <testsuite> roots, suites nested to any depth and testcases directly under
// <testsuites>. name is used only in error messages.
func Parse(name string, r io.Reader) (*Report, error) {
	rep := &Report{}
	if err := rep.add(name, r); err != nil {
		return nil, err
	}
	return rep, nil
}

// ParseBytes is Parse over an in-memory document.
func ParseBytes(name string, data []byte) (*Report, error) {
	return Parse(name, bytes.NewReader(data))
}

// Merge appends the cases of other to r (several report files of one run).
func (r *Report) Merge(other *Report) {
	if other == nil {
		return
	}
	r.Cases = append(r.Cases, other.Cases...)
	r.CollectionErrors = append(r.CollectionErrors, other.CollectionErrors...)
}

// HasCollectionError reports whether any testcase with an empty classname
// carries an <error>.
func (r *Report) HasCollectionError() bool { return len(r.CollectionErrors) > 0 }

// Results reduces the cases to one status per id, combining duplicates.
func (r *Report) Results() map[string]Status {
	out := make(map[string]Status, len(r.Cases))
	for _, c := range r.Cases {
		if prev, ok := out[c.ID]; ok {
			out[c.ID] = Combine(prev, c.Status)
			continue
		}
		out[c.ID] = c.Status
	}
	return out
}

// Counts summarises a result map.
type Counts struct {
	Tests, Passed, Failed, Skipped, Flaky int
}

// Count tallies a result map by status.
func Count(results map[string]Status) Counts {
	var c Counts
	for _, s := range results {
		c.Tests++
		switch s {
		case Passed:
			c.Passed++
		case Failed:
			c.Failed++
		case Skipped:
			c.Skipped++
		case Flaky:
			c.Flaky++
		}
	}
	return c
}

// FlakyIDs returns the sorted ids whose combined status is Flaky.
func FlakyIDs(results map[string]Status) []string {
	var ids []string
	for id, s := range results {
		if s == Flaky {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// ID builds the normalized test id from a classname and a name, as
// darwin-memo does: "classname::name", or name alone without a classname.
func ID(classname, name string) string {
	classname = strings.TrimSpace(classname)
	name = strings.TrimSpace(name)
	if classname == "" {
		return name
	}
	return classname + "::" + name
}

func (r *Report) add(name string, src io.Reader) error {
	d := xml.NewDecoder(src)
	d.CharsetReader = charsetReader
	var suites []string
	depth := 0
	sawRoot := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("junit: parse %s: %w", name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("junit: parse %s: elements nested deeper than %d", name, MaxDepth)
			}
			if !sawRoot {
				sawRoot = true
				switch t.Name.Local {
				case "testsuites", "testsuite", "testcase":
				default:
					return fmt.Errorf("junit: parse %s: root element <%s>: %w", name, t.Name.Local, ErrNotJUnit)
				}
			}
			switch t.Name.Local {
			case "testsuite":
				suites = append(suites, attr(t, "name"))
			case "testcase":
				var tc xmlCase
				if err := d.DecodeElement(&tc, &t); err != nil {
					return fmt.Errorf("junit: parse %s: testcase %q: %w", name, attr(t, "name"), err)
				}
				depth--
				suite := ""
				if len(suites) > 0 {
					suite = suites[len(suites)-1]
				}
				c := tc.toCase(suite)
				if c.Errored && strings.TrimSpace(tc.Classname) == "" && hasPlainError(tc) {
					r.CollectionErrors = append(r.CollectionErrors, c.ID)
				}
				r.Cases = append(r.Cases, c)
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "testsuite" && len(suites) > 0 {
				suites = suites[:len(suites)-1]
			}
		}
	}
	if !sawRoot {
		return fmt.Errorf("junit: parse %s: empty document: %w", name, ErrNotJUnit)
	}
	return nil
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// xmlCase mirrors a <testcase>. Children are captured in order through Any so
// that the "skip unless already failed" rule sees document order.
type xmlCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	File      string     `xml:"file,attr"`
	Children  []xmlChild `xml:",any"`
}

type xmlChild struct {
	XMLName xml.Name
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func hasPlainError(tc xmlCase) bool {
	for _, ch := range tc.Children {
		if ch.XMLName.Local == "error" {
			return true
		}
	}
	return false
}

func (tc xmlCase) toCase(suite string) Case {
	c := Case{
		ID:        ID(tc.Classname, tc.Name),
		Suite:     suite,
		Classname: tc.Classname,
		Name:      tc.Name,
		File:      tc.File,
		Status:    Passed,
	}
	failed, skipped, flaky := false, false, false
	for _, ch := range tc.Children {
		switch ch.XMLName.Local {
		case "failure", "error":
			if !failed {
				c.Message = firstLine(ch.Message, ch.Body)
			}
			failed = true
			c.Errored = c.Errored || ch.XMLName.Local == "error"
		case "skipped":
			if !failed && !skipped {
				c.Message = firstLine(ch.Message, ch.Body)
			}
			skipped = true
		case "flakyFailure", "flakyError":
			c.Reruns++
			flaky = true
		case "rerunFailure", "rerunError":
			// Written next to a final <failure>/<error> when every rerun
			// failed too. Alone (no final failure) it can only mean the
			// test passed eventually, so it is treated like flaky.
			c.Reruns++
			flaky = true
		}
	}
	switch {
	case failed:
		c.Status = Failed
	case skipped:
		c.Status = Skipped
	case flaky:
		c.Status = Flaky
	}
	if c.Status != Failed {
		c.Errored = false
	}
	return c
}

func firstLine(msg, body string) string {
	s := strings.TrimSpace(msg)
	if s == "" {
		s = strings.TrimSpace(body)
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) && len(s) > 0 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// charsetReader accepts the single-byte encodings producers actually declare
// besides UTF-8. Other charsets are refused with a clear error.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "windows-1252", "cp1252":
		return &latin1Reader{r: in}, nil
	}
	return nil, fmt.Errorf("unsupported XML encoding %q (re-encode the report as UTF-8)", label)
}

// latin1Reader decodes ISO-8859-1 bytes to UTF-8. windows-1252's extra
// punctuation in 0x80-0x9F is mapped like Latin-1, which only affects text,
// never test ids made of ASCII.
type latin1Reader struct {
	r   io.Reader
	buf []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		raw := make([]byte, (len(p)+1)/2+1)
		n, err := l.r.Read(raw)
		for _, b := range raw[:n] {
			l.buf = utf8.AppendRune(l.buf, rune(b))
		}
		if n == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
