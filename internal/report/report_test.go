package report

import (
	"fmt"
	"strings"
	"testing"
)

func f(v float64) *float64 { return &v }

func sample() Report {
	tts := 12.5
	return Report{
		RepoURL: "https://github.com/acme/shop", RunURL: "https://github.com/acme/shop/actions/runs/1", StorePath: ".darwin-memo/lessons.json",
		Settlements: []Settlement{{PR: 7, Title: "Fix | pipes", Outcome: "settled", Delta: f(2), Source: "junit-artifacts",
			Before: "1111111111111111111111111111111111111111", After: "2222222222222222222222222222222222222222",
			Quarantined: []string{"pkg::TestFlaky"}, Settled: []string{"abcdef123456"}}},
		Births:    []Birth{{ID: "0123456789ab", Question: "Q?", Answer: "A <b>", Sources: []string{"pr#7"}}},
		Proposed:  []Proposal{{PR: 8, Question: "P?", Answer: "p", Author: "stranger"}},
		Deaths:    []Death{{ID: "deadbeef0000", Question: "Poison?", Cause: "executed", Uses: 2, Notes: []string{"tick 3: credit -0.457"}}},
		Merges:    []Merge{{ID: "aaaaaaaaaaaa", Question: "Lint?", Members: []string{"b1", "b2"}, Energy: 1.5}},
		Survivors: []Survivor{{ID: "0123456789ab", Question: "Q?", Energy: 1.25, TicksToStarvation: &tts, Uses: 1, New: true}},
		Trend:     []Point{{Label: "#6", Population: 3, Energy: 3}, {Label: "#7", Population: 4, Energy: 3.9}},
		Warnings:  []string{"#9 abstained: no CI"},
		Queued:    []int{10},
		Tick:      4,
	}
}

func TestBodySections(t *testing.T) {
	t.Parallel()
	b := Body(sample())
	for _, want := range []string{
		Marker, "### ⚠️ Warnings", "#9 abstained", "[#10](https://github.com/acme/shop/pull/10)",
		"### Settlements", `Fix \| pipes`, "| +2 |", "[`1111111`](https://github.com/acme/shop/commit/1111111111111111111111111111111111111111)",
		"1 settled (`abcdef123456`)", "pkg::TestFlaky",
		"### Births (1)", "A &lt;b&gt;", "Proposed, not added", "stranger",
		"### Deaths (1)", "**executed**", "tick 3: credit -0.457",
		"### Merges (1)", "`b1`, `b2`",
		"```mermaid", "xychart-beta", `x-axis ["#6", "#7"]`, "bar [3, 4]", "line [3.00, 3.90]",
		"### Survivors (1 living, tick 4)", "| 1.250 | 12.5 | 1 |", "🆕",
		"actions/runs/1",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	if got := Title(sample()); got != "darwin-memo: 1 merge settled, 1 birth, 1 death" {
		t.Errorf("title %q", got)
	}
	if !strings.HasPrefix(Summary(sample(), "settled"), "# darwin-memo: settled\n") {
		t.Error("summary heading")
	}
}

func TestBodyBounded(t *testing.T) {
	t.Parallel()
	r := sample()
	long := strings.Repeat("word ", 400)
	for i := 0; i < 2000; i++ {
		id := fmt.Sprintf("%012x", i)
		r.Births = append(r.Births, Birth{ID: id, Question: long, Answer: long})
		r.Deaths = append(r.Deaths, Death{ID: id, Question: long, Cause: "starved", Notes: []string{long, long, long}})
		r.Survivors = append(r.Survivors, Survivor{ID: id, Question: long})
		r.Settlements = append(r.Settlements, Settlement{PR: i, Title: long})
	}
	b := Body(r)
	if len(b) > 65536 {
		t.Fatalf("body %d bytes, over GitHub's limit", len(b))
	}
	if !strings.Contains(b, "cut to stay under") {
		t.Fatal("no cut note")
	}
}

func TestEmptyAndSinglePoint(t *testing.T) {
	t.Parallel()
	b := Body(Report{StorePath: "s.json", Trend: []Point{{Label: "#1", Population: 1, Energy: 1}}, DryRun: true})
	if strings.Contains(b, "mermaid") || strings.Contains(b, "Settlements") || !strings.Contains(b, "No living lessons") || !strings.Contains(b, "Dry run") {
		t.Fatalf("%s", b)
	}
	if Title(Report{}) != "darwin-memo: lessons update" {
		t.Fatal("empty title")
	}
}

func FuzzBody(f *testing.F) {
	f.Add("q | x", "a `b` <c>", "executed", 1.5)
	f.Fuzz(func(t *testing.T, q, a, cause string, e float64) {
		r := Report{Births: []Birth{{ID: "x", Question: q, Answer: a}}, Deaths: []Death{{ID: "y", Question: q, Cause: cause}},
			Survivors: []Survivor{{ID: "x", Question: q, Energy: e}}}
		b := Body(r)
		if len(b) > MaxBody+1000 {
			t.Fatalf("body too long: %d", len(b))
		}
		for _, line := range strings.Split(b, "\n") {
			if strings.HasPrefix(line, "| `x`") && strings.Count(line, "|")-strings.Count(line, `\|`) != 5 && strings.Count(line, "|")-strings.Count(line, `\|`) != 6 {
				t.Fatalf("table row broken by cell text: %q", line)
			}
		}
	})
}

// A tick of a large store merges thousands of lessons: the merges are listed up to the cap,
// as births and deaths are, and the sections after them (survivors, footer) stay in the body.
func TestManyMergesKeepLaterSections(t *testing.T) {
	t.Parallel()
	r := Report{StorePath: "s.json", Survivors: []Survivor{{ID: "s1", Question: "kept"}}}
	for i := 0; i < 5000; i++ {
		r.Merges = append(r.Merges, Merge{ID: fmt.Sprintf("m%011x", i), Question: strings.Repeat("q", 120), Members: []string{"a", "b"}, Energy: 1})
	}
	b := Body(r)
	for _, want := range []string{"### Merges (5000)", "- … 4960 more\n", "### Survivors (1 living", "Merging this pull request commits the store"} {
		if !strings.Contains(b, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	if strings.Contains(b, "cut to stay under") || strings.Contains(b, fmt.Sprintf("m%011x", listCap)) {
		t.Errorf("merges beyond the cap listed or body cut:\n%s", b)
	}
	if n := strings.Count(b, " ← "); n != listCap {
		t.Errorf("%d merges listed, want %d", n, listCap)
	}
}
