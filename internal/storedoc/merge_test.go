package storedoc_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// The three-way merge's tests on documents; lessons tests that the merged stores load.

func mentry(id, q string, energy float64, extra string) string {
	return `{"question":"` + q + `","answer":"a ` + q + `","kind":"explicit","sources":[],"energy":` +
		jsonFloat(energy) + `,"born_cycle":0,"recorded_ts":"","last_used_cycle":-1,"uses":0,"lineage":[]` + extra + `,"id":"` + id + `"}`
}

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }

func mstore(living, dead []string, ledger string) string {
	s := `{"config":{"max_energy":5.0,"upkeep":0.05},"entries":[` + strings.Join(living, ",") + `],"graveyard":[` + strings.Join(dead, ",") + `]`
	if ledger != "" {
		s += `,"ledger":` + ledger
	}
	return s + "}"
}

type view struct {
	Entries   []map[string]any `json:"entries"`
	Graveyard []map[string]any `json:"graveyard"`
	Ledger    struct {
		Tick    int              `json:"tick_count"`
		Pending []map[string]any `json:"pending"`
		History map[string][]any `json:"history"`
		Damaged []string         `json:"damaged"`
	} `json:"ledger"`
	Action json.RawMessage `json:"darwin_memo_action"`
}

func decode(t *testing.T, b []byte) view {
	t.Helper()
	var v view
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("merged output is not JSON: %v\n%s", err, b)
	}
	return v
}

func ids(l []map[string]any) string {
	var s []string
	for _, e := range l {
		s = append(s, e["id"].(string))
	}
	return strings.Join(s, ",")
}

func find(l []map[string]any, id string) map[string]any {
	for _, e := range l {
		if e["id"] == id {
			return e
		}
	}
	return nil
}

