package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Vocabulary names how a world spells its lessons and queries.
type Vocabulary string

const (
	// MadeUp, the published worlds' text: a topic has eight made-up words;
	// a lesson's question holds five of them, a task's query three (and
	// half the time one of forty made-up filler words); answers are words
	// of their own.
	MadeUp Vocabulary = "made-up"
	// Zipf spreads the words as English text does (below).
	Zipf Vocabulary = "zipf"
)

// ParseVocabulary reads a vocabulary name.
func ParseVocabulary(s string) (Vocabulary, error) {
	switch v := Vocabulary(s); v {
	case MadeUp, Zipf:
		return v, nil
	}
	return "", fmt.Errorf("unknown vocabulary %q; use %s or %s", s, MadeUp, Zipf)
}

// The Zipf vocabulary spreads its words as English text does (Zipf's law):
// a few words are everywhere and most are rare. Two word lists make it up.
//
//   - sharedWords, the words every topic uses, most frequent first: ordinary
//     English words of a lesson ("test", "run", "fix") at the head, where the
//     ranking's background word list finds them common, and words of the
//     trade that English finds rare ("timeout", "schema", "endpoint")
//     further down. They are shared across topics, so they say little about
//     which lesson a query wants. Words the encoder's harmful-advice model
//     leans on ("fail", "set", "add", "return", "error", "token", "script",
//     "step", "config") are left out, so that every simulated lesson passes
//     the encoder.
//   - Each topic's own words (zipfTopicVocab made-up words, as a code base's
//     package and identifier names are): the topic's first word is in most
//     of its texts, its last few in one or two. They are what tells the
//     topics apart.
//
// A text draws its words of either kind with Zipf weights k^-wordSkew,
// without repeats; the facts of answers are words of their own. A task's
// query is drawn as a lesson's question is, from its topic's words and the
// shared words: it names its topic, not a lesson.
var sharedWords = [...]string{
	"test", "run", "fix", "file", "check", "build", "call", "change", "value", "module",
	"default", "time", "new", "path", "name", "version", "cache", "update", "local", "server",
	"order", "read", "write", "start", "wait", "list", "key", "user", "data", "code",
	"output", "input", "line", "type", "field", "state", "case", "flag", "option", "request",
	"package", "message", "client", "event", "table", "limit", "size", "count", "match", "parse",
	"load", "save", "lock", "retry", "timeout", "job", "queue", "header", "result", "handler",
	"branch", "record", "port", "fixture", "memory", "index", "schema", "column", "string", "empty",
	"missing", "variable", "main", "route", "endpoint",
}

const (
	// zipfTopicVocab is the number of words of each topic.
	zipfTopicVocab = 16
	// wordSkew is the Zipf exponent of both vocabularies (Zipf's law: 1).
	wordSkew = 1.0

	// A useful or poisoned lesson's question holds zipfQuestionTopicN
	// words of its topic and zipfQuestionSharedN shared words; its answer
	// zipfAnswerFactN words of its own fact and zipfAnswerSharedN shared
	// words.
	zipfQuestionTopicN  = 3
	zipfQuestionSharedN = 3
	zipfAnswerFactN     = 4
	zipfAnswerSharedN   = 2
	// A trivia lesson's question holds one word of its topic and
	// zipfTriviaSharedN shared words; its answer zipfTriviaFactN words of
	// its own and one shared word.
	zipfTriviaSharedN = 3
	zipfTriviaFactN   = 3
	// A task's query holds zipfQueryTopicN words of its topic and
	// zipfQuerySharedN shared words, half the time one more.
	zipfQueryTopicN  = 3
	zipfQuerySharedN = 2
)

// zipfDraw draws n distinct indices in [0, len(weights)) with probability
// proportional to their weights, without replacement, in draw order.
func zipfDraw(rng *rand.Rand, weights []float64, n int) []int {
	ws := slices.Clone(weights)
	out := make([]int, 0, n)
	for range min(n, len(ws)) {
		var total float64
		last := -1
		for i, x := range ws {
			total += x
			if x > 0 {
				last = i
			}
		}
		if last < 0 {
			break
		}
		i, u := 0, rng.Float64()*total
		for ; i < last && u >= ws[i]; i++ {
			u -= ws[i]
		}
		out = append(out, i)
		ws[i] = 0
	}
	return out
}

// zipfText draws a world's texts with the Zipf vocabulary.
type zipfText struct {
	rng *rand.Rand
	// topicW and sharedW are the Zipf weights of a topic's words and of
	// the shared words.
	topicW, sharedW []float64
}

func newZipfText(rng *rand.Rand) *zipfText {
	return &zipfText{rng: rng, topicW: zipfWeights(zipfTopicVocab, wordSkew), sharedW: zipfWeights(len(sharedWords), wordSkew)}
}

// topicWords draws n distinct words of topic t.
func (z *zipfText) topicWords(t, n int) []string {
	idx := zipfDraw(z.rng, z.topicW, n)
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = word(t*zipfTopicVocab + j)
	}
	return out
}

// shared draws n distinct shared words.
func (z *zipfText) shared(n int) []string {
	idx := zipfDraw(z.rng, z.sharedW, n)
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = sharedWords[j]
	}
	return out
}

// join joins lists of words into one text.
func join(parts ...[]string) string { return strings.Join(slices.Concat(parts...), " ") }
