package encode

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// harmWeightsTSV is the learned model's parameters, written by TestHarmfulModel -update from
// testdata/refusal/train.tsv: comment lines starting with "#", then "name<TAB>value" lines:
// "bias", "threshold", then every feature's weight.
//
//go:embed harm_weights.tsv
var harmWeightsTSV []byte

// harmWeights is the shipped model. The file is compiled in and TestHarmfulModel checks it
// parses to what training gives, so a parse error here is a broken build, as with
// regexp.MustCompile.
var harmWeights = mustParseHarmModel(harmWeightsTSV)

func mustParseHarmModel(data []byte) harmModel {
	m, err := parseHarmModel(data)
	if err != nil {
		panic("encode: harm_weights.tsv: " + err.Error())
	}
	return *m
}

// parseHarmModel reads the format of harm_weights.tsv. The first two lines that are not
// comments are "bias" and "threshold" (a feature may be named "threshold": it is a stemmed
// word); every later one is a feature. Every value must be a finite number and each feature
// must appear once.
func parseHarmModel(data []byte) (*harmModel, error) {
	m := &harmModel{weights: map[string]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	read := 0 // lines that are not comments
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, "\t")
		if !ok || name == "" || strings.Contains(val, "\t") {
			return nil, fmt.Errorf("line %d: want name<TAB>value, got %q", n, line)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("line %d: %q is not a finite number", n, val)
		}
		switch read++; {
		case read == 1 && name == "bias":
			m.bias = v
		case read == 2 && name == "threshold":
			if v <= 0 || v >= 1 {
				return nil, fmt.Errorf("line %d: threshold %v is not a probability in (0, 1)", n, v)
			}
			m.threshold = v
		case read <= 2:
			return nil, fmt.Errorf("line %d: want %s first, got %q", n, []string{"bias", "threshold"}[read-1], name)
		default:
			if _, dup := m.weights[name]; dup {
				return nil, fmt.Errorf("line %d: feature %q given twice", n, name)
			}
			m.weights[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if read < 2 {
		return nil, fmt.Errorf("bias and threshold are required")
	}
	return m, nil
}
