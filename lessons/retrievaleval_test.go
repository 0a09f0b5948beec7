package lessons

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/golden"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// The retrieval-quality suite: scenario packs in testdata/retrieval, written
// for this project's domain (lessons from merged pull requests) after the
// failure classes of issue 12, scored for both rankings. See
// docs/benchmarks.md ("Retrieval quality") for the table this writes.
//
//	go test ./lessons -run TestRetrievalSuite -retrievaldoc ../docs/benchmarks.md

var retrievalDoc = flag.String("retrievaldoc", "", "write the retrieval-quality table into this Markdown file (between <!-- retrieval:begin --> and <!-- retrieval:end -->)")

// Goals the default ranking must keep on the suite (regression guard: the
// suite is a development set; BM25F scored 0.772 when it became the
// default). The confidence model is fitted on every development set, so
// a probe near the threshold may change side when a new set joins them:
// the abstention goal leaves room for one of the 18 never-seen facts
// (blind4's joining moved one; blind26's moved "What caused incident
// 9981?" and "What caused incident 7310?", one query shape whose three
// equally scored incident lessons gave it confidence 0.5009, and the goal
// allowed two until round 28's refit silenced all 18 again).
const (
	suiteGoalMean             = 0.75
	suiteGoalAbstentionMisses = 1
)

type evalLesson struct {
	Key     string   `json:"key"`
	Q       string   `json:"q"`
	A       string   `json:"a"`
	Kind    string   `json:"kind"`
	Sources []string `json:"sources"`
	Energy  float64  `json:"energy"`
	Uses    int      `json:"uses"`
	Pinned  bool     `json:"pinned"`
}

type evalProbe struct {
	Query   string   `json:"query"`
	Want    []string `json:"want"`    // any of these deciding is a hit
	Bad     []string `json:"bad"`     // stale or forbidden: contamination when returned
	Abstain bool     `json:"abstain"` // nothing stored answers it
	// Category is a blind set's probe category (blindPacks); packs have none.
	Category string `json:"-"`
}

type evalPack struct {
	Class      string       `json:"class"`
	Title      string       `json:"title"`
	IncludeAll bool         `json:"include_all"`
	Lessons    []evalLesson `json:"lessons"`
	Probes     []evalProbe  `json:"probes"`
}

func loadPacks(t *testing.T) (common evalPack, packs []evalPack) {
	t.Helper()
	files, err := filepath.Glob("testdata/retrieval/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario packs: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p evalPack
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if filepath.Base(f) == "common.json" {
			common = p
			continue
		}
		packs = append(packs, p)
	}
	order := []string{"updates", "overturned", "neardup", "routing", "incidents", "abstention", "abstention-attr"}
	slices.SortStableFunc(packs, func(a, b evalPack) int { return slices.Index(order, a.Class) - slices.Index(order, b.Class) })
	return common, packs
}

// evalMode is one way of building and querying the store.
type evalMode struct {
	name  string
	build Retrieval // the store's ranking while lessons are added (v2 records supersession)
	query Retrieval
	// statements adds every lesson as the question "Lesson" with the
	// answer "<question> <answer>": stores whose questions say nothing.
	statements bool
	// whole adds every lesson with "<question> <answer>" as both its
	// question and its answer: stores of statements.
	whole bool
}

var evalModes = []evalMode{
	{"darwin-memo", RetrievalDarwinMemo, RetrievalDarwinMemo, false, false},
	{"bm25f", RetrievalBM25F, RetrievalBM25F, false, false},
}

// gatedMode is the index in evalModes of the default ranking, the one the
// suite gates.
const gatedMode = 1

