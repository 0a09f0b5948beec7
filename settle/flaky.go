package settle

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

// Defaults of darwin-memo's settle-ci (--window 10, --flip-threshold 3).
const (
	DefaultFlakyWindow    = 10
	DefaultFlipThreshold  = 3
	maxFlakyHistoryTests  = 100000
	maxFlakyHistoryLength = 1000
)

// FlakyHistory is the flaky-quarantine sidecar, `{"tests": {"<id>":
// [bool, ...]}}`: the last DefaultFlakyWindow observations (true = passed)
// per test. A test whose history has at least DefaultFlipThreshold adjacent
// disagreements is quarantined: excluded from Delta.
type FlakyHistory struct {
	Tests map[string][]bool
}

// NewFlakyHistory returns an empty history.
func NewFlakyHistory() *FlakyHistory {
	return &FlakyHistory{Tests: map[string][]bool{}}
}

// LoadFlakyHistory reads a sidecar. Missing (nil) or malformed data (not an
// object, "tests" not an object, values not lists of booleans) gives an
// empty history and never an error: a pull request can author this file, so
// it must not be able to break or steer settlement. Individual entries that
// are not lists of booleans are dropped; non-boolean items inside a list are
// skipped.
func LoadFlakyHistory(data []byte) *FlakyHistory {
	h := NewFlakyHistory()
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return h
	}
	var tests map[string]json.RawMessage
	if json.Unmarshal(top["tests"], &tests) != nil {
		return h
	}
	if len(tests) > maxFlakyHistoryTests {
		return h
	}
	for id, raw := range tests {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		var hist []bool
		for _, it := range items {
			switch string(bytes.TrimSpace(it)) {
			case "true":
				hist = append(hist, true)
			case "false":
				hist = append(hist, false)
			}
		}
		if len(hist) > maxFlakyHistoryLength {
			hist = hist[len(hist)-maxFlakyHistoryLength:]
		}
		if len(hist) > 0 {
			h.Tests[id] = hist
		}
	}
	return h
}

// Update records the observations of one measurement, before then after,
// for every id in the union of both runs: a pass is true, a failure false,
// a test that passed only on a rerun (junit.Flaky) records false then true
// (it did flip), a skip records nothing. Each history keeps its last
// DefaultFlakyWindow entries; ids not in either run, or left with no observations, are
// dropped, so tests that left the suite leave the history.
func (h *FlakyHistory) Update(before, after map[string]junit.Status) {
	next := make(map[string][]bool, len(before)+len(after))
	ids := map[string]bool{}
	for id := range before {
		ids[id] = true
	}
	for id := range after {
		ids[id] = true
	}
	for id := range ids {
		hist := append([]bool(nil), h.Tests[id]...)
		for _, side := range []map[string]junit.Status{before, after} {
			s, ok := side[id]
			if !ok {
				continue
			}
			switch s {
			case junit.Passed:
				hist = append(hist, true)
			case junit.Failed:
				hist = append(hist, false)
			case junit.Flaky:
				hist = append(hist, false, true)
			}
		}
		if len(hist) > DefaultFlakyWindow {
			hist = hist[len(hist)-DefaultFlakyWindow:]
		}
		if len(hist) > 0 {
			next[id] = hist
		}
	}
	h.Tests = next
}

// Quarantined returns the sorted ids with at least DefaultFlipThreshold
// adjacent disagreeing observations.
func (h *FlakyHistory) Quarantined() []string {
	ids := []string{}
	for id, hist := range h.Tests {
		flips := 0
		for i := 1; i < len(hist); i++ {
			if hist[i] != hist[i-1] {
				flips++
			}
		}
		if flips >= DefaultFlipThreshold {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// Marshal returns the sidecar bytes: keys sorted, two-space indent, a
// trailing newline. The same history always gives the same bytes.
func (h *FlakyHistory) Marshal() ([]byte, error) {
	tests := h.Tests
	if tests == nil {
		tests = map[string][]bool{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// encoding/json sorts map keys.
	if err := enc.Encode(struct {
		Tests map[string][]bool `json:"tests"`
	}{tests}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
