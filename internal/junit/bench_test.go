package junit

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParse parses a synthetic 20k-testcase report (about 2 MB).
func BenchmarkParse(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?><testsuites>`)
	for s := 0; s < 200; s++ {
		fmt.Fprintf(&buf, `<testsuite name="suite%d" tests="100">`, s)
		for c := 0; c < 100; c++ {
			if c%10 == 0 {
				fmt.Fprintf(&buf, `<testcase classname="pkg.Suite%d" name="test_%d" time="0.01"><failure message="boom">trace line 1&#10;trace line 2</failure></testcase>`, s, c)
			} else {
				fmt.Fprintf(&buf, `<testcase classname="pkg.Suite%d" name="test_%d" time="0.01"><system-out>ok</system-out></testcase>`, s, c)
			}
		}
		buf.WriteString(`</testsuite>`)
	}
	buf.WriteString(`</testsuites>`)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseBytes("bench.xml", data); err != nil {
			b.Fatal(err)
		}
	}
}
