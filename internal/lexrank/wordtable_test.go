package lexrank

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx/textgen"
)

// checkWordTable puts words into a wordTable and a map alike (each word's
// value is its index; a repeated word overwrites) and checks after every
// put that the table has the map's words and values, and none other of
// words. hash gives each word's hash: hashString, or a poor one that makes
// words collide.
func checkWordTable(t *testing.T, tab *wordTable, words []string, hash func(string) uint32) {
	t.Helper()
	ref := map[string]int32{}
	check := func(w string) {
		t.Helper()
		v, ok := tab.get(w, hash(w))
		rv, rok := ref[w]
		if v != rv || ok != rok {
			t.Fatalf("get(%q) = %d, %v; want %d, %v", w, v, ok, rv, rok)
		}
	}
	for i, w := range words {
		check(w)
		tab.put(w, hash(w), int32(i))
		ref[w] = int32(i)
		check(w)
		if tab.n != len(ref) {
			t.Fatalf("after put(%q): n = %d, want %d", w, tab.n, len(ref))
		}
		// An earlier word and its neighbours in length stay right as the
		// table fills and grows.
		e := words[i/2]
		check(e)
		check(e + "x")
		check(e + "\x00")
		if e != "" {
			check(e[:len(e)-1])
			check(e[1:])
		}
	}
	for _, w := range words {
		check(w)
	}
}

// tableWords returns words that a wrong table would confuse: every length
// up to well past inlineMax, words that differ in one byte only (first,
// last, each side of the 8-byte boundary), words that are prefixes of one
// another, words with NUL and non-ASCII bytes, the empty word, textgen's
// words as written, and random ones.
func tableWords(r *rand.Rand) []string {
	words := []string{"", "\x00", "\x00\x00", "a", "a\x00", "\x00a", "é", "naïve", "café", "ünïcode"}
	const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for n := 0; n <= 3*inlineMax; n++ {
		base := []byte(strings.Repeat("q", n))
		words = append(words, string(base), strings.Repeat("\x00", n), alpha[:min(n, len(alpha))])
		for i := 0; i < n; i++ {
			b := append([]byte(nil), base...)
			b[i] = 'r'
			words = append(words, string(b))
			b[i] = 0
			words = append(words, string(b))
			b[i] = 0xff
			words = append(words, string(b))
		}
	}
	for _, l := range textgen.Lessons(11, 400) {
		words = append(words, strings.FieldsFunc(l.Question+" "+l.Answer, func(r rune) bool { return r == ' ' || r == ',' })...)
	}
	for range 3000 {
		b := make([]byte, r.IntN(2*inlineMax+4))
		for i := range b {
			if r.IntN(8) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alpha[r.IntN(len(alpha))]
			}
		}
		words = append(words, string(b))
	}
	r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	// Repeats, which overwrite.
	for i := range len(words) / 4 {
		words = append(words, words[i*3])
	}
	return words
}

// A wordTable has exactly the words put into it with their last values,
// from empty and presized, with the real hash and with hashes that make
// words collide (all words in one probe sequence, or in a few).
func TestWordTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := tableWords(r)
	hashes := map[string]func(string) uint32{
		"fnv":   hashString,
		"four":  func(w string) uint32 { return hashString(w) & 3 },
		"tag":   func(w string) uint32 { return hashString(w) | 0xffff }, // equal low bits
		"const": func(string) uint32 { return 12345 },
	}
	for name, hash := range hashes {
		n := len(words)
		if name != "fnv" {
			n = 2000 // every probe walks a long run of them
		}
		for _, tab := range []*wordTable{{}, newWordTable(0), newWordTable(n)} {
			t.Run(fmt.Sprintf("%s/%d", name, len(tab.slots)), func(t *testing.T) {
				checkWordTable(t, tab, words[:n], hash)
			})
		}
	}
}

// packWord gives every word of up to inlineMax bytes its own pair of keys.
func TestPackWord(t *testing.T) {
	seen := map[[2]uint64]string{}
	for _, w := range tableWords(rand.New(rand.NewPCG(5, 6))) {
		if len(w) > inlineMax {
			continue
		}
		k0, k1 := packWord(w)
		if k1 == longKey {
			t.Fatalf("packWord(%q) gives longKey", w)
		}
		var want [16]byte
		copy(want[:], w)
		want[15] = byte(len(w))
		for i := range 8 {
			if byte(k0>>(8*i)) != want[i] || byte(k1>>(8*i)) != want[8+i] {
				t.Fatalf("packWord(%q) = %#x, %#x", w, k0, k1)
			}
		}
		if o, ok := seen[[2]uint64{k0, k1}]; ok && o != w {
			t.Fatalf("packWord(%q) = packWord(%q)", w, o)
		}
		seen[[2]uint64{k0, k1}] = w
	}
}

// FuzzWordTable puts the words of a text (split at spaces) into a table
// and a map, with hashes taken modulo a fuzzed number so that words
// collide, and checks that they agree.
func FuzzWordTable(f *testing.F) {
	f.Add("a b a c", uint32(0))
	f.Add(" q\x00 q\x00\x00 q \x00q", uint32(1))
	f.Add("abcdefghijklmnop abcdefghijklmnopq abcdefghijklmnopqr abcdefghijklmnop abcdefgh abcdefghi", uint32(2))
	f.Add("internal/x/y.go ioutil.ReadAll HTTPServer's WindowsShell café naïve", uint32(1<<20))
	f.Fuzz(func(t *testing.T, s string, mod uint32) {
		hash := hashString
		if mod != 0 {
			hash = func(w string) uint32 { return hashString(w) % mod }
		}
		checkWordTable(t, &wordTable{}, strings.Split(s, " "), hash)
	})
}
