// Package textgen generates deterministic synthetic lessons for
// benchmarks: question/answer pairs of realistic length and shape, drawn
// from a Zipf-distributed vocabulary of real development words followed
// by a long tail of made-up identifiers, with about 5% near-duplicates of
// earlier lessons (the material consolidation merges).
//
// The same seed always gives the same lessons, and Lessons(seed, n) is a
// prefix of Lessons(seed, m) for n <= m, so benchmarks at 1k, 10k and
// 100k lessons see the same first thousand.
package textgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// A Lesson is one synthetic question/answer pair.
type Lesson struct {
	Question string
	Answer   string
	// DupOf is the index of the earlier lesson this one paraphrases, or
	// -1 for an original.
	DupOf int
}

// Text returns the lesson's matchable text, question + " " + answer, as
// darwin-memo tokenises it.
func (l Lesson) Text() string { return l.Question + " " + l.Answer }

// Options tune a generator; the zero value means the defaults.
type Options struct {
	// DupRate is the fraction of lessons that paraphrase an earlier one
	// (default 0.05).
	DupRate float64
	// Vocab is the vocabulary size including the real words (default
	// 40000).
	Vocab int
}

// A Generator produces lessons one at a time.
type Generator struct {
	r       *rand.Rand
	zipf    *rand.Zipf
	vocab   []string
	dupRate float64
	made    []Lesson
}

// New returns a generator seeded with seed.
func New(seed uint64, opts Options) *Generator {
	if opts.DupRate == 0 {
		opts.DupRate = 0.05
	}
	if opts.Vocab < len(devWords) {
		opts.Vocab = 40000
	}
	r := rand.New(rand.NewPCG(seed, 0x7e47))
	g := &Generator{r: r, dupRate: opts.DupRate}
	g.vocab = append(g.vocab, devWords...)
	vr := rand.New(rand.NewPCG(0x5eed, 0x70c)) // the vocabulary is the same for every seed
	seen := make(map[string]bool, opts.Vocab)
	for _, w := range devWords {
		seen[w] = true
	}
	for len(g.vocab) < opts.Vocab {
		w := madeUpWord(vr)
		if !seen[w] {
			seen[w] = true
			g.vocab = append(g.vocab, w)
		}
	}
	g.zipf = rand.NewZipf(r, 1.07, 2, uint64(len(g.vocab)-1))
	return g
}

// Lessons returns the first n lessons of the generator seeded with seed,
// with default options.
func Lessons(seed uint64, n int) []Lesson {
	g := New(seed, Options{})
	out := make([]Lesson, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// Next returns the next lesson.
func (g *Generator) Next() Lesson {
	var l Lesson
	if len(g.made) > 0 && g.r.Float64() < g.dupRate {
		l = g.paraphrase(g.r.IntN(len(g.made)))
	} else {
		l = Lesson{Question: g.question(), Answer: g.answer(), DupOf: -1}
	}
	g.made = append(g.made, l)
	return l
}

func (g *Generator) word() string { return g.vocab[g.zipf.Uint64()] }

func (g *Generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

// phrase writes n content words joined by occasional glue words.
func (g *Generator) phrase(b *strings.Builder, n int) {
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
			if g.r.IntN(3) == 0 {
				b.WriteString(g.pick(glue))
				b.WriteByte(' ')
			}
		}
		switch g.r.IntN(14) {
		case 0:
			b.WriteString(g.identifier())
		case 1:
			w := g.word()
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		case 2:
			w := g.word()
			if !strings.HasSuffix(w, "s") {
				w += "s"
			}
			b.WriteString(w)
		default:
			b.WriteString(g.word())
		}
	}
}

func (g *Generator) identifier() string {
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("internal/%s/%s.go", g.word(), g.word())
	case 1:
		return fmt.Sprintf("v%d.%d.%d", g.r.IntN(4), g.r.IntN(30), g.r.IntN(12))
	case 2:
		return strings.ToUpper(g.word()) + "_" + strings.ToUpper(g.word()) + "=1"
	case 3:
		return fmt.Sprintf("`go test -run Test%s ./%s/...`", title(g.word()), g.word())
	case 4:
		return fmt.Sprintf("%s.%s()", g.word(), title(g.word()))
	}
	return fmt.Sprintf("#%d", 100+g.r.IntN(9000))
}

func (g *Generator) question() string {
	var b strings.Builder
	b.WriteString(g.pick(openers))
	b.WriteByte(' ')
	g.phrase(&b, 5+g.r.IntN(8))
	b.WriteByte('?')
	return b.String()
}

