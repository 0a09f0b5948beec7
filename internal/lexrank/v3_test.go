package lexrank

import (
	"slices"
	"testing"
)

func TestRewriteQuery(t *testing.T) {
	for in, want := range map[string]string{
		"root cause of the April 12 outage":  "root cause of the 04-12 outage",
		"what broke on may 3rd?":             "what broke on 05-03?",
		"how do I run the end-to-end suite?": "how do I run the endtoend suite?",
		"march the tests forward":            "march the tests forward",
	} {
		if got := rewriteQuery(in); got != want {
			t.Errorf("rewriteQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdentifierAndValueStems(t *testing.T) {
	id := identifierStems("What Redis timeout does shipping-api use in pkg/raft for TestLeaderElection?")
	for _, w := range []string{"shipping", "api", "raft", "election"} {
		if !id[Stem(w)] {
			t.Errorf("%s not an identifier part: %v", w, id)
		}
	}
	if id[Stem("redis")] || id[Stem("timeout")] {
		t.Errorf("plain words taken for identifier parts: %v", id)
	}
	if v := valueStems("my PR has 76% coverage and 1.5% flakes"); !v["76"] || !v["1.5"] || len(v) != 2 {
		t.Errorf("valueStems: %v", v)
	}
	if v := valueStems("the queue has 40k jobs waiting; hangs at step 1200 on 128 ranks, see INC-4410 and port 8081."); !v["40k"] || !v["128"] || len(v) != 2 {
		t.Errorf("valueStems counts: %v", v)
	}
	for _, w := range []string{"40k", "128"} {
		if Stem(w) != w {
			t.Errorf("Stem(%s) = %s", w, Stem(w))
		}
	}
	if v := stateWords("quill queue latency is climbing, it keeps crashing before timing out; is deployed"); !v["climbing"] || !v["crashing"] || !v["timing"] || !v["deployed"] || len(v) != 4 {
		t.Errorf("stateWords: %v", v)
	}
	if v := stateWords("the thumbnailing worker is slow"); len(v) != 0 {
		t.Errorf("stateWords: %v", v)
	}
	if got := rawStem("adding"); got != "add" {
		t.Errorf("rawStem(adding) = %q", got)
	}
}

func TestSearchV3(t *testing.T) {
	x := New()
	x.Add("How is the repository's CI configured?", "GitHub Actions, in .github/workflows/ci.yml.")
	x.Add("What caused the 2026-04-12 outage?", "The TLS certificate expired.")
	x.Add("How do we publish a release?", "Merge the release-please PR.")
	x.Add("Which port does the API listen on?", "8080.")
	for q, doc := range map[string]int{
		"how is the repo CI set up":         0,
		"root cause of the April 12 outage": 1,
		"how do we ship a new version":      2,
	} {
		res := x.SearchV3(q, MinCoverage, 0)
		if len(res.Hits) == 0 || res.Hits[0].Doc != doc {
			t.Errorf("%q: %+v", q, res)
		}
	}
	// Names and numbers still silence; a percentage does not.
	if r := x.SearchV3("Which port does the Grafana API listen on?", MinCoverage, 0); r.Blocked == "" {
		t.Errorf("unknown name not blocked: %+v", r)
	}
	// An unknown capitalised word naming no kind of known thing, in a query
	// naming three distinctive known terms, weighs as an unseen thing.
	if r := x.SearchV3("which port does the API listen on while Terminating", MinCoverage, 0); r.Blocked != "" || !slices.Contains(r.Unseen, Stem("terminating")) {
		t.Errorf("capitalised word with a known rest blocked: %+v", r)
	}
	if r := x.SearchV3("which port while Terminating", MinCoverage, 0); r.Blocked == "" {
		t.Errorf("capitalised word with little else not blocked: %+v", r)
	}
	if r := x.SearchV3("does the API listen on 76% of hosts", MinCoverage, 0); r.Blocked != "" {
		t.Errorf("percentage blocked: %+v", r)
	}
	// v2's Search does not use the table.
	if r := x.Search("how do we ship a new version", MinCoverage, 0); slices.ContainsFunc(r.Hits, func(h Hit) bool { return h.Doc == 2 }) {
		t.Errorf("v2 search used the synonym table: %+v", r)
	}
}

func TestDerivedStems(t *testing.T) {
	if d := derivedStems("serialization"); !slices.Contains(d, Stem("serializer")) || !slices.Contains(d, Stem("serialize")) {
		t.Errorf("derivedStems(serialization) = %v", d)
	}
	if d := derivedStems("optimisation"); !slices.Contains(d, Stem("optimised")) {
		t.Errorf("derivedStems(optimisation) = %v", d)
	}
	if d := derivedStems("server"); d != nil {
		t.Errorf("short word derived: %v", d)
	}
}
