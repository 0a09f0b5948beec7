package lessons_test

import (
	"fmt"
	"time"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// An agent consults the store, pastes the store-free ticket line into its PR
// body, and after the merge the action settles it with the CI delta
// measured against the store at the PR's base.
func Example() {
	clock := func() time.Time { return time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC) }
	store := lessons.New("lessons.json", lessons.Options{Now: clock})
	lesson, _ := store.Add(lessons.NewLesson{
		Question: "How do I run the integration tests?",
		Answer:   "Run make integration; it needs docker running.",
		Sources:  []string{"pr#12"},
	})

	d, _ := store.Decide("run the integration tests", lessons.DecideOptions{})
	body := "Fixes the flaky login test.\n\n<!-- " + d.StoreFreeLine() + " -->\n"

	base := store // the store as it was at the PR's base commit
	report := store.SettleBody(base, body, 2, lessons.SettleOptions{Source: "ci"}, lessons.TickOptions{})
	fmt.Println(report.Tickets[0].Result.Landed, report.Tick.Tick)
	fmt.Printf("%.3f\n", lesson.Energy)
	// Output:
	// true 1
	// 1.528
}

// Parse and Marshal reproduce darwin-memo's bytes exactly.
func ExampleParse() {
	s, err := lessons.Parse("lessons.json", []byte(`{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": []}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(s.Living()), s.TickCount())
	_, err = lessons.Parse("lessons.json", []byte(`{"config": {}, "entries": [{"question": "q", "answer": "a", "energy": "high"}], "graveyard": []}`))
	fmt.Println(err)
	// Output:
	// 0 0
	// lessons.json: $.entries[0].energy: expected a number, got string
}
