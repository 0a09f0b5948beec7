package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Churn is a world's code churn: merged PRs that delete the code some lessons describe.
// A lesson cites one file: a useful lesson and its near-duplicates the file of their fact,
// every other lesson a file of its own. Once a PR deletes the file, acting on the lesson
// no longer helps (its advice is obsolete, as trivia is: it can still trap an agent), and a
// topic whose every useful fact lost its code no longer counts toward benign capability.
type Churn struct {
	// Files[id] is the file lesson id cites.
	Files []string
	// Removed[pr] lists the files merged PR pr deletes; Gone[id] is the PR that deleted
	// lesson id's file, or -1.
	Removed [][]string
	Gone    []int
}

// ChurnObserver is an Arm that reads a merged PR's deleted files (the action reads the
// merged PR's changed files). Run calls it at the start of the PR, before its lessons
// arrive and its tasks consult.
type ChurnObserver interface {
	CodeRemoved(files []string, pr int) error
}

// helps reports whether acting on lesson id during PR pr helps: it carries a useful fact
// whose code has not been deleted before pr.
func (w *World) helps(id, pr int) bool {
	if !w.Lessons[id].Class.benign() {
		return false
	}
	return w.Churn == nil || w.Churn.Gone[id] < 0 || pr < w.Churn.Gone[id]
}

// removeCode tells an observing arm which files merged PR pr deletes.
func removeCode(w *World, arm Arm, pr int) error {
	if w.Churn == nil || len(w.Churn.Removed[pr]) == 0 {
		return nil
	}
	if o, ok := arm.(ChurnObserver); ok {
		if err := o.CodeRemoved(w.Churn.Removed[pr], pr); err != nil {
			return fmt.Errorf("%s: code removed by PR %d: %w", arm.Name(), pr, err)
		}
	}
	return nil
}

// LessonFile is the file lesson l cites in a churn world.
func LessonFile(l Lesson) string {
	if l.Class.benign() {
		return fmt.Sprintf("code/fact%03d.go", l.Fact)
	}
	return fmt.Sprintf("code/lesson%04d.go", l.ID)
}

// WithChurn returns the world with code churn: each useful fact's file is deleted with
// chance share, by a merged PR drawn uniformly after the last of its lessons arrived and
// before three quarters of the stream (mid-stream, so the store lives on after it). The
// draws have their own stream, so the lessons, tasks and flakes stay the world's.
func (w *World) WithChurn(share float64) *World {
	rng := rand.New(rand.NewPCG(w.Seed, 0xc4a27)) // "churn"
	out := *w
	c := &Churn{Files: make([]string, len(w.Lessons)), Removed: make([][]string, len(w.PRs)), Gone: make([]int, len(w.Lessons))}
	lastBorn := map[int]int{}
	for _, l := range w.Lessons {
		c.Files[l.ID] = LessonFile(l)
		c.Gone[l.ID] = -1
		if l.Class.benign() {
			lastBorn[l.Fact] = max(lastBorn[l.Fact], l.Born)
		}
	}
	facts := make([]int, 0, len(lastBorn))
	for f := range lastBorn {
		facts = append(facts, f)
	}
	slices.Sort(facts)
	end := len(w.PRs) * 3 / 4
	for _, f := range facts {
		u, at := rng.Float64(), lastBorn[f]+1+rng.IntN(max(end-lastBorn[f]-1, 1))
		if u >= share || at >= end {
			continue
		}
		c.Removed[at] = append(c.Removed[at], fmt.Sprintf("code/fact%03d.go", f))
		for _, l := range w.Lessons {
			if l.Class.benign() && l.Fact == f {
				c.Gone[l.ID] = at
			}
		}
	}
	out.Churn = c
	return &out
}