// buildEvalStore adds the lessons in order, one minute apart.
func buildEvalStore(t *testing.T, build Retrieval, lessons []evalLesson, statements, whole bool) (*Store, map[string]string) {
	t.Helper()
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	opts := Options{Now: func() time.Time { return base }, Retrieval: build}
	if build != RetrievalDarwinMemo {
		// Each ranking in the store it ships with: the default one in the stores this project
		// creates (RecommendedConfig: supporters are credited nothing), darwin-memo's in
		// darwin-memo's defaults.
		cfg := RecommendedConfig()
		opts.Config = &cfg
	}
	s := New("eval.json", opts)
	ids := map[string]string{}
	for i, l := range lessons {
		q, a := l.Q, l.A
		if statements {
			q, a = "Lesson", l.Q+" "+l.A
		}
		if whole {
			q, a = l.Q+" "+l.A, l.Q+" "+l.A
		}
		var src []string
		for _, x := range l.Sources {
			// "supersedes-key:K" (blind sets, blindPacks) records what the
			// lesson supersedes, by key.
			if k, ok := strings.CutPrefix(x, "supersedes-key:"); ok {
				x = SupersedesPrefix + ids[k]
			}
			src = append(src, x)
		}
		e, err := s.Add(NewLesson{Question: q, Answer: a, Kind: Kind(l.Kind), Sources: src,
			RecordedTS: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05+00:00")})
		if err != nil {
			t.Fatalf("%s: %v", l.Key, err)
		}
		if l.Energy > 0 {
			e.Energy = l.Energy
		}
		e.Uses = l.Uses
		e.Pinned = l.Pinned
		if _, dup := ids[l.Key]; dup {
			t.Fatalf("lesson key %s twice", l.Key)
		}
		ids[l.Key] = e.ID
	}
	return s, ids
}

type classScore struct {
	class, title string
	probes       int
	score        float64 // mean probe score
	hits         int     // answerable probes whose decider is wanted
	answerable   int
	contaminated int // probes that returned a stale or forbidden lesson
	abstainOK    int
	abstainN     int
}

type calib struct{ n, ok [4]int }

func runPack(t *testing.T, mode evalMode, common evalPack, p evalPack, all []evalLesson, cal *calib) classScore {
	t.Helper()
	ls := append(append([]evalLesson{}, common.Lessons...), p.Lessons...)
	if p.IncludeAll {
		ls = append(append([]evalLesson{}, common.Lessons...), all...)
	}
	s, ids := buildEvalStore(t, mode.build, ls, mode.statements, mode.whole)
	key := map[string]string{}
	for k, id := range ids {
		key[id] = k
	}
	cs := classScore{class: p.Class, title: p.Title}
	for _, pr := range p.Probes {
		for _, k := range append(append([]string{}, pr.Want...), pr.Bad...) {
			if _, ok := ids[k]; !ok {
				t.Fatalf("%s: probe %q names unknown lesson %s", p.Class, pr.Query, k)
			}
		}
		d, err := s.Decide(pr.Query, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: mode.query}})
		if err != nil {
			t.Fatal(err)
		}
		if !d.Silent {
			// Tickets stay verifiable: the minted ticket verifies against
			// the same store with its own version's ranking.
			bt, errs := ParseTickets(d.StoreFreeLine())
			if len(errs) > 0 || len(bt) != 1 {
				t.Fatalf("ticket %q: %v", d.StoreFreeLine(), errs)
			}
			if bt[0].Free.Version != ticketVersion(mode.query) {
				t.Errorf("ticket version %d, want %d", bt[0].Free.Version, ticketVersion(mode.query))
			}
			if err := s.VerifyTicket(bt[0], VerifyOptions{}); err != nil {
				t.Errorf("%s %q: own ticket refused: %v", mode.name, pr.Query, err)
			}
		}
		cs.probes++
		score := 0.0
		if pr.Abstain {
			cs.abstainN++
			if d.Silent {
				cs.abstainOK++
				score = 1
			}
		} else {
			cs.answerable++
			hit := !d.Silent && slices.Contains(pr.Want, key[d.Decider])
			dirty := false
			// Contamination is a stale or forbidden lesson the agent is shown
			// beside the answer (darwin-memo's ranking lists supporters in the
			// answer's conflict block; BM25F gives the answer alone) or that is
			// credited with it (a supporting_share above 0).
			shown := mode.query == RetrievalDarwinMemo || s.Config().SupportingShare > 0
			for _, id := range d.Supporting {
				if shown && slices.Contains(pr.Bad, key[id]) {
					dirty = true
				}
			}
			if dirty {
				cs.contaminated++
			}
			if hit {
				cs.hits++
				score = 1
				if dirty {
					score = 0.5
				}
			}
			if testing.Verbose() && score < 1 {
				var got []string
				for _, h := range d.Hits {
					got = append(got, fmt.Sprintf("%s(%.2f)", key[h.Entry.ID], h.Score))
				}
				t.Logf("%s/%s: %q -> %v (want %v)", mode.name, p.Class, pr.Query, got, pr.Want)
			}
		}
		if testing.Verbose() && pr.Abstain && !d.Silent {
			t.Logf("%s/%s: %q answered by %s", mode.name, p.Class, pr.Query, key[d.Decider])
		}
		if os.Getenv("RETRIEVAL_COVERAGE") != "" && !d.Silent && len(d.Hits) > 0 {
			t.Logf("COV %s %.3f abstain=%v hit=%v", mode.name, d.Hits[0].Coverage, pr.Abstain, slices.Contains(pr.Want, key[d.Decider]))
		}
		if cal != nil && !d.Silent && len(d.Hits) > 0 {
			b := min(3, int(d.Hits[0].Confidence*4))
			cal.n[b]++
			if !pr.Abstain && slices.Contains(pr.Want, key[d.Decider]) {
				cal.ok[b]++
			}
		}
		cs.score += score
	}
	cs.score /= float64(cs.probes)
	return cs
}

