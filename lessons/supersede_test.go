package lessons

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

func bm25Store(t *testing.T, qa ...string) (*Store, []*Entry) {
	t.Helper()
	s := New("s.json", Options{Now: func() time.Time { return t0 }})
	var es []*Entry
	for i := 0; i+1 < len(qa); i += 2 {
		e, err := s.Add(NewLesson{Question: qa[i], Answer: qa[i+1], RecordedTS: t0.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05+00:00")})
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	return s, es
}

// The lesson whose question is the query is always listed, first, whatever
// later lessons say (issue 24: "how do I build the workspace" was hidden by
// a later lesson about the s3 backend), on every development pack's store.
func TestQueryNeverHidesBestMatch(t *testing.T) {
	s, es := bm25Store(t,
		"How do I build the workspace?", "Run `make build` at the root.",
		"How do I enable the s3 backend?", "Set USE_FAKE_S3=0; it replaces the workspace's fake store.",
		"Where does the feature-profile page live?", "apps/web/src/features/feature-profile.",
		"Where does the feature-profile-edit page live?", "apps/web/src/features/feature-profile-edit.",
	)
	for _, e := range es {
		hits, err := s.Retrieve(e.Question, RetrieveOptions{K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Entry != e {
			t.Errorf("%q: first hit %v, want %s", e.Question, hitIDs(hits), e.ID)
		}
		d, err := s.Decide(e.Question, DecideOptions{})
		if err != nil || d.Decider != e.ID {
			t.Errorf("%q: decided %q (%v), want %s", e.Question, d.Decider, err, e.ID)
		}
	}
	common, packs := loadPacks(t)
	var all []evalLesson
	for _, p := range packs {
		all = append(all, p.Lessons...)
	}
	s, _ = buildEvalStore(t, RetrievalBM25F, append(append([]evalLesson{}, common.Lessons...), all...), false, false)
	for _, e := range s.Living() {
		hits, err := s.Retrieve(e.Question, RetrieveOptions{K: 3})
		if err != nil {
			t.Fatal(err)
		}
		// Listed, or replaced by record by a listed lesson (a question asked
		// four times lists its newest lesson first).
		chain := s.SupersessionChain(e.ID)
		if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Entry == e || h.Entry.ID == chain[len(chain)-1] }) {
			t.Errorf("%q: %s not among %v", e.Question, e.ID, hitIDs(hits))
		}
	}
}

// query --top K lists up to K lessons sharing a term with the query, each
// with its confidence; decide alone abstains.
func TestQueryListsWhatDecideWithholds(t *testing.T) {
	s, es := bm25Store(t,
		"How do I run the integration tests?", "make itest",
		"Why is the checkout page slow?", "The images are not cached; see pr#12.",
		"Which Node version does CI use?", "Node 22.",
	)
	const q = "checkout latency dashboard in grafana for the payments team"
	hits, err := s.Retrieve(q, RetrieveOptions{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Entry != es[1] || !(hits[0].Confidence > 0 && hits[0].Confidence < rank.DecideThreshold) {
		t.Fatalf("hits %v, want %s alone below the threshold", hitIDs(hits), es[1].ID)
	}
	d, err := s.Decide(q, DecideOptions{})
	if err != nil || !d.Silent || d.Ticket != nil {
		t.Fatalf("decide: %+v (%v), want silent", d, err)
	}
}

// Supersession is what was recorded at birth: the same question asked
// again, or a label; never guessed from the text.
func TestRecordedSupersession(t *testing.T) {
	s, es := bm25Store(t,
		"Which Node version does CI use?", "Node 18.",
		"which node version does CI  use", "Node 22 since pr#40.",
		"What Node release does the CI pipeline run now?", "Node 24, replacing Node 22.",
	)
	if got := es[1].Supersedes(); !slices.Equal(got, []string{es[0].ID}) {
		t.Fatalf("the same question asked again records %v, want [%s]", got, es[0].ID)
	}
	if got := es[2].Supersedes(); got != nil {
		t.Fatalf("another question recorded %v; supersession is not guessed", got)
	}
	hits, err := s.Retrieve("Which Node version does CI use?", RetrieveOptions{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The replacing lesson takes the superseded one's place; the superseded
	// one follows, marked.
	if len(hits) < 2 || hits[0].Entry != es[1] || hits[1].Entry != es[0] || hits[1].SupersededBy != es[1].ID || hits[0].SupersededBy != "" {
		t.Fatalf("hits %v", hitIDs(hits))
	}
	d, err := s.Decide("Which Node version does CI use?", DecideOptions{})
	if err != nil || d.Decider != es[1].ID || slices.Contains(d.Supporting, es[0].ID) {
		t.Fatalf("decide: %q supporting %v (%v); the superseded lesson must neither decide nor support", d.Decider, d.Supporting, err)
	}

	// A label naming the third lesson's predecessor (add --supersedes) makes a chain.
	e4, err := s.Add(NewLesson{Question: "Node for CI?", Answer: "Node 26.", Sources: []string{"pr#50", SupersedesPrefix + es[2].ID}, RecordedTS: t0.Add(time.Hour).Format("2006-01-02T15:04:05+00:00")})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.SupersessionChain(es[2].ID); !slices.Equal(got, []string{es[2].ID, e4.ID}) {
		t.Fatalf("chain %v", got)
	}
	if got := s.SupersessionChain(e4.ID); !slices.Equal(got, []string{e4.ID}) {
		t.Fatalf("the newest has the chain %v", got)
	}
	// The rendering an agent reads at task start marks a superseded lesson
	// with the lesson that replaces it last, and no other.
	md, err := s.Render(RenderOptions{Questions: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Entry{es[0], es[1], es[2], e4} {
		by, _ := map[*Entry]*Entry{es[0]: es[1], es[2]: e4}[e]
		var line string
		for _, l := range strings.Split(string(md), "\n") {
			if strings.Contains(l, "(id "+prefix8(e.ID)) {
				line = l
			}
		}
		if want := by != nil; strings.Contains(line, "superseded by") != want || want && !strings.Contains(line, "superseded by "+prefix8(by.ID)+")") {
			t.Errorf("lesson %s rendered as %q; superseded by %v", e.ID, line, by)
		}
	}

	// A store on darwin-memo's ranking records nothing it was not told.
	dm := New("dm.json", Options{Now: func() time.Time { return t0 }, Retrieval: RetrievalDarwinMemo})
	a, _ := dm.Add(NewLesson{Question: "Q one?", Answer: "A"})
	b, _ := dm.Add(NewLesson{Question: "q one?", Answer: "B"})
	if b.Supersedes() != nil || a.Supersedes() != nil {
		t.Fatalf("darwin-memo store recorded %v", b.Supersedes())
	}
}

func hitIDs(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s(%.2f,%s)", h.Entry.ID, h.Confidence, h.SupersededBy))
	}
	return out
}

// A lesson that alone matches much of a question written as a symptom
// decides, though it covers under half of the query's weight: its margin
// over the next lesson counts (rank.Confidence). Two lessons matching it
// alike leave decide silent.
func TestDecideCountsTheMargin(t *testing.T) {
	const q = "gradle daemon disappeared during integrationTest on the ci runner"
	for _, c := range []struct {
		name   string
		qa     []string
		decide bool
	}{
		{"alone", []string{
			"Gradle runs out of memory during integrationTest, what do I change?", "Raise org.gradle.jvmargs to -Xmx4g in gradle.properties.",
			"Which Node version does CI use?", "Node 22.",
			"How do I name a Flyway migration?", "V<timestamp>__what.sql",
		}, true},
		{"tied", []string{
			"Gradle runs out of memory during integrationTest, what do I change?", "Raise org.gradle.jvmargs to -Xmx4g in gradle.properties.",
			"Gradle is slow during integrationTest, what do I change?", "Turn on the build cache in gradle.properties.",
		}, false},
	} {
		s, es := bm25Store(t, c.qa...)
		hits, err := s.Retrieve(q, RetrieveOptions{K: 3})
		if err != nil || len(hits) == 0 || hits[0].Entry != es[0] && hits[0].Entry != es[1] {
			t.Fatalf("%s: hits %v (%v)", c.name, hitIDs(hits), err)
		}
		if c.decide && hits[0].Coverage >= 0.5 {
			t.Fatalf("%s: coverage %.2f, want a query the lesson covers under half of", c.name, hits[0].Coverage)
		}
		d, err := s.Decide(q, DecideOptions{})
		if err != nil || d.Silent == c.decide {
			t.Errorf("%s: decide silent %v (confidence %.2f, coverage %.2f), want silent %v", c.name, d.Silent, hits[0].Confidence, hits[0].Coverage, !c.decide)
		}
	}
}
