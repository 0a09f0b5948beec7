package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Class is what acting on a lesson does to the test suite.
type Class int

// Lesson classes.
const (
	// Useful: acting on it fixes the task's failing test more often and
	// protects the other tests of its topic.
	Useful Class = iota
	// NearDuplicate: a reworded copy of a useful lesson (same fact, same
	// effect), which consolidation should merge.
	NearDuplicate
	// Poisoned: acting on it breaks passing tests.
	Poisoned
	// Trivia: true but inert; it neither helps nor harms.
	Trivia
)

var classNames = [...]string{"useful", "near-duplicate", "poisoned", "trivia"}

func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// benign reports whether the lesson carries a useful fact.
func (c Class) benign() bool { return c == Useful || c == NearDuplicate }

// Lesson is one lesson the encoder produces.
type Lesson struct {
	ID    int // index in World.Lessons
	Class Class
	Topic int
	// Fact identifies the useful fact a useful lesson or near-duplicate
	// carries (shared by a lesson and its near-duplicates); -1 otherwise.
	Fact     int
	Question string
	Answer   string
	// Born is the merged-PR index before whose tasks the lesson arrives.
	Born int
	// RecordedTS is the merge time of the PR it was encoded from.
	RecordedTS string
}

// Task is one piece of agent work: make a failing test of a topic pass.
type Task struct {
	Topic int
	// Fact is, in a FactTasks world, the fact (World.Facts id) the task
	// asks about, or -1 when no lesson states it; -1 in other worlds.
	Fact  int
	Query string
	// Target is the global index of the failing test the task is about.
	Target int
	// Pre-drawn dice: UFix decides the fix, UHarm a breakage.
	UFix, UHarm float64
	// Harm is how many tests a poisoned lesson breaks when it harms.
	Harm int
	// HarmPick chooses which passing tests of the topic break.
	HarmPick int
}

// PR is one merged pull request.
type PR struct {
	Tasks []Task
	// Delay is how many merged PRs later its tickets settle.
	Delay int
	// BaseDice and HeadDice are the flake dice of the PR's two CI runs (at
	// its base and at its head), one per flaky test in World.FlakySet order.
	// They are drawn for every PR whatever the noise, so worlds that differ
	// only in noise share every die and a flake at one noise level is also
	// a flake at every higher level.
	BaseDice, HeadDice []float64
	// BaseFlakes and HeadFlakes are the tests (global indices) reported red
	// spuriously in the run at the base and at the head at this world's
	// noise: flaky test k fails a run when its die is below FlakeRate[k].
	BaseFlakes, HeadFlakes []int
}

// World is one generated repository history. It is read-only once built and
// may be shared by concurrent runs.
type World struct {
	Config   Config
	Seed     uint64
	Lessons  []Lesson
	Arrivals [][]int // Arrivals[pr]: ids of lessons arriving before PR pr
	PRs      []PR
	Facts    int // number of distinct useful facts
	// FlakySet lists the flaky tests (global indices), flakiest first;
	// FlakeRate[k] is the chance that FlakySet[k] fails one CI run at this
	// world's noise.
	FlakySet  []int
	FlakeRate []float64
	// TestIDs names every test of the suite as a JUnit-style id.
	TestIDs   []string
	testIndex map[string]int
	// Churn, when set, deletes some lessons' code mid-stream (churn.go).
	Churn *Churn
}

// Tests is the size of the simulated suite.
func (w *World) Tests() int { return w.Config.Topics * w.Config.TestsPerTopic }

const (
	wordsPerTopic  = 8
	miscWords      = 40
	questionTopicN = 5
	answerWords    = 5
	queryTopicN    = 3
)

