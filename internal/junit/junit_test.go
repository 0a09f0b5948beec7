package junit

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseProducers(t *testing.T) {
	tests := []struct {
		file       string
		cases      int
		want       Counts
		collection []string
		flaky      []string
		check      map[string]Status // spot checks by id
	}{
		{"bazel-test-suite-logs.enricomi.xml", 1, Counts{Tests: 1, Failed: 1}, []string{"bazel/failing_absl_test"}, nil,
			map[string]Status{"bazel/failing_absl_test": Failed}},
		{"cargo-nextest-rerun-flaky.xml", 3, Counts{Tests: 3, Passed: 1, Failed: 1, Flaky: 1}, nil,
			[]string{"fixture-project::basic::test_flaky_mod_4"},
			map[string]Status{"fixture-project::basic::test_failure_assert": Failed, "fixture-project::basic::test_cwd": Passed}},
		{"go-junit-report-013-build-error.xml", 5, Counts{Tests: 5, Passed: 2, Failed: 3}, nil, nil,
			map[string]Status{"package/name/failing1::[build failed]": Failed, "package/name/passing1::TestA": Passed}},
		{"gotestsum-junitxml-report.golden.xml", 60, Counts{Tests: 60, Passed: 42, Failed: 13, Skipped: 5}, nil, nil,
			map[string]Status{"TestMain": Failed, "gotest.tools/gotestsum/testjson/internal/good::TestSkipped": Skipped}},
		{"gradle-TEST-com.github.onozaty.junit.xml2csv.TestCase1.xml", 5, Counts{Tests: 5, Passed: 2, Failed: 2, Skipped: 1}, nil, nil,
			map[string]Status{"com.github.onozaty.junit.xml2csv.TestCase1::test1": Passed}},
		{"jest-junit.dorny.xml", 6, Counts{Tests: 6, Passed: 1, Failed: 4, Skipped: 1}, nil, nil,
			map[string]Status{"Test 1::Passing test": Passed, "Test 1 › Test 1.1::Failing test": Failed}},
		{"junit.multiresult.xml", 4, Counts{Tests: 4, Passed: 1, Failed: 2, Skipped: 1}, nil, nil,
			map[string]Status{"test class::test that errors": Failed, "test class::test that is skipped": Skipped}},
		{"mocha-junit-reporter.mikepenz.xml", 1, Counts{Tests: 1, Passed: 1}, nil, nil, nil},
		{"phpunit-nested.dorny.xml", 12, Counts{Tests: 12, Passed: 10, Failed: 2}, nil, nil,
			map[string]Status{"targeting-traits-with-coversclass-attribute-is-deprecated.phpt": Failed}},
		{"pytest-failure-skipped.enricomi.xml", 5, Counts{Tests: 5, Passed: 3, Failed: 1, Skipped: 1}, nil, nil,
			map[string]Status{"test.test_spark.SparkTests::test_rsh_events": Failed, "test.test_spark.SparkTests::test_get_available_devices": Skipped}},
		{"pytest-junit.gloo.standalone.xml", 97, Counts{Tests: 97, Passed: 80, Skipped: 17}, nil, nil, nil},
		{"pytest-properties-xfail.dorny.xml", 10, Counts{Tests: 10, Passed: 6, Failed: 2, Skipped: 2}, nil, nil,
			map[string]Status{"tests.test_lib::test_expected_failure": Skipped, "custom_classname::test_with_record_xml_attribute": Passed}},
		{"surefire-TEST-org.acme.FlakyTest.xml", 2, Counts{Tests: 2, Passed: 1, Flaky: 1}, nil,
			[]string{"org.acme.FlakyTest::testFlaky"}, map[string]Status{"org.acme.FlakyTest::testStable": Passed}},
		{"surefire-TEST-org.apache.maven.surefire.test.FailingTest.xml", 2, Counts{Tests: 2, Failed: 2}, nil, nil, nil},
		{"testng-retry-TEST-org.apache.pulsar.AddMissingPatchVersionTest.xml", 2, Counts{Tests: 1, Failed: 1}, nil, nil,
			map[string]Status{"org.apache.pulsar.AddMissingPatchVersionTest::testVersionStrings": Failed}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := ParseBytes(tt.file, data)
			if err != nil {
				t.Fatalf("ParseBytes: %v", err)
			}
			if len(rep.Cases) != tt.cases {
				t.Errorf("cases = %d, want %d", len(rep.Cases), tt.cases)
			}
			res := rep.Results()
			if got := Count(res); got != tt.want {
				t.Errorf("Count = %+v, want %+v", got, tt.want)
			}
			if !reflect.DeepEqual(rep.CollectionErrors, tt.collection) {
				t.Errorf("CollectionErrors = %q, want %q", rep.CollectionErrors, tt.collection)
			}
			if got := FlakyIDs(res); !reflect.DeepEqual(got, tt.flaky) {
				t.Errorf("FlakyIDs = %q, want %q", got, tt.flaky)
			}
			for id, want := range tt.check {
				if got, ok := res[id]; !ok || got != want {
					t.Errorf("res[%q] = %q (present %v), want %q", id, got, ok, want)
				}
			}
		})
	}
	files, _ := filepath.Glob("testdata/*.xml")
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("testdata file %s has no expectations", f)
		}
	}
}