func (g *Generator) answer() string {
	var b strings.Builder
	for s := range 2 + g.r.IntN(3) {
		if s > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.pick(verbs))
		b.WriteByte(' ')
		g.phrase(&b, 5+g.r.IntN(9))
		b.WriteByte('.')
	}
	return b.String()
}

// paraphrase rewrites lesson i: some words replaced or dropped, sometimes
// a sentence added. Most paraphrases stay above Jaccard 0.55, some not.
func (g *Generator) paraphrase(i int) Lesson {
	src := g.made[i]
	orig := i
	if src.DupOf >= 0 {
		orig = src.DupOf
	}
	mutate := func(s string) string {
		words := strings.Fields(s)
		rate := 0.05 + 0.3*g.r.Float64()
		var b strings.Builder
		for _, w := range words {
			x := g.r.Float64()
			switch {
			case x < rate/2:
				continue
			case x < rate:
				w = g.word()
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		return b.String()
	}
	l := Lesson{Question: mutate(src.Question), Answer: mutate(src.Answer), DupOf: orig}
	if g.r.IntN(3) == 0 {
		var b strings.Builder
		b.WriteString(l.Answer)
		b.WriteString(" Also ")
		g.phrase(&b, 3+g.r.IntN(5))
		b.WriteByte('.')
		l.Answer = b.String()
	}
	return l
}

func title(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// madeUpWord builds a pronounceable identifier-like word, sometimes
// compound (snake_case or dotted), for the vocabulary's long tail.
func madeUpWord(r *rand.Rand) string {
	var b strings.Builder
	for range 2 + r.IntN(3) {
		b.WriteString(onsets[r.IntN(len(onsets))])
		b.WriteString(vowels[r.IntN(len(vowels))])
	}
	if r.IntN(3) == 0 {
		b.WriteString(codas[r.IntN(len(codas))])
	}
	if r.IntN(12) == 0 {
		b.WriteString(".")
		b.WriteString(exts[r.IntN(len(exts))])
	}
	return b.String()
}

var (
	onsets = []string{"b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "st", "tr", "gr", "pl", "ch", "sh", "qu", "br"}
	vowels = []string{"a", "e", "i", "o", "u", "ai", "ou", "io", "y"}
	codas  = []string{"n", "r", "x", "t", "ck", "ng", "er", "or", "ix"}
	exts   = []string{"go", "py", "ts", "yml", "json", "toml", "md", "sh"}

	openers = []string{"Why does", "How do I stop", "What causes", "When does", "How to fix", "Which setting controls", "Where is", "Why is", "How should we handle", "What breaks"}
	verbs   = []string{"Run", "Set", "Pin", "Retry", "Use", "Avoid", "Check", "Move", "Skip", "Add", "Remove", "Never call", "Always pass", "Prefer", "Regenerate", "Wrap"}
	glue    = []string{"the", "a", "in", "to", "with", "for", "on", "when", "after", "before", "and", "or", "of", "then", "if", "by"}

	// devWords are the most frequent words, in rough frequency order.
	devWords = strings.Fields(`test tests build cache error fail ci run file config module
package version dependency timeout flaky lint go python docker image container job step
workflow action branch commit merge pull request review release tag deploy env variable
secret token api client server request response status code retry backoff rate limit log
logs output path directory import export function method type struct interface field value
default flag option argument command script shell make target binary artifact upload
download network port host database schema migration query index table transaction lock
race condition goroutine thread process signal context cancel deadline panic stack trace
memory heap alloc leak benchmark profile cpu coverage mock fake stub fixture golden snapshot
json yaml toml xml parse encode decode marshal unmarshal string byte buffer stream reader
writer close open read write sync flush rename atomic temp permission user group owner
path windows linux macos arm64 amd64 compiler linker cgo vendor proxy checksum sum mod
node npm yarn pnpm typescript jest pytest junit gradle maven cargo rust tokio async await
promise callback event queue worker pool batch chunk page limit offset cursor sort order
filter map reduce key hash set list slice array pointer nil null empty zero default
unicode utf8 encoding locale time timezone clock duration sleep tick cron schedule hook
plugin extension provider backend frontend handler middleware router route endpoint
header cookie session auth oauth jwt certificate tls ssl proxy dns cdn bucket s3 gcs
azure aws gcp kubernetes helm pod node cluster namespace service ingress volume mount
terraform ansible bazel nix homebrew apt pip venv poetry conda wheel sdist setup tox
github gitlab runner matrix ubuntu latest pinned sha digest registry ghcr push pull tag
label issue comment bot approve codeowners protected required check status conclusion`)
)
