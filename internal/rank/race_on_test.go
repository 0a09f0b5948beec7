//go:build race

package rank

// raceEnabled shrinks the slow property tests under the race detector.
const raceEnabled = true