// NewWorld generates the repository history for one seed.
func NewWorld(cfg Config, seed uint64) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid simulation config: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e1ec7)) // stream constant: "select"
	w := &World{Config: cfg, Seed: seed, Arrivals: make([][]int, cfg.PRs)}
	g := &gen{w: w, rng: rng, unique: cfg.Topics*wordsPerTopic + miscWords}
	if cfg.Vocabulary == Zipf {
		g.zipfText, g.unique = newZipfText(rng), cfg.Topics*zipfTopicVocab
	}
	g.zipf = zipfWeights(cfg.Topics, cfg.TopicSkew)
	if cfg.Tasks == FactTasks {
		g.facts = &factText{words: map[int][]string{}, id: map[int]int{}}
	}

	// Initial store, all arriving before PR 0.
	for i := 0; i < cfg.InitialUseful; i++ {
		g.addUseful(i%cfg.Topics, 0)
	}
	for i := 0; i < cfg.InitialNearDup; i++ {
		g.addNearDup(0)
	}
	for i := 0; i < cfg.InitialPoison; i++ {
		g.addPoison(g.topic(), 0)
	}
	for i := 0; i < cfg.InitialTrivia; i++ {
		g.addTrivia(g.topic(), 0)
	}
	// Lessons the encoder adds over time.
	learnUntil := int(cfg.LearnFraction * float64(cfg.PRs))
	mix := []float64{cfg.MixUseful, cfg.MixNearDup, cfg.MixPoison, cfg.MixTrivia}
	for pr := cfg.ArrivalEvery; pr < learnUntil; pr += cfg.ArrivalEvery {
		switch c := Class(pick(rng, mix)); {
		case c == Useful || (c == NearDuplicate && !g.hasUseful()):
			g.addUseful(g.topic(), pr)
		case c == NearDuplicate:
			g.addNearDup(pr)
		case c == Poisoned:
			g.addPoison(g.topic(), pr)
		default:
			g.addTrivia(g.topic(), pr)
		}
	}
	if err := encodeLessons(w); err != nil {
		return nil, err
	}
	// The merged-PR stream.
	w.PRs = make([]PR, cfg.PRs)
	for i := range w.PRs {
		n := cfg.MinTasks + rng.IntN(cfg.MaxTasks-cfg.MinTasks+1)
		pr := PR{Tasks: make([]Task, n), Delay: rng.IntN(cfg.MaxDelay + 1)}
		for j := range pr.Tasks {
			pr.Tasks[j] = g.task()
		}
		// Three dice the earlier PR-wide noise model drew here, kept so that
		// every seed's lessons, tasks and delays stay those published with
		// it and results before and after the per-test model compare seed
		// for seed.
		_, _, _ = rng.Float64(), rng.IntN(3), rng.IntN(w.Tests())
		w.PRs[i] = pr
	}
	// Flakiness has its own stream, so the number of flaky tests does not
	// change the lessons, tasks or delays.
	frng := rand.New(rand.NewPCG(seed, 0xf1a6e)) // "flake"
	w.nameTests()
	w.FlakySet = frng.Perm(w.Tests())[:cfg.FlakyTests]
	for i := range w.PRs {
		pr := &w.PRs[i]
		pr.BaseDice, pr.HeadDice = make([]float64, cfg.FlakyTests), make([]float64, cfg.FlakyTests)
		for k := range cfg.FlakyTests {
			pr.BaseDice[k], pr.HeadDice[k] = frng.Float64(), frng.Float64()
		}
	}
	w.applyNoise()
	return w, nil
}

// nameTests gives every test of the suite its JUnit-style id.
func (w *World) nameTests() {
	cfg := w.Config
	w.TestIDs = make([]string, w.Tests())
	w.testIndex = make(map[string]int, w.Tests())
	for i := range w.TestIDs {
		w.TestIDs[i] = fmt.Sprintf("sim/topic%02d.Test%d", i/cfg.TestsPerTopic, i%cfg.TestsPerTopic)
		w.testIndex[w.TestIDs[i]] = i
	}
}

// FlakeRates returns the per-run failure chance of each of n flaky tests
// at a noise level: test k (0-based) gets the share w_k = (k+1)^-skew of
// the noise, q_k = 1-(1-noise)^(w_k/W) with W the sum of the shares, so a
// run has at least one spurious red with chance exactly noise.
func FlakeRates(n int, skew, noise float64) []float64 {
	ws := zipfWeights(n, skew)
	var total float64
	for _, x := range ws {
		total += x
	}
	out := make([]float64, n)
	for k, x := range ws {
		out[k] = 1 - math.Pow(1-noise, x/total)
	}
	return out
}