func TestRetrievalSuite(t *testing.T) {
	common, packs := loadPacks(t)
	var all []evalLesson
	for _, p := range packs {
		all = append(all, p.Lessons...)
	}
	results := make([][]classScore, len(evalModes))
	cals := make([]calib, len(evalModes))
	for i, mode := range evalModes {
		for _, p := range packs {
			results[i] = append(results[i], runPack(t, mode, common, p, all, &cals[i]))
		}
	}
	mean := func(cs []classScore) float64 {
		m := 0.0
		for _, c := range cs {
			m += c.score
		}
		return m / float64(len(cs))
	}
	doc := suiteTable(common, packs, results, mean, cals)
	t.Log("\n" + doc)

	def := results[gatedMode]
	if m := mean(def); m < suiteGoalMean {
		t.Errorf("bm25f mean %.3f below the goal %.2f", m, suiteGoalMean)
	}
	for i, c := range def {
		switch {
		case c.class == "abstention" && c.abstainN-c.abstainOK > suiteGoalAbstentionMisses:
			t.Errorf("bm25f abstains on %d of %d never-seen facts; the goal allows at most %d decided", c.abstainOK, c.abstainN, suiteGoalAbstentionMisses)
		case c.score < results[0][i].score:
			t.Errorf("bm25f scores %.3f on %s, below darwin-memo's %.3f", c.score, c.class, results[0][i].score)
		}
	}
	if *retrievalDoc != "" {
		doc += decideColdTable(t)
		if err := golden.ReplaceSection(*retrievalDoc, "retrieval", doc); err != nil {
			t.Fatal(err)
		}
	}
}

