package pyjson

import "math"

// JSONFloat is a float64 that encoding/json marshals as Python's json.dumps
// writes a float: its repr, so 50.0 stays "50.0" and 1e-05 stays "1e-05"
// where encoding/json would write "50" and "0.00001". Output read by tools
// that tell Python's floats from its ints (a darwin-memo comparison, a
// script's isinstance check) then reads the same number type. A NaN or an
// infinity marshals as null, since encoding/json's output must be valid JSON
// (json.dumps would write NaN or Infinity).
type JSONFloat float64

// MarshalJSON implements json.Marshaler.
func (f JSONFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return AppendFloat(nil, x), nil
}
