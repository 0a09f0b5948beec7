// Package mdsafe quotes untrusted text (pull request titles, proposed lessons, authors, test
// ids, warnings that quote any of these) in the GitHub-flavoured Markdown of the bot pull
// request and the step summary so that it renders as the plain text it is: no mention that
// notifies a person or a team, no cross-reference that posts a backlink on another issue, no
// link, image or autolink, no HTML, code, math or table structure.
//
// Dependabot's LinkAndMentionSanitizer makes mentions inert and keeps references from
// linking back; this package does the same without a Markdown parser, by escaping every
// character that can start Markdown syntax and breaking the character sequences GitHub
// recognises after rendering (mentions, references, autolinks) with a zero-width space.
package mdsafe

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// zwsp is a zero-width space: invisible, and it breaks every pattern GitHub links after
// rendering (@login, #123, GH-123, https://, www.).
const zwsp = "\u200b"

// escaper escapes the ASCII characters that can start Markdown or HTML syntax with a
// backslash (CommonMark escapes any ASCII punctuation), or as an entity where HTML needs one.
// "_" is left alone: intraword underscores never emphasise, and snake_case identifiers stay
// searchable in the raw body; "_word_" renders in italics, which is harmless.
var escaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "~", `\~`, "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`,
	"!", `\!`, "|", `\|`, "$", `\$`, "{", `\{`, "}", `\}`, "^", `\^`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
	"@", "@"+zwsp, "#", "#"+zwsp, "://", ":"+zwsp+"//",
)

var (
	// www. and GH-123 are matched case-insensitively, as GitHub does.
	wwwRe = regexp.MustCompile(`(?i)\bwww\.`)
	ghRe  = regexp.MustCompile(`(?i)\bgh-([0-9])`)
)

// Inline returns s as inert inline Markdown on one line: white space runs become one space,
// control and bidirectional-override characters are dropped, text longer than max runes is
// cut with "…" (max <= 0: no cap), and the result is safe inside a table cell, a list item
// or a sentence.
func Inline(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	s = strings.Map(dropInvisible, s)
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	s = escaper.Replace(s)
	s = wwwRe.ReplaceAllStringFunc(s, func(m string) string { return m[:3] + zwsp + m[3:] })
	s = ghRe.ReplaceAllStringFunc(s, func(m string) string { return m[:3] + zwsp + m[3:] })
	return s
}

// Code returns s as an inline code span on one line, safe inside a table cell: backticks
// and control characters are dropped and pipes escaped (GFM splits cells on a pipe even in a
// code span). Mentions and links do not render inside a code span.
func Code(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	s = strings.Map(func(r rune) rune {
		if r == '`' {
			return -1
		}
		return dropInvisible(r)
	}, s)
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return "` `"
	}
	return "`" + s + "`"
}

// CodeBlock returns s as a fenced code block whose fence is longer than any backtick run in s,
// so the text cannot close it and continue as Markdown.
func CodeBlock(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		return dropInvisible(r)
	}, s)
	return fence + "\n" + strings.TrimSuffix(s, "\n") + "\n" + fence + "\n"
}

// dropInvisible removes control characters and the bidirectional controls that can make
// text display differently from what it is (Trojan Source).
func dropInvisible(r rune) rune {
	switch {
	case r == utf8.RuneError, unicode.IsControl(r):
		return -1
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return -1
	}
	return r
}
