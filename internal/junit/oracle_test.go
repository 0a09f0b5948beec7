package junit

// oracle_test.go keeps the parser this package had before it streamed testcases (one
// DecodeElement per testcase into xmlCase): the streaming walker must reproduce its cases,
// messages included, on every report in testdata and on fuzzed input.

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

func oracleParse(name string, src io.Reader) (*Report, error) {
	r := &Report{}
	if err := r.oracleAdd(name, src); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Report) oracleAdd(name string, src io.Reader) error {
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
