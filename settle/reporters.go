package settle

import (
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

var (
	reDornyTitle    = regexp.MustCompile(`^(\d+) passed, (\d+) failed and (\d+) skipped\s*$`)
	reMikepenzTitle = regexp.MustCompile(`^(\d+) tests run, (\d+) passed, (\d+) skipped, (\d+) failed\.\s*$`)
	reHTMLTag       = regexp.MustCompile(`<[^>]*>`)
)

// mikepenzNoResults is the title of a mikepenz check run that found nothing.
const mikepenzNoResults = "No test results found!"

// ParseDornyTitle reads the counts in a dorny/test-reporter check-run
// title, "<passed> passed, <failed> failed and <skipped> skipped ".
func ParseDornyTitle(title string) (junit.Counts, bool) {
	m := reDornyTitle.FindStringSubmatch(title)
	if m == nil {
		return junit.Counts{}, false
	}
	p, f, s := atoi(m[1]), atoi(m[2]), atoi(m[3])
	t, ok := sumCounts(p, f, s)
	if !ok {
		return junit.Counts{}, false
	}
	return junit.Counts{Tests: t, Passed: p, Failed: f, Skipped: s}, true
}

// sumCounts adds a title's counts: false when one is negative (not a count) or the sum
// overflows (a title can carry any number, and a wrapped sum can even match its total).
func sumCounts(counts ...int) (int, bool) {
	sum := 0
	for _, n := range counts {
		if n < 0 || n > math.MaxInt-sum {
			return 0, false
		}
		sum += n
	}
	return sum, true
}

// ParseMikepenzTitle reads the counts in a mikepenz/action-junit-report
// check-run title, "<total> tests run, <passed> passed, <skipped> skipped,
// <failed> failed." ("No test results found!" gives zero tests). The
// counts must add up.
func ParseMikepenzTitle(title string) (junit.Counts, bool) {
	if strings.TrimSpace(title) == mikepenzNoResults {
		return junit.Counts{}, true
	}
	m := reMikepenzTitle.FindStringSubmatch(title)
	if m == nil {
		return junit.Counts{}, false
	}
	t, p, s, f := atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4])
	if sum, ok := sumCounts(p, s, f); !ok || sum != t {
		return junit.Counts{}, false
	}
	return junit.Counts{Tests: t, Passed: p, Failed: f, Skipped: s}, true
}

// ParseDornySummary reads the per-test lines dorny/test-reporter writes
// with list-tests: all: under each "### <icon> <suite>" heading a fenced
// block of "✅ name" / "❌ name" / "⚪ name" lines, optionally grouped under
// unindented classname lines. The id is "group::name", or "suite::name"
// when the test has no group. It also returns the raw line counts (before
// duplicates combine) so callers can check them against the title.
func ParseDornySummary(summary string) (map[string]junit.Status, junit.Counts) {
	res := map[string]junit.Status{}
	var raw junit.Counts
	suite, group := "", ""
	inFence := false
	for _, line := range strings.Split(summary, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			group = ""
			continue
		}
		if !inFence {
			if h, ok := strings.CutPrefix(line, "### "); ok {
				suite = dornySuite(h)
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "\t") {
			continue // failure details
		}
		indented := strings.HasPrefix(line, "  ")
		text := strings.TrimSpace(line)
		var st junit.Status
		switch {
		case strings.HasPrefix(text, "✅ "):
			st = junit.Passed
		case strings.HasPrefix(text, "❌ "):
			st = junit.Failed
		case strings.HasPrefix(text, "⚪ "):
			st = junit.Skipped
		default:
			if !indented {
				group = text
			}
			continue
		}
		name := strings.TrimSpace(text[strings.IndexByte(text, ' ')+1:])
		prefix := suite
		if indented && group != "" {
			prefix = group
		}
		id := junit.ID(prefix, name)
		raw.Tests++
		switch st {
		case junit.Passed:
			raw.Passed++
		case junit.Failed:
			raw.Failed++
		case junit.Skipped:
			raw.Skipped++
		}
		junit.Record(res, id, st)
	}
	return res, raw
}

// dornySuite extracts the suite name from a dorny heading such as
// "❌\u00a0<a id=\"user-content-r0s0\" href=\"...\">pytest</a>": tags
// removed, the leading status icon dropped.
func dornySuite(h string) string {
	h = strings.TrimFunc(reHTMLTag.ReplaceAllString(h, ""), unicode.IsSpace)
	if i := strings.IndexFunc(h, unicode.IsSpace); i >= 0 {
		return strings.TrimFunc(h[i:], unicode.IsSpace)
	}
	return ""
}
