package rank

import (
	"math"
	"testing"
)

func TestDefaultConfidence(t *testing.T) {
	m, err := ParseConfidenceModel(confidenceText)
	if err != nil {
		t.Fatalf("confidence.txt: %v", err)
	}
	text, err := m.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if string(text) != confidenceText {
		t.Errorf("confidence.txt is not in MarshalText's form; regenerate it (go test ./lessons -run TestDecideThresholdSweep -update)")
	}
	for _, c := range []struct {
		cov, margin float64
		lo, hi      float64
	}{
		{0, 0, 0, 0.45},      // nothing matched: below DecideThreshold
		{1, 1, 0.85, 1},      // the whole query, alone
		{0.1, 1, 0.2, 0.499}, // one word of a long query, alone: still unsure (below DecideThreshold)
	} {
		got := m.Of(c.cov, c.margin, 0, false)
		if got < c.lo || got > c.hi || math.IsNaN(got) {
			t.Errorf("Of(%.2f, %.2f, 0) = %.3f, want in [%.2f, %.2f]", c.cov, c.margin, got, c.lo, c.hi)
		}
	}
	if a, b := m.Of(0.5, 0.5, 0, false), m.Of(0.6, 0.5, 0, false); a >= b {
		t.Errorf("confidence does not grow with coverage: %.3f, %.3f", a, b)
	}
	if a, b := m.Of(0.8, 0.5, 0, true), m.Of(0.8, 0.5, 0, false); a >= b {
		t.Errorf("a quantity the answer cannot state does not lower the confidence: %.3f, %.3f", a, b)
	}
	for _, c := range []struct{ s, next, want float64 }{
		{10, 0, 1}, {10, 5, 0.5}, {10, 10, 0}, {10, 12, 0}, {0, 0, 0},
	} {
		if got := Margin(c.s, c.next); got != c.want {
			t.Errorf("Margin(%v, %v) = %v, want %v", c.s, c.next, got, c.want)
		}
	}
}

func TestQueryWords(t *testing.T) {
	got := QueryWords("What's the Région of prod-eu? what, 42")
	want := []string{"eu", "of", "prod", "région", "s", "the", "what"}
	if len(got) != len(want) {
		t.Fatalf("QueryWords = %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("QueryWords = %q, want %q", got, want)
		}
	}
}

func TestParseConfidenceModel(t *testing.T) {
	good := "# c\nbias\t-1\ncoverage\t2\nmargin\t1.5\nunstated\t-0.7\nword\thow\t-0.5\n"
	m, err := ParseConfidenceModel(good)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bias != -1 || m.Coverage != 2 || m.Margin != 1.5 || m.Unstated != -0.7 || m.Words["how"] != -0.5 || m.Phrasing("How, how?") != -0.5 {
		t.Errorf("parsed %+v", m)
	}
	if m, err := ParseConfidenceModel("bias\t-1\ncoverage\t2\nmargin\t1.5\n"); err != nil || m.Unstated != 0 {
		t.Errorf("a model without unstated: %+v, %v; want it 0", m, err)
	}
	for name, text := range map[string]string{
		"missing margin": "bias\t-1\ncoverage\t2\n",
		"not a number":   "bias\tx\ncoverage\t2\nmargin\t1\n",
		"NaN":            "bias\tNaN\ncoverage\t2\nmargin\t1\n",
		"twice":          "bias\t1\nbias\t1\ncoverage\t2\nmargin\t1\n",
		"unstated twice": "bias\t1\ncoverage\t2\nmargin\t1\nunstated\t1\nunstated\t1\n",
		"unknown":        "bias\t1\ncoverage\t2\nmargin\t1\nslope\t3\n",
		"no tab":         "bias 1\ncoverage\t2\nmargin\t1\n",
		"empty word":     "bias\t1\ncoverage\t2\nmargin\t1\nword\t\t3\n",
	} {
		if _, err := ParseConfidenceModel(text); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func FuzzParseConfidenceModel(f *testing.F) {
	f.Add(confidenceText)
	f.Add("bias\t1\ncoverage\t2\nmargin\t1\nword\tx\t3\n")
	f.Add("bias\t1\ncoverage\t2\nmargin\t1\nunstated\t-1\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseConfidenceModel(text)
		if err != nil {
			return
		}
		out, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseConfidenceModel(string(out))
		if err != nil {
			t.Fatalf("re-parse: %v\n%s", err, out)
		}
		if len(m2.Words) != len(m.Words) {
			t.Fatalf("words %d -> %d", len(m.Words), len(m2.Words))
		}
	})
}
