package encode

import (
	_ "embed"
	"fmt"
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
// word); every later one is a feature.
func parseHarmModel(data []byte) (*harmModel, error) {
	m := &harmModel{weights: map[string]float64{}}
	read := 0 // lines that are not comments
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, "\t")
		v, err := strconv.ParseFloat(val, 64)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("line %d: want name<TAB>number, got %q", n+1, line)
		}
		switch read++; {
		case read == 1 && name == "bias":
			m.bias = v
		case read == 2 && name == "threshold":
			m.threshold = v
		case read <= 2:
			return nil, fmt.Errorf("line %d: want %s first, got %q", n+1, []string{"bias", "threshold"}[read-1], name)
		default:
			m.weights[name] = v
		}
	}
	if read < 2 {
		return nil, fmt.Errorf("bias and threshold are required")
	}
	return m, nil
}
