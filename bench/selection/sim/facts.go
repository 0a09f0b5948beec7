package sim

import (
	"fmt"
	"slices"
	"strings"
)

// TaskModel names what a world's tasks ask for and which lessons serve them.
type TaskModel string

const (
	// TopicTasks, the published worlds: a task names its topic, and any
	// useful lesson of the topic helps it, however few of the query's words
	// it holds.
	TopicTasks TaskModel = "topic"
	// FactTasks: every topic holds FactsPerTopic facts, each with words of
	// its own (as a code base's identifiers are); a lesson states one fact,
	// a task asks about one, and only a useful lesson stating that fact
	// helps it. A lesson of the same topic about another fact helps no more
	// than silence; a poisoned lesson harms whatever fact it states.
	FactTasks TaskModel = "fact"
)

// ParseTaskModel reads a task model name.
func ParseTaskModel(s string) (TaskModel, error) {
	switch m := TaskModel(s); m {
	case TopicTasks, FactTasks:
		return m, nil
	}
	return "", fmt.Errorf("unknown task model %q; use %s or %s", s, TopicTasks, FactTasks)
}

const (
	// FactsPerTopic is the number of facts of each topic in a FactTasks
	// world.
	FactsPerTopic = 3
	// factWordsN is the number of words of each fact; a lesson's question
	// holds all of them, a task's query factQueryN of them.
	factWordsN = 3
	factQueryN = 2
)

// factText draws the texts of a FactTasks world. A fact's words are made
// up and particular to it; the rest of a text (its context) is drawn from
// the world's vocabulary: with MadeUp, words of the topic (a query's half
// the time with a filler word); with Zipf, one word of the topic and
// shared English words.
//
//   - A useful or poisoned lesson's question: the fact's words and the
//     context of a question (MadeUp: two topic words; Zipf: one topic word
//     and two shared words). Its answer: words of its own (MadeUp: five;
//     Zipf: four and two shared words).
//   - A near-duplicate: its original with one context word of the question
//     and one word of the answer replaced.
//   - Trivia: no fact's words; as in the world's vocabulary.
//   - A task's query: factQueryN of its fact's words and a query's context
//     (MadeUp: one topic word, half the time a filler word; Zipf: one topic
//     word and two or three shared words).
type factText struct {
	// words[t*FactsPerTopic+k] are the words of fact k of topic t, drawn
	// when first needed.
	words map[int][]string
	// id maps a fact (t*FactsPerTopic+k) to the World.Facts id of the
	// useful lessons stating it.
	id map[int]int
}

// factWords returns the words of fact key, drawing them when first used.
func (g *gen) factWords(key int) []string {
	if ws, ok := g.facts.words[key]; ok {
		return ws
	}
	ws := g.uniqueWords(factWordsN)
	g.facts.words[key] = ws
	return ws
}

// factQuestion is the question of a lesson stating fact key of topic t.
func (g *gen) factQuestion(t, key int) string {
	if z := g.zipfText; z != nil {
		return join(g.factWords(key), z.topicWords(t, 1), z.shared(2))
	}
	return join(g.factWords(key), g.topicWords(t, 2))
}

// factAnswer is the answer of a lesson stating a fact.
func (g *gen) factAnswer() string {
	if z := g.zipfText; z != nil {
		return join(g.uniqueWords(zipfAnswerFactN), z.shared(zipfAnswerSharedN))
	}
	return join(g.uniqueWords(answerWords))
}

// pickFact draws a fact of topic t, uniformly.
func (g *gen) pickFact(t int) int { return t*FactsPerTopic + g.rng.IntN(FactsPerTopic) }

// addFactUseful adds a useful lesson stating a fact of topic t.
func (g *gen) addFactUseful(t, born int) {
	key := g.pickFact(t)
	id, ok := g.facts.id[key]
	if !ok {
		id = g.w.Facts
		g.facts.id[key] = id
		g.w.Facts++
	}
	q := g.factQuestion(t, key)
	g.add(Lesson{Class: Useful, Topic: t, Fact: id, Born: born, Question: q, Answer: g.factAnswer()})
}

// addFactNearDup rewords a useful lesson as the Zipf vocabulary's
// near-duplicates are reworded: one context word of its question becomes
// another (MadeUp: another word of the topic; Zipf: another shared word),
// one word of its answer a new word. The fact's words stay.
func (g *gen) addFactNearDup(orig Lesson, born int) {
	q := strings.Fields(orig.Question)
	for range 20 {
		w := g.topicWords(orig.Topic, 1)[0]
		if z := g.zipfText; z != nil {
			w = z.shared(1)[0]
		}
		if !slices.Contains(q, w) {
			q[factWordsN+g.rng.IntN(len(q)-factWordsN)] = w
			break
		}
	}
	a := strings.Fields(orig.Answer)
	n := len(a)
	if g.zipfText != nil {
		n = zipfAnswerFactN
	}
	a[g.rng.IntN(n)] = g.uniqueWords(1)[0]
	g.add(Lesson{Class: NearDuplicate, Topic: orig.Topic, Fact: orig.Fact, Born: born,
		Question: strings.Join(q, " "), Answer: strings.Join(a, " ")})
}

// addFactPoison adds a poisoned lesson stating (wrongly) a fact of topic t.
func (g *gen) addFactPoison(t, born int) {
	q := g.factQuestion(t, g.pickFact(t))
	g.add(Lesson{Class: Poisoned, Topic: t, Fact: -1, Born: born, Question: q, Answer: g.factAnswer()})
}

// factQuery draws the query of a task about fact key of topic t and the
// fact's id (-1 when no lesson states it).
func (g *gen) factQuery(t int) (query string, fact int) {
	key := g.pickFact(t)
	ws := g.factWords(key)
	idx := g.rng.Perm(len(ws))[:factQueryN]
	slices.Sort(idx)
	q := make([]string, len(idx))
	for i, j := range idx {
		q[i] = ws[j]
	}
	if z := g.zipfText; z != nil {
		query = join(q, z.topicWords(t, 1), z.shared(zipfQuerySharedN+g.rng.IntN(2)))
	} else {
		q = append(q, g.topicWords(t, 1)...)
		if g.rng.IntN(2) == 0 {
			q = append(q, g.miscWord())
		}
		query = join(q)
	}
	fact, ok := g.facts.id[key]
	if !ok {
		fact = -1
	}
	return query, fact
}
