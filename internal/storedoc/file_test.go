package storedoc

import "testing"

func TestEventsPath(t *testing.T) {
	if got := EventsPath("a/lessons.json"); got != "a/lessons.events.jsonl" {
		t.Error(got)
	}
}
