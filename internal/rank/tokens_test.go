package rank

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"semantics case 13", "Does the files' cache-miss.log exist?", []string{"file", "cache", "miss.log", "exist"}},
		{"set in first-occurrence order", "cache CACHE caches go cache", []string{"cache", "go"}},
		{"only stopwords", "the of and a IS", nil},
		{"stopword tested before stem", "ands thes", []string{"and", "the"}},
		{"stem needs length > 3", "bus gas asks", []string{"bus", "gas", "ask"}},
		{"ss kept", "class miss", []string{"class", "miss"}},
		{"dots and stars stay", "go.mod *.go a*b 1.26", []string{"go.mod", "*.go", "a*b", "1.26"}},
		{"separators", "snake_case kebab-case a/b it's", []string{"snake", "case", "kebab", "b", "s"}},
		{"kelvin sign is k", "\u212Aelvin x\u212Ay", []string{"kelvin", "xky"}},
		{"dotted capital I ends the token", "\u0130stanbul xx\u0130yy", []string{"i", "stanbul", "xxi", "yy"}},
		{"other non-ASCII separates", "Stra\u00dfe caf\u00e9s \u00c9COLE", []string{"stra", "e", "caf", "s", "cole"}},
		{"invalid UTF-8 separates", "ab\xffcd\xc3", []string{"ab", "cd"}},
		{"upper case mid token", "goFLAGS GOFLAGS", []string{"goflag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestTokensMatchPython checks Tokens against CPython's output for 314
// texts, recorded by testdata/gen_tokens.py.
func TestTokensMatchPython(t *testing.T) {
	data, err := os.ReadFile("testdata/tokens.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text   string   `json:"text"`
		Tokens []string `json:"tokens"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("testdata/tokens.json: %v", err)
	}
	if len(cases) < 300 {
		t.Fatalf("testdata/tokens.json has %d cases, want >= 300", len(cases))
	}
	for _, c := range cases {
		got := Tokens(c.Text)
		if len(got) == 0 && len(c.Tokens) == 0 {
			continue
		}
		if !slices.Equal(got, c.Tokens) {
			t.Errorf("Tokens(%q) = %q, Python says %q", c.Text, got, c.Tokens)
		}
	}
}

func TestTokensLongTextDedup(t *testing.T) {
	// More than 16 distinct tokens switches to the map-based dedup.
	// More than 127 distinct tokens moves the dedup from its table to a map.
	var words []string
	for i := range 300 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	text := strings.Join(words, " ") + " " + strings.ToUpper(strings.Join(words, " "))
	got := Tokens(text)
	if !slices.Equal(got, words) {
		t.Errorf("Tokens(long) = %q, want %q", got, words)
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want float64
	}{
		{"both empty", nil, nil, 0},
		{"one empty", []string{"a"}, nil, 0},
		{"identical", []string{"a", "b"}, []string{"b", "a"}, 1},
		{"disjoint", []string{"a"}, []string{"b"}, 0},
		{"half", []string{"a", "b"}, []string{"b", "c", "a", "d"}, 0.5},
		{"repeats count once", []string{"a", "a", "b"}, []string{"a", "c", "c"}, 1.0 / 3},
		{"eleven twentieths", strings.Fields("a b c d e f g h i j k l m n o p"), strings.Fields("a b c d e f g h i j k q r s t u"), 11.0 / 21},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Jaccard(tt.a, tt.b); got != tt.want {
				t.Errorf("Jaccard(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Jaccard(tt.b, tt.a); got != tt.want {
				t.Errorf("Jaccard(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestJaccardLargeSets(t *testing.T) {
	var a, b []string
	for i := range 60 {
		a = append(a, strings.Repeat("a", i%50+1))
		if i%3 != 0 {
			b = append(b, strings.Repeat("a", i+1))
		}
	}
	// 50 distinct in a, 40 in b, shared: lengths 1..50 not divisible-by-3-indexed.
	var inter int
	for i := range 50 {
		if i%3 != 0 {
			inter++
		}
	}
	want := float64(inter) / float64(50+40-inter)
	if got := Jaccard(a, b); got != want {
		t.Errorf("Jaccard(large) = %v, want %v", got, want)
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "Does the files' cache-miss.log exist?", "\u212A\u0130x", "ab\xffcd", "TESTS tests ands", "a*b.c/d_e-f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokens(s)
		if want := referenceTokens(s); !slices.Equal(toks, want) {
			t.Fatalf("Tokens(%q) = %q, reference gives %q", s, toks, want)
		}
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("empty token from %q", s)
			}
		}
		want := 1.0
		if len(toks) == 0 {
			want = 0
		}
		if got := Jaccard(toks, toks); got != want {
			t.Fatalf("Jaccard(%q, itself) = %v, want %v", toks, got, want)
		}
	})
}

// referenceTokens is a slow, obviously-correct transcription of
// semantics §4.1 used as the fuzzing oracle.
func referenceTokens(s string) []string {
	var out []string
	for _, tok := range tokenRE.FindAllString(lowerLikePython(s), -1) {
		if isStopword(tok) {
			continue
		}
		if len(tok) > 3 && strings.HasSuffix(tok, "s") && !strings.HasSuffix(tok, "ss") {
			tok = tok[:len(tok)-1]
		}
		if !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	return out
}

var tokenRE = regexp.MustCompile(`[a-z0-9.*]+`)

// lowerLikePython maps s as Python's lower() does, as far as ASCII token
// characters are concerned; everything else becomes a space.
func lowerLikePython(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 && r == utf8.RuneError {
			b.WriteByte(' ')
			i++
			continue
		}
		switch {
		case r == '\u212A':
			b.WriteByte('k')
		case r == '\u0130':
			b.WriteString("i ")
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
		i += size
	}
	return b.String()
}