// classTable writes the table of each mode's score by pack (a row named by
// name), ending with a row of each mode's mean over classes.
func classTable(b *strings.Builder, packs []evalPack, results [][]classScore, mean func([]classScore) float64, name func(evalPack) string, meanLabel string) {
	b.WriteString("| class | probes |")
	for _, m := range evalModes {
		fmt.Fprintf(b, " %s |", m.name)
	}
	b.WriteString("\n|---|---|")
	for range evalModes {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for ci, p := range packs {
		fmt.Fprintf(b, "| %s | %d |", name(p), len(p.Probes))
		for mi := range evalModes {
			fmt.Fprintf(b, " %.3f |", results[mi][ci].score)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "| **%s** | |", meanLabel)
	for mi := range evalModes {
		fmt.Fprintf(b, " **%.3f** |", mean(results[mi]))
	}
}

func suiteTable(common evalPack, packs []evalPack, results [][]classScore, mean func([]classScore) float64, cals []calib) string {
	var b strings.Builder
	b.WriteString("## Retrieval quality (generated)\n\n")
	b.WriteString("Regenerate with `go test ./lessons -run TestRetrievalSuite -retrievaldoc ../docs/benchmarks.md`.\n\n")
	probes, lessons := 0, 0
	for _, p := range packs {
		probes += len(p.Probes)
		lessons += len(p.Lessons)
	}
	fmt.Fprintf(&b, "Scenario packs in `lessons/testdata/retrieval/` (%d probes over %d pack lessons, each pack's store also holding the %s background lessons of `common.json`), "+
		"written for this project's domain after the failure classes of issue 12, not from any public benchmark's items. "+
		"Each probe asks `Decide` (top 3). An answerable probe scores 1 when the deciding lesson is one it wants, 0.5 when it is but a stale or forbidden lesson also supports the answer where the agent sees it or it is credited (contamination: darwin-memo's ranking shows supporters beside the answer, BM25F does not, and stores this project creates credit supporters nothing), 0 otherwise; "+
		"an abstention probe scores 1 when `decide` is silent. A class scores the mean of its probes and the suite the mean of its classes. "+
		"Supersession is only what was recorded at birth: these packs record none, so only lessons asking the same question again (Store.Add's rule) supersede. "+
		"The test fails if the default ranking's (bm25f's) mean falls below %.2f, if it decides more than %d of the never-seen facts, or if it scores below darwin-memo on any class. "+
		"Every ticket minted during the run is verified against the same store with its own version's ranking.\n\n", probes, lessons, fmt.Sprint(len(common.Lessons)), suiteGoalMean, suiteGoalAbstentionMisses)
	classTable(&b, packs, results, mean, func(p evalPack) string { return p.Title }, "mean over classes")
	b.WriteString("\n\n")
	b.WriteString("| ranking | deciding lesson wanted (answerable probes) | probes returning a stale or forbidden lesson | abstentions kept |\n|---|---|---|---|\n")
	for mi, m := range evalModes {
		hits, ans, dirty, aok, an := 0, 0, 0, 0, 0
		for _, c := range results[mi] {
			hits += c.hits
			ans += c.answerable
			dirty += c.contaminated
			aok += c.abstainOK
			an += c.abstainN
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %d/%d | %d/%d |\n", m.name, hits, ans, dirty, ans, aok, an)
	}
	b.WriteString("\nConfidence of the top hit (`query --json`'s `confidence`) against how often the deciding lesson was a wanted one, bm25f, all probes that were answered:\n\n")
	b.WriteString("| confidence | answered | deciding lesson wanted |\n|---|---|---|\n")
	c := cals[gatedMode]
	for i, lab := range []string{"[0, 0.25)", "[0.25, 0.5)", "[0.5, 0.75)", "[0.75, 1]"} {
		rate := "-"
		if c.n[i] > 0 {
			rate = fmt.Sprintf("%.2f", float64(c.ok[i])/float64(c.n[i]))
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", lab, c.n[i], rate)
	}
	return b.String()
}

// decideColdTable measures what one `darwin-memo decide` does in process at
// 10k lessons, as the command runs it (a consult-only load, then a decide
// that builds no index) and with the full load and index a long-lived
// process builds, the fastest of 15 runs of each interleaved, so that a
// busy machine inflates them alike; then the whole process
// (decideProcessTable).
func decideColdTable(t *testing.T) string {
	data := benchStoreBytes(t, 10000)
	rankings := []Retrieval{RetrievalDarwinMemo, RetrievalBM25F}
	type cell struct{ total, parse time.Duration }
	best := map[string]cell{}
	keep := func(k string, total, parse time.Duration) {
		c := best[k]
		if c.total == 0 || total < c.total {
			c.total = total
		}
		if c.parse == 0 || parse < c.parse {
			c.parse = parse
		}
		best[k] = c
	}
	// Each run starts from a collected heap and runs without collection,
	// as the command does (its heap is fresh, its collector off).
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for i := 0; i < 15; i++ {
		for _, r := range rankings {
			for _, once := range []bool{true, false} {
				debug.SetGCPercent(100)
				runtime.GC()
				debug.SetGCPercent(-1)
				t0 := time.Now()
				s, err := ParseWith("bench", data, Options{ConsultOnly: once})
				if err != nil {
					t.Fatal(err)
				}
				t1 := time.Now()
				if _, err := s.Decide(decideQuery, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: r, Once: once}}); err != nil {
					t.Fatal(err)
				}
				keep(fmt.Sprint(r, once), time.Since(t0), t1.Sub(t0))
			}
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	var b strings.Builder
	fmt.Fprintf(&b, "\n`decide` at 10k lessons in process (the `genStore` store of the lesson-store benchmarks above, %.0f MB): parse the file and decide `%s`; fastest of 15 interleaved runs, each from a collected heap with the collector off (as the command runs). "+
		"*As `decide` runs it*: the store loaded to be consulted only (`Options.ConsultOnly`: the graveyard is checked and passed over, the history notes checked and kept unread, since consulting reads none), and a decide with `RetrieveOptions.Once`, which builds no index "+
		"(darwin-memo: each lesson's tokens matched against the query's; bm25f: an index built for the one query and dropped), with results identical to the index's (`internal/rank`'s `TestLibraryOnceMatchesIndex`, `TestOnceMatchesIndex*`). "+
		"*With the index*: the full load and the ranking's index, as a long-lived process (the MCP server) builds once and reuses. "+
		"The same in `go test ./lessons -run '^$' -bench DecideCold`.\n\n", float64(len(data))/(1<<20), decideQuery)
	b.WriteString("| ranking | as `decide` runs it | of which load | with the index | of which load |\n|---|---|---|---|---|\n")
	for _, r := range rankings {
		o, x := best[fmt.Sprint(r, true)], best[fmt.Sprint(r, false)]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r, ms(o.total), ms(o.parse), ms(x.total), ms(x.parse))
	}
	b.WriteString(decideProcessTable(t, decideProcessRuns))
	return b.String()
}

// blindPacks reads a blind set (internal/rank/blind_test.go's format) as
// one pack per repository, each lesson recording what it supersedes.
func blindPacks(t *testing.T, dir string) []evalPack {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []evalPack
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Repo    string
			Lessons []struct {
				Key, Q, A  string
				Sources    []string
				Supersedes []string
			}
			Probes []struct {
				Query, Category string
				Want            []string
			}
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		p := evalPack{Class: r.Repo}
		for _, l := range r.Lessons {
			src := slices.Clone(l.Sources)
			for _, old := range l.Supersedes {
				src = append(src, "supersedes-key:"+old)
			}
			p.Lessons = append(p.Lessons, evalLesson{Key: l.Key, Q: l.Q, A: l.A, Sources: src})
		}
		for _, pr := range r.Probes {
			p.Probes = append(p.Probes, evalProbe{Query: pr.Query, Want: pr.Want, Abstain: len(pr.Want) == 0, Category: pr.Category})
		}
		out = append(out, p)
	}
	return out
}

// devSets are the development sets' directories: the suite, the held-out
// packs and every scored blind set.
func devSets() []string {
	dirs := []string{"testdata/retrieval", "testdata/retrieval/heldout", "testdata/retrieval/heldout2", "testdata/retrieval/heldout3", "testdata/retrieval/heldout4"}
	blind, _ := filepath.Glob("../internal/rank/testdata/blind*")
	// In the order measured: blind9 before blind10.
	slices.SortFunc(blind, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	return append(dirs, blind...)
}

// forEachDevStore builds, for each pack of each development set, the BM25F
// store of its lessons (with its set's common lessons) and calls fn with
// the set's name, the pack and the store's id-to-key map.
func forEachDevStore(t *testing.T, fn func(set string, p evalPack, s *Store, key map[string]string)) {
	t.Helper()
	for _, dir := range devSets() {
		var common evalPack
		var packs []evalPack
		if strings.Contains(dir, "blind") {
			packs = blindPacks(t, dir)
		} else {
			common, packs = loadPackDir(t, dir)
		}
		var all []evalLesson
		for _, p := range packs {
			all = append(all, p.Lessons...)
		}
		for _, p := range packs {
			ls := append(append([]evalLesson{}, common.Lessons...), p.Lessons...)
			if p.IncludeAll {
				ls = append(append([]evalLesson{}, common.Lessons...), all...)
			}
			s, ids := buildEvalStore(t, RetrievalBM25F, ls, false, false)
			key := map[string]string{}
			for k, id := range ids {
				key[id] = k
			}
			fn(filepath.Base(dir), p, s, key)
		}
	}
}

// TestDecideThresholdSweep fits rank's confidence model and chooses
// rank.DecideThreshold: on every development set (the suite, the held-out
// packs and the blind sets once scored), each probe's first lesson that
// may decide, its coverage and margin, the query's words, whether the
// query asks for a quantity, version, person, URL or date its answer
// cannot state (rank.Unstated), and whether it is wanted. It refits the
// logistic model (maximum likelihood, a small L2 penalty, Newton's method)
// and fails if the shipped model
// (internal/rank/confidence.txt) is more than 0.02 from the fit in a
// coefficient or differs in its words; -update rewrites it. It logs decide's
// accuracy, abstention precision and recall at each threshold with -v, and
// fails if rank.DecideThreshold is not within 0.05 of the best one's
// accuracy; with DARWIN_MEMO_EXHAUSTIVE=1 it also logs each set's accuracy
// when the model is fitted on the other sets alone (leave-one-set-out).
func TestDecideThresholdSweep(t *testing.T) {
	type probe struct {
		cov, margin float64 // of the first hit that may decide
		terms       int     // distinct terms of the query
		conf        float64 // its confidence
		right       bool    // that hit is wanted
		abstain     bool
		set         string
		words       []string // rank.QueryWords
		unstated    bool     // rank.Unstated of the query and that hit's answer
	}
	var probes []probe
	forEachDevStore(t, func(set string, p evalPack, s *Store, key map[string]string) {
		for _, pr := range p.Probes {
			hits, err := s.Retrieve(pr.Query, RetrieveOptions{Retrieval: RetrievalBM25F, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			pb := probe{abstain: pr.Abstain, set: set, terms: len(rank.QueryTerms(pr.Query)), words: rank.QueryWords(pr.Query)}
			first := -1
			for i, h := range hits {
				if h.SupersededBy == "" {
					first = i
					pb.cov, pb.conf, pb.right, pb.margin = h.Coverage, h.Confidence, slices.Contains(pr.Want, key[h.Entry.ID]), h.Margin
					pb.unstated = rank.Unstated(pr.Query, h.Entry.Answer)
					break
				}
			}
			if os.Getenv("SWEEP_LOG") != "" && first >= 0 && (pb.abstain == (pb.conf >= rank.DecideThreshold) || !pb.abstain && !pb.right) {
				t.Logf("abstain=%v right=%v conf=%.2f cov=%.2f margin=%.2f %q -> %s %q", pb.abstain, pb.right, pb.conf, pb.cov, pb.margin, pr.Query, key[hits[first].Entry.ID], hits[first].Entry.Question)
			}
			probes = append(probes, pb)
		}
	})
	// The model: P(first hit wanted) = σ(b0 + b1·coverage + b2·coverage·margin + b3·unstated + Σ word weights).
	var ex []fitExample
	for _, p := range probes {
		u := 0.0
		if p.unstated {
			u = 1
		}
		ex = append(ex, fitExample{set: p.set, x: []float64{1, p.cov, p.cov * p.margin, u}, words: p.words, hit: p.cov > 0, right: p.right, abstain: p.abstain})
	}
	vocab := confidenceVocab(ex, "")
	beta := fitLogistic(withWords(ex, vocab, ""))
	fit := rank.ConfidenceModel{Bias: beta[0], Coverage: beta[1], Margin: beta[2], Unstated: beta[3], Words: map[string]float64{}}
	for i, w := range vocab {
		fit.Words[w] = beta[4+i]
	}
	shipped := rank.DefaultConfidence()
	t.Logf("fitted confidence: bias %.3f, coverage %.3f, margin %.3f, unstated %.3f, %d words (shipped: %.2f, %.2f, %.2f, %.2f, %d words)",
		fit.Bias, fit.Coverage, fit.Margin, fit.Unstated, len(fit.Words), shipped.Bias, shipped.Coverage, shipped.Margin, shipped.Unstated, len(shipped.Words))
	if drift := confidenceDrift(fit, shipped); drift != "" {
		if golden.Updating() {
			text, err := fit.MarshalText()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("..", "internal", "rank", "confidence.txt"), text, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote internal/rank/confidence.txt (%s); run the test again", drift)
		} else {
			t.Errorf("the shipped confidence model is not the development probes' fit: %s (go test ./lessons -run TestDecideThresholdSweep -update rewrites it)", drift)
		}
	}
	accuracy := func(thr float64, set string) (acc, prec, rec, ans float64) {
		ok, silent, silentOK, abst, ansOK, n := 0, 0, 0, 0, 0, 0
		for _, p := range probes {
			if set != "" && p.set != set {
				continue
			}
			n++
			decides := p.conf >= thr && p.conf > 0
			if !decides {
				silent++
			}
			if p.abstain {
				abst++
				if !decides {
					ok++
					silentOK++
				}
			} else if decides && p.right {
				ok++
				ansOK++
			}
		}
		return float64(ok) / float64(n), float64(silentOK) / float64(max(1, silent)), float64(silentOK) / float64(max(1, abst)), float64(ansOK) / float64(max(1, n-abst))
	}
	top1, answerable := 0, 0
	for _, p := range probes {
		if !p.abstain {
			answerable++
			if p.right {
				top1++
			}
		}
	}
	t.Logf("answerable probes whose first hit is wanted: %d/%d", top1, answerable)
	best, bestAcc := 0.0, 0.0
	var b strings.Builder
	b.WriteString("| threshold | decide accuracy | answerable | abstention precision | abstention recall | balanced (mean of answerable and abstention recall) |\n|---|---|---|---|---|---|\n")
	for thr := 0.30; thr <= 0.901; thr += 0.05 {
		acc, prec, rec, ans := accuracy(thr, "")
		fmt.Fprintf(&b, "| %.2f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", thr, acc, ans, prec, rec, (ans+rec)/2)
		if acc > bestAcc {
			best, bestAcc = thr, acc
		}
	}
	t.Logf("%d development probes; best threshold %.2f (accuracy %.3f)\n%s", len(probes), best, bestAcc, b.String())
	var per strings.Builder
	for _, set := range devSets() {
		acc, prec, rec, ans := accuracy(rank.DecideThreshold, filepath.Base(set))
		fmt.Fprintf(&per, "| %s | %.3f | %.3f | %.3f | %.3f |\n", filepath.Base(set), acc, ans, prec, rec)
	}
	t.Logf("at rank.DecideThreshold %.2f, by set:\n| set | decide accuracy | answerable | abstention precision | abstention recall |\n|---|---|---|---|---|\n%s", rank.DecideThreshold, per.String())
	// Leave-one-set-out: each set decided by the model fitted on the
	// others, the estimate of a new set's score.
	var sets []string
	for _, d := range devSets() {
		sets = append(sets, filepath.Base(d))
	}
	if !exhaustive.On() {
		t.Logf("leave-one-set-out accuracy: set %s=1 to compute it (.ci/run does)", exhaustive.Env)
		return
	}
	acc, mean := leaveOneSetOut(sets, ex)
	var loso strings.Builder
	for i, set := range sets {
		fmt.Fprintf(&loso, "| %s | %.3f |\n", set, acc[i])
	}
	t.Logf("leave-one-set-out decide accuracy (mean %.3f):\n| left-out set | decide accuracy |\n|---|---|\n%s", mean, loso.String())
	if acc, _, _, _ := accuracy(rank.DecideThreshold, ""); acc < bestAcc-0.05 {
		t.Errorf("rank.DecideThreshold %.2f: accuracy %.3f, the best threshold %.2f gives %.3f", rank.DecideThreshold, acc, best, bestAcc)
	}
}

// confidenceL2 is the ridge penalty of the confidence fit, per probe,
// chosen by leave-one-set-out accuracy (docs/retrieval.md, round 28).
const confidenceL2 = 0.001

// A fitExample is one development probe for the confidence model: its
// set, its features (x[0] = 1), whether any lesson was listed, whether the
// first lesson that may decide is wanted, and whether it asks what the
// store cannot answer.
type fitExample struct {
	set                 string
	x                   []float64
	words               []string // the query's, rank.QueryWords; nil for a model without them
	hit, right, abstain bool
}

// Words enter the confidence model when development probes of several
// sets use them often: at least confidenceWordProbes probes of at least
// confidenceWordSets sets.
const (
	confidenceWordProbes = 15
	confidenceWordSets   = 4
)

// confidenceVocab returns the words of the examples outside set skip that
// enter the model, in byte order.
func confidenceVocab(ex []fitExample, skip string) []string {
	probes := map[string]int{}
	sets := map[string]map[string]bool{}
	for _, e := range ex {
		if e.set == skip {
			continue
		}
		for _, w := range e.words {
			probes[w]++
			if sets[w] == nil {
				sets[w] = map[string]bool{}
			}
			sets[w][e.set] = true
		}
	}
	var vocab []string
	for w, n := range probes {
		if n >= confidenceWordProbes && len(sets[w]) >= confidenceWordSets {
			vocab = append(vocab, w)
		}
	}
	slices.Sort(vocab)
	return vocab
}

// withWordsX returns each example's features followed by one indicator
// per vocabulary word.
func withWordsX(ex []fitExample, vocab []string) [][]float64 {
	xs := make([][]float64, len(ex))
	for i, e := range ex {
		x := append(slices.Clone(e.x), make([]float64, len(vocab))...)
		for _, w := range e.words {
			if j, ok := slices.BinarySearch(vocab, w); ok {
				x[len(e.x)+j] = 1
			}
		}
		xs[i] = x
	}
	return xs
}

// withWords returns fitLogistic's arguments for the examples outside set
// skip: features with word indicators, targets and the ridge penalty.
func withWords(ex []fitExample, vocab []string, skip string) ([][]float64, []float64, float64) {
	var kept []fitExample
	var ys []float64
	for _, e := range ex {
		if e.set != skip {
			kept = append(kept, e)
			y := 0.0
			if !e.abstain && e.right {
				y = 1
			}
			ys = append(ys, y)
		}
	}
	return withWordsX(kept, vocab), ys, confidenceL2
}

// confidenceDrift says how a fitted model differs from the shipped one by
// more than 0.02 in a coefficient or by its words ("" when it does not).
func confidenceDrift(fit, shipped rank.ConfidenceModel) string {
	var out []string
	for _, c := range []struct {
		name   string
		fit, s float64
	}{{"bias", fit.Bias, shipped.Bias}, {"coverage", fit.Coverage, shipped.Coverage}, {"margin", fit.Margin, shipped.Margin}, {"unstated", fit.Unstated, shipped.Unstated}} {
		if math.Abs(c.fit-c.s) > 0.02 {
			out = append(out, fmt.Sprintf("%s %.3f, shipped %.3f", c.name, c.fit, c.s))
		}
	}
	for w, v := range fit.Words {
		if s, ok := shipped.Words[w]; !ok || math.Abs(v-s) > 0.02 {
			out = append(out, fmt.Sprintf("word %q %.3f, shipped %.3f", w, v, s))
		}
	}
	for w := range shipped.Words {
		if _, ok := fit.Words[w]; !ok {
			out = append(out, fmt.Sprintf("word %q shipped, not fitted", w))
		}
	}
	slices.Sort(out)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, "; ")
}

// leaveOneSetOut returns each set's decide accuracy under the logistic
// model fitted on the other sets' examples (a decide where the model gives
// 0.5 or more and a lesson was listed), and their mean.
func leaveOneSetOut(sets []string, ex []fitExample) ([]float64, float64) {
	right := outcomes(sets, ex)
	acc := make([]float64, len(sets))
	mean := 0.0
	for i, set := range sets {
		ok, n := 0, 0
		for k, e := range ex {
			if e.set == set {
				n++
				if right[k] {
					ok++
				}
			}
		}
		acc[i] = float64(ok) / float64(max(1, n))
		mean += acc[i] / float64(len(sets))
	}
	return acc, mean
}

// outcomes returns, for each example, whether its set's model fitted on
// the other sets gets it right.
func outcomes(sets []string, ex []fitExample) []bool {
	out := make([]bool, len(ex))
	for _, set := range sets {
		vocab := confidenceVocab(ex, set)
		beta := fitLogistic(withWords(ex, vocab, set))
		xs := withWordsX(ex, vocab)
		for i, e := range ex {
			if e.set != set {
				continue
			}
			z := 0.0
			for j, x := range xs[i] {
				z += beta[j] * x
			}
			decides := e.hit && z >= 0
			out[i] = e.abstain && !decides || !e.abstain && decides && e.right
		}
	}
	return out
}

// fitLogistic returns the maximum-likelihood coefficients of a logistic
// model of ys on xs (xs[i][0] = 1 is the intercept), with an L2 penalty
// l2·n on the other coefficients, by Newton's method.
func fitLogistic(xs [][]float64, ys []float64, l2 float64) []float64 {
	d := len(xs[0])
	beta := make([]float64, d)
	n := float64(len(xs))
	nonzero := make([][]int, len(xs)) // word indicators are mostly 0
	for i, x := range xs {
		for j, v := range x {
			if v != 0 {
				nonzero[i] = append(nonzero[i], j)
			}
		}
	}
	for iter := 0; iter < 50; iter++ {
		g := make([]float64, d)
		h := make([][]float64, d)
		for j := range h {
			h[j] = make([]float64, d)
		}
		for i, x := range xs {
			nz := nonzero[i]
			z := 0.0
			for _, j := range nz {
				z += beta[j] * x[j]
			}
			p := 1 / (1 + math.Exp(-z))
			for _, j := range nz {
				g[j] += (p - ys[i]) * x[j]
				for _, k := range nz {
					h[j][k] += p * (1 - p) * x[j] * x[k]
				}
			}
		}
		for j := 1; j < d; j++ {
			g[j] += l2 * n * beta[j]
			h[j][j] += l2 * n
		}
		step := solve(h, g)
		sum := 0.0
		for j := range d {
			beta[j] -= step[j]
			sum += math.Abs(step[j])
		}
		if sum < 1e-10 {
			break
		}
	}
	return beta
}

// solve solves a·x = b for a symmetric positive definite a (the Hessian of
// fitLogistic, made definite by its ridge) by Cholesky factorisation,
// a = L·Lᵀ, and two triangular solves.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	l := make([][]float64, n)
	for i := range n {
		l[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			sum := a[i][j]
			for k := range j {
				sum -= l[i][k] * l[j][k]
			}
			if i == j {
				l[i][i] = math.Sqrt(sum)
			} else {
				l[i][j] = sum / l[j][j]
			}
		}
	}
	y := make([]float64, n)
	for i := range n {
		sum := b[i]
		for k := range i {
			sum -= l[i][k] * y[k]
		}
		y[i] = sum / l[i][i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		sum := y[i]
		for k := i + 1; k < n; k++ {
			sum -= l[k][i] * x[k]
		}
		x[i] = sum / l[i][i]
	}
	return x
}