// applyNoise derives the flake rates and every PR's spurious reds from the
// world's noise and the pre-drawn dice.
func (w *World) applyNoise() {
	cfg := w.Config
	w.FlakeRate = FlakeRates(len(w.FlakySet), cfg.FlakySkew, cfg.Noise)
	red := func(dice []float64) []int {
		var out []int
		for k, u := range dice {
			if u < w.FlakeRate[k] {
				out = append(out, w.FlakySet[k])
			}
		}
		return out
	}
	for i := range w.PRs {
		w.PRs[i].BaseFlakes, w.PRs[i].HeadFlakes = red(w.PRs[i].BaseDice), red(w.PRs[i].HeadDice)
	}
}

// WithNoise returns the same world at another flaky-noise level: the same
// lessons, tasks, delays, flaky tests and dice, with the flakes re-derived.
// It equals NewWorld with that noise, without re-encoding the lessons.
func (w *World) WithNoise(noise float64) (*World, error) {
	cfg := w.Config
	cfg.Noise = noise
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid simulation config: %w", err)
	}
	out := *w
	out.Config = cfg
	out.PRs = slices.Clone(w.PRs)
	out.applyNoise()
	return &out, nil
}

// gen holds generator state while a World is built.
type gen struct {
	w      *World
	rng    *rand.Rand
	zipf   []float64
	unique int // next unused word index
	// zipfText draws the texts when the vocabulary is Zipf (vocab.go).
	zipfText *zipfText
	// facts draws the facts' texts when the tasks are FactTasks (facts.go).
	facts *factText
}

func (g *gen) topic() int { return pick(g.rng, g.zipf) }

func (g *gen) hasUseful() bool {
	for _, l := range g.w.Lessons {
		if l.Class == Useful {
			return true
		}
	}
	return false
}

func (g *gen) add(l Lesson) {
	l.ID = len(g.w.Lessons)
	g.w.Lessons = append(g.w.Lessons, l)
	g.w.Arrivals[l.Born] = append(g.w.Arrivals[l.Born], l.ID)
}

func (g *gen) uniqueWords(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = word(g.unique)
		g.unique++
	}
	return out
}

// topicWords draws n distinct words of topic t, in topic order.
func (g *gen) topicWords(t, n int) []string {
	idx := g.rng.Perm(wordsPerTopic)[:n]
	slices.Sort(idx)
	out := make([]string, n)
	for i, j := range idx {
		out[i] = word(t*wordsPerTopic + j)
	}
	return out
}

func (g *gen) miscWord() string {
	return word(g.w.Config.Topics*wordsPerTopic + g.rng.IntN(miscWords))
}

// lessonText draws the question and answer of a useful or poisoned lesson
// of topic t.
func (g *gen) lessonText(t int) (question, answer string) {
	if z := g.zipfText; z != nil {
		return join(z.topicWords(t, zipfQuestionTopicN), z.shared(zipfQuestionSharedN)),
			join(g.uniqueWords(zipfAnswerFactN), z.shared(zipfAnswerSharedN))
	}
	return strings.Join(g.topicWords(t, questionTopicN), " "), strings.Join(g.uniqueWords(answerWords), " ")
}

func (g *gen) addUseful(t, born int) {
	if g.facts != nil {
		g.addFactUseful(t, born)
		return
	}
	q, a := g.lessonText(t)
	g.add(Lesson{Class: Useful, Topic: t, Fact: g.w.Facts, Born: born, Question: q, Answer: a})
	g.w.Facts++
}

