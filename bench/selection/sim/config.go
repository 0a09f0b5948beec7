package sim

import (
	"errors"
	"fmt"
)

// Config describes the simulated repository. The zero value is not useful;
// start from DefaultConfig.
type Config struct {
	// PRs is the number of merged PRs in one run.
	PRs int
	// Topics is the number of areas of the code base; TestsPerTopic tests
	// belong to each.
	Topics        int
	TestsPerTopic int
	// TopicSkew is the Zipf exponent of topic popularity (0 = uniform).
	TopicSkew float64
	// MinTasks and MaxTasks bound the tasks (and so tickets) bundled in one PR.
	MinTasks, MaxTasks int
	// MaxDelay is the largest settlement delay, in merged PRs: the tickets a
	// PR carried settle when PR i+d merges, d uniform in [0, MaxDelay].
	MaxDelay int
	// Noise is the flaky-noise level: the probability that one CI run of a
	// change that breaks nothing reports at least one test red. Spurious
	// reds come only from a fixed set of FlakyTests flaky tests; flaky test
	// k fails a run with probability 1-(1-Noise)^(w_k/W), w_k = k^-FlakySkew
	// and W their sum, so that the chance of a red run is exactly Noise.
	// Every CI run draws its own flakes: the run at a PR's base and the run
	// at its head, as in a real repository.
	Noise float64
	// FlakyTests is how many tests of the suite are flaky; FlakySkew is the
	// Zipf exponent of how spurious failures divide among them (0: evenly).
	FlakyTests int
	FlakySkew  float64

	// PBase is the chance an agent fixes its task's failing test on its own;
	// PFix the chance when the deciding lesson is useful for the topic.
	PBase, PFix float64
	// PTrap is the chance an agent without a useful lesson for the topic
	// breaks one passing test (what a useful lesson protects against).
	PTrap float64
	// PHarm is the chance that acting on a poisoned lesson breaks tests;
	// MaxHarm bounds how many (uniform in [1, MaxHarm]).
	PHarm   float64
	MaxHarm int

	// Initial store: useful facts (one per topic, round robin), near-duplicates
	// of useful lessons, poisoned lessons and trivia.
	InitialUseful, InitialNearDup, InitialPoison, InitialTrivia int
	// ArrivalEvery: one new lesson arrives every ArrivalEvery merged PRs
	// during the first LearnFraction of the run (the encoder's output).
	ArrivalEvery  int
	LearnFraction float64
	// Arrival mix: relative weights of the classes of arriving lessons.
	MixUseful, MixNearDup, MixPoison, MixTrivia float64

	// TailFraction is the final share of the run over which the tail delta
	// is averaged.
	TailFraction float64
	// PRsPerDay defines a day on the merged-PR clock (the TTL arm's clock).
	PRsPerDay int
	// TTLDays is the TTL arm's lifetime of an unused lesson.
	TTLDays int
	// Vocabulary is how lessons and queries are spelt (vocab.go); "" is
	// MadeUp.
	Vocabulary Vocabulary
	// Tasks is what a task asks for and which lessons serve it (facts.go);
	// "" is TopicTasks.
	Tasks TaskModel
}

// DefaultConfig is the repository the published benchmark simulates.
func DefaultConfig() Config {
	return Config{
		PRs:            400,
		Topics:         12,
		TestsPerTopic:  8,
		TopicSkew:      0.7,
		MinTasks:       1,
		MaxTasks:       4,
		MaxDelay:       2,
		Noise:          0,
		FlakyTests:     15,
		FlakySkew:      1,
		PBase:          0.3,
		PFix:           0.9,
		PTrap:          0.2,
		PHarm:          0.8,
		MaxHarm:        3,
		InitialUseful:  12,
		InitialNearDup: 4,
		InitialPoison:  4,
		InitialTrivia:  8,
		ArrivalEvery:   6,
		LearnFraction:  0.75,
		MixUseful:      0.35,
		MixNearDup:     0.2,
		MixPoison:      0.2,
		MixTrivia:      0.25,
		TailFraction:   0.25,
		PRsPerDay:      4,
		TTLDays:        28,
	}
}

// Validate reports the first setting that cannot be simulated.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.PRs >= 4, "PRs = %d: need at least 4 merged PRs", c.PRs)
	check(c.Topics >= 1, "Topics = %d: need at least one topic", c.Topics)
	check(c.TestsPerTopic >= 2, "TestsPerTopic = %d: need at least 2", c.TestsPerTopic)
	check(c.TopicSkew >= 0, "TopicSkew = %g: must be >= 0", c.TopicSkew)
	check(c.MinTasks >= 1 && c.MaxTasks >= c.MinTasks, "tasks per PR [%d, %d]: need 1 <= min <= max", c.MinTasks, c.MaxTasks)
	check(c.MaxDelay >= 0, "MaxDelay = %d: must be >= 0", c.MaxDelay)
	for _, p := range []struct {
		name string
		v    float64
	}{{"Noise", c.Noise}, {"PBase", c.PBase}, {"PFix", c.PFix}, {"PTrap", c.PTrap}, {"PHarm", c.PHarm}, {"LearnFraction", c.LearnFraction}, {"TailFraction", c.TailFraction}} {
		check(p.v >= 0 && p.v <= 1, "%s = %g: must be a probability in [0, 1]", p.name, p.v)
	}
	check(c.FlakyTests >= 0 && c.FlakyTests <= c.Topics*c.TestsPerTopic, "FlakyTests = %d: must be between 0 and the %d tests of the suite", c.FlakyTests, c.Topics*c.TestsPerTopic)
	check(c.Noise == 0 || c.FlakyTests > 0, "Noise = %g needs at least one flaky test (FlakyTests = 0)", c.Noise)
	check(c.FlakySkew >= 0, "FlakySkew = %g: must be >= 0", c.FlakySkew)
	check(c.MaxHarm >= 1, "MaxHarm = %d: must be >= 1", c.MaxHarm)
	check(c.InitialUseful >= 0 && c.InitialNearDup >= 0 && c.InitialPoison >= 0 && c.InitialTrivia >= 0, "initial lesson counts must be >= 0")
	check(c.InitialNearDup == 0 || c.InitialUseful > 0, "near-duplicates need at least one useful lesson")
	check(c.ArrivalEvery >= 1, "ArrivalEvery = %d: must be >= 1", c.ArrivalEvery)
	mix := c.MixUseful + c.MixNearDup + c.MixPoison + c.MixTrivia
	check(c.MixUseful >= 0 && c.MixNearDup >= 0 && c.MixPoison >= 0 && c.MixTrivia >= 0 && mix > 0, "arrival mix must be non-negative with a positive sum")
	check(c.PRsPerDay >= 1 && c.TTLDays >= 1, "PRsPerDay and TTLDays must be >= 1")
	check(c.Vocabulary == "" || c.Vocabulary == MadeUp || c.Vocabulary == Zipf, "Vocabulary = %q: use %q or %q", c.Vocabulary, MadeUp, Zipf)
	check(c.Tasks == "" || c.Tasks == TopicTasks || c.Tasks == FactTasks, "Tasks = %q: use %q or %q", c.Tasks, TopicTasks, FactTasks)
	return errors.Join(errs...)
}
