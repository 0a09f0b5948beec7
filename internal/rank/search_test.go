package rank

import "testing"

// The first lesson's margin is measured against the next lesson that is not
// its near-duplicate: two copies of one fact (before consolidation merges
// them) leave the first sure of its margin, while two different lessons
// scoring alike still make it unsure.
func TestSearchMarginSkipsNearDuplicates(t *testing.T) {
	mk := func(id, q, a string) *testLesson {
		l := &testLesson{question: q}
		l.ID, l.Answer, l.Settled, l.MayDecide = id, a, -1, true
		return l
	}
	const (
		factQ  = "Why does terraform plan fail on the staging workspace?"
		factA  = "Run terraform init -reconfigure after switching the state bucket."
		copyQ  = "Why does terraform plan fail for the staging workspace?"
		copyA  = "Run terraform init -reconfigure after changing the state bucket."
		otherA = "The lock file pins an old aws provider; delete .terraform.lock.hcl and init again."
		query  = "terraform plan errors out in staging"
	)
	for _, c := range []struct {
		name           string
		rivalQ, rivalA string
		nearDuplicate  float64
		wide           bool // a margin of at least a half
	}{
		{"near-duplicate skipped", copyQ, copyA, 0.55, true},
		{"near-duplicate counted when the rule is off", copyQ, copyA, 0, false},
		{"a different answer still competes", copyQ, otherA, 0.55, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fact, rival := mk("fact", factQ, factA), mk("rival", c.rivalQ, c.rivalA)
			living := []*testLesson{
				fact, rival,
				mk("deploy", "How do I deploy the staging frontend?", "Use make deploy-frontend ENV=staging."),
				mk("notes", "Where do the release notes live?", "In docs/releases, one file per version."),
				mk("tests", "How do I run the integration tests?", "go test -tags integration ./..."),
			}
			l := newTestLibraries(1)[0]
			rs, err := l.Search(living, Query[*testLesson]{Text: query, Ranking: RankingBM25F, K: 3, NearDuplicate: c.nearDuplicate})
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) < 2 || !(rs[0].Lesson == fact && rs[1].Lesson == rival || rs[0].Lesson == rival && rs[1].Lesson == fact) {
				t.Fatalf("listed %v, want fact and rival first", resultIDs(rs))
			}
			if got := rs[0].Margin >= 0.5; got != c.wide {
				t.Errorf("first lesson's margin %.3f: wide %v, want %v", rs[0].Margin, got, c.wide)
			}
			m := DefaultConfidence()
			if want := m.Of(rs[0].Coverage, rs[0].Margin, m.Phrasing(query), Unstated(query, rs[0].Lesson.Answer)); rs[0].Confidence != want {
				t.Errorf("first lesson's confidence %.3f, the model gives %.3f", rs[0].Confidence, want)
			}
			for _, r := range rs[1:] {
				if r.Margin != 0 {
					t.Errorf("%s has margin %.3f; only the first lesson that may decide has one", r.Lesson.ID, r.Margin)
				}
			}
		})
	}
}

func resultIDs(rs []Result[*testLesson]) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.Lesson.ID)
	}
	return ids
}

// With BM25F only the first lesson that may decide decides: the model is
// calibrated for it alone (TestDecideThresholdSweep fits it on that lesson),
// so a later lesson whose confidence, without a margin, reaches the
// threshold while the first's does not leaves decide silent.
func TestDecideOnlyFromTheFirstLesson(t *testing.T) {
	mk := func(id, q, a string) *testLesson {
		l := &testLesson{question: q}
		l.ID, l.Answer, l.Settled, l.MayDecide = id, a, -1, true
		return l
	}
	living := []*testLesson{
		mk("first", "How do I rotate the signing key?", "Run make rotate-key and commit keys/public.pem."),
		mk("second", "Where are keys kept?", "The signing key is rotated by ops; rotate it only with them."),
		mk("deploy", "How do I deploy the staging frontend?", "Use make deploy-frontend ENV=staging."),
		mk("notes", "Where do the release notes live?", "In docs/releases, one file per version."),
	}
	const query = "rotate the signing key"
	for _, c := range []struct {
		name   string
		margin float64 // the model's margin coefficient
		want   string  // the decider, "" for silence
	}{
		{"the first is sure", 4, "first"},
		// A margin weighed against the first makes it unsure and leaves the
		// second (margin 0) as sure as before.
		{"the first is unsure", -40, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newTestLibraries(1)[0]
			l.conf = ConfidenceModel{Bias: -1, Coverage: 2.5, Margin: c.margin}
			q := Query[*testLesson]{Text: query, Ranking: RankingBM25F, K: 3}
			rs, err := l.Search(living, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) < 2 || rs[0].Lesson.ID != "first" || rs[1].Lesson.ID != "second" || rs[0].Margin <= 0 || rs[1].Confidence < DecideThreshold {
				t.Fatalf("listed %v (margin %.2f, second's confidence %.2f); the test needs first, then a sure second", resultIDs(rs), rs[0].Margin, rs[1].Confidence)
			}
			v, err := l.Decide(living, Consult[*testLesson]{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			if v.Decider != c.want {
				t.Errorf("decided %q (first's confidence %.2f, second's %.2f), want %q", v.Decider, rs[0].Confidence, rs[1].Confidence, c.want)
			}
		})
	}
}