func TestCaseDetails(t *testing.T) {
	data, err := os.ReadFile("testdata/cargo-nextest-rerun-flaky.xml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ParseBytes("nextest", data)
	if err != nil {
		t.Fatal(err)
	}
	var failing, flaky Case
	for _, c := range rep.Cases {
		switch c.Name {
		case "test_failure_assert":
			failing = c
		case "test_flaky_mod_4":
			flaky = c
		}
	}
	if failing.Status != Failed {
		t.Errorf("failing case = %+v, want failed (its reruns failed too)", failing)
	}
	if flaky.Status != Flaky {
		t.Errorf("flaky case = %+v, want flaky", flaky)
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name       string
		xml        string
		want       map[string]Status
		collection bool
	}{
		{"pass", `<testsuite><testcase classname="c" name="t"><system-out>x</system-out></testcase></testsuite>`,
			map[string]Status{"c::t": Passed}, false},
		{"failure then skip stays failed", `<testsuite><testcase classname="c" name="t"><failure/><skipped/></testcase></testsuite>`,
			map[string]Status{"c::t": Failed}, false},
		{"skip then failure is failed", `<testsuite><testcase classname="c" name="t"><skipped/><failure/></testcase></testsuite>`,
			map[string]Status{"c::t": Failed}, false},
		{"error is a failure", `<testsuite><testcase classname="c" name="t"><error/></testcase></testsuite>`,
			map[string]Status{"c::t": Failed}, false},
		{"collection error", `<testsuites><testsuite name="pytest"><testcase classname="" name="tests/test_x.py"><error message="collection failure">boom</error></testcase></testsuite></testsuites>`,
			map[string]Status{"tests/test_x.py": Failed}, true},
		{"empty classname failure is not collection", `<testsuite><testcase name="TestMain"><failure/></testcase></testsuite>`,
			map[string]Status{"TestMain": Failed}, false},
		{"duplicate: pass beats skip", `<testsuite><testcase classname="c" name="t"><skipped/></testcase><testcase classname="c" name="t"/></testsuite>`,
			map[string]Status{"c::t": Passed}, false},
		{"duplicate: failure wins", `<testsuite><testcase classname="c" name="t"/><testcase classname="c" name="t"><failure/></testcase></testsuite>`,
			map[string]Status{"c::t": Failed}, false},
		{"duplicate: all skipped", `<testsuite><testcase classname="c" name="t"><skipped/></testcase><testcase classname="c" name="t"><skipped/></testcase></testsuite>`,
			map[string]Status{"c::t": Skipped}, false},
		{"flakyError passes on rerun", `<testsuite><testcase classname="c" name="t"><flakyError/></testcase></testsuite>`,
			map[string]Status{"c::t": Flaky}, false},
		{"rerunFailure with failure stays failed", `<testsuite><testcase classname="c" name="t"><failure/><rerunFailure/></testcase></testsuite>`,
			map[string]Status{"c::t": Failed}, false},
		{"rerunError with error stays failed", `<testsuite><testcase classname="c" name="t"><error/><rerunError/></testcase></testsuite>`,
			map[string]Status{"c::t": Failed}, false},
		{"nested suites and cases under testsuites", `<testsuites><testcase name="top"/><testsuite name="a"><testsuite name="b"><testcase classname="x" name="deep"/></testsuite></testsuite></testsuites>`,
			map[string]Status{"top": Passed, "x::deep": Passed}, false},
		{"whitespace trimmed in ids", `<testsuite><testcase classname=" c " name=" t "/></testsuite>`,
			map[string]Status{"c::t": Passed}, false},
		{"latin-1 declared", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><testsuite><testcase classname=\"c\" name=\"caf\xe9\"/></testsuite>",
			map[string]Status{"c::café": Passed}, false},
		{"empty testsuite", `<testsuite name="x" tests="0"/>`, map[string]Status{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := ParseBytes(tt.name, []byte(tt.xml))
			if err != nil {
				t.Fatalf("ParseBytes: %v", err)
			}
			if got := rep.Results(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Results = %v, want %v", got, tt.want)
			}
			if rep.HasCollectionError() != tt.collection {
				t.Errorf("HasCollectionError = %v, want %v", rep.HasCollectionError(), tt.collection)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, xml string
		notJUnit  bool
	}{
		{"html", `<html><body/></html>`, true},
		{"empty", ``, true},
		{"truncated", `<testsuite><testcase name="a">`, false},
		{"garbage", `{"not":"xml"}`, true},
		{"unknown charset", `<?xml version="1.0" encoding="EBCDIC"?><testsuite/>`, false},
		{"too deep", strings.Repeat("<testsuite>", MaxDepth+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseBytes("report.xml", []byte(tt.xml))
			if err == nil {
				t.Fatal("ParseBytes succeeded, want error")
			}
			if !strings.Contains(err.Error(), "report.xml") {
				t.Errorf("error %q does not name the file", err)
			}
			if got := errors.Is(err, ErrNotJUnit); got != tt.notJUnit {
				t.Errorf("errors.Is(ErrNotJUnit) = %v, want %v (%v)", got, tt.notJUnit, err)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	a, _ := ParseBytes("a", []byte(`<testsuite><testcase classname="c" name="t"/></testsuite>`))
	b, _ := ParseBytes("b", []byte(`<testsuite><testcase classname="c" name="t"><failure/></testcase><testcase name="m"><error/></testcase></testsuite>`))
	a.Merge(b)
	a.Merge(nil)
	want := map[string]Status{"c::t": Failed, "m": Failed}
	if got := a.Results(); !reflect.DeepEqual(got, want) {
		t.Errorf("merged = %v, want %v", got, want)
	}
	if !a.HasCollectionError() {
		t.Error("merged report lost the collection error")
	}
}
