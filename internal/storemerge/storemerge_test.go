package storemerge

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func entry(id, q string, energy float64, extra string) string {
	return `{"question":"` + q + `","answer":"a ` + q + `","kind":"explicit","sources":[],"energy":` +
		jsonFloat(energy) + `,"born_cycle":0,"recorded_ts":"","last_used_cycle":-1,"uses":0,"lineage":[]` + extra + `,"id":"` + id + `"}`
}

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }

func store(living, dead []string, ledger string) string {
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
	base := store([]string{entry("aaaaaaaaaaaa", "alpha", 1, ""), entry("bbbbbbbbbbbb", "beta", 1, ""), entry("cccccccccccc", "gamma", 1, "")}, nil,
		`{"tick_count":3,"pending":[`+ticket("111111111111")+`,`+ticket("222222222222")+`],"history":{"aaaaaaaaaaaa":["n1"]},"damaged":[],"settled_runs":[]}`)
	// The bot: settled ticket 1 (alpha gains energy and a note), ticked twice, executed beta,
	// and gave birth to delta.
	ours := store([]string{entry("aaaaaaaaaaaa", "alpha", 1.5, ""), entry("cccccccccccc", "gamma", 0.9, ""), entry("dddddddddddd", "delta", 1, "")},
		[]string{entry("bbbbbbbbbbbb", "beta", -0.2, "")},
		`{"tick_count":5,"pending":[`+ticket("222222222222")+`],"history":{"aaaaaaaaaaaa":["n1","bot note"]},"damaged":["bbbbbbbbbbbb"],"settled_runs":[]}`)
	// People on main: edited alpha's question, pinned gamma, forgot nothing, opened compat
	// ticket 3, abandoned ticket 2, added entry eeee by hand, forgot... and added a note.
	theirs := store([]string{entry("aaaaaaaaaaaa", "alpha edited", 1, ""), entry("bbbbbbbbbbbb", "beta", 1, ""), entry("cccccccccccc", "gamma", 1, `,"pinned":true`), entry("eeeeeeeeeeee", "epsilon", 1, "")}, nil,
		`{"tick_count":3,"pending":[`+ticket("111111111111")+`,`+ticket("333333333333")+`],"history":{"aaaaaaaaaaaa":["n1","human note"]},"damaged":[],"settled_runs":[]}`)
	out, err := Merge([]byte(base), []byte(ours), []byte(theirs), nil)
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
	base := store([]string{entry("aaaaaaaaaaaa", "alpha", 1, "")}, nil, "")
	ours := store([]string{entry("aaaaaaaaaaaa", "alpha", 1.3, "")}, nil, "")
	theirs := store(nil, []string{entry("aaaaaaaaaaaa", "alpha", 0, "")}, "")
	out, err := Merge([]byte(base), []byte(ours), []byte(theirs), nil)
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
	real, err := os.ReadFile("testdata/lessons.json")
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
		out, err := Merge(c.b, c.o, c.t, nil)
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

func TestMergeCustomKeyAndErrors(t *testing.T) {
	t.Parallel()
	called := false
	custom := map[string]KeyMerger{"x": func(b, o, th json.RawMessage) (json.RawMessage, error) {
		called = true
		return json.RawMessage(`"merged"`), nil
	}}
	out, err := Merge([]byte(`{"x":1}`), []byte(`{"x":2}`), []byte(`{"x":3,"y":true}`), custom)
	if err != nil || !called || !strings.Contains(string(out), `"x":"merged"`) || !strings.Contains(string(out), `"y":true`) {
		t.Fatalf("%s %v", out, err)
	}
	for _, bad := range []string{`[]`, `{"entries":3}`, `{"entries":[{"id":5}]}`, `{`} {
		if _, err := Merge(nil, []byte(bad), []byte(`{}`), nil); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func FuzzMerge(f *testing.F) {
	real, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real, real, real)
	f.Add([]byte(`{}`), []byte(`{"entries":[]}`), []byte(`{"ledger":{"tick_count":2}}`))
	f.Fuzz(func(t *testing.T, b, o, th []byte) {
		out, err := Merge(b, o, th, nil)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out: %s", out)
		}
		// Merging with itself as both sides is the identity on entries.
		again, err := Merge(out, out, out, nil)
		if err != nil {
			t.Fatalf("re-merge: %v", err)
		}
		var x, y any
		json.Unmarshal(out, &x)
		json.Unmarshal(again, &y)
		xb, _ := json.Marshal(x)
		yb, _ := json.Marshal(y)
		if !bytes.Equal(xb, yb) {
			t.Fatalf("not idempotent:\n%s\n%s", xb, yb)
		}
	})
}
