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
			if t.Name.Local == "testcase" {
				var tc xmlCase
				if err := d.DecodeElement(&tc, &t); err != nil {
					return fmt.Errorf("junit: parse %s: testcase %q: %w", name, attr(t, "name"), err)
				}
				depth--
				c := tc.toCase()
				if strings.TrimSpace(tc.Classname) == "" && hasPlainError(tc) {
					r.CollectionErrors = append(r.CollectionErrors, c.ID)
				}
				r.Cases = append(r.Cases, c)
			}
		case xml.EndElement:
			depth--
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
	Children  []xmlChild `xml:",any"`
}

type xmlChild struct {
	XMLName xml.Name
	Body    string `xml:",chardata"` // read, so a malformed child fails as in the product
}

func hasPlainError(tc xmlCase) bool {
	for _, ch := range tc.Children {
		if ch.XMLName.Local == "error" {
			return true
		}
	}
	return false
}

func (tc xmlCase) toCase() Case {
	c := Case{
		ID:        ID(tc.Classname, tc.Name),
		Classname: tc.Classname,
		Name:      tc.Name,
		Status:    Passed,
	}
	failed, skipped, flaky := false, false, false
	for _, ch := range tc.Children {
		switch ch.XMLName.Local {
		case "failure", "error":
			failed = true
		case "skipped":
			skipped = true
		case "flakyFailure", "flakyError", "rerunFailure", "rerunError":
			// Written next to a final <failure>/<error> when every rerun
			// failed too. Alone (no final failure) it can only mean the
			// test passed eventually, so it is treated like flaky.
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
	return c
}
