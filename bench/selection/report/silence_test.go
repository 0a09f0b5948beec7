package report

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/ledgerarm"
	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

var silenceProbe = flag.Bool("silenceprobe", false, "TestFactSilence: run the ledger on BM25F in the fact worlds and log how often decide is silent on a task whose fact a lesson states")

// silenceArm is the ledger arm counting its silences on the fact-world
// tasks whose fact some lesson of the world states, by how many living
// entries state it (0, 1, 2 or more), and, when two or more do, what the
// first two hits are.
type silenceArm struct {
	*ledgerarm.Arm
	w      *sim.World
	tasks  [3]int
	silent [3]int
	why    map[string]int
}

func (a *silenceArm) Consult(query string, pr int) (sim.Consultation, error) {
	c, err := a.Arm.Consult(query, pr)
	if err != nil {
		return c, err
	}
	fact := -1
	for _, t := range a.w.PRs[pr].Tasks {
		if t.Query == query {
			fact = t.Fact
			break
		}
	}
	if fact < 0 {
		return c, nil
	}
	living := a.Arm.Living()
	carried := map[string][]int{}
	n := 0
	for _, e := range living {
		carried[e.Key] = e.Lessons
		if slices.ContainsFunc(e.Lessons, func(id int) bool { return a.w.Lessons[id].Fact == fact }) {
			n++
		}
	}
	n = min(n, 2)
	a.tasks[n]++
	if !c.Silent() {
		return c, nil
	}
	a.silent[n]++
	if n < 2 {
		return c, nil
	}
	hits, err := a.Arm.Store().Retrieve(query, lessons.RetrieveOptions{K: 2})
	if err != nil {
		return c, err
	}
	if len(hits) < 2 {
		a.why["one hit"]++
		return c, nil
	}
	states, poisoned := true, false
	for _, h := range hits {
		ids := carried[h.Entry.ID]
		states = states && slices.ContainsFunc(ids, func(id int) bool { return a.w.Lessons[id].Fact == fact })
		poisoned = poisoned || slices.ContainsFunc(ids, func(id int) bool { return a.w.Lessons[id].Class == sim.Poisoned })
	}
	text := func(h lessons.Hit) []string { return rank.Tokens(h.Entry.Question + " " + h.Entry.Answer) }
	switch {
	case poisoned:
		a.why["a poisoned lesson among the first two"]++
	case !states:
		a.why["one of the first two does not state the fact"]++
	case rank.Jaccard(text(hits[0]), text(hits[1])) >= a.Arm.Store().Config().MergeThreshold:
		a.why["the first two state it, near-duplicates"]++
	default:
		a.why["the first two state it, not near-duplicates"]++
	}
	return c, nil
}

// TestFactSilence is a probe, run with -silenceprobe: over seeds 1-20 of
// the fact worlds at 0% noise, in both vocabularies, how often the ledger
// consulting with BM25F is silent on a task whose fact a lesson of the
// world states, by how many living entries state it, and why when two or
// more do (docs/retrieval.md, fact worlds).
func TestFactSilence(t *testing.T) {
	if !*silenceProbe {
		t.Skip("a probe; run with -silenceprobe")
	}
	for _, v := range []sim.Vocabulary{sim.MadeUp, sim.Zipf} {
		var tasks, silent [3]int
		why := map[string]int{}
		for seed := uint64(1); seed <= 20; seed++ {
			cfg := sim.DefaultConfig()
			cfg.Tasks, cfg.Vocabulary = sim.FactTasks, v
			w, err := sim.NewWorld(cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			a := &silenceArm{Arm: ledgerarm.New(consulting(LedgerOptions(), lessons.RetrievalBM25F)), w: w, why: why}
			if _, err := sim.Run(w, a); err != nil {
				t.Fatal(err)
			}
			for i := range tasks {
				tasks[i] += a.tasks[i]
				silent[i] += a.silent[i]
			}
		}
		all := tasks[0] + tasks[1] + tasks[2]
		pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(all)) }
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d tasks whose fact a lesson states, silent on %s", v, all, pct(silent[0]+silent[1]+silent[2]))
		for i, label := range []string{"no living entry states it", "one does", "two or more do"} {
			fmt.Fprintf(&b, "\n  %s: %s of the tasks, silent on %s", label, pct(tasks[i]), pct(silent[i]))
		}
		for _, k := range slices.Sorted(maps.Keys(why)) {
			fmt.Fprintf(&b, "\n    two or more, silent, %s: %d tasks (%s)", k, why[k], pct(why[k]))
		}
		t.Log(b.String())
	}
}
