package action

import (
	"cmp"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// buildReport describes everything the bot branch carries that the base branch lacks: the
// pull requests processed on the branch, and the births, deaths and merges found by comparing
// the final store with the base branch's.
func (r *Runner) buildReport(st *state, final *lessons.Store) report.Report {
	rep := report.Report{
		RepoURL: r.RepoURL, RunURL: r.RunURL, StorePath: r.Config.StorePath,
		Warnings: append([]string(nil), st.warnings...), Queued: append([]int(nil), st.rec.Queued...),
		Tick: final.TickCount(),
	}
	for _, p := range st.rec.Processed {
		if st.mainRec.has(p.PR) {
			continue
		}
		if p.Outcome != OutcomeNoTickets {
			rep.Settlements = append(rep.Settlements, report.Settlement{
				PR: p.PR, Title: p.Title, Outcome: p.Outcome, Delta: p.Delta, Source: p.Source,
				Before: p.Before, After: p.After, Quarantined: p.Quarantined, Settled: p.Settled, Refused: p.Refused, Reason: p.Reason,
			})
		}
		for _, pp := range p.Proposed {
			rep.Proposed = append(rep.Proposed, report.Proposal{PR: p.PR, Question: pp.Question, Answer: pp.Answer, Author: pp.Author})
		}
	}
	known := func(id string) bool {
		if _, ok := st.mainStore.Entry(id); ok {
			return true
		}
		_, ok := st.mainStore.Dead(id)
		return ok
	}
	heirOf := map[string]string{}
	for _, list := range [][]*lessons.Entry{final.Living(), final.Graveyard()} {
		for _, e := range list {
			for _, m := range e.Lineage {
				heirOf[m] = e.ID
			}
		}
	}
	for _, e := range final.Living() {
		if known(e.ID) {
			continue
		}
		if e.Kind == lessons.KindConsolidated && len(e.Lineage) > 0 {
			rep.Merges = append(rep.Merges, report.Merge{ID: e.ID, Question: e.Question, Members: e.Lineage, Energy: e.Energy})
			continue
		}
		rep.Births = append(rep.Births, report.Birth{ID: e.ID, Question: e.Question, Answer: e.Answer, Sources: e.Sources})
	}
	cause := final.Causes()
	for _, e := range final.Graveyard() {
		if _, wasLiving := st.mainStore.Entry(e.ID); !wasLiving {
			if _, wasDead := st.mainStore.Dead(e.ID); wasDead || known(e.ID) {
				continue
			}
		}
		d := report.Death{ID: e.ID, Question: e.Question, Uses: e.Uses, Lineage: e.Lineage, Cause: cause(e.ID)}
		if d.Cause == "merged" {
			d.Heir = heirOf[e.ID]
		}
		notes := final.History(e.ID)
		if len(notes) > 3 {
			notes = notes[len(notes)-3:]
		}
		for _, n := range notes {
			d.Notes = append(d.Notes, n.Text())
		}
		rep.Deaths = append(rep.Deaths, d)
	}
	// The body lists the strongest survivors and counts the rest.
	top := strongest(final.Living(), report.MaxSurvivors)
	rep.MoreSurvivors = len(final.Living()) - len(top)
	for _, e := range top {
		rep.Survivors = append(rep.Survivors, report.Survivor{
			ID: e.ID, Question: e.Question, Energy: e.Energy, TicksToStarvation: final.TicksToStarvation(e),
			Uses: e.Uses, Pinned: e.Pinned, New: !known(e.ID),
		})
	}
	rep.Citations = citationReport(st, final)
	for _, p := range st.rec.Trend {
		rep.Trend = append(rep.Trend, report.Point{Label: "#" + itoa(p.PR), Population: p.Population, Energy: p.Energy})
	}
	return rep
}

// strongest returns the n living lessons with the most energy, ties by id (a living lesson's
// id is unique).
func strongest(living []*lessons.Entry, n int) []*lessons.Entry {
	top := slices.Clone(living)
	slices.SortFunc(top, func(a, b *lessons.Entry) int {
		if c := cmp.Compare(b.Energy, a.Energy); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return top[:min(n, len(top))]
}
