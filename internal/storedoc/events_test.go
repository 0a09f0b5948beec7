package storedoc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// The event log is appended, rotated at 10 MiB (three rotated parts kept) and read back oldest
// first, torn lines skipped.
func TestEventLogRotatesAndReadsOldestFirst(t *testing.T) {
	log := filepath.Join(t.TempDir(), "lessons.events.jsonl")
	ev := func(tick int) Event { return NewEvent("tick", tick, "2026-02-01T00:00:00+00:00") }
	steps := []struct {
		name  string
		grow  bool // the live file reaches the rotation size first
		tick  int
		parts []string // the files that exist after the step
	}{
		{name: "first append", tick: 1, parts: []string{""}},
		{name: "second append", tick: 2, parts: []string{""}},
		{name: "rotated once", grow: true, tick: 3, parts: []string{"", ".1"}},
		{name: "rotated four times keeps three", grow: true, tick: 4, parts: []string{"", ".1", ".2"}},
	}
	for _, st := range steps {
		if st.grow {
			if err := os.Truncate(log, eventRotateBytes); err != nil {
				t.Fatal(err)
			}
		}
		if err := appendEvents(log, []Event{ev(st.tick)}); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for _, p := range st.parts {
			if _, err := os.Stat(log + p); err != nil {
				t.Errorf("%s: %v", st.name, err)
			}
		}
	}
	for range 2 {
		if err := os.Truncate(log, eventRotateBytes); err != nil {
			t.Fatal(err)
		}
		if err := appendEvents(log, []Event{ev(9)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(log + ".4"); !os.IsNotExist(err) {
		t.Errorf("a fourth rotated part: %v", err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"event": "torn`)
	f.Close()
	got, err := ReadEvents(log)
	if err != nil {
		t.Fatal(err)
	}
	// ticks 1 and 2 went with the oldest part; the zeros the test grew the parts with, and the
	// torn line, are skipped
	var ticks []string
	for _, e := range got {
		ticks = append(ticks, strconv.Itoa(e.Tick()))
	}
	if got, want := strings.Join(ticks, ","), "3,4,9,9"; got != want {
		t.Errorf("ticks read %s, want %s", got, want)
	}
}

func TestEventFields(t *testing.T) {
	e := NewEvent("settle", 4, "ts", pyjson.Pair("source", pyjson.String("ci")), pyjson.Pair("delta", pyjson.Float(0.5)))
	if d, ok := e.Delta(); e.Name() != "settle" || e.Tick() != 4 || e.Source() != "ci" || !ok || d != 0.5 || !has(e, "ts") || e.Silent() {
		t.Errorf("event %s", e.JSON())
	}
	if want := `{"event": "settle", "tick": 4, "ts": "ts", "source": "ci", "delta": 0.5}`; e.JSON() != want {
		t.Errorf("JSON %s, want %s", e.JSON(), want)
	}
}

func has(e Event, key string) bool { _, ok := e.Get(key); return ok }
