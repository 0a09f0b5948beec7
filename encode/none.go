package encode

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// lessonPrefix matches an explicit lesson line: "Lesson: ...", optionally
// as a list item or quote, in any letter case.
var lessonPrefix = regexp.MustCompile(`(?i)^\s*(?:[-*+>]\s*)?lesson\s*:\s*(.+)$`)

// lessonLine returns the text of an explicit "Lesson:" line.
func lessonLine(line string) (string, bool) {
	m := lessonPrefix.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	text := strings.TrimSpace(m[1])
	return text, text != ""
}

// requestWords mark a review comment that asks for a change.
var requestWords = regexp.MustCompile(`(?i)\b(please|should|must|instead|avoid|don't|do not|never|need|needs|rename|move|prefer|nit|consider|missing|why not|can we|could you|let's|better to|make sure|ensure|wrap|handle|check)\b`)

// Deterministic returns the lessons the no-LLM encoder finds in a
// normalised PR, in a fixed order:
//
//  1. explicit "Lesson:" lines in the PR body, then in commit messages
//     (trailers), written "Lesson: <question>? <answer>" or
//     "Lesson: <statement>";
//  2. each CI failure the PR fixed: what the failure was and which files
//     the fix changed;
//  3. each review comment that asked for a change and was addressed by a
//     later commit: what reviewers require when editing that path.
//
// The same PR always yields the same lessons. The lessons still go
// through every validation rule; the encoder never trusts its own output.
func Deterministic(p *PR) []RawLesson {
	var out []RawLesson
	for _, line := range strings.Split(p.Body, "\n") {
		if text, ok := lessonLine(line); ok {
			out = append(out, explicitLesson(p, text, "pr"))
		}
	}
	for _, c := range p.Commits {
		for _, line := range strings.Split(c.Message, "\n")[1:] {
			if text, ok := lessonLine(line); ok {
				out = append(out, explicitLesson(p, text, "commit:"+c.Short()))
			}
		}
	}
	top := topFiles(p.Files, 3)
	for _, f := range p.CIFixed {
		out = append(out, ciLesson(f, top))
	}
	seenPath := map[string]bool{}
	changed := map[string]bool{}
	for _, f := range p.Files {
		changed[f.Path] = true
	}
	for _, r := range p.Reviews {
		if !r.Addressed || r.Reply || !changed[r.Path] || seenPath[r.Path] {
			continue
		}
		text := reviewRequest(r.Body)
		if text == "" {
			continue
		}
		seenPath[r.Path] = true
		out = append(out, RawLesson{
			Question: fmt.Sprintf("What do reviewers require when editing %s?", r.Path),
			Answer:   text,
			Kind:     "explicit",
			Evidence: []string{fmt.Sprintf("review:%d", r.ID), "diff:" + r.Path},
			Paths:    []string{r.Path},
		})
	}
	return out
}

// explicitLesson turns the text of a "Lesson:" line into a lesson citing
// doc and every changed file the text names.
func explicitLesson(p *PR, text, doc string) RawLesson {
	l := RawLesson{Kind: "explicit", Evidence: []string{doc}, Paths: []string{}}
	for _, f := range p.Files {
		if strings.Contains(text, f.Path) {
			l.Evidence = append(l.Evidence, "diff:"+f.Path)
			l.Paths = append(l.Paths, f.Path)
		}
	}
	q, a, ok := splitQA(text)
	if ok {
		l.Question, l.Answer = q, a
		return l
	}
	subject := codeSubject(text)
	if subject == "" && len(l.Paths) > 0 {
		subject = l.Paths[0]
	}
	if subject == "" {
		if top := topFiles(p.Files, 1); len(top) > 0 {
			subject = top[0]
			l.Evidence = append(l.Evidence, "diff:"+subject)
			l.Paths = append(l.Paths, subject)
		}
	}
	if subject == "" {
		subject = strings.Join(strings.Fields(text)[:min(4, len(strings.Fields(text)))], " ")
	}
	l.Question = fmt.Sprintf("What should be known about %s?", subject)
	l.Answer = text
	return l
}

// splitQA splits "Q: ... A: ..." or "<question>? <answer>".
func splitQA(text string) (q, a string, ok bool) {
	if rest, found := cutPrefixFold(text, "q:"); found {
		if i := strings.Index(strings.ToLower(rest), " a:"); i >= 0 {
			return strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+3:]), true
		}
	}
	if i := strings.Index(text, "?"); i > 0 && strings.TrimSpace(text[i+1:]) != "" {
		return strings.TrimSpace(text[:i+1]), strings.TrimSpace(text[i+1:]), true
	}
	return "", "", false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// codeIdent matches a code-like word: a path, a dotted or snake_case name,
// or a camelCase identifier.
var codeIdent = regexp.MustCompile("`([^`\\s]{2,80})`|\\b([A-Za-z0-9_-]+(?:[./][A-Za-z0-9_-]+)+|[a-z0-9]+_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\\b")

func codeSubject(text string) string {
	m := codeIdent.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}

// ciLesson describes a fixed CI failure and the files the fix touched.
func ciLesson(f CIFailure, top []string) RawLesson {
	l := RawLesson{
		Question: fmt.Sprintf("What made the test %s fail?", f.Test),
		Kind:     "experience",
		Evidence: []string{"ci:" + f.Test},
		Paths:    []string{},
	}
	msg := firstLine(f.Message)
	if msg != "" {
		l.Answer = fmt.Sprintf("The test %s failed with: %s.", f.Test, capText(strings.TrimRight(msg, "."), 300))
	} else {
		l.Answer = fmt.Sprintf("The test %s failed.", f.Test)
	}
	if len(top) > 0 {
		l.Answer += fmt.Sprintf(" It passed after changes to %s.", strings.Join(top, ", "))
		for _, p := range top {
			l.Evidence = append(l.Evidence, "diff:"+p)
			l.Paths = append(l.Paths, p)
		}
	}
	return l
}

// reviewRequest returns the first sentences (up to 300 bytes) of a review
// comment that asks for a change, without quoted lines or code blocks, or
// "" when the comment asks for nothing.
func reviewRequest(body string) string {
	var kept []string
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return "" // the request depends on code the lesson cannot carry
		}
		if strings.HasPrefix(t, ">") || t == "" {
			continue
		}
		kept = append(kept, t)
	}
	text := oneLine(strings.Join(kept, " "))
	if !requestWords.MatchString(text) {
		return ""
	}
	return sentences(text, 300)
}

// sentences returns whole sentences of text up to n bytes (at least the
// first, capped).
func sentences(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := 0
	for i := 0; i < len(text) && i < n; i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (i+1 == len(text) || text[i+1] == ' ') {
			cut = i + 1
		}
	}
	if cut == 0 {
		return capText(text, n)
	}
	return text[:cut]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// topFiles returns up to n changed paths with the most changed lines
// (ties by path).
func topFiles(files []File, n int) []string {
	fs := slices.Clone(files)
	slices.SortStableFunc(fs, func(a, b File) int {
		return cmp.Or(cmp.Compare(b.Additions+b.Deletions, a.Additions+a.Deletions), strings.Compare(a.Path, b.Path))
	})
	var out []string
	for _, f := range fs[:min(n, len(fs))] {
		out = append(out, f.Path)
	}
	return out
}
