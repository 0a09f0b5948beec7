package rank

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestCorrectLog checks correctLog against correctly rounded logarithms of
// IDF arguments computed by testdata/gen_log.py with 60-digit decimals,
// and counts how often CPython-on-glibc agrees.
func TestCorrectLog(t *testing.T) {
	f, err := os.Open("testdata/log.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var n, glibcAgrees, goAgrees int
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		N, _ := strconv.Atoi(fs[0])
		df, _ := strconv.Atoi(fs[1])
		cr, err1 := strconv.ParseFloat(fs[2], 64)
		py, err2 := strconv.ParseFloat(fs[3], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("testdata/log.txt: bad line %q", line)
		}
		x := 1 + float64(N)/float64(1+df)
		got := correctLog(x)
		if got != cr {
			t.Errorf("correctLog(1+%d/(1+%d)) = %x, want %x", N, df, got, cr)
		}
		n++
		if py == cr {
			glibcAgrees++
		}
		if math.Log(x) == cr {
			goAgrees++
		}
	}
	if n < 3000 {
		t.Fatalf("only %d cases in testdata/log.txt", n)
	}
	t.Logf("%d cases: CPython/glibc correctly rounded on %d, Go math.Log on %d", n, glibcAgrees, goAgrees)
}

func TestCorrectLogSpecial(t *testing.T) {
	for _, x := range []float64{1, 2, math.E, 0.5, 1e-300, 1e300, math.MaxFloat64} {
		got, want := correctLog(x), math.Log(x)
		if math.Abs(got-want) > 2e-16*math.Max(1, math.Abs(want)) {
			t.Errorf("correctLog(%g) = %v, math.Log = %v", x, got, want)
		}
	}
	if correctLog(1) != 0 {
		t.Errorf("correctLog(1) = %v, want 0", correctLog(1))
	}
	for _, x := range []float64{0, -1, math.Inf(1), math.NaN()} {
		got, want := correctLog(x), math.Log(x)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("correctLog(%v) = %v, want %v", x, got, want)
		}
	}
}
