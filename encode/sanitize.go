package encode

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize returns s as plain, visible text: invalid UTF-8 is replaced,
// carriage returns become newlines, invisible and bidirectional control
// characters (Unicode format characters such as U+200B..U+200F,
// U+202A..U+202E, U+2066..U+2069, U+FEFF and the tag block U+E0000..U+E007F),
// variation selectors, private-use characters and Hangul fillers are
// removed, other control characters and exotic spaces become a space,
// full-width ASCII is folded to ASCII, and HTML comments (GitHub hides them
// when rendering) are removed, including an unterminated one.
//
// Sanitize is idempotent: Sanitize(Sanitize(s)) == Sanitize(s).
func Sanitize(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
		case invisible(r):
			// dropped
		case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
			b.WriteRune(r - 0xFEE0)
		case unicode.IsControl(r) || (unicode.IsSpace(r) && r != ' ') || unicode.Is(unicode.Zs, r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return stripHTMLComments(b.String())
}

// invisible reports whether r renders as nothing (or changes the display
// order of its neighbours) and so can hide text from a human reviewer.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r): // format: zero-width, bidi, tags, BOM, soft hyphen
		return true
	case r >= 0xE0000 && r <= 0xE007F: // tag block (ASCII smuggling)
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	case unicode.Is(unicode.Co, r): // private use
		return true
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x2800: // fillers, braille blank
		return true
	}
	return false
}

// stripHTMLComments removes <!-- ... --> spans until none is left, so that
// nested or split markers cannot reassemble into a hidden comment. An
// unterminated comment hides everything after it on GitHub, so it is cut.
func stripHTMLComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+4+j+3:]
	}
}

// capText returns s cut to at most n bytes on a rune boundary, with an
// ellipsis appended when something was cut. Every cap is a constant of at
// least 12 bytes, above the ellipsis's 3.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// capLines returns at most n lines of s.
func capLines(s string, n int) string {
	idx := 0
	for i := 0; i < n; i++ {
		k := strings.IndexByte(s[idx:], '\n')
		if k < 0 {
			return s
		}
		idx += k + 1
	}
	return strings.TrimRight(s[:idx], "\n") + "\n…"
}

// oneLine collapses all whitespace runs in s to single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// suspicious returns why raw (text as the attacker wrote it, before
// Sanitize) looks like an injection attempt, or "": characters that hide
// or disguise text (Unicode tags, bidi controls, zero-width characters
// inside a word, full-width letters, words mixing Latin with another
// script), or phrases that address a model (injectionMarker, and in prose
// rolePattern).
func suspicious(raw string, prose bool) string {
	rs := []rune(raw)
	for i, r := range rs {
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			return fmt.Sprintf("Unicode tag character U+%04X", r)
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("bidirectional control U+%04X", r)
		case r >= 0xFF21 && r <= 0xFF3A, r >= 0xFF41 && r <= 0xFF5A:
			return fmt.Sprintf("full-width letter U+%04X", r)
		case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0x00AD || r == 0xFEFF || r == 0x180E:
			if i > 0 && i+1 < len(rs) && asciiAlnum(rs[i-1]) && asciiAlnum(rs[i+1]) {
				return fmt.Sprintf("zero-width character U+%04X inside a word", r)
			}
		}
	}
	if w, ok := mixedScript(raw); ok {
		return fmt.Sprintf("word %q mixes scripts", w)
	}
	clean := Sanitize(raw)
	if m := injectionMarker.FindString(normalizeWords(clean)); m != "" {
		return fmt.Sprintf("text addressed to a model: %q", m)
	}
	if prose {
		if m := rolePattern.FindString(clean); m != "" {
			return fmt.Sprintf("role marker %q", strings.TrimSpace(m))
		}
	}
	return ""
}

func asciiAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
