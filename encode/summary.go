package encode

import (
	"fmt"
	"strings"
)

// Summary renders the result as Markdown for the workflow step summary:
// the provider, the fallback reason if any, and one row per candidate
// with its status (added, proposed, duplicate, rejected) and why. Lesson
// text is escaped so that a rejected lesson cannot render links, images,
// HTML or mentions.
func (r *Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Lessons from PR #%d\n\n", r.PR)
	fmt.Fprintf(&b, "Provider: `%s`", strings.ReplaceAll(r.Requested, "`", "'"))
	if r.Fallback != "" {
		fmt.Fprintf(&b, " (fell back to the deterministic encoder: %s)", escapeMarkdown(r.Fallback, 300))
	}
	b.WriteString("\n\n")
	if len(r.Candidates) == 0 {
		b.WriteString("No lessons: nothing in this pull request was worth remembering.\n")
		return b.String()
	}
	b.WriteString("| Status | Lesson | Sources | Note |\n|---|---|---|---|\n")
	for _, c := range r.Candidates {
		status, note := "added", ""
		switch {
		case c.Rejected != "":
			status, note = "rejected", c.Rejected
		case c.DuplicateOf != "":
			status, note = "duplicate", fmt.Sprintf("matches %s (Jaccard %.2f)", c.DuplicateOf, c.Similarity)
		case c.Proposed:
			status, note = "proposed", "untrusted source: "+c.Untrusted
		case c.Supersedes != "":
			note = "replaces " + c.Supersedes
		case c.SupersedeNote != "":
			note = c.SupersedeNote
		}
		fmt.Fprintf(&b, "| %s | Q: %s<br>A: %s | %s | %s |\n", status,
			escapeMarkdown(c.Question, 200), escapeMarkdown(c.Answer, 400),
			escapeMarkdown(strings.Join(c.Sources, ", "), 200), escapeMarkdown(note, 200))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "NONE"
	}
	return s
}

// escapeMarkdown caps s and makes it inert in a GitHub Markdown table
// cell: it becomes a code span (no links, images, HTML, mentions or
// autolinks render inside one), with backticks replaced and pipes escaped.
func escapeMarkdown(s string, n int) string {
	s = capText(oneLine(Sanitize(s)), n)
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "|", "\\|")
	return "`" + s + "`"
}
