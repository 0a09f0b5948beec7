package sim

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

func zipfConfig() Config {
	cfg := smallConfig()
	cfg.Vocabulary = Zipf
	return cfg
}

func TestParseVocabulary(t *testing.T) {
	for _, s := range []string{"made-up", "zipf"} {
		if v, err := ParseVocabulary(s); err != nil || string(v) != s {
			t.Errorf("ParseVocabulary(%q) = %q, %v", s, v, err)
		}
	}
	if _, err := ParseVocabulary("english"); err == nil {
		t.Error("ParseVocabulary accepted an unknown vocabulary")
	}
	cfg := smallConfig()
	cfg.Vocabulary = "english"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Vocabulary") {
		t.Errorf("Validate = %v, want an error naming Vocabulary", err)
	}
}

// TestZipfWorldsPassTheEncoder generates Zipf worlds on several seeds (2 in
// the fast case, 8 in the long sweep): NewWorld fails if the deterministic
// encoder refuses a lesson.
func TestZipfWorldsPassTheEncoder(t *testing.T) {
	for seed := uint64(1); seed <= exhaustive.Or[uint64](2, 8); seed++ {
		if _, err := NewWorld(zipfConfig(), seed); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// TestZipfWordSpread checks the spread of the Zipf vocabulary over a
// world's texts: the most frequent words are shared English words, found
// in every topic; most distinct words are rare; every query names its
// topic with words of its own.
func TestZipfWordSpread(t *testing.T) {
	w, err := NewWorld(zipfConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, l := range w.Lessons {
		texts = append(texts, l.Question+" "+l.Answer)
	}
	for _, p := range w.PRs {
		for _, task := range p.Tasks {
			texts = append(texts, task.Query)
			topicOwn := 0
			for _, f := range strings.Fields(task.Query) {
				for j := range zipfTopicVocab {
					if f == word(task.Topic*zipfTopicVocab+j) {
						topicOwn++
					}
				}
			}
			if topicOwn != zipfQueryTopicN {
				t.Fatalf("query %q of topic %d holds %d of its topic's words, want %d", task.Query, task.Topic, topicOwn, zipfQueryTopicN)
			}
		}
	}
	df := map[string]int{}
	for _, s := range texts {
		for _, tok := range rank.Tokens(s) {
			df[tok]++
		}
	}
	shared := map[string]bool{}
	for _, s := range sharedWords {
		shared[s] = true
	}
	// The most frequent word is the head of the shared words, and it is
	// ordinary English to the ranking's background list.
	best, bestDF := "", 0
	for tok, n := range df {
		if n > bestDF || (n == bestDF && tok < best) {
			best, bestDF = tok, n
		}
	}
	if !shared[best] || rank.Rarity(best) > 0.2 {
		t.Errorf("most frequent word %q (in %d texts) is not a common shared word", best, bestDF)
	}
	// Zipf: most distinct words are in one or two texts, and the head word
	// is in many times more texts than the median word.
	rare := 0
	for _, n := range df {
		if n <= 2 {
			rare++
		}
	}
	if rare*2 < len(df) {
		t.Errorf("%d of %d distinct words are in at most two texts, want most", rare, len(df))
	}
	if bestDF < 20*2 {
		t.Errorf("head word %q is in only %d texts", best, bestDF)
	}
	// No near-duplicate asks its original's exact question (under BM25F
	// that would record a supersession rather than a duplicate).
	for _, l := range w.Lessons {
		if l.Class != NearDuplicate {
			continue
		}
		for _, o := range w.Lessons {
			if o.Class == Useful && o.Fact == l.Fact && o.Question == l.Question {
				t.Errorf("near-duplicate %d asks its original's question %q", l.ID, l.Question)
			}
		}
	}
}

func TestMadeUpIsTheDefaultVocabulary(t *testing.T) {
	cfg := smallConfig()
	a, err := NewWorld(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Vocabulary = MadeUp
	b, _ := NewWorld(cfg, 5)
	for i := range a.Lessons {
		if a.Lessons[i] != b.Lessons[i] {
			t.Fatalf("lesson %d differs between vocabulary %q and %q", i, "", MadeUp)
		}
	}
}
