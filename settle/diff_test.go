package settle

import (
	"reflect"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

const (
	P = junit.Passed
	F = junit.Failed
	S = junit.Skipped
	K = junit.Flaky
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name          string
		before, after map[string]junit.Status
		q             []string
		want          Transitions
	}{
		{name: "improvement and regression cancel",
			before: map[string]junit.Status{"a": F, "b": P}, after: map[string]junit.Status{"a": P, "b": F},
			want: Transitions{Improvements: []string{"a"}, Regressions: []string{"b"}, Compared: 2, Delta: 0}},
		{name: "two improvements",
			before: map[string]junit.Status{"a": F, "b": F, "c": P}, after: map[string]junit.Status{"a": P, "b": P, "c": P},
			want: Transitions{Improvements: []string{"a", "b"}, Compared: 3, Delta: 2}},
		{name: "skipped on either side is ignored, not added",
			before: map[string]junit.Status{"a": S, "b": F}, after: map[string]junit.Status{"a": P, "b": S},
			want: Transitions{}},
		{name: "added and removed never count",
			before: map[string]junit.Status{"gone-p": P, "gone-f": F, "x": P}, after: map[string]junit.Status{"new-p": P, "new-f": F, "x": P},
			want: Transitions{Compared: 1}},
		{name: "added skipped test is in no list",
			before: map[string]junit.Status{}, after: map[string]junit.Status{"s": S},
			want: Transitions{}},
		{name: "quarantine filters the delta, not the lists",
			before: map[string]junit.Status{"a": F, "b": P, "c": F}, after: map[string]junit.Status{"a": P, "b": F, "c": P}, q: []string{"c", "b"},
			want: Transitions{Improvements: []string{"a", "c"}, Regressions: []string{"b"}, Quarantined: []string{"b", "c"}, Compared: 3, Delta: 1}},
		{name: "flaky on either side is not a transition",
			before: map[string]junit.Status{"a": F, "b": K}, after: map[string]junit.Status{"a": K, "b": P},
			want: Transitions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.before, tt.after, tt.q)
			want := normalize(tt.want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Diff =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func normalize(t Transitions) Transitions {
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	t.Improvements, t.Regressions = nz(t.Improvements), nz(t.Regressions)
	t.Quarantined = nz(t.Quarantined)
	return t
}

func TestDiffDeterministic(t *testing.T) {
	before := map[string]junit.Status{}
	after := map[string]junit.Status{}
	for _, id := range strings.Fields("z y x w v u t s r q") {
		before[id], after[id] = F, P
	}
	first := Diff(before, after, nil)
	for i := 0; i < 20; i++ {
		if got := Diff(before, after, nil); !reflect.DeepEqual(got, first) {
			t.Fatal("Diff output depends on map order")
		}
	}
	if first.Improvements[0] != "q" || first.Delta != 10 {
		t.Errorf("not sorted or wrong delta: %+v", first)
	}
}

func TestFlakyHistory(t *testing.T) {
	h := LoadFlakyHistory(nil)
	before := map[string]junit.Status{"t": F, "s": P, "skip": S}
	after := map[string]junit.Status{"t": P, "s": P, "skip": S}
	h.Update(before, after)
	if q := h.Quarantined(); len(q) != 0 {
		t.Fatalf("quarantined after one run: %v", q)
	}
	// darwin-memo's measured edge: the same pair twice gives F,T,F,T = 3 flips.
	h.Update(before, after)
	if q := h.Quarantined(); !reflect.DeepEqual(q, []string{"t"}) {
		t.Fatalf("quarantined = %v, want [t]", q)
	}
	if _, ok := h.Tests["skip"]; ok {
		t.Error("a test with no observations kept a history")
	}
	// Window keeps the last 10 observations.
	for i := 0; i < 10; i++ {
		h.Update(map[string]junit.Status{"s": P}, map[string]junit.Status{"s": P})
	}
	if n := len(h.Tests["s"]); n != DefaultFlakyWindow {
		t.Errorf("history length = %d, want %d", n, DefaultFlakyWindow)
	}
	if _, ok := h.Tests["t"]; ok {
		t.Error("a test that left the suite kept its history")
	}
	// A rerun-flaky observation records a flip.
	h2 := NewFlakyHistory()
	h2.Update(map[string]junit.Status{"k": K}, map[string]junit.Status{"k": K})
	if got := h2.Tests["k"]; !reflect.DeepEqual(got, []bool{false, true, false, true}) {
		t.Errorf("flaky history = %v", got)
	}
}

func TestFlakyHistoryLoadMarshal(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string][]bool
	}{
		{"valid", `{"tests": {"b": [true, false], "a": [false]}}`, map[string][]bool{"a": {false}, "b": {true, false}}},
		{"not json", `{{{`, map[string][]bool{}},
		{"list top", `[1,2]`, map[string][]bool{}},
		{"tests not object", `{"tests": [true]}`, map[string][]bool{}},
		{"tests null", `{"tests": null}`, map[string][]bool{}},
		{"values not lists", `{"tests": {"a": 3, "b": "x", "c": [true]}}`, map[string][]bool{"c": {true}}},
		{"non-bool items skipped", `{"tests": {"a": [true, 1, null, false, "x"]}}`, map[string][]bool{"a": {true, false}}},
		{"empty", ``, map[string][]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := LoadFlakyHistory([]byte(tt.in))
			if !reflect.DeepEqual(h.Tests, tt.want) {
				t.Errorf("Tests = %v, want %v", h.Tests, tt.want)
			}
			b1, err := h.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			b2, _ := LoadFlakyHistory(b1).Marshal()
			if string(b1) != string(b2) {
				t.Errorf("Marshal not stable:\n%s\n%s", b1, b2)
			}
		})
	}
	b, _ := LoadFlakyHistory([]byte(`{"tests": {"b": [true], "a": [false, true]}}`)).Marshal()
	want := "{\n  \"tests\": {\n    \"a\": [\n      false,\n      true\n    ],\n    \"b\": [\n      true\n    ]\n  }\n}\n"
	if string(b) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", b, want)
	}
}
