package lessons

import (
	"fmt"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Citations: a lesson's "path:" sources cite the code it describes (internal/citation owns
// the convention). A merged pull request's renames and removals are applied to the living
// lessons' citations by FollowCitations; a lesson whose last cited file was removed pays
// stale_upkeep until a settlement credits it again or it cites an existing file again. The
// state lives where darwin-memo keeps it verbatim: the sources themselves (a removed
// citation becomes "path-removed:...") and a history note with event "citations".

// RecommendedStaleUpkeep is the stale_upkeep new stores start with: a lesson whose every
// cited file a merge removed pays twice darwin-memo's upkeep per tick (a spawned lesson
// starves in 10 ticks, one at the energy cap in 50) until CI credits it again or a person
// cites a file that exists. The selection benchmark's code-churn world chose it
// (docs/tuning.md, "Stale citations").
const RecommendedStaleUpkeep = 0.1

// CitationNoteEvent is the event of the history note FollowCitations writes.
const CitationNoteEvent = "citations"

// FollowCitations applies merged pull request pr's changed files to the living lessons'
// citations (citation.Follow): a renamed path is followed, a removed one is marked
// "path-removed:", and a removed citation whose file the pull request added back is live
// again. Each lesson it changes gets a history note. It returns the changes, in the order
// of the living lessons.
func (s *Store) FollowCitations(pr int, changes []citation.Change) []citation.Update {
	var ls []citation.Lesson
	for _, e := range s.living {
		if citation.Mentions(e.Sources) {
			ls = append(ls, citation.Lesson{ID: e.ID, Sources: e.Sources})
		}
	}
	ups := citation.Follow(ls, changes)
	for _, u := range ups {
		e := s.byID[u.ID]
		e.Sources = u.Sources
		s.note(e.ID, s.citationNote(pr, u))
	}
	return ups
}

// citationNote is the history note of one lesson's citations changed by pull request pr:
// {"tick","ts","text","event":"citations","pr","renamed":[[old,new]...],"removed":[...],
// "restored":[...],"orphaned"}.
func (s *Store) citationNote(pr int, u citation.Update) pyjson.Value {
	var parts []string
	renamed := make([]pyjson.Value, len(u.Renamed))
	for i, r := range u.Renamed {
		parts = append(parts, fmt.Sprintf("%s moved to %s", strings.TrimPrefix(r[0], citation.Prefix), strings.TrimPrefix(r[1], citation.Prefix)))
		renamed[i] = pyjson.Array(pyjson.String(r[0]), pyjson.String(r[1]))
	}
	if len(u.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(u.Removed, ", "))
	}
	if len(u.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(u.Restored, ", "))
	}
	text := fmt.Sprintf("tick %d: citations changed by #%d: %s", s.tick, pr, strings.Join(parts, "; "))
	if u.Orphaned {
		text += " (no valid citation left)"
	}
	return s.structured(text, CitationNoteEvent,
		pyjson.Pair("pr", pyjson.Int(pr)),
		pyjson.Pair("renamed", pyjson.Array(renamed...)),
		pyjson.Pair("removed", pyjson.Strings(u.Removed)),
		pyjson.Pair("restored", pyjson.Strings(u.Restored)),
		pyjson.Pair("orphaned", pyjson.Bool(u.Orphaned)))
}

// CitationsStale reports whether e's citations are stale: it has a citation recorded as
// removed and no live one, and no settlement has credited it since the last note that a
// merge left it without a valid citation. Such a lesson pays stale_upkeep. It reads the
// working tree not at all: a cited file deleted outside a tracked merge is the read-time
// check's to find.
func (s *Store) CitationsStale(e *Entry) bool {
	removed := false
	for _, src := range e.Sources {
		removed = removed || strings.HasPrefix(src, citation.RemovedPrefix)
	}
	if !removed || citation.HasLive(e.Sources) {
		return false
	}
	notes := s.notesOf(e.ID)
	for i := len(notes) - 1; i >= 0; i-- {
		raw := notes[i]
		switch {
		case strings.Contains(raw, `"`+CitationNoteEvent+`"`):
			if n := noteOf(raw); n.Event() == CitationNoteEvent && n.v.Field("orphaned").Bool() {
				return true
			}
		case strings.Contains(raw, `"settle"`):
			if n := noteOf(raw); n.Event() == "settle" {
				if c, ok := n.Credit(); ok && c > 0 {
					return false
				}
			}
		}
	}
	// The note fell off the history's cap, or a person marked the citation by hand.
	return true
}

// CitationChange is one "citations" history note read back, as the action's report lists it:
// what merged pull request PR did to a lesson's citations.
type CitationChange struct {
	PR       int
	Renamed  [][2]string // old and new source labels
	Removed  []string    // the cited paths (with their symbols) it removed
	Orphaned bool        // it left the lesson without any valid citation
}

// CitationChanges returns the citation changes recorded in id's history, oldest first.
func (s *Store) CitationChanges(id string) []CitationChange {
	var out []CitationChange
	for _, raw := range s.notesOf(id) {
		if !strings.Contains(raw, `"`+CitationNoteEvent+`"`) {
			continue
		}
		n := noteOf(raw)
		if n.Legacy() || n.Event() != CitationNoteEvent {
			continue
		}
		c := CitationChange{Orphaned: n.v.Field("orphaned").Bool()}
		c.PR, _ = n.v.Field("pr").Int()
		for _, r := range n.v.Field("renamed").Elems() {
			if it := r.Elems(); len(it) == 2 {
				c.Renamed = append(c.Renamed, [2]string{it[0].Str(), it[1].Str()})
			}
		}
		c.Removed = strItems(n.v.Field("removed"))
		out = append(out, c)
	}
	return out
}

func strItems(v pyjson.Value) []string {
	var out []string
	for _, x := range v.Elems() {
		if x.Kind() == pyjson.KindString {
			out = append(out, x.Str())
		}
	}
	return out
}
