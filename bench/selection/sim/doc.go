// Package sim simulates the merged-PR stream of a repository whose coding
// agents consult a lesson store, so that selection policies (arms) can be
// compared on the same stream.
//
// A World is generated from a Config and a seed: topics with their own words
// (made up, or spread as English text's are: Config.Vocabulary, vocab.go)
// and, in fact worlds, facts with words of their own that a lesson states
// and a task asks about (Config.Tasks, facts.go),
// a per-test suite (TestsPerTopic tests per topic), lessons of four classes
// (useful, near-duplicate of a useful one, poisoned, inert trivia) that arrive
// over time (each extracted by the encoder's deterministic path from a
// "Lesson:" line of the merged PR it arrives after, so the arms receive the
// encoder's text), and a stream of merged PRs that bundle several tasks. Each task
// is a failing test on one topic; the agent consults the arm with the task's
// query, acts on the deciding lesson, and the simulated suite gives the PR
// its true per-test delta (improvements minus regressions on shared tests).
// What the arms learn from is the delta CI measures: the PR's CI runs at its
// base and head, with spurious reds from a fixed set of flaky tests, go
// through the settle package as in the action (the FlakyHistory sidecar, then
// settle.Diff with its quarantine; see CI). Settlements arrive after a random
// delay of a few merged PRs, and a PR is measured when its settlement is due.
//
// Every random draw is made once, when the World is generated, from a PCG
// seeded by the seed; arms that need their own randomness get a PCG seeded by
// (seed, arm name). So every arm sees the same tasks with the same dice, and a
// run is a pure function of (Config, seed, arm).
package sim
