package lessons

import (
	"slices"
	"testing"
)

// A store holding one fact twice (two near-duplicate lessons, before
// consolidation merges them) decides a paraphrased question about it: the
// decider's margin is measured against the next lesson that is not its
// near-duplicate (the merge threshold's Jaccard), and the copy supports it.
func TestDecideNearDuplicatesKeepMargin(t *testing.T) {
	s, es := bm25Store(t,
		"Why does terraform plan fail on the staging workspace?", "Run terraform init -reconfigure after switching the state bucket.",
		"Why does terraform plan fail for the staging workspace?", "Run terraform init -reconfigure after changing the state bucket.",
		"How do I deploy the staging frontend?", "Use make deploy-frontend ENV=staging.",
		"Where do the release notes live?", "In docs/releases, one file per version.",
		"How do I run the integration tests?", "go test -tags integration ./...",
	)
	if len(s.Living()) != len(es) {
		t.Fatalf("%d living lessons, want %d (the copy kept as its own lesson)", len(s.Living()), len(es))
	}
	d, err := s.Decide("terraform plan errors out in staging", DecideOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Silent || d.Decider != es[0].ID && d.Decider != es[1].ID {
		t.Fatalf("decided %q (silent %v; hits %v), want %s or %s", d.Decider, d.Silent, hitIDs(d.Hits), es[0].ID, es[1].ID)
	}
	copyID := es[0].ID
	if d.Decider == copyID {
		copyID = es[1].ID
	}
	if !slices.Contains(d.Supporting, copyID) {
		t.Errorf("supporting %v, want the near-duplicate %s", d.Supporting, copyID)
	}
}