func TestMergeEntries(t *testing.T) {
	t.Parallel()
	ticket := func(id string) string {
		return `{"query":"q","answer":"a","deciding_entry":"aaaaaaaaaaaa","supporting_entries":[],"born_tick":0,"id":"` + id + `","binding":null}`
	}
	base := mstore([]string{mentry("aaaaaaaaaaaa", "alpha", 1, ""), mentry("bbbbbbbbbbbb", "beta", 1, ""), mentry("cccccccccccc", "gamma", 1, "")}, nil,
		`{"tick_count":3,"pending":[`+ticket("111111111111")+`,`+ticket("222222222222")+`],"history":{"aaaaaaaaaaaa":["n1"]},"damaged":[],"settled_runs":[]}`)
	// The bot: settled ticket 1 (alpha gains energy and a note), ticked twice, executed beta,
	// and gave birth to delta.
	ours := mstore([]string{mentry("aaaaaaaaaaaa", "alpha", 1.5, ""), mentry("cccccccccccc", "gamma", 0.9, ""), mentry("dddddddddddd", "delta", 1, "")},
		[]string{mentry("bbbbbbbbbbbb", "beta", -0.2, "")},
		`{"tick_count":5,"pending":[`+ticket("222222222222")+`],"history":{"aaaaaaaaaaaa":["n1","bot note"]},"damaged":["bbbbbbbbbbbb"],"settled_runs":[]}`)
	// People on main: edited alpha's question, pinned gamma, forgot nothing, opened compat
	// ticket 3, abandoned ticket 2, added entry eeee by hand, forgot... and added a note.
	theirs := mstore([]string{mentry("aaaaaaaaaaaa", "alpha edited", 1, ""), mentry("bbbbbbbbbbbb", "beta", 1, ""), mentry("cccccccccccc", "gamma", 1, `,"pinned":true`), mentry("eeeeeeeeeeee", "epsilon", 1, "")}, nil,
		`{"tick_count":3,"pending":[`+ticket("111111111111")+`,`+ticket("333333333333")+`],"history":{"aaaaaaaaaaaa":["n1","human note"]},"damaged":[],"settled_runs":[]}`)
	out, err := storedoc.Merge([]byte(base), []byte(ours), []byte(theirs), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := decode(t, out)
	if got := ids(v.Entries); got != "aaaaaaaaaaaa,cccccccccccc,dddddddddddd,eeeeeeeeeeee" {
		t.Fatalf("living %s", got)
	}
	if got := ids(v.Graveyard); got != "bbbbbbbbbbbb" {
		t.Fatalf("dead %s", got)
	}
	a := find(v.Entries, "aaaaaaaaaaaa")
	if a["question"] != "alpha edited" || a["energy"].(float64) != 1.5 {
		t.Fatalf("alpha: people's text and the bot's energy expected: %v", a)
	}
	c := find(v.Entries, "cccccccccccc")
	if c["pinned"] != true || c["energy"].(float64) != 0.9 {
		t.Fatalf("gamma: %v", c)
	}
	if v.Ledger.Tick != 5 {
		t.Fatalf("tick %d", v.Ledger.Tick)
	}
	var pend []string
	for _, p := range v.Ledger.Pending {
		pend = append(pend, p["id"].(string))
	}
	// 1 settled by the bot, 2 abandoned on main, 3 opened on main.
	if strings.Join(pend, ",") != "333333333333" {
		t.Fatalf("pending %v", pend)
	}
	if h := v.Ledger.History["aaaaaaaaaaaa"]; len(h) != 3 || h[1] != "bot note" || h[2] != "human note" {
		t.Fatalf("history %v", h)
	}
	if strings.Join(v.Ledger.Damaged, ",") != "bbbbbbbbbbbb" {
		t.Fatalf("damaged %v", v.Ledger.Damaged)
	}
}

func TestMergeForgetOnMainWins(t *testing.T) {
	t.Parallel()
	base := mstore([]string{mentry("aaaaaaaaaaaa", "alpha", 1, "")}, nil, "")
	ours := mstore([]string{mentry("aaaaaaaaaaaa", "alpha", 1.3, "")}, nil, "")
	theirs := mstore(nil, []string{mentry("aaaaaaaaaaaa", "alpha", 0, "")}, "")
	out, err := storedoc.Merge([]byte(base), []byte(ours), []byte(theirs), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := decode(t, out)
	if len(v.Entries) != 0 || ids(v.Graveyard) != "aaaaaaaaaaaa" {
		t.Fatalf("%s", out)
	}
}

func TestMergeIdentitiesOnRealStore(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile("testdata/merge/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(real, []byte(`"tick_count": 49`), []byte(`"tick_count": 50`), 1)
	if bytes.Equal(edited, real) {
		t.Fatal("fixture changed: no tick_count 49")
	}
	for name, c := range map[string]struct{ b, o, t, want []byte }{
		"nothing changed": {real, real, real, real},
		"only ours":       {real, edited, real, edited},
		"only theirs":     {real, real, edited, edited},
		"no base":         {nil, real, real, real},
	} {
		out, err := storedoc.Merge(c.b, c.o, c.t, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got, want any
		json.Unmarshal(out, &got)
		json.Unmarshal(c.want, &want)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s: merged differs", name)
		}
	}
}

// A custom rule merges its key; a document that is not a store is an error.
func TestMergeCustomKeyAndErrors(t *testing.T) {
	t.Parallel()
	called := false
	custom := map[string]storedoc.KeyMerger{"x": func(b, o, th []byte) ([]byte, error) {
		called = true
		return []byte(`"merged"`), nil
	}}
	out, err := storedoc.Merge([]byte(`{"x":1}`), []byte(`{"x":2}`), []byte(`{"x":3,"y":true}`), custom)
	if err != nil || !called || !strings.Contains(string(out), `"x":"merged"`) || !strings.Contains(string(out), `"y":true`) {
		t.Fatalf("%s %v", out, err)
	}
	for _, bad := range []string{`[]`, `{"entries":3}`, `{"entries":[{"id":5}]}`, `{`} {
		if _, err := storedoc.Merge(nil, []byte(bad), []byte(`{}`), nil); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Merging a merge with itself as both sides gives it back byte for byte, whichever side a
// member came from raw: an object both sides hold is not rebuilt member by member (which
// re-escapes keys and drops spaces and repeated keys).
func TestMergeOfMergeIsItself(t *testing.T) {
	t.Parallel()
	for _, theirs := range []string{
		"{\"ledger\":{\"\x7f\":0}}",
		"{\"config\":{\"\x7f\":0}}",
		`{"config":{ "a" : 1 }}`,
		`{"config":{"a":1,"a":2}}`,
		`{"retriever":{ "a" : 1 },"ledger":{"config":{ "b" : [ 1 ] }}}`,
	} {
		out, err := storedoc.Merge(nil, []byte(`{}`), []byte(theirs), nil)
		if err != nil {
			t.Fatalf("%s: %v", theirs, err)
		}
		again, err := storedoc.Merge(out, out, out, nil)
		if err != nil || !bytes.Equal(out, again) {
			t.Errorf("%s: merging the merge changed it (%v):\n%s\n%s", theirs, err, out, again)
		}
	}
}

func FuzzMerge(f *testing.F) {
	real, err := os.ReadFile("testdata/merge/lessons.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real, real, real)
	f.Add([]byte(`{}`), []byte(`{"entries":[]}`), []byte(`{"ledger":{"tick_count":2}}`))
	f.Add([]byte(`{}`), []byte(`{"entries":[{"question":"q","answer":"a","energy":NaN}]}`), []byte(`{"x":-Infinity}`))
	f.Add([]byte(`{}`), []byte(`{"config":{"a":1}}`), []byte(`{"config":{"a":1},"ledger":{"config":{},"history":{"x":[]}}}`))
	f.Fuzz(func(t *testing.T, b, o, th []byte) {
		out, err := storedoc.Merge(b, o, th, nil)
		if err != nil {
			return
		}
		// The output is JSON as darwin-memo reads it (Python's grammar: NaN is allowed).
		if _, _, err := storedoc.ExtensionOf("merged", out, ""); err != nil {
			t.Fatalf("output does not read back: %v\n%s", err, out)
		}
		// Merging with itself as both sides is the identity.
		again, err := storedoc.Merge(out, out, out, nil)
		if err != nil {
			t.Fatalf("re-merge: %v", err)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent:\n%s\n%s", out, again)
		}
	})
}
