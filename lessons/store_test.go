package lessons

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

func readFixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFixtureLoadsAndRoundTrips(t *testing.T) {
	data := readFixture(t)
	s, err := Parse("lessons.json", data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := len(s.Living()); got != 3 {
		t.Errorf("living = %d, want 3", got)
	}
	if got := len(s.Graveyard()); got != 6 {
		t.Errorf("dead = %d, want 6", got)
	}
	if s.TickCount() != 49 {
		t.Errorf("tick = %d, want 49", s.TickCount())
	}
	if len(s.Pending()) != 1 || s.Pending()[0].ID != "a899bb29d181" {
		t.Errorf("pending = %v", s.Pending())
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		i := 0
		for i < len(out) && i < len(data) && out[i] == data[i] {
			i++
		}
		t.Fatalf("round trip differs at byte %d:\n got: %q\nwant: %q", i, out[max(0, i-40):min(len(out), i+40)], data[max(0, i-40):min(len(data), i+40)])
	}
	// legacy and structured notes both load
	h := s.History("053a99cf0a4c")
	if len(h) != 3 || !h[0].Legacy() || h[1].Legacy() || h[1].Event() != "settle" {
		t.Errorf("history notes not loaded as legacy+structured: %+v", h)
	}
	if c, ok := h[1].Credit(); !ok || c != 0.6 {
		t.Errorf("credit = %v %v", c, ok)
	}
}

func TestParseRoundTripsUnusualValues(t *testing.T) {
	in := `{
  "zeta": {"a": [], "b": {}, "c": [1, 2.50, -0, 1E3, 1e400, NaN, "\ud800x\u00e9"]},
  "config": {
    "max_energy": 5,
    "upkeep": 0.05,
    "extra": true
  },
  "entries": [],
  "graveyard": [],
  "retriever": {"kind": "hash", "vectors": {"abc": [0.1, -0.2]}},
  "ledger": {"tick_count": 3, "pending": [], "history": {}, "damaged": ["b", "a"], "future": 1}
}`
	s, err := Parse("x.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := s.Marshal()
	want := `{
  "config": {
    "max_energy": 5.0,
    "upkeep": 0.05,
    "extra": true
  },
  "entries": [],
  "graveyard": [],
  "retriever": {
    "kind": "hash",
    "vectors": {
      "abc": [
        0.1,
        -0.2
      ]
    }
  },
  "ledger": {
    "tick_count": 3,
    "pending": [],
    "history": {},
    "damaged": [
      "a",
      "b"
    ],
    "future": 1
  },
  "zeta": {
    "a": [],
    "b": {},
    "c": [
      1,
      2.5,
      0,
      1000.0,
      Infinity,
      NaN,
      "\ud800x\u00e9"
    ]
  }
}`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	s2, err := Parse("x.json", out)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := s2.Marshal()
	if !bytes.Equal(out, out2) {
		t.Errorf("second round trip differs")
	}
}

func TestParseErrors(t *testing.T) {
	fix := string(readFixture(t))
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"syntax", "{\n  \"config\": {,\n}", "x.json:2:14: invalid JSON: expected a double-quoted property name"},
		{"energy string", strings.Replace(fix, `"energy": 0.3499992591112975`, `"energy": "high"`, 1), "x.json: $.entries[0].energy: expected a number, got string"},
		{"unknown entry key", strings.Replace(fix, `"uses": 4,`, `"uses": 4, "score": 1,`, 1), `x.json: $.entries[1].score: unknown entry key "score"`},
		{"config null", strings.Replace(fix, `"config": {
    "max_energy": 5.0,
    "upkeep": 0.05
  }`, `"config": null`, 1), "x.json: $.config: expected an object with max_energy and upkeep, got null"},
		{"float int", strings.Replace(fix, `"born_cycle": 0,`, `"born_cycle": 0.5,`, 1), "x.json: $.entries[0].born_cycle: expected an integer, got the float 0.5"},
		{"not object", `[1]`, "x.json: $: expected a JSON object"},
		{"trailing", `{"config": {}, "entries": [], "graveyard": []} x`, "x.json:1:48: invalid JSON: extra data"},
		{"missing", `{"config": {}, "entries": []}`, `x.json: $: missing required key "graveyard"`},
		{"ledger not object", `{"config": {}, "entries": [], "graveyard": [], "ledger": 3}`, `x.json: $.ledger: expected an object, got number`},
		{"bad kind", strings.Replace(fix, `"kind": "explicit"`, `"kind": "rumour"`, 1), `x.json: $.entries[0].kind: unknown kind "rumour"`},
		{"unterminated", `{"config": {"a": "abc`, "x.json:1:18: invalid JSON: unterminated string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.json", []byte(tt.in))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FormatError", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant prefix %q", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"config": {}, "entries": [], "graveyard": [], "ledger": {"tick_count": "x", "pending": [{"id": 1}], "config": {"merge_threshold": "abc"}}}`))
	f.Add([]byte(`{"config": {"max_energy": 1e400}, "entries": [{"question": "\ud800", "answer": "é", "pinned": true, "probation": 2}], "graveyard": [], "x": [NaN, -0, 1.5e-7]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse("f.json", b)
		if err != nil {
			return
		}
		out1, err := s.Marshal()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		s2, err := Parse("f.json", out1)
		if err != nil {
			t.Fatalf("re-parse of marshalled store failed: %v\n%s", err, out1)
		}
		out2, _ := s2.Marshal()
		if !bytes.Equal(out1, out2) {
			t.Fatalf("marshal not stable:\n%s\n---\n%s", out1, out2)
		}
		// a load that keeps its history notes as bytes until they are read
		// writes the same store
		lazy, err := ParseWith("f.json", b, Options{LazyHistory: true})
		if err != nil {
			t.Fatalf("a full load succeeds, a lazy one fails: %v", err)
		}
		if out, err := lazy.Marshal(); err != nil || !bytes.Equal(out, out1) {
			t.Fatalf("lazy history: marshal %v\n%s\n---\n%s", err, out, out1)
		}
		// the streaming note formatter agrees with the generic value path
		for _, id := range s.notes.ids {
			for _, raw := range s.notes.byID[id] {
				v, err := pyjson.Parse("note", []byte(raw))
				if err != nil || renderNote(v) != raw {
					t.Fatalf("note %q: generic path gives %q (%v)", raw, renderNote(v), err)
				}
			}
		}
	})
}

