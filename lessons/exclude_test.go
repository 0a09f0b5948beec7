package lessons

import (
	"slices"
	"testing"
	"time"
)

// Given two lessons that answer a question, the better-ranked one excluded by
// DecideOptions.Exclude (as decide does for a lesson whose cited files are all
// gone), when the question is decided, then the other one decides, the
// excluded one is neither decider nor supporter but is listed in Excluded
// with its reason, and the ticket verifies at the same store, which knows
// nothing of the exclusion (as CI re-runs it at the PR's base). Excluding
// every hit leaves the decision silent with every one listed.
func TestDecideExcludeKeepsTicketVerifiable(t *testing.T) {
	for _, r := range []Retrieval{RetrievalBM25F, RetrievalDarwinMemo} {
		t.Run(string(r), func(t *testing.T) {
			s := New("lessons.json", Options{Now: func() time.Time { return t0 }, Retrieval: r})
			stale := mustAdd(t, s, "How do I run the integration tests?", "make integration; start docker first")
			next := mustAdd(t, s, "How do I run the integration tests locally?", "make integration-local")
			q := "how do I run the integration tests"
			dec, err := s.Decide(q, DecideOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if dec.Decider != stale.ID {
				t.Fatalf("without exclusion decider %s, want %s (the case needs it on top)", dec.Decider, stale.ID)
			}
			ex := func(e *Entry) string {
				if e == stale {
					return "stale_citations"
				}
				return ""
			}
			dec, err = s.Decide(q, DecideOptions{Exclude: ex})
			if err != nil {
				t.Fatal(err)
			}
			if dec.Decider != next.ID || slices.Contains(dec.Supporting, stale.ID) {
				t.Fatalf("decider %s supporters %v, want %s and not %s", dec.Decider, dec.Supporting, next.ID, stale.ID)
			}
			if want := []Exclusion{{ID: stale.ID, Reason: "stale_citations"}}; !slices.Equal(dec.Excluded, want) {
				t.Errorf("excluded %v, want %v", dec.Excluded, want)
			}
			ft := dec.FreeTicket()
			if err := s.VerifyTicket(BodyTicket{Form: FormStoreFree, ID: ft.ID(), Free: ft}, VerifyOptions{}); err != nil {
				t.Fatalf("the ticket does not verify at the store that minted it: %v", err)
			}
			dec, err = s.Decide(q, DecideOptions{Exclude: func(*Entry) string { return "stale_citations" }})
			if err != nil {
				t.Fatal(err)
			}
			if !dec.Silent || dec.Ticket != nil || len(dec.Excluded) != 2 {
				t.Errorf("every hit excluded: silent %v ticket %v excluded %v, want silent, no ticket, both", dec.Silent, dec.Ticket, dec.Excluded)
			}
		})
	}
}
