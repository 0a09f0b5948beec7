//go:build race

package textidx

// raceEnabled shrinks the slow property tests under the race detector.
const raceEnabled = true
