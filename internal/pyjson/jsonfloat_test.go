package pyjson

import (
	"encoding/json"
	"math"
	"testing"
)

func TestJSONFloatMarshalsPythonRepr(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{50, "50.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1.114239, "1.114239"},
		{1e-05, "1e-05"},
		{1e16, "1e+16"},
		{-3.191891195797325e-16, "-3.191891195797325e-16"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	} {
		got, err := json.Marshal(struct {
			V JSONFloat `json:"v"`
		}{JSONFloat(tc.f)})
		if err != nil {
			t.Fatalf("%v: %v", tc.f, err)
		}
		if want := `{"v":` + tc.want + `}`; string(got) != want {
			t.Errorf("%v: %s, want %s", tc.f, got, want)
		}
	}
}