func (g *gen) addNearDup(born int) {
	var useful []int
	for _, l := range g.w.Lessons {
		if l.Class == Useful {
			useful = append(useful, l.ID)
		}
	}
	orig := g.w.Lessons[useful[g.rng.IntN(len(useful))]]
	if g.facts != nil {
		g.addFactNearDup(orig, born)
		return
	}
	if g.zipfText != nil {
		g.addZipfNearDup(orig, born)
		return
	}
	words := strings.Fields(orig.Answer)
	words[g.rng.IntN(len(words))] = g.uniqueWords(1)[0]
	g.add(Lesson{Class: NearDuplicate, Topic: orig.Topic, Fact: orig.Fact, Born: born,
		Question: orig.Question, Answer: strings.Join(words, " ")})
}

// addZipfNearDup rewords a useful lesson of the Zipf vocabulary: one shared
// word of its question becomes another shared word, one word of its fact a
// new word. The question changes, as a rewording's does, so the store does
// not read the copy as replacing the original (a lesson asking the same
// question with another answer supersedes it under BM25F).
func (g *gen) addZipfNearDup(orig Lesson, born int) {
	q := strings.Fields(orig.Question)
	for {
		w := g.zipfText.shared(1)[0]
		if !slices.Contains(q, w) {
			q[zipfQuestionTopicN+g.rng.IntN(zipfQuestionSharedN)] = w
			break
		}
	}
	a := strings.Fields(orig.Answer)
	a[g.rng.IntN(zipfAnswerFactN)] = g.uniqueWords(1)[0]
	g.add(Lesson{Class: NearDuplicate, Topic: orig.Topic, Fact: orig.Fact, Born: born,
		Question: strings.Join(q, " "), Answer: strings.Join(a, " ")})
}

func (g *gen) addPoison(t, born int) {
	if g.facts != nil {
		g.addFactPoison(t, born)
		return
	}
	q, a := g.lessonText(t)
	g.add(Lesson{Class: Poisoned, Topic: t, Fact: -1, Born: born, Question: q, Answer: a})
}

func (g *gen) addTrivia(t, born int) {
	if z := g.zipfText; z != nil {
		g.add(Lesson{Class: Trivia, Topic: t, Fact: -1, Born: born,
			Question: join(z.topicWords(t, 1), z.shared(zipfTriviaSharedN)),
			Answer:   join(g.uniqueWords(zipfTriviaFactN), z.shared(1))})
		return
	}
	q := append(g.topicWords(t, 1), g.miscWord(), g.miscWord(), g.miscWord())
	g.add(Lesson{Class: Trivia, Topic: t, Fact: -1, Born: born,
		Question: strings.Join(q, " "),
		Answer:   strings.Join(g.uniqueWords(3), " ")})
}

func (g *gen) task() Task {
	cfg := g.w.Config
	t := g.topic()
	var query string
	fact := -1
	if g.facts != nil {
		query, fact = g.factQuery(t)
	} else if z := g.zipfText; z != nil {
		query = join(z.topicWords(t, zipfQueryTopicN), z.shared(zipfQuerySharedN+g.rng.IntN(2)))
	} else {
		q := g.topicWords(t, queryTopicN)
		if g.rng.IntN(2) == 0 {
			q = append(q, g.miscWord())
		}
		query = strings.Join(q, " ")
	}
	return Task{
		Topic:    t,
		Fact:     fact,
		Query:    query,
		Target:   t*cfg.TestsPerTopic + g.rng.IntN(cfg.TestsPerTopic),
		UFix:     g.rng.Float64(),
		UHarm:    g.rng.Float64(),
		Harm:     1 + g.rng.IntN(cfg.MaxHarm),
		HarmPick: g.rng.IntN(cfg.TestsPerTopic),
	}
}

// zipfWeights returns weights k^-s for k = 1..n.
func zipfWeights(n int, s float64) []float64 {
	w := make([]float64, n)
	for k := range w {
		w[k] = math.Pow(float64(k+1), -s)
	}
	return w
}

// pick draws an index with probability proportional to its weight.
func pick(rng *rand.Rand, weights []float64) int {
	var total float64
	for _, x := range weights {
		total += x
	}
	u := rng.Float64() * total
	for i, x := range weights {
		if u < x {
			return i
		}
		u -= x
	}
	return len(weights) - 1
}

