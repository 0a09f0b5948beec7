package citation

import "slices"

// Change is one file of a merged pull request's diff, as GitHub's list of a pull request's
// files gives it (the diff-entry schema): Status "renamed" carries Previous, the path before.
type Change struct {
	Status   string // added, removed, modified, renamed, copied, changed, unchanged
	Path     string // filename
	Previous string // previous_filename, for a rename
}

// Lesson is a lesson as Follow sees it: its id and sources.
type Lesson struct {
	ID      string
	Sources []string
}

// Update is what Follow changed in one lesson.
type Update struct {
	ID      string
	Sources []string    // the lesson's sources after the change, others kept in place
	Renamed [][2]string // old and new citation labels
	Removed []string    // the paths whose citations were marked removed
	// Restored lists the removed citations whose paths the pull request added back (or
	// renamed a file onto): they are live again.
	Restored []string
	// Orphaned is set when the lesson had a live citation before the change and has none
	// after it: every path it cites is gone.
	Orphaned bool
}

// Follow applies a merged pull request's changed files to the lessons' citations: a
// citation of a renamed path follows it to the new path (its symbol kept), a citation of a
// removed path is marked removed (path-removed:), and a citation marked removed whose path
// the pull request adds again is live again. Only exact paths are matched: a cited
// directory is not followed file by file. It returns the lessons it changed, in the order
// given; the inputs are not modified.
func Follow(ls []Lesson, changes []Change) []Update {
	renamed := map[string]string{}
	removed := map[string]bool{}
	added := map[string]bool{}
	for _, ch := range changes {
		switch ch.Status {
		case "added":
			if p, err := CleanPath(ch.Path); err == nil {
				added[p] = true
			}
		case "removed":
			if p, err := CleanPath(ch.Path); err == nil {
				removed[p] = true
			}
		case "renamed":
			from, err1 := CleanPath(ch.Previous)
			to, err2 := CleanPath(ch.Path)
			if err1 == nil && err2 == nil && from != to {
				renamed[from] = to
			}
		}
	}
	for _, to := range renamed {
		added[to] = true
	}
	if len(renamed) == 0 && len(removed) == 0 && len(added) == 0 {
		return nil
	}
	var out []Update
	for _, l := range ls {
		u := Update{ID: l.ID}
		live := false
		var srcs []string
		for i, s := range l.Sources {
			c, err := Parse(s)
			if err != nil {
				continue // not a citation, or an invalid one: neither followed nor live
			}
			if c.Removed {
				if added[c.Path] { // the pull request put the file back
					if srcs == nil {
						srcs = slices.Clone(l.Sources)
					}
					c.Removed = false
					srcs[i] = c.Source()
					u.Restored = append(u.Restored, c.Target())
				}
				continue
			}
			live = true
			to, isRenamed := renamed[c.Path]
			if !isRenamed && !removed[c.Path] {
				continue
			}
			if srcs == nil {
				srcs = slices.Clone(l.Sources)
			}
			if isRenamed {
				n := c
				n.Path = to
				srcs[i] = n.Source()
				u.Renamed = append(u.Renamed, [2]string{s, srcs[i]})
			} else {
				n := c
				n.Removed = true
				srcs[i] = n.Source()
				u.Removed = append(u.Removed, c.Target())
			}
		}
		if srcs == nil {
			continue
		}
		u.Sources = dedup(srcs)
		u.Orphaned = live && !HasLive(u.Sources)
		out = append(out, u)
	}
	return out
}

// HasLive reports whether the sources hold at least one valid citation not recorded as
// removed. It does not look at the working tree.
func HasLive(sources []string) bool {
	for _, s := range sources {
		if c, err := Parse(s); err == nil && !c.Removed {
			return true
		}
	}
	return false
}

// dedup drops repeated labels (two cited files renamed onto one), keeping the first.
func dedup(ss []string) []string {
	out := ss[:0]
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
