package rank

import (
	"slices"
	"strings"
)

// Supersession is recorded at a lesson's birth, never guessed at query
// time (Source.Supersedes). A superseded lesson is still retrieved, listed
// after the lesson that replaces it, and never decides.

// A Supersession maps a lesson id to the living lessons recording that
// they supersede it.
type Supersession[K comparable] struct {
	by  map[string][]K
	src Source[K]
}

// NewSupersession reads the records of the living lessons.
func NewSupersession[K comparable](living []K, src Source[K]) Supersession[K] {
	m := Supersession[K]{by: map[string][]K{}, src: src}
	for _, k := range living {
		ids := src.Supersedes(k)
		if len(ids) == 0 {
			continue
		}
		own := src.Lesson(k).ID
		for _, id := range ids {
			if id != own {
				m.by[id] = append(m.by[id], k)
			}
		}
	}
	return m
}

// Chain follows the records from k: k, the newest living lesson that
// supersedes it, the newest that supersedes that one, and so on.
func (m Supersession[K]) Chain(k K) []K {
	out := []K{k}
	for {
		var next K
		found := false
		for _, c := range m.by[m.src.Lesson(k).ID] {
			if !slices.Contains(out, c) && (!found || m.newer(c, next)) {
				next, found = c, true
			}
		}
		if !found {
			return out
		}
		out = append(out, next)
		k = next
	}
}

// Latest returns the newest living lesson that supersedes k, directly or
// down a chain (the last of k's Chain); false when none does.
func (m Supersession[K]) Latest(k K) (K, bool) {
	if len(m.by) > 0 {
		if c := m.Chain(k); len(c) > 1 {
			return c[len(c)-1], true
		}
	}
	var zero K
	return zero, false
}

// newer reports whether a was recorded after b: by recorded time (an
// unknown one is oldest), then born tick.
func (m Supersession[K]) newer(a, b K) bool {
	la, lb := m.src.Lesson(a), m.src.Lesson(b)
	if c := strings.Compare(la.Recorded, lb.Recorded); c != 0 {
		return c > 0
	}
	return la.Born > lb.Born
}
