package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

func TestParseTaskModel(t *testing.T) {
	for _, s := range []string{"topic", "fact"} {
		if m, err := ParseTaskModel(s); err != nil || string(m) != s {
			t.Errorf("ParseTaskModel(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseTaskModel("lesson"); err == nil {
		t.Error("ParseTaskModel accepted an unknown task model")
	}
	cfg := smallConfig()
	cfg.Tasks = "lesson"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Tasks") {
		t.Errorf("Validate = %v, want an error naming Tasks", err)
	}
}

// TestFactWorlds generates FactTasks worlds in both vocabularies (NewWorld
// fails if the encoder refuses a lesson) and checks their shape: a task
// about a stated fact shares at least factQueryN words with the question
// of every lesson stating it, and some tasks ask about facts no lesson
// states.
func TestFactWorlds(t *testing.T) {
	for _, v := range []Vocabulary{MadeUp, Zipf} {
		for seed := uint64(1); seed <= exhaustive.Or[uint64](2, 8); seed++ {
			cfg := smallConfig()
			cfg.Vocabulary, cfg.Tasks = v, FactTasks
			w, err := NewWorld(cfg, seed)
			if err != nil {
				t.Fatalf("%s seed %d: %v", v, seed, err)
			}
			if w.Facts < 2 {
				t.Fatalf("%s seed %d: %d facts stated", v, seed, w.Facts)
			}
			tasks, stated := 0, 0
			for _, p := range w.PRs {
				for _, task := range p.Tasks {
					tasks++
					if task.Fact < 0 {
						continue
					}
					stated++
					q := rank.Tokens(task.Query)
					for _, l := range w.Lessons {
						if !l.Class.benign() || l.Fact != task.Fact {
							continue
						}
						shared := 0
						for _, tok := range rank.Tokens(l.Question) {
							if slices.Contains(q, tok) {
								shared++
							}
						}
						if shared < factQueryN {
							t.Fatalf("%s seed %d: query %q shares %d words with %q, which states its fact", v, seed, task.Query, shared, l.Question)
						}
					}
				}
			}
			if stated == 0 || stated == tasks {
				t.Errorf("%s seed %d: %d of %d tasks ask about a stated fact, want some but not all", v, seed, stated, tasks)
			}
		}
	}
}

// TestFactTasksHelpOnlyTheirFact: in a FactTasks world a useful lesson of
// the task's topic fixes the task only when it states the task's fact.
func TestFactTasksHelpOnlyTheirFact(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tasks     TaskModel
		fact      int
		wantFixed bool
	}{
		{"topic world, any useful lesson of the topic", TopicTasks, -1, true},
		{"fact world, the lesson stating the fact", FactTasks, 0, true},
		{"fact world, a lesson stating another fact", FactTasks, 1, false},
		{"fact world, a fact no lesson states", FactTasks, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tinyWorld([]PR{{Tasks: []Task{{Topic: 0, Fact: tc.fact, Target: 0, UFix: 0.5, UHarm: 0.5}}}})
			w.Config.Tasks = tc.tasks
			head := []bool{false, true, true, true}
			c := Consultation{Ticket: "t", Decider: Entry{Key: "a", Lessons: []int{0}}}
			act(w, w.PRs[0].Tasks[0], c, head, make([]Fate, len(w.Lessons)), 0)
			if head[0] != tc.wantFixed {
				t.Errorf("fixed = %v, want %v", head[0], tc.wantFixed)
			}
		})
	}
}

// TestOtherWorldsIgnoreTaskModel: the published worlds' lessons and tasks
// are the same with Tasks "" and TopicTasks.
func TestOtherWorldsIgnoreTaskModel(t *testing.T) {
	for _, v := range []Vocabulary{MadeUp, Zipf} {
		cfg := smallConfig()
		cfg.Vocabulary = v
		a, err := NewWorld(cfg, 3)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tasks = TopicTasks
		b, _ := NewWorld(cfg, 3)
		if !slices.Equal(a.Lessons, b.Lessons) || len(a.PRs) != len(b.PRs) {
			t.Fatalf("%s: lessons differ between Tasks %q and %q", v, "", TopicTasks)
		}
		for i := range a.PRs {
			if !slices.Equal(a.PRs[i].Tasks, b.PRs[i].Tasks) {
				t.Fatalf("%s: PR %d's tasks differ", v, i)
			}
		}
	}
}
