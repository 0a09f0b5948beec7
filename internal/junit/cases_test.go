package junit_test

// Semantics §12 case 27, the one pure-parser case. Cases 28-32 and 36 are in
// settle/cases_test.go.

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

// TestCase27JUnitIDs ports §12 case 27:
//
//  27. JUnit ids. A testcase classname="a.b" name="t" gets id a.b::t. One
//     with an empty classname gets id t.
//
// §7.2 adds that a missing attribute counts as "", so a testcase without a
// classname attribute also gets id t.
func TestCase27JUnitIDs(t *testing.T) {
	if got := junit.ID("a.b", "t"); got != "a.b::t" {
		t.Errorf(`ID("a.b", "t") = %q, want "a.b::t"`, got)
	}
	if got := junit.ID("", "t"); got != "t" {
		t.Errorf(`ID("", "t") = %q, want "t"`, got)
	}
	tests := []struct {
		name, xml, want string
	}{
		{"classname a.b", `<testsuite><testcase classname="a.b" name="t"/></testsuite>`, "a.b::t"},
		{"empty classname", `<testsuite><testcase classname="" name="t"/></testsuite>`, "t"},
		{"missing classname", `<testsuite><testcase name="t"/></testsuite>`, "t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := junit.ParseBytes("case27.xml", []byte(tt.xml))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Cases) != 1 || rep.Cases[0].ID != tt.want {
				t.Fatalf("cases = %+v, want one with id %q", rep.Cases, tt.want)
			}
			res := rep.Results()
			if len(res) != 1 || res[tt.want] != junit.Passed {
				t.Errorf("Results() = %v, want {%q: passed}", res, tt.want)
			}
		})
	}
}
