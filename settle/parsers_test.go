package settle

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/google/go-github/v62/github"
)

type fixtureRun struct {
	Output struct {
		Title       string                       `json:"title"`
		Summary     string                       `json:"summary"`
		Annotations []*github.CheckRunAnnotation `json:"annotations"`
	} `json:"output"`
}

func loadEnricoMi(t testing.TB, name string) (string, []*github.CheckRunAnnotation) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "enricomi", name))
	if err != nil {
		t.Fatal(err)
	}
	var runs []fixtureRun
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	return runs[0].Output.Summary, runs[0].Output.Annotations
}

func loadJUnit(t testing.TB, name string) map[string]junit.Status {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "junit", name))
	if err != nil {
		t.Fatal(err)
	}
	var rep junit.Tally
	if err := rep.Add(name, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return rep.Results()
}

func TestDecodeDigestFixtures(t *testing.T) {
	tests := []struct {
		file string
		want junit.Counts
	}{
		{"pytest-junit.fail.checkrun.json", junit.Counts{Tests: 5, Passed: 3, Failed: 1, Skipped: 1}},
		{"junit.multiresult.checkrun.json", junit.Counts{Tests: 4, Passed: 1, Failed: 2, Skipped: 1}},
		{"bazel-suite-logs.checkrun.json", junit.Counts{Tests: 1, Failed: 1}},
		{"pytest-junit.gloo.standalone.checkrun.json", junit.Counts{Tests: 97, Passed: 80, Skipped: 17}},
		{"FluentValidation.Tests.checkrun.json", junit.Counts{Tests: 804, Passed: 803, Skipped: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			summary, _ := loadEnricoMi(t, tt.file)
			d, err := DecodeDigest(summary)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Counts(); got != tt.want {
				t.Errorf("Counts = %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := DecodeDigest("no digest here"); !errors.Is(err, ErrNoDigest) {
		t.Errorf("missing digest: %v", err)
	}
	for _, bad := range []string{DigestPrefix + "!!!", DigestPrefix + "aGVsbG8=", DigestPrefix + "H4sIAAAAAAAC/wMAAAAAAAAAAAA=",
		// {"tests": 1, "tests_fail": 9223372036854775807, "tests_error": 1}: failures and errors
		// added up to a negative count.
		DigestPrefix + "H4sIAAAAAAACA6tWKkktLilWslIw1FGAsOOLS5OTgQIGCIHszAIUgbTEzByggKWRkbGxuZGBsZmFqYm5uamFgTlcSWpRUX4RyNhaAH3ob4hjAAAA",
		// {"tests": 1, "tests_succ": 1, "tests_skip": 1}: more statuses than tests.
		DigestPrefix + "H4sIAAAAAAACA6tWKkktLilWslIw1FGAsOOLS5OTUQWyMwtAArUA3ChrRC4AAAA=",
	} {
		if _, err := DecodeDigest(bad); err == nil || errors.Is(err, ErrNoDigest) {
			t.Errorf("DecodeDigest(%q) = %v, want a decode error", bad, err)
		}
	}
}

// EnricoMi's annotations must rebuild exactly what our JUnit parser reads
// from the report the action was given: same ids, same statuses.
func TestEnricoMiResultsMatchJUnit(t *testing.T) {
	tests := []struct{ checkrun, xml string }{
		{"pytest-junit.fail.checkrun.json", "pytest-failure-skipped.enricomi.xml"},
		{"junit.multiresult.checkrun.json", "junit.multiresult.xml"},
		{"pytest-junit.gloo.standalone.checkrun.json", "pytest-junit.gloo.standalone.xml"},
		{"bazel-suite-logs.checkrun.json", "bazel-test-suite-logs.enricomi.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.checkrun, func(t *testing.T) {
			summary, anns := loadEnricoMi(t, tt.checkrun)
			d, err := DecodeDigest(summary)
			if err != nil {
				t.Fatal(err)
			}
			got, err := EnricoMiResults(d, anns)
			if err != nil {
				t.Fatalf("EnricoMiResults: %v", err)
			}
			if want := loadJUnit(t, tt.xml); !reflect.DeepEqual(got, want) {
				t.Errorf("EnricoMi results differ from JUnit:\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestEnricoMiResultsChunkedList(t *testing.T) {
	summary, anns := loadEnricoMi(t, "FluentValidation.Tests.checkrun.json")
	d, err := DecodeDigest(summary)
	if err != nil {
		t.Fatal(err)
	}
	res, err := EnricoMiResults(d, anns)
	if err != nil {
		t.Fatal(err)
	}
	if c := junit.Count(res); c != (junit.Counts{Tests: 804, Passed: 803, Skipped: 1}) {
		t.Errorf("counts = %+v", c)
	}
	if res["FluentValidation.Tests.AccessorCacheTests::Benchmark"] != junit.Skipped {
		t.Error("skipped test not marked")
	}
}

func TestEnricoMiResultsRefusesPartialLists(t *testing.T) {
	summary, anns := loadEnricoMi(t, "pytest-junit.fail.checkrun.json")
	d, _ := DecodeDigest(summary)
	var noList, noSkip, noFail []*github.CheckRunAnnotation
	for _, a := range anns {
		if a.GetTitle() != "5 tests found" {
			noList = append(noList, a)
		}
		if a.GetTitle() != "1 skipped test found" {
			noSkip = append(noSkip, a)
		}
		if a.GetAnnotationLevel() != "warning" {
			noFail = append(noFail, a)
		}
	}
	truncated := append([]*github.CheckRunAnnotation{}, anns...)
	cut := *truncated[2]
	cut.RawDetails = github.String("test.test_spark.SparkTests \u2011 test_get_col_info")
	truncated[2] = &cut
	for name, in := range map[string][]*github.CheckRunAnnotation{"no list": noList, "no skip list": noSkip, "failure annotation missing": noFail, "truncated list": truncated} {
		if _, err := EnricoMiResults(d, in); err == nil {
			t.Errorf("%s: EnricoMiResults succeeded, want an error (fall back to counts)", name)
		}
	}
}

func TestParseFailureTitle(t *testing.T) {
	tests := []struct{ title, want string }{
		{"test_rsh_events (test.test_spark.SparkTests) failed", "test_rsh_events (test.test_spark.SparkTests)"},
		{"test that errors (test class) with error", "test that errors (test class)"},
		{"All 3 runs failed: t (c)", "t (c)"},
		{"1 out of 4 runs with error: test2 (class2)", "test2 (class2)"},
		{"bazel/failing_absl_test with error", "bazel/failing_absl_test"},
		{"Logging on stderr of test suite x", ""},
		{"1 out of 6 runs skipped: test1", ""},
	}
	for _, tt := range tests {
		got, ok := ParseFailureTitle(tt.title)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ParseFailureTitle(%q) = %q, %v; want %q", tt.title, got, ok, tt.want)
		}
	}
}

func TestReporterTitles(t *testing.T) {
	if c, ok := ParseDornyTitle("6 passed, 2 failed and 2 skipped "); !ok || c != (junit.Counts{Tests: 10, Passed: 6, Failed: 2, Skipped: 2}) {
		t.Errorf("dorny = %+v %v", c, ok)
	}
	for _, bad := range []string{"6 passed, 2 failed", "x passed, 2 failed and 2 skipped", "Test Results", "99999999999999999999 passed, 0 failed and 0 skipped",
		"9223372036854775807 passed, 1 failed and 0 skipped"} { // the total overflowed to a negative count
		if _, ok := ParseDornyTitle(bad); ok {
			t.Errorf("ParseDornyTitle(%q) accepted", bad)
		}
	}
	if c, ok := ParseMikepenzTitle("17 tests run, 5 passed, 1 skipped, 11 failed."); !ok || c != (junit.Counts{Tests: 17, Passed: 5, Failed: 11, Skipped: 1}) {
		t.Errorf("mikepenz = %+v %v", c, ok)
	}
	if c, ok := ParseMikepenzTitle("No test results found!"); !ok || c.Tests != 0 {
		t.Errorf("mikepenz empty = %+v %v", c, ok)
	}
	for _, bad := range []string{"17 tests run, 5 passed, 1 skipped, 10 failed.", "17 tests run", "JUnit Test Report",
		"0 tests run, 9223372036854775807 passed, 9223372036854775807 skipped, 2 failed."} { // the sum wrapped to the total
		if _, ok := ParseMikepenzTitle(bad); ok {
			t.Errorf("ParseMikepenzTitle(%q) accepted", bad)
		}
	}
}

func TestDornySummaryMatchesJUnit(t *testing.T) {
	tests := []struct {
		md, xml string
		raw     junit.Counts
	}{
		{"python-xunit-pytest.md", "pytest-properties-xfail.dorny.xml", junit.Counts{Tests: 10, Passed: 6, Failed: 2, Skipped: 2}},
		{"pulsar-test-results-no-merge.md", "testng-retry-TEST-org.apache.pulsar.AddMissingPatchVersionTest.xml", junit.Counts{Tests: 2, Failed: 1, Skipped: 1}},
		{"jest-junit.md", "", junit.Counts{Tests: 6, Passed: 1, Failed: 4, Skipped: 1}},
		{"junit-complete.md", "", junit.Counts{Tests: 8, Passed: 5, Failed: 2, Skipped: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.md, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "dorny", tt.md))
			if err != nil {
				t.Fatal(err)
			}
			res, raw := ParseDornySummary(string(data))
			if raw != tt.raw {
				t.Errorf("raw counts = %+v, want %+v", raw, tt.raw)
			}
			if tt.xml != "" {
				if want := loadJUnit(t, tt.xml); !reflect.DeepEqual(res, want) {
					t.Errorf("dorny results differ from JUnit:\n got %v\nwant %v", res, want)
				}
			}
		})
	}
}
