package action

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

func TestWithRecordRoundTrip(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	d := 2.0
	rec := Record{Version: 1, Processed: []Processed{{PR: 3, Outcome: OutcomeSettled, Delta: &d, Settled: []string{"abc"}}}, Queued: []int{9}}
	doc, err := WithRecord(real, rec)
	if err != nil {
		t.Fatal(err)
	}
	// Everything else is byte-identical, and the store still loads (darwin-memo ignores the key).
	if !bytes.HasPrefix(doc, bytes.TrimRight(real[:len(real)-1], " \n")) {
		t.Fatal("WithRecord changed other bytes")
	}
	s, err := lessons.Parse("lessons.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := s.Marshal()
	got, err := ReadRecord(out)
	if err != nil || len(got.Processed) != 1 || got.Processed[0].PR != 3 || *got.Processed[0].Delta != 2 || got.Queued[0] != 9 {
		t.Fatalf("after the lessons round trip: %+v %v", got, err)
	}
	// Replacing keeps one key.
	rec.Processed = append(rec.Processed, Processed{PR: 4, Outcome: OutcomeNoTickets})
	doc2, err := WithRecord(out, rec)
	if err != nil || strings.Count(string(doc2), RecordKey) != 1 {
		t.Fatalf("replace: %v", err)
	}
	if r2, _ := ReadRecord(doc2); len(r2.Processed) != 2 {
		t.Fatal("replace lost the update")
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

func FuzzWithRecord(f *testing.F) {
	real, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real, 3)
	f.Add([]byte(`{}`), 1)
	f.Add([]byte(`{"darwin_memo_action":{"version":1,"processed":[]} }`), 2)
	f.Fuzz(func(t *testing.T, doc []byte, pr int) {
		rec := Record{Version: 1, Processed: []Processed{{PR: pr, Outcome: OutcomeSettled}}}
		out, err := WithRecord(doc, rec)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			if json.Valid(doc) {
				t.Fatalf("valid input became invalid:\n%s", out)
			}
			return
		}
		got, err := ReadRecord(out)
		if err != nil {
			t.Fatalf("ReadRecord after WithRecord: %v\n%s", err, out)
		}
		if len(got.Processed) != 1 || got.Processed[0].PR != pr {
			t.Fatalf("record %+v", got)
		}
	})
}
