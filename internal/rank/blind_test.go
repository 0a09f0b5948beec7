package rank_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/golden"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// The blind sets: stores and probes written by someone who had not read the
// ranking code, each committed before it was first scored
// (testdata/blind1, blind2, ...). A set is one JSON file per repository:
//
//	{"repo": "...",
//	 "lessons": [{"key", "q", "a", "sources", "supersedes": [older keys]}],
//	 "probes": [{"query", "category": "plain|sibling|paraphrase|supersession|abstention", "want": [keys]}]}
//
// Lessons are added in array order, one minute apart, each recording the
// lessons it supersedes (a "supersedes:<id>" source label, as `add
// --supersedes` records it). want = [] means nothing stored answers: decide
// must be silent. Each probe asks decide (top 3) with the default ranking
// and with darwin-memo's; accuracy is the deciding lesson being wanted (or
// silence, for abstention), top-3 recall is a wanted lesson among `query
// --top 3`'s. The first score of a set goes, by hand, into the list of
// blind scores in docs/benchmarks.md; the generated table is replaced.
//
//	go test ./internal/rank -run TestBlindSets -v -blinddoc ../../docs/benchmarks.md
var (
	blindDoc = flag.String("blinddoc", "", "write the blind sets' table into this Markdown file (between <!-- blind:begin --> and <!-- blind:end -->)")
	blindSet = flag.String("blindset", "", "score only this set (a directory of testdata); default: every testdata/blind*")
)

type blindLesson struct {
	Key        string   `json:"key"`
	Q          string   `json:"q"`
	A          string   `json:"a"`
	Sources    []string `json:"sources"`
	Supersedes []string `json:"supersedes"`
}

type blindProbe struct {
	Query    string   `json:"query"`
	Category string   `json:"category"`
	Want     []string `json:"want"`
}

type blindRepo struct {
	Repo    string        `json:"repo"`
	Lessons []blindLesson `json:"lessons"`
	Probes  []blindProbe  `json:"probes"`
}

var blindCategories = []string{"plain", "sibling", "paraphrase", "supersession", "abstention"}

