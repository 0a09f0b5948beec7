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
	"encoding/xml"
	"errors"
	"fmt"
	"io"
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

// Record sets the status of id in results, combined with the status already there.
func Record(results map[string]Status, id string, s Status) {
	if prev, ok := results[id]; ok {
		s = Combine(prev, s)
	}
	results[id] = s
}

// Case is one <testcase> element: what a measurement reads of it.
type Case struct {
	// ID is classname + "::" + name, or just name when classname is empty.
	ID        string
	Classname string
	Name      string
	Status    Status
}

// MaxDepth bounds element nesting so hostile input cannot exhaust the stack
// of a caller that walks it; encoding/xml itself does not recurse.
const MaxDepth = 256

// ErrNotJUnit is wrapped by Tally.Add when the document's root element is not
// <testsuites>, <testsuite> or <testcase>.
var ErrNotJUnit = errors.New("not a JUnit XML report")

// Counts summarises a result map.
type Counts struct {
	Tests, Passed, Failed, Skipped, Flaky int
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Tests += o.Tests
	c.Passed += o.Passed
	c.Failed += o.Failed
	c.Skipped += o.Skipped
	c.Flaky += o.Flaky
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

// walk streams one JUnit XML document and calls emit for every testcase as soon as its end
// tag is read (c is reused afterwards: emit copies what it keeps); collection is true for a
// testcase with an empty classname and an <error>. It keeps only the testcase being read
// (its id and the kinds of its children, never their text) and not the document, so its
// memory does not grow with the report's size. encoding/xml expands no external entity and no DTD: a document that uses
// an entity it declares (billion laughs, XXE) fails with a syntax error.
func walk(name string, src io.Reader, emit func(c *Case, collection bool) error) error {
	d := xml.NewDecoder(src)
	d.CharsetReader = charsetReader
	depth := 0
	sawRoot := false
	var cur *caseState // the testcase being read, nil outside one
	var cs caseState   // reused for every testcase
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if cur != nil {
				return fmt.Errorf("junit: parse %s: testcase %q: %w", name, cur.c.Name, err)
			}
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
			switch {
			case cur != nil:
				// Inside a testcase only its direct children count, as with
				// DecodeElement into xmlCase: nested suites and cases are ignored.
				if depth == cur.depth+1 {
					cur.child = t.Name.Local
				}
			case t.Name.Local == "testcase":
				cs.reset(t, depth)
				cur = &cs
			}
		case xml.EndElement:
			switch {
			case cur != nil && depth == cur.depth+1:
				cur.endChild()
			case cur != nil && depth == cur.depth:
				c, collection := cur.finish()
				cur = nil
				if err := emit(c, collection); err != nil {
					return err
				}
			}
			depth--
		}
	}
	if !sawRoot {
		return fmt.Errorf("junit: parse %s: empty document: %w", name, ErrNotJUnit)
	}
	return nil
}

func attr(t xml.StartElement, name string) string {
	// A repeated attribute (malformed, but encoding/xml accepts it) counts by its last value,
	// as xml.Decoder.DecodeElement fills a struct field.
	v := ""
	for _, a := range t.Attr {
		if a.Name.Local == name {
			v = a.Value
		}
	}
	return v
}

// caseState is one <testcase> being streamed. Children are seen in document order, so the
// "skip unless already failed" rule applies as they arrive.
type caseState struct {
	c                      Case
	depth                  int
	failed, skipped, flaky bool
	errored                bool // an <error> child: with an empty classname, a collection error
	child                  string
}

// reset starts a testcase.
func (cs *caseState) reset(t xml.StartElement, depth int) {
	*cs = caseState{depth: depth}
	cs.c = Case{Classname: attr(t, "classname"), Name: attr(t, "name"), Status: Passed}
	cs.c.ID = ID(cs.c.Classname, cs.c.Name)
}

func (cs *caseState) endChild() {
	switch cs.child {
	case "failure", "error":
		cs.failed = true
		cs.errored = cs.errored || cs.child == "error"
	case "skipped":
		cs.skipped = true
	case "flakyFailure", "flakyError", "rerunFailure", "rerunError":
		// A rerun element written next to a final <failure>/<error> when every rerun failed
		// too. Alone (no final failure) it can only mean the test passed eventually, so it is
		// treated like flaky.
		cs.flaky = true
	}
	cs.child = ""
}

func (cs *caseState) finish() (*Case, bool) {
	c := &cs.c
	switch {
	case cs.failed:
		c.Status = Failed
	case cs.skipped:
		c.Status = Skipped
	case cs.flaky:
		c.Status = Flaky
	}
	return c, cs.errored && strings.TrimSpace(c.Classname) == ""
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
