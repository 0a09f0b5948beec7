package settle

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/google/go-github/v62/github"
)

func FuzzDecodeDigest(f *testing.F) {
	files, _ := filepath.Glob("testdata/enricomi/*.json")
	for _, file := range files {
		summary, _ := loadEnricoMi(f, filepath.Base(file))
		f.Add(summary)
	}
	f.Add(DigestPrefix + "H4sIAAAAAAAC/wMAAAAAAAAAAAA=")
	f.Fuzz(func(t *testing.T, summary string) {
		d, err := DecodeDigest(summary)
		if err != nil {
			return
		}
		c := d.Counts()
		if c.Tests < 0 || c.Passed < 0 || c.Failed < 0 || c.Skipped < 0 {
			t.Fatalf("negative counts %+v", c)
		}
	})
}

func FuzzEnricoMiResults(f *testing.F) {
	f.Add("5 tests found", "a \u2011 b\nc", "1 skipped test found", "c", "b (a) failed", 2, 0, 1, 0)
	f.Fuzz(func(t *testing.T, allTitle, all, skipTitle, skip, failTitle string, tests, fail, skipped, succ int) {
		d := &Digest{Tests: tests, TestsFail: fail, TestsSkip: skipped, TestsSucc: succ}
		anns := []*github.CheckRunAnnotation{
			{AnnotationLevel: github.String("notice"), Title: &allTitle, RawDetails: &all},
			{AnnotationLevel: github.String("notice"), Title: &skipTitle, RawDetails: &skip},
			{AnnotationLevel: github.String("warning"), Title: &failTitle},
		}
		res, err := EnricoMiResults(d, anns)
		if err != nil {
			return
		}
		// Whatever it accepts agrees with the digest.
		c := junit.Count(res)
		if c.Tests != d.Tests || c.Passed != d.TestsSucc || c.Failed != d.TestsFail+d.TestsError || c.Skipped != d.TestsSkip {
			t.Fatalf("accepted results %+v disagree with digest %+v", c, d)
		}
	})
}

func FuzzReporterTitles(f *testing.F) {
	for _, s := range []string{"6 passed, 2 failed and 2 skipped ", "17 tests run, 5 passed, 1 skipped, 11 failed.", "No test results found!", "All 12 tests pass in 3s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		// The counts add up without overflow: none is negative and each is at most the total
		// (a sum that wraps around can equal the total).
		addsUp := func(c junit.Counts) bool {
			return c.Passed >= 0 && c.Failed >= 0 && c.Skipped >= 0 && c.Passed <= c.Tests && c.Failed <= c.Tests &&
				c.Skipped <= c.Tests && c.Tests == c.Passed+c.Failed+c.Skipped
		}
		if c, ok := ParseDornyTitle(title); ok && !addsUp(c) {
			t.Fatalf("dorny counts do not add up: %+v", c)
		}
		if c, ok := ParseMikepenzTitle(title); ok && !addsUp(c) {
			t.Fatalf("mikepenz counts do not add up: %+v", c)
		}
		if test, ok := ParseFailureTitle(title); ok && test == "" {
			t.Fatal("empty test name accepted")
		}
	})
}

func FuzzParseDornySummary(f *testing.F) {
	files, _ := filepath.Glob("testdata/dorny/*.md")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, summary string) {
		res, raw := ParseDornySummary(summary)
		if raw.Tests != raw.Passed+raw.Failed+raw.Skipped || len(res) > raw.Tests {
			t.Fatalf("raw %+v for %d ids", raw, len(res))
		}
	})
}

func FuzzLoadFlakyHistory(f *testing.F) {
	f.Add([]byte(`{"tests": {"a": [true, false, true]}}`))
	f.Add([]byte(`{"tests": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := LoadFlakyHistory(data)
		b, err := h.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		h2 := LoadFlakyHistory(b)
		if !reflect.DeepEqual(h.Tests, h2.Tests) {
			t.Fatalf("round trip changed the history: %v vs %v", h.Tests, h2.Tests)
		}
		_ = h.Quarantined()
	})
}

func FuzzReadJUnitZip(f *testing.F) {
	xml := readTestdataF(f, "junit", "pytest-failure-skipped.enricomi.xml")
	f.Add(zipOf(f, map[string][]byte{"a/report.xml": xml}))
	f.Add(zipOf(f, map[string][]byte{"../evil.xml": xml, "ok.xml": []byte("<testsuite/>")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, _, err := readJUnitZip("fuzz", data, DefaultLimits())
		if err == nil && rep != nil {
			_ = rep.Results()
		}
	})
}

func readTestdataF(f *testing.F, parts ...string) []byte {
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func zipOf(tb testing.TB, files map[string][]byte) []byte {
	var buf bytes.Buffer
	writeZip(tb, &buf, files)
	return buf.Bytes()
}