func TestWriteToEqualsMarshal(t *testing.T) {
	for _, data := range [][]byte{readFixture(t), benchStoreBytes(t, 1000)} {
		s, err := Parse("x", data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := s.WriteTo(&buf)
		if err != nil || n != int64(len(data)) || !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("WriteTo wrote %d bytes (err %v), want the %d Marshal bytes", n, err, len(data))
		}
	}
}

func TestPlainStoreGainsLedgerOnlyWhenUsed(t *testing.T) {
	plain := `{
  "config": {
    "max_energy": 5.0,
    "upkeep": 0.05
  },
  "entries": [],
  "graveyard": []
}`
	s, err := Parse("p", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := s.Marshal(); string(out) != plain {
		t.Errorf("untouched plain store changed:\n%s", out)
	}
	s.Tick(TickOptions{})
	out, _ := s.Marshal()
	if !strings.Contains(string(out), `"tick_count": 1`) || !strings.Contains(string(out), `"settled_runs": []`) || !strings.Contains(string(out), `"merge_threshold": 0.55`) {
		t.Errorf("ticked plain store lacks the ledger block:\n%s", out)
	}
}

// A "ledger" key nested in another top-level value is not the store's ledger.
func TestNestedLedgerKeyIgnored(t *testing.T) {
	pad := strings.Repeat("x", 1<<20)
	in := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": [],
  "ledger": {"tick_count": 7, "pending": [], "history": {"aaaaaaaaaaaa": ["real"]}, "damaged": []},
  "pad": "` + pad + `",
  "decoy": {
  "ledger": {"tick_count": 99, "pending": [], "history": {"bbbbbbbbbbbb": ["fake"]}, "damaged": []}}}`
	s, err := Parse("x", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.TickCount() != 7 || len(s.History("aaaaaaaaaaaa")) != 1 || len(s.History("bbbbbbbbbbbb")) != 0 {
		t.Fatalf("decoy ledger used: tick %d", s.TickCount())
	}
}

// A store loaded with Options.LazyHistory is the full load's store: the same
// notes read one lesson at a time or all at once, the same bytes written
// (also when the write is a comparison), the same store after it is settled,
// ticked and a lesson forgotten, and the same warnings for a history of the
// wrong shape.
func TestLazyHistoryMatchesFullLoad(t *testing.T) {
	docs := map[string][]byte{"fixture": readFixture(t), "generated": benchStoreBytes(t, 1000)}
	docs["history not an object"] = []byte(`{"config": {}, "entries": [], "graveyard": [], "ledger": {"tick_count": 2, "history": [1]}}`)
	docs["a lesson's history not a list"] = []byte(`{"config": {}, "entries": [], "graveyard": [], "ledger": {"history": {"a": 1, "b": [{"event": "settle"}], "a": [{"x": 1}]}}}`)
	docs["history repeated, the last not an object"] = []byte(`{"config": {}, "entries": [], "graveyard": [], "ledger": {"history": {"a": [{"x": 1}]}, "history": 3}}`)
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			full, err := Parse("x", data)
			if err != nil {
				t.Fatal(err)
			}
			lazy, err := ParseWith("x", data, Options{LazyHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			if !sameExcept(full, lazy) || !sameExcept(lazy, full) {
				t.Fatal("the lazy load differs from the full load")
			}
			for _, e := range append(full.Living(), full.Graveyard()...) {
				if got, want := lazy.History(e.ID), full.History(e.ID); !reflect.DeepEqual(got, want) {
					t.Fatalf("History(%s) = %v, want %v", e.ID, got, want)
				}
			}
			want, err := full.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if got, err := lazy.Marshal(); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("Marshal: %v\n%s\n---\n%s", err, got, want)
			}
			if got, want := sortedCopy(lazy.Warnings()), sortedCopy(full.Warnings()); !reflect.DeepEqual(got, want) {
				t.Fatalf("warnings %q, want %q", got, want)
			}
			// Changed alike: a fresh lazy load (nothing rendered yet) ticked
			// and with a lesson forgotten writes what the full load does.
			// One clock for both: Forget and Tick stamp notes and events with it.
			now := func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }
			full, _ = ParseWith("x", data, Options{Now: now})
			lazy, _ = ParseWith("x", data, Options{LazyHistory: true, Now: now})
			for _, s := range []*Store{full, lazy} {
				if living := s.Living(); len(living) > 0 {
					s.Forget(living[0].ID)
				}
				s.Tick(TickOptions{})
			}
			want, _ = full.Marshal()
			if got, err := lazy.Marshal(); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("after a tick and a forget: %v\n%s\n---\n%s", err, got, want)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
