package action

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// followCitations applies a merged pull request's renames and removals to the citations of
// the lessons in the store (lessons.Store.FollowCitations): a renamed cited path is updated,
// a removed one marked removed, and a lesson left without any valid citation pays the
// store's stale_upkeep. The lessons the pull request itself adds are encoded after it. Only
// the first page of its files is read, the one the encoder reads too (the run asks GitHub once
// and remembers the answer): a cited file past it that was removed is found by the read-time
// check instead.
func (r *Runner) followCitations(ctx context.Context, st *state, pr *github.PullRequest) error {
	n := pr.GetNumber()
	files, _, err := r.Client.PullRequests.ListFiles(ctx, r.Owner, r.Repo, n, &github.ListOptions{PerPage: maxFilesPage})
	if err != nil {
		return botpr.Explain(fmt.Errorf("listing the files of #%d for the lessons' citations: %w", n, err), "pull-requests")
	}
	changes := make([]citation.Change, 0, len(files))
	for _, f := range files {
		changes = append(changes, citation.Change{Status: f.GetStatus(), Path: f.GetFilename(), Previous: f.GetPreviousFilename()})
	}
	ups := st.store.FollowCitations(n, changes)
	orphaned := 0
	for _, u := range ups {
		if u.Orphaned {
			orphaned++
		}
	}
	if len(ups) > 0 {
		r.Logf("#%d: its renames and removals changed the citations of %d lesson(s), %d of them left without a valid citation", n, len(ups), orphaned)
	}
	return nil
}

// citationReport is the bot pull request's account of what the pull requests it carries did
// to the lessons' citations, read from the history notes of the living lessons whose sources
// differ from the base branch's (so a later run that updates the pull request shows them
// too).
func citationReport(st *state, final *lessons.Store) []report.Citations {
	onBranch := map[int]bool{}
	for _, p := range st.rec.Processed {
		if !st.mainRec.has(p.PR) {
			onBranch[p.PR] = true
		}
	}
	if len(onBranch) == 0 {
		return nil
	}
	type moveKey struct{ from, to string }
	type prCites struct {
		moved  map[moveKey]int
		broken map[string]*report.Broken
	}
	byPR := map[int]*prCites{}
	for _, e := range final.Living() {
		if !citation.Mentions(e.Sources) {
			continue
		}
		if base, ok := st.mainStore.Entry(e.ID); ok && slices.Equal(base.Sources, e.Sources) {
			continue
		}
		for _, c := range final.CitationChanges(e.ID) {
			if !onBranch[c.PR] {
				continue
			}
			pc := byPR[c.PR]
			if pc == nil {
				pc = &prCites{moved: map[moveKey]int{}, broken: map[string]*report.Broken{}}
				byPR[c.PR] = pc
			}
			for _, m := range c.Renamed {
				pc.moved[moveKey{pathOf(m[0]), pathOf(m[1])}]++
			}
			for _, p := range c.Removed {
				b := pc.broken[p]
				if b == nil {
					b = &report.Broken{Path: p}
					pc.broken[p] = b
				}
				b.Lessons++
				if c.Orphaned {
					b.Orphaned = append(b.Orphaned, report.Lesson{ID: e.ID, Question: e.Question})
				}
			}
		}
	}
	var out []report.Citations
	for pr, pc := range byPR {
		c := report.Citations{PR: pr}
		for k, n := range pc.moved {
			c.Moved = append(c.Moved, report.Moved{From: k.from, To: k.to, Lessons: n})
		}
		sort.Slice(c.Moved, func(i, j int) bool {
			return c.Moved[i].From+"\x00"+c.Moved[i].To < c.Moved[j].From+"\x00"+c.Moved[j].To
		})
		for _, b := range pc.broken {
			sort.Slice(b.Orphaned, func(i, j int) bool { return b.Orphaned[i].ID < b.Orphaned[j].ID })
			c.Broken = append(c.Broken, *b)
		}
		sort.Slice(c.Broken, func(i, j int) bool { return c.Broken[i].Path < c.Broken[j].Path })
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PR < out[j].PR })
	return out
}

// pathOf is a citation label's path, or the label when it is not one.
func pathOf(label string) string {
	if c, err := citation.Parse(label); err == nil {
		return c.Path
	}
	return label
}
