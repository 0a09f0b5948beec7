package mdsafe

import (
	"strings"
	"testing"
)

func TestInline(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain words, digits 42 and a dot.", "plain words, digits 42 and a dot."},
		{"ping @octocat and @acme/security", "ping @\u200boctocat and @\u200bacme/security"},
		{"fixes #12 and GH-7 and acme/shop#3", "fixes #\u200b12 and GH-\u200b7 and acme/shop#\u200b3"},
		{"![x](https://evil.example/p.png)", `\!\[x\]\(https:` + "\u200b" + `//evil.example/p.png\)`},
		{"see www.evil.example", "see www\u200b.evil.example"},
		{"<img src=x onerror=alert(1)>", `&lt;img src=x onerror=alert\(1\)&gt;`},
		{"a | b `c` *d* _e_ ~f~ $x$", "a \\| b \\`c\\` \\*d\\* _e_ \\~f\\~ \\$x\\$"},
		{"&#64;octocat", "&amp;#\u200b64;octocat"},
		{"line1\nline2\r\n\t::warning::x", "line1 line2 ::warning::x"},
		{"rtl\u202egnp.exe", "rtlgnp.exe"},
	} {
		if got := Inline(c.in, 0); got != c.want {
			t.Errorf("Inline(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := Inline("abcdef", 4); got != "abc…" {
		t.Errorf("cap: %q", got)
	}
	// The cap counts the text, not the escapes, and never cuts an escape in half.
	if got := Inline("a|b|c|d", 4); got != `a\|b…` {
		t.Errorf("cap with escapes: %q", got)
	}
}

func TestCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0123456789ab": "`0123456789ab`",
		"a`b|c\nd":     "`ab\\|c d`",
		"``":           "` `",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodeBlock(t *testing.T) {
	t.Parallel()
	got := CodeBlock("err\n```\n![x](y) @octocat\n")
	if !strings.HasPrefix(got, "````\n") || !strings.HasSuffix(got, "\n````\n") {
		t.Fatalf("fence not longer than the text's: %q", got)
	}
}

func FuzzInline(f *testing.F) {
	f.Add("@octocat ![x](y) <b> | #1 https://x")
	f.Fuzz(func(t *testing.T, s string) {
		out := Inline(s, 50)
		if strings.ContainsAny(out, "\n\r<>") {
			t.Fatalf("line break or HTML in %q", out)
		}
		for i := 0; i < len(out); i++ {
			c := out[i]
			if c == '@' || c == '#' {
				if !strings.HasPrefix(out[i+1:], "\u200b") {
					t.Fatalf("unbroken %c in %q", c, out)
				}
			}
			if strings.ContainsRune("|[]()!`*~$", rune(c)) && (i == 0 || out[i-1] != '\\') {
				t.Fatalf("unescaped %c at %d in %q", c, i, out)
			}
		}
	})
}
