package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/golden"
)

// hostile is a report whose every user-quoted string tries to ping people, link back to
// issues, show an image, inject HTML or break the table.
func hostile() Report {
	evil := "@octocat @acme/security ![pwn](https://evil.example/t.png) [click](https://evil.example) <img src=x onerror=alert(1)> fixes #1 GH-2 acme/other#3 https://evil.example www.evil.example | `code` &#64;ghost $$\\huge$$"
	return Report{
		RepoURL: "https://github.com/acme/shop", StorePath: ".darwin-memo/lessons.json",
		Settlements: []Settlement{{PR: 7, Title: evil, Outcome: "settled", Delta: f(1), Source: "junit-artifacts",
			Before: "1111111111111111111111111111111111111111", After: "](https://evil.example)",
			Quarantined: []string{evil}, Settled: []string{"abc`|def"}}},
		Births:    []Birth{{ID: "0123456789ab", Question: evil, Answer: evil, Sources: []string{evil}}},
		Proposed:  []Proposal{{PR: 8, Question: evil, Answer: evil, Author: "@octocat"}},
		Deaths:    []Death{{ID: "deadbeef0000", Question: evil, Cause: "merged", Heir: "x`y", Notes: []string{evil}, Lineage: []string{"a`b"}}},
		Merges:    []Merge{{ID: "aaaaaaaaaaaa", Question: evil, Members: []string{"b1`"}, Energy: 1}},
		Survivors: []Survivor{{ID: "0123456789ab", Question: evil, Energy: 1}},
		Warnings:  []string{"#9 abstained: " + evil, evil},
		Tick:      1,
	}
}

func TestBodyNeutralisesUserText(t *testing.T) {
	t.Parallel()
	b := Body(hostile())
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`@octocat|@acme/`),               // mentions
		regexp.MustCompile(`(^|[^\\])!\[|\]\(https://evil`), // images and links
		regexp.MustCompile(`<img|&#64;`),                    // HTML, entity-spelled mentions
		regexp.MustCompile(`(^|[^\w/])#[0-9]+\b[^(\]]|GH-2|other#3`),
		regexp.MustCompile(`https://evil|www\.evil`), // autolinks
		regexp.MustCompile(`(^|[^\\])\$\$`),          // math
	} {
		for _, line := range strings.Split(b, "\n") {
			if m := bad.FindString(line); m != "" && !strings.HasPrefix(line, "- #9 ") {
				t.Errorf("%s matches %q in line\n%s", bad, m, line)
			}
		}
	}
	for _, line := range strings.Split(b, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| PR") && !strings.HasPrefix(line, "| Lesson") {
			cells := strings.Count(line, "|") - strings.Count(line, `\|`)
			if cells < 5 || cells > 7 {
				t.Errorf("table row broken (%d pipes): %s", cells, line)
			}
		}
	}
	golden.Check(t, "hostile.golden.md", b)
}
