package lessons_test

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Verifying once (VerifyBody) and settling those verdicts (SettleVerified) is SettleBody: the
// same report and the same store, for a body holding a ticket that passes and one that does not.
func TestSettleVerifiedIsSettleBody(t *testing.T) {
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	load := func() *lessons.Store {
		s, err := lessons.Parse("lessons.json", data)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := load()
	d, err := base.Decide("are LLM benchmark arms safe to run in CI", lessons.DecideOptions{})
	if err != nil || d.Silent {
		t.Fatalf("decide: %v", err)
	}
	body := "Fix CI.\n<!-- " + d.StoreFreeLine() + " -->\ndarwin-memo: v1 t=49 d=7e40e33bc60d s=- q=eA\ndarwin-memo-ticket: nothex\n"
	a, b := load(), load()
	want := a.SettleBody(base, body, 2, lessons.SettleOptions{Source: "ci"}, lessons.TickOptions{})
	v := base.VerifyBody(body, lessons.VerifyOptions{})
	got := b.SettleVerified(v, 2, lessons.SettleOptions{Source: "ci"}, lessons.TickOptions{})
	if v.Passed() != 1 || len(got.Tickets) != 2 {
		t.Fatalf("passed %d of %d tickets, want 1 of 2", v.Passed(), len(got.Tickets))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reports differ:\n%v\n%v", got, want)
	}
	ab, _ := a.Marshal()
	bb, _ := b.Marshal()
	if !bytes.Equal(ab, bb) {
		t.Error("stores differ")
	}
}

// A compat ticket that repeats the id of a refused store-free ticket in the same body does not
// lend it its verdict: each ticket is settled by its own.
func TestVerdictsAreNotSharedByID(t *testing.T) {
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	base, err := lessons.Parse("lessons.json", data)
	if err != nil {
		t.Fatal(err)
	}
	refused := "darwin-memo: v1 t=49 d=7e40e33bc60d s=- q=eA"
	found, _ := lessons.ParseTickets(refused)
	if len(found) != 1 {
		t.Fatalf("tickets %v", found)
	}
	body := refused + "\ndarwin-memo-ticket: " + found[0].ID + "\n"
	s, err := lessons.Parse("lessons.json", data)
	if err != nil {
		t.Fatal(err)
	}
	rep := s.SettleVerified(base.VerifyBody(body, lessons.VerifyOptions{}), 2, lessons.SettleOptions{Source: "ci"}, lessons.TickOptions{})
	if len(rep.Tickets) != 2 || rep.Tickets[0].Form != lessons.FormStoreFree || rep.Tickets[0].Refused == "" || rep.Tickets[0].Result != nil {
		t.Fatalf("the store-free ticket was settled: %+v", rep.Tickets)
	}
}
