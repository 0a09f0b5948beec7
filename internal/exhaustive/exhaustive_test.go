package exhaustive

import "testing"

func TestOr(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want int
	}{{"", 2}, {"0", 2}, {"1", 20}} {
		t.Setenv(Env, tt.env)
		if got := Or(2, 20); got != tt.want || On() != (tt.want == 20) {
			t.Errorf("%s=%q: Or(2, 20) = %d, On() = %v", Env, tt.env, got, On())
		}
	}
}
