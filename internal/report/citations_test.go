package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/golden"
)

// The citations section lists, per merged pull request, the removed paths with the lessons
// they leave without a valid citation and the renamed paths; paths and questions, which
// pull request authors control, render as inert text.
func TestBodyCitations(t *testing.T) {
	t.Parallel()
	evil := "@octocat [click](https://evil.example) <img src=x> fixes #1"
	r := Report{RepoURL: "https://github.com/acme/shop", StorePath: ".darwin-memo/lessons.json", Citations: []Citations{
		{PR: 12,
			Broken: []Broken{
				{Path: "src/gone.go", Lessons: 2, Orphaned: []Lesson{{ID: "0123456789ab", Question: "How are tokens minted?"}}},
				{Path: "src/@octocat`x`.go", Lessons: 1},
				{Path: "src/evil.go#Fn", Lessons: 1, Orphaned: []Lesson{{ID: "abcdefabcdef", Question: evil}}},
			},
			Moved: []Moved{{From: "src/old.go", To: "src/new.go", Lessons: 1}, {From: "a.go", To: "[x](https://evil.example).go", Lessons: 2}}},
		{PR: 13, Moved: []Moved{{From: "b.go", To: "c.go", Lessons: 1}}},
		{PR: 14}, // nothing cited changed: no section
	}}
	b := Body(r)
	for _, want := range []string{"### Citations broken by [#12](https://github.com/acme/shop/pull/12)", "`src/gone.go`, cited by 2 lessons, was removed; it leaves 1 without any valid citation:",
		"  - `0123456789ab` How are tokens minted?", "every lesson citing it keeps another citation", "`src/old.go` → `src/new.go` (1 lesson)",
		"### Citations followed by [#13]", "`b.go` → `c.go` (1 lesson)"} {
		if !strings.Contains(b, want) {
			t.Errorf("body lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, "#14") {
		t.Errorf("a pull request that changed no citation has a section:\n%s", b)
	}
	codeSpan := regexp.MustCompile("`[^`]*`") // links and mentions do not render in one
	for _, line := range strings.Split(b, "\n") {
		line = codeSpan.ReplaceAllString(line, "")
		if strings.Contains(line, "evil") && (strings.Contains(line, "](https://evil") || strings.Contains(line, "@octocat") || strings.Contains(line, "<img")) {
			t.Errorf("user text not neutralised: %s", line)
		}
	}
	golden.Check(t, "citations.golden.md", b)
}

// A pull request that removes many cited files keeps the section bounded.
func TestBodyCitationsCapped(t *testing.T) {
	t.Parallel()
	c := Citations{PR: 5}
	for i := 0; i < 3*listCap; i++ {
		c.Broken = append(c.Broken, Broken{Path: fmt.Sprintf("src/f%03d.go", i), Lessons: 1, Orphaned: []Lesson{{ID: fmt.Sprintf("%012d", i), Question: "q"}}})
		c.Moved = append(c.Moved, Moved{From: fmt.Sprintf("a%03d.go", i), To: fmt.Sprintf("b%03d.go", i), Lessons: 1})
	}
	b := citations(Report{Citations: []Citations{c}})
	if n := strings.Count(b, "\n  - `"); n > listCap {
		t.Errorf("%d lessons listed, cap %d", n, listCap)
	}
	if !strings.Contains(b, fmt.Sprintf("… %d more removed paths", 2*listCap)) || !strings.Contains(b, fmt.Sprintf("… %d more", 2*listCap)) || strings.Contains(b, "b100.go") {
		t.Errorf("not capped:\n%s", b)
	}
}
