package lessons

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Every ledger.config key of the table is read into its field and written back as it was
// read; a value of the wrong type warns and leaves the default; an unknown key warns and is
// dropped.
func TestConfigKeysRoundTrip(t *testing.T) {
	doc := func(key, val string) []byte {
		return []byte(`{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": [], "ledger": {"tick_count": 0, "pending": [], "history": {}, "damaged": [], "config": {"` + key + `": ` + val + `}}}`)
	}
	for _, f := range configFields {
		good, bad := map[string]string{}, `"x"`
		switch f.field(&Config{}).(type) {
		case *float64:
			good["0.25"] = "0.25"
		case *int:
			good["7"] = "7"
			bad = "7.5"
		case *bool:
			good["true"] = "true"
		case **float64:
			good["null"], good["2.5"] = "null", "2.5"
		case *string:
			good[`"shared"`] = `"shared"`
			bad = `"bogus"`
		}
		for in, want := range good {
			s, err := Parse("x", doc(f.key, in))
			if err != nil {
				t.Fatal(err)
			}
			if w := s.Warnings(); len(w) > 0 {
				t.Errorf("%s: %s warns %v", f.key, in, w)
			}
			if got := string(pyjson.Compact(f.value(s.cfg))); got != want {
				t.Errorf("%s: %s read as %s", f.key, in, got)
			}
			out, err := s.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), `"`+f.key+`": `+want) {
				t.Errorf("%s: %s not written back:\n%s", f.key, in, out)
			}
		}
		s, err := Parse("x", doc(f.key, bad))
		if err != nil {
			t.Fatal(err)
		}
		def := DefaultConfig()
		if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], f.key+" has the wrong type") {
			t.Errorf("%s: %s warns %v", f.key, bad, w)
		}
		if got, want := string(pyjson.Compact(f.value(s.cfg))), string(pyjson.Compact(f.value(def))); got != want {
			t.Errorf("%s: wrong type read as %s, want the default %s", f.key, got, want)
		}
	}
	s, err := Parse("x", doc("no_such_key", "1"))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := s.Marshal()
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "not a known setting") || strings.Contains(string(out), "no_such_key") {
		t.Errorf("unknown key: warnings %v\n%s", w, out)
	}
}