// word spells word number i as consonant-vowel syllables. The alphabet has
// no "s", so no word is changed by the tokenizer's plural stemming, and every
// word has at least three syllables, so none is a stopword.
func word(i int) string {
	const cons, vows = "bdfgklmnprtvz", "aeiou"
	var sb strings.Builder
	for n := 0; n < 3 || i > 0; n++ {
		d := i % (len(cons) * len(vows))
		i /= len(cons) * len(vows)
		sb.WriteByte(cons[d/len(vows)])
		sb.WriteByte(vows[d%len(vows)])
	}
	return sb.String()
}

// epoch is the merge time of simulated PR 0; PR i merges i hours later.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// encodeLessons passes every lesson through the encoder's deterministic
// (no-LLM) path, as the action does with a merged PR: the lesson is written
// as a "Lesson: <question>? <answer>" line in the body of the PR it arrives
// after, and the text the encoder extracts and validates is what the arms
// receive. The generator writes lessons that pass every rule, so a rejection
// means the encoder's rules changed; that is an error, not a silent skip.
// The encoder's duplicate check against the living store is not applied: it
// depends on each arm's store, and near-duplicates are part of the world.
func encodeLessons(w *World) error {
	enc := encode.New(nil)
	for i, l := range w.Lessons {
		pr := &encode.PR{Owner: "sim", Repo: "repo", Number: l.Born + 1, Title: "simulated PR",
			Body:              fmt.Sprintf("Lesson: %s? %s.", l.Question, l.Answer),
			AuthorAssociation: "MEMBER", MergedAt: epoch.Add(time.Duration(l.Born) * time.Hour)}
		// The deterministic encoder does no I/O; the context only satisfies
		// the signature.
		r, err := enc.Encode(context.Background(), pr, nil, nil)
		if err != nil {
			return fmt.Errorf("encode lesson %d: %w", l.ID, err)
		}
		added := r.Added()
		if len(added) != 1 {
			why := "no candidate"
			if len(r.Candidates) > 0 {
				why = "rejected: " + r.Candidates[0].Rejected
			}
			return fmt.Errorf("the deterministic encoder did not accept simulated lesson %d (%q? %q): %s; "+
				"update the simulator's lesson texts to the encoder's rules", l.ID, l.Question, l.Answer, why)
		}
		w.Lessons[i].Question, w.Lessons[i].Answer = added[0].Question, added[0].Answer
		w.Lessons[i].RecordedTS = added[0].RecordedTS
	}
	return nil
}

// HandBuilt returns a world made of the given lessons and merged PRs, for
// tests and what-if scenarios: lesson i gets ID i and arrives before PR
// Born; the PRs' flakes are taken as given (BaseFlakes, HeadFlakes), not
// drawn, and the lessons' texts are used as written (no encoder pass).
func HandBuilt(cfg Config, lessons []Lesson, prs []PR) (*World, error) {
	cfg.PRs = len(prs)
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid simulation config: %w", err)
	}
	w := &World{Config: cfg, Lessons: slices.Clone(lessons), PRs: slices.Clone(prs), Arrivals: make([][]int, len(prs))}
	for i := range w.Lessons {
		l := &w.Lessons[i]
		l.ID = i
		if l.Born < 0 || l.Born >= len(prs) {
			return nil, fmt.Errorf("lesson %d arrives before PR %d, outside the %d PRs", i, l.Born, len(prs))
		}
		w.Arrivals[l.Born] = append(w.Arrivals[l.Born], i)
		w.Facts = max(w.Facts, l.Fact+1)
	}
	w.nameTests()
	for i, p := range w.PRs {
		for _, t := range append(slices.Clone(p.BaseFlakes), p.HeadFlakes...) {
			if t < 0 || t >= w.Tests() {
				return nil, fmt.Errorf("PR %d: flaky test %d outside the %d tests", i, t, w.Tests())
			}
		}
	}
	return w, nil
}
