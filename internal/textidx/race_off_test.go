//go:build !race

package textidx

const raceEnabled = false
