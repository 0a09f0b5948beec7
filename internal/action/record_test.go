package action

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// withRecord returns the store document doc with rec kept in it, as a run writes it.
func withRecord(t testing.TB, doc []byte, rec Record) []byte {
	t.Helper()
	s, err := lessons.Parse(storePath, doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := putRecord(s, rec); err != nil {
		t.Fatal(err)
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The record is a store extension: keeping it leaves every other byte as darwin-memo writes
// them, the store still loads (darwin-memo ignores the key), and it reads back from the loaded
// store and from the bytes alone.
func TestRecordInStoreRoundTrip(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	d := 2.0
	rec := Record{Version: 1, Processed: []Processed{{PR: 3, Outcome: OutcomeSettled, Delta: &d, Settled: []string{"abc"}}}, Queued: []int{9}}
	doc := withRecord(t, real, rec)
	if !bytes.HasPrefix(doc, bytes.TrimRight(real[:len(real)-1], " \n")) {
		t.Fatal("keeping the record changed other bytes")
	}
	s, err := lessons.Parse("lessons.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := s.Marshal()
	if !bytes.Equal(out, doc) {
		t.Fatal("the store with its record does not round-trip")
	}
	for name, read := range map[string]func() (Record, error){
		"RecordOf":   func() (Record, error) { return RecordOf(s) },
		"ReadRecord": func() (Record, error) { return ReadRecord(out) },
	} {
		got, err := read()
		if err != nil || len(got.Processed) != 1 || got.Processed[0].PR != 3 || *got.Processed[0].Delta != 2 || got.Queued[0] != 9 {
			t.Fatalf("%s: %+v %v", name, got, err)
		}
	}
	// Replacing keeps one key, in its place.
	rec.Processed = append(rec.Processed, Processed{PR: 4, Outcome: OutcomeNoTickets})
	doc2 := withRecord(t, out, rec)
	if strings.Count(string(doc2), RecordKey) != 1 || !bytes.HasPrefix(doc2, bytes.TrimRight(real[:len(real)-1], " \n")) {
		t.Fatal("replace: not one key in the same place")
	}
	if r2, _ := ReadRecord(doc2); len(r2.Processed) != 2 {
		t.Fatal("replace lost the update")
	}
}

// A store whose lessons do not load still gives its record (a broken bot branch's settlements
// are carried over), and a record that is not an object is an error naming the key.
func TestReadRecordFromAStoreThatDoesNotLoad(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"entries": [{"bad": 1}], "darwin_memo_action": {"version": 1, "processed": [{"pr": 5, "outcome": "settled"}]}}`)
	if _, err := lessons.Parse("x", doc); err == nil {
		t.Fatal("the fixture loads")
	}
	got, err := ReadRecord(doc)
	if err != nil || len(got.Processed) != 1 || got.Processed[0].PR != 5 {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestReadRecordErrors(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`{"darwin_memo_action": 3}`, `{"darwin_memo_action": {"version": 2}}`, `{"darwin_memo_action": {"version":1,"processed":[{"pr":"x"}]}}`} {
		if _, err := ReadRecord([]byte(doc)); err == nil || !strings.Contains(err.Error(), RecordKey) {
			t.Errorf("%s: %v", doc, err)
		}
	}
	if r, err := ReadRecord([]byte(`{"entries":[]}`)); err != nil || r.Version != 1 || len(r.Processed) != 0 {
		t.Errorf("absent key: %+v %v", r, err)
	}
}

func FuzzRecordInStore(f *testing.F) {
	real, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real, 3)
	f.Add([]byte(`{"config":{"max_energy":5.0,"upkeep":0.05},"entries":[],"graveyard":[]}`), 1)
	f.Add([]byte(`{"config":{},"entries":[],"graveyard":[],"darwin_memo_action":{"version":1,"processed":[]} }`), 2)
	f.Fuzz(func(t *testing.T, doc []byte, pr int) {
		s, err := lessons.Parse(storePath, doc)
		if err != nil {
			return
		}
		rec := Record{Version: 1, Processed: []Processed{{PR: pr, Outcome: OutcomeSettled}}}
		if err := putRecord(s, rec); err != nil {
			t.Fatal(err)
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := lessons.Parse(storePath, out)
		if err != nil {
			t.Fatalf("the store with its record does not load: %v\n%s", err, out)
		}
		for _, read := range []func() (Record, error){func() (Record, error) { return RecordOf(again) }, func() (Record, error) { return ReadRecord(out) }} {
			got, err := read()
			if err != nil {
				t.Fatalf("record after keeping it: %v\n%s", err, out)
			}
			if len(got.Processed) != 1 || got.Processed[0].PR != pr {
				t.Fatalf("record %+v", got)
			}
		}
	})
}