// loadBlindSet reads one set's repositories and fails on anything
// malformed: unknown fields or categories, duplicate keys, a probe or a
// supersession naming an unknown or later lesson.
func loadBlindSet(dir string) ([]blindRepo, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no repositories in %s (%v)", dir, err)
	}
	var out []blindRepo
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r blindRepo
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		born := map[string]int{}
		for i, l := range r.Lessons {
			if _, dup := born[l.Key]; dup || l.Key == "" {
				return nil, fmt.Errorf("%s: lesson key %q empty or twice", f, l.Key)
			}
			for _, old := range l.Supersedes {
				if j, ok := born[old]; !ok || j >= i {
					return nil, fmt.Errorf("%s: %s supersedes %q, which is not an earlier lesson", f, l.Key, old)
				}
			}
			born[l.Key] = i
		}
		for _, p := range r.Probes {
			if !slices.Contains(blindCategories, p.Category) {
				return nil, fmt.Errorf("%s: probe %q: unknown category %q", f, p.Query, p.Category)
			}
			if (p.Category == "abstention") != (len(p.Want) == 0) {
				return nil, fmt.Errorf("%s: probe %q: category %s with want %v", f, p.Query, p.Category, p.Want)
			}
			for _, k := range p.Want {
				if _, ok := born[k]; !ok {
					return nil, fmt.Errorf("%s: probe %q wants unknown lesson %s", f, p.Query, k)
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// buildBlindStore adds a repository's lessons in order and returns the
// store and each key's id.
func buildBlindStore(r blindRepo) (*lessons.Store, map[string]string, error) {
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := lessons.New(r.Repo+".json", lessons.Options{Now: func() time.Time { return base }})
	ids := map[string]string{}
	for i, l := range r.Lessons {
		src := slices.Clone(l.Sources)
		for _, old := range l.Supersedes {
			src = append(src, lessons.SupersedesPrefix+ids[old])
		}
		e, err := s.Add(lessons.NewLesson{Question: l.Q, Answer: l.A, Sources: src,
			RecordedTS: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05+00:00")})
		if err != nil {
			return nil, nil, fmt.Errorf("%s/%s: %w", r.Repo, l.Key, err)
		}
		ids[l.Key] = e.ID
	}
	return s, ids, nil
}

// blindScore is one ranking's score on a set.
type blindScore struct {
	n, ok       map[string]int // probes and correct decides by category
	recallN     int            // answerable probes
	recallOK    int            // ... with a wanted lesson in query --top 3
	silent      int            // probes decide was silent on
	silentRight int            // ... that were abstention probes
	abstainN    int            // abstention probes
	misses      []string
}

func (b *blindScore) accuracy(cat string) float64 {
	if b.n[cat] == 0 {
		return 0
	}
	return float64(b.ok[cat]) / float64(b.n[cat])
}

func (b *blindScore) overall() float64 {
	n, ok := 0, 0
	for _, c := range blindCategories {
		n += b.n[c]
		ok += b.ok[c]
	}
	return ratio(ok, n)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// scoreBlind scores one ranking on a set's repositories.
func scoreBlind(repos []blindRepo, r lessons.Retrieval) (*blindScore, error) {
	b := &blindScore{n: map[string]int{}, ok: map[string]int{}}
	for _, repo := range repos {
		s, ids, err := buildBlindStore(repo)
		if err != nil {
			return nil, err
		}
		key := map[string]string{}
		for k, id := range ids {
			key[id] = k
		}
		for _, p := range repo.Probes {
			d, err := s.Decide(p.Query, lessons.DecideOptions{RetrieveOptions: lessons.RetrieveOptions{Retrieval: r}})
			if err != nil {
				return nil, err
			}
			hits, err := s.Retrieve(p.Query, lessons.RetrieveOptions{K: 3, Retrieval: r})
			if err != nil {
				return nil, err
			}
			b.n[p.Category]++
			if d.Silent {
				b.silent++
			}
			var right bool
			if len(p.Want) == 0 {
				b.abstainN++
				right = d.Silent
				if d.Silent {
					b.silentRight++
				}
			} else {
				right = !d.Silent && slices.Contains(p.Want, key[d.Decider])
				b.recallN++
				if slices.ContainsFunc(hits, func(h lessons.Hit) bool { return slices.Contains(p.Want, key[h.Entry.ID]) }) {
					b.recallOK++
				}
			}
			if right {
				b.ok[p.Category]++
			} else {
				var got []string
				for _, h := range hits {
					got = append(got, fmt.Sprintf("%s(%.2f)", key[h.Entry.ID], h.Confidence))
				}
				b.misses = append(b.misses, fmt.Sprintf("%s %s %q: decided %q, top 3 %v, want %v", repo.Repo, p.Category, p.Query, key[d.Decider], got, p.Want))
			}
		}
	}
	return b, nil
}

// blindTable renders the scores of the default ranking and darwin-memo's.
func blindTable(set string, def, dm *blindScore) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "### %s\n\n| category | probes | bm25f (default) | darwin-memo |\n|---|---|---|---|\n", set)
	for _, c := range blindCategories {
		fmt.Fprintf(&sb, "| %s | %d | %.2f | %.2f |\n", c, def.n[c], def.accuracy(c), dm.accuracy(c))
	}
	fmt.Fprintf(&sb, "| answerable, top-3 recall of `query --top 3` | %d | %.2f | %.2f |\n", def.recallN, ratio(def.recallOK, def.recallN), ratio(dm.recallOK, dm.recallN))
	fmt.Fprintf(&sb, "| abstention precision (silent decides that should be) | | %.2f (%d/%d) | %.2f (%d/%d) |\n",
		ratio(def.silentRight, def.silent), def.silentRight, def.silent, ratio(dm.silentRight, dm.silent), dm.silentRight, dm.silent)
	fmt.Fprintf(&sb, "| abstention recall (abstention probes decide is silent on) | %d | %.2f | %.2f |\n", def.abstainN, ratio(def.silentRight, def.abstainN), ratio(dm.silentRight, dm.abstainN))
	fmt.Fprintf(&sb, "| **overall** (all probes) | %d | **%.2f** | **%.2f** |\n\n", def.recallN+def.abstainN, def.overall(), dm.overall())
	return sb.String()
}

func TestBlindSets(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/blind*")
	// In the order measured: blind9 before blind10.
	slices.SortFunc(dirs, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	if *blindSet != "" {
		dirs = []string{filepath.Join("testdata", *blindSet)}
	}
	if len(dirs) == 0 {
		t.Skip("no blind set in testdata yet")
	}
	var doc strings.Builder
	doc.WriteString("Generated by `go test ./internal/rank -run TestBlindSets -blinddoc ../../docs/benchmarks.md`: each set's current score (the first score of each is in the list above).\n\n")
	for _, dir := range dirs {
		repos, err := loadBlindSet(dir)
		if err != nil {
			t.Fatal(err)
		}
		def, err := scoreBlind(repos, lessons.RetrievalBM25F)
		if err != nil {
			t.Fatal(err)
		}
		dm, err := scoreBlind(repos, lessons.RetrievalDarwinMemo)
		if err != nil {
			t.Fatal(err)
		}
		table := blindTable(filepath.Base(dir), def, dm)
		t.Log("\n" + table)
		if testing.Verbose() {
			for _, m := range def.misses {
				t.Log("bm25f miss: " + m)
			}
		}
		doc.WriteString(table)
	}
	if *blindDoc != "" {
		if err := golden.ReplaceSection(*blindDoc, "blind", doc.String()); err != nil {
			t.Fatal(err)
		}
	}
}

// The scorer itself, on a small set made for it (testdata/scorer, not a
// blind set): its numbers are counted by hand below.
func TestBlindScorer(t *testing.T) {
	repos, err := loadBlindSet("testdata/scorer")
	if err != nil {
		t.Fatal(err)
	}
	b, err := scoreBlind(repos, lessons.RetrievalBM25F)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("plain %d/%d sibling %d/%d supersession %d/%d abstention %d/%d recall %d/%d silent %d/%d",
		b.ok["plain"], b.n["plain"], b.ok["sibling"], b.n["sibling"], b.ok["supersession"], b.n["supersession"],
		b.ok["abstention"], b.n["abstention"], b.recallOK, b.recallN, b.silentRight, b.silent)
	want := "plain 2/2 sibling 2/2 supersession 1/1 abstention 1/1 recall 5/5 silent 1/1"
	if got != want {
		t.Errorf("scorer counts\n got %s\nwant %s\nmisses: %v", got, want, b.misses)
	}
	for _, bad := range []string{
		`{"repo":"x","lessons":[{"key":"a","q":"q","a":"a","supersedes":["b"]},{"key":"b","q":"q2","a":"a2"}],"probes":[]}`,
		`{"repo":"x","lessons":[{"key":"a","q":"q","a":"a"}],"probes":[{"query":"q","category":"plain","want":[]}]}`,
		`{"repo":"x","lessons":[{"key":"a","q":"q","a":"a"}],"probes":[{"query":"q","category":"other","want":["a"]}]}`,
		`{"repo":"x","lessons":[{"key":"a","q":"q","a":"a","extra":1}],"probes":[]}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadBlindSet(dir); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
