package settle_test

// Semantics §12 cases 28-32 and 36: darwin-memo's settle-ci behaviours, as
// this package implements them. darwin-memo reads two local JUnit files (or
// two CLI counts); Measure reads the same reports from the GitHub API (the
// fake in internal/ghfake, as in scenario_test.go), so "settle-ci exits 3"
// maps to Outcome == Abstained (the CLI and action turn that into exit 3)
// and "the flaky file is byte-identical" maps to the FlakyHistory's Marshal
// bytes. The store is never touched by this package at all.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// goodReport is a measurable base report.
var goodReport = []byte(`<testsuite name="pytest"><testcase classname="tests.test_a" name="test_one"><failure message="boom"/></testcase><testcase classname="tests.test_a" name="test_two"/></testsuite>`)

func marshalHistory(t *testing.T, h *settle.FlakyHistory) []byte {
	t.Helper()
	b, err := h.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCase28CollectionErrorAbstains ports §12 case 28:
//
//  28. Collection error abstains. Given a report with <testcase
//     classname="" name="tests/test_x.py"><error/></testcase>, when
//     settle-ci runs, then it exits 3, prints {"abstained":true,...}, and
//     the store and flaky files are byte-identical to before.
//
// The report is the JUnit artifact at one SHA. The job check runs would
// measure +1 (failure before, success after), so a measurement that fell
// back to them would show here.
func TestCase28CollectionErrorAbstains(t *testing.T) {
	collection := []byte(`<testsuites><testsuite name="pytest"><testcase classname="" name="tests/test_x.py"><error/></testcase></testsuite></testsuites>`)
	var rep junit.Tally
	if err := rep.Add("collection.xml", bytes.NewReader(collection)); err != nil {
		t.Fatal(err)
	}
	if ids, _ := rep.CollectionErrors(); !slices.Equal(ids, []string{"tests/test_x.py"}) {
		t.Fatalf("CollectionErrors = %q, want [tests/test_x.py]", ids)
	}
	// Other modules that did run do not save the run: pytest still
	// reports the broken module this way and darwin-memo abstains.
	withOthers := []byte(`<testsuites><testsuite name="pytest"><testcase classname="tests.test_a" name="test_one"/><testcase classname="" name="tests/test_x.py"><error/></testcase></testsuite></testsuites>`)
	for _, tt := range []struct {
		name          string
		before, after []byte
		side          string
	}{
		{"after SHA", goodReport, collection, "after"},
		{"before SHA", collection, goodReport, "before"},
		{"next to tests that ran", goodReport, withOthers, "after"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := settle.LoadFlakyHistory([]byte(`{"tests": {"tests.test_a::test_one": [false, true, false]}}`))
			was := marshalHistory(t, h)
			res, _ := measure(t, artifactRepo(t, tt.before, tt.after), settle.Options{History: h})
			if res.Outcome != settle.Abstained {
				t.Fatalf("Outcome = %s (%s, delta %d), want abstained", res.Outcome, res.Reason, res.Delta)
			}
			if want := "collection error at the " + tt.side + " SHA (tests/test_x.py)"; !strings.Contains(res.Reason, want) {
				t.Errorf("Reason = %q, want it to contain %q", res.Reason, want)
			}
			if res.Delta != 0 || res.Mode != "" || len(res.Improvements)+len(res.Regressions) != 0 {
				t.Errorf("abstained result carries a measurement: %+v", res)
			}
			if now := marshalHistory(t, h); !bytes.Equal(was, now) {
				t.Errorf("flaky history changed on abstention:\n%s\nwas\n%s", now, was)
			}
		})
	}
}

// TestCase29ZeroOrAllSkippedAbstains ports §12 case 29:
//
//  29. Zero or all-skipped run abstains (exit 3). A missing file or bad
//     XML abstains too. (measured: <testsuites/> gives exit 3)
//
// Mapping: the report is a JUnit artifact. A missing file is a report
// artifact that is gone (expired) at one SHA; since this package has other
// sources, it abstains only when no other source measures both SHAs (the
// job check runs here are neutral). Bad XML is a JUnit file in the
// artifact that does not parse.
func TestCase29ZeroOrAllSkippedAbstains(t *testing.T) {
	tests := []struct {
		name   string
		after  []byte
		edit   func(*ghfake.Repo)
		reason string
	}{
		{name: "<testsuites/>", after: []byte(`<testsuites/>`), reason: "zero tests at the after SHA"},
		{name: "empty <testsuite>", after: []byte(`<?xml version="1.0"?><testsuite name="pytest" tests="0"></testsuite>`), reason: "zero tests at the after SHA"},
		{name: "all skipped", after: []byte(`<testsuite><testcase classname="tests.test_a" name="test_one"><skipped/></testcase><testcase classname="tests.test_a" name="test_two"><skipped message="later"/></testcase></testsuite>`),
			reason: "every test at the after SHA is unmeasured"},
		{name: "bad XML", after: []byte(`<testsuite><testcase classname="tests.test_a" name="test_one">`), reason: "XML syntax error"},
		{name: "missing file", after: goodReport, reason: "expired",
			edit: func(r *ghfake.Repo) {
				r.Artifacts[0].Expired = true
				r.CheckRuns = []ghfake.CheckRun{job(b1, "test", "neutral"), job(head, "test", "neutral")}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := artifactRepo(t, goodReport, tt.after)
			if tt.edit != nil {
				tt.edit(&repo)
			}
			h := settle.NewFlakyHistory()
			res, _ := measure(t, repo, settle.Options{History: h})
			if res.Outcome != settle.Abstained {
				t.Fatalf("Outcome = %s (source %s, delta %d, %s), want abstained", res.Outcome, res.Source, res.Delta, res.Reason)
			}
			if !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", res.Reason, tt.reason)
			}
			if res.Delta != 0 || len(h.Tests) != 0 {
				t.Errorf("delta %d, history %v: an abstention measures and records nothing", res.Delta, h.Tests)
			}
		})
	}
}

// TestCase30DeltaSharedTransitions ports §12 case 30:
//
//  30. Delta = shared transitions (newest). Given base {t1 fail, t2 pass,
//     t3 pass, t4 skip} and head {t1 pass, t2 pass, t5 pass, t4 pass}, then
//     improvements [t1], added.passing [t5], removed.passing [t3], and t4 is
//     ignored; the delta is +1. (Older versions: +1 +1 −1 = +1 here as well.
//     Use a case with an added test and no removal to distinguish them.)
//
// Both runs are parsed from JUnit XML, then compared with Diff; the second
// subtest is the distinguishing case (newest +1, older versions +2), and the
// third runs the same reports through Measure.
func TestCase30DeltaSharedTransitions(t *testing.T) {
	base := []byte(`<testsuite><testcase name="t1"><failure/></testcase><testcase name="t2"/><testcase name="t3"/><testcase name="t4"><skipped/></testcase></testsuite>`)
	headXML := []byte(`<testsuite><testcase name="t1"/><testcase name="t2"/><testcase name="t5"/><testcase name="t4"/></testsuite>`)
	results := func(t *testing.T, x []byte) map[string]junit.Status {
		t.Helper()
		var rep junit.Tally
		if err := rep.Add("case30.xml", bytes.NewReader(x)); err != nil {
			t.Fatal(err)
		}
		return rep.Results()
	}
	check := func(t *testing.T, tr settle.Transitions, improvements []string, delta int) {
		t.Helper()
		if !slices.Equal(tr.Improvements, improvements) || len(tr.Regressions) != 0 {
			t.Errorf("improvements %q regressions %q, want %q and none", tr.Improvements, tr.Regressions, improvements)
		}
		if tr.Delta != delta {
			t.Errorf("delta = %d, want %+d", tr.Delta, delta)
		}
	}
	t.Run("the case", func(t *testing.T) {
		tr := settle.Diff(results(t, base), results(t, headXML), nil)
		check(t, tr, []string{"t1"}, 1)
		// t4 (skipped at base) is in no bucket: only t1 and t2 were
		// measured at both sides.
		if tr.Compared != 2 {
			t.Errorf("compared = %d, want 2 (t1, t2; t4 ignored)", tr.Compared)
		}
	})
	t.Run("added test without removal: newest +1, not +2", func(t *testing.T) {
		noRemoval := []byte(`<testsuite><testcase name="t1"><failure/></testcase><testcase name="t2"/></testsuite>`)
		tr := settle.Diff(results(t, noRemoval), results(t, headXML), nil)
		check(t, tr, []string{"t1"}, 1)
	})
	t.Run("through Measure", func(t *testing.T) {
		res, _ := measure(t, artifactRepo(t, base, headXML), settle.Options{})
		if res.Outcome != settle.Measured || res.Source != settle.SourceArtifacts || res.Mode != settle.PerTest {
			t.Fatalf("outcome %s source %s mode %s: %s", res.Outcome, res.Source, res.Mode, res.Reason)
		}
		check(t, res.Transitions, []string{"t1"}, 1)
		if res.Delta != 1 {
			t.Errorf("Result.Delta = %d, want 1", res.Delta)
		}
	})
}

// TestCase31FlakyQuarantine ports §12 case 31:
//
//  31. Flaky quarantine. Given a history for T of [T,F,T] and a run with
//     base F, head F, then the history is [T,F,T,F,F], which has 3 flips, so
//     T is quarantined. T's transition is excluded from delta but still
//     listed. The history is capped at 10 observations.
//
// A run with base F, head F gives T no transition, so "excluded from delta
// but still listed" is shown with base F, head T (history [T,F,T,F,T]),
// next to a second test U whose improvement still counts.
func TestCase31FlakyQuarantine(t *testing.T) {
	t.Run("history [T,F,T] + F,F", func(t *testing.T) {
		h := settle.LoadFlakyHistory([]byte(`{"tests": {"T": [true, false, true]}}`))
		h.Update(map[string]junit.Status{"T": junit.Failed}, map[string]junit.Status{"T": junit.Failed})
		if got := h.Tests["T"]; !slices.Equal(got, []bool{true, false, true, false, false}) {
			t.Fatalf("history = %v, want [true false true false false]", got)
		}
		if q := h.Quarantined(); !slices.Equal(q, []string{"T"}) {
			t.Errorf("Quarantined() = %q, want [T]", q)
		}
		want := "{\n  \"tests\": {\n    \"T\": [\n      true,\n      false,\n      true,\n      false,\n      false\n    ]\n  }\n}\n"
		if got := string(marshalHistory(t, h)); got != want {
			t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("two flips is not quarantined", func(t *testing.T) {
		h := settle.LoadFlakyHistory([]byte(`{"tests": {"T": [true, false]}}`))
		h.Update(map[string]junit.Status{"T": junit.Failed}, map[string]junit.Status{"T": junit.Failed})
		if q := h.Quarantined(); len(q) != 0 {
			t.Errorf("Quarantined() = %q for [T,F,F,F] (1 flip)", q)
		}
	})
	t.Run("capped at 10", func(t *testing.T) {
		h := settle.LoadFlakyHistory([]byte(`{"tests": {"T": [true, true, true, true, true, true, true, true, true, true]}}`))
		h.Update(map[string]junit.Status{"T": junit.Failed}, map[string]junit.Status{"T": junit.Failed})
		want := []bool{true, true, true, true, true, true, true, true, false, false}
		if got := h.Tests["T"]; !slices.Equal(got, want) {
			t.Errorf("history = %v, want the last 10: %v", got, want)
		}
	})
	t.Run("excluded from delta but still listed (Measure)", func(t *testing.T) {
		base := []byte(`<testsuite><testcase name="T"><failure/></testcase><testcase name="U"><failure/></testcase></testsuite>`)
		headXML := []byte(`<testsuite><testcase name="T"/><testcase name="U"/></testsuite>`)
		h := settle.LoadFlakyHistory([]byte(`{"tests": {"T": [true, false, true]}}`))
		res, _ := measure(t, artifactRepo(t, base, headXML), settle.Options{History: h})
		if res.Outcome != settle.Measured {
			t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
		}
		// Recorded before quarantine is computed: [T,F,T] + F,T.
		if got := h.Tests["T"]; !slices.Equal(got, []bool{true, false, true, false, true}) {
			t.Errorf("history of T = %v", got)
		}
		if !slices.Equal(res.Quarantined, []string{"T"}) || !slices.Equal(res.Improvements, []string{"T", "U"}) || res.Delta != 1 {
			t.Errorf("quarantined %q improvements %q delta %d, want [T], [T U], +1 (U only)", res.Quarantined, res.Improvements, res.Delta)
		}
	})
}

// TestCase32SkipsDoNotEnterFlakeHistory ports §12 case 32:
//
//  32. Skips do not enter flake history. A test skipped in both runs
//     leaves no history entry.
func TestCase32SkipsDoNotEnterFlakeHistory(t *testing.T) {
	x := []byte(`<testsuite><testcase classname="c" name="S"><skipped/></testcase><testcase classname="c" name="P"/></testsuite>`)
	var rep junit.Tally
	if err := rep.Add("case32.xml", bytes.NewReader(x)); err != nil {
		t.Fatal(err)
	}
	run := rep.Results()
	if run["c::S"] != junit.Skipped {
		t.Fatalf("c::S = %s, want skipped", run["c::S"])
	}
	h := settle.NewFlakyHistory()
	h.Update(run, run)
	if _, ok := h.Tests["c::S"]; ok {
		t.Errorf("skipped test entered the history: %v", h.Tests)
	}
	if got := h.Tests["c::P"]; !slices.Equal(got, []bool{true, true}) {
		t.Errorf("c::P history = %v, want [true true]", got)
	}
	if b := marshalHistory(t, h); bytes.Contains(b, []byte("c::S")) {
		t.Errorf("sidecar names the skipped test:\n%s", b)
	}
	// Through Measure as well: the skipped test stays out of the sidecar.
	h = settle.NewFlakyHistory()
	base := []byte(`<testsuite><testcase classname="c" name="S"><skipped/></testcase><testcase classname="c" name="P"><failure/></testcase></testsuite>`)
	res, _ := measure(t, artifactRepo(t, base, x), settle.Options{History: h})
	if res.Outcome != settle.Measured || res.Delta != 1 {
		t.Fatalf("outcome %s delta %d: %s", res.Outcome, res.Delta, res.Reason)
	}
	if _, ok := h.Tests["c::S"]; ok || len(h.Tests) != 1 {
		t.Errorf("history = %v, want only c::P", h.Tests)
	}
}

// TestCase36CountsMode ports §12 case 36:
//
//  36. Counts mode. --passes-before 10 --passes-after 12 gives delta 2.0.
//     Supplying only one count, or mixing modes, exits 1.
//
// Mapping: there are no count flags here; counts come from check-run titles
// (mikepenz/action-junit-report "N tests run, P passed, ...") at both SHAs,
// giving Mode PassCounts and an integer delta. "Only one count" is a report
// at one SHA only: that count is never defaulted to zero, the source is not
// used and, with no other source, the measurement abstains. "Mixing modes"
// has no usage error because the source, not the caller, picks the mode:
// per-test results at both SHAs win over counts (see docs/compat.md).
func TestCase36CountsMode(t *testing.T) {
	counts := func(sha string, passed, failed int) ghfake.CheckRun {
		return ghfake.CheckRun{HeadSHA: sha, Name: "JUnit Test Report", Conclusion: "success",
			Title: fmt.Sprintf("%d tests run, %d passed, 0 skipped, %d failed.", passed+failed, passed, failed)}
	}
	t.Run("10 before, 12 after: delta 2", func(t *testing.T) {
		repo := jobsRepo()
		repo.CheckRuns = []ghfake.CheckRun{job(b1, "test", "neutral"), job(head, "test", "neutral"), counts(b1, 10, 4), counts(head, 12, 2)}
		res, _ := measure(t, repo, settle.Options{})
		if res.Outcome != settle.Measured || res.Mode != settle.PassCounts || res.Source != settle.SourceReporter || res.Delta != 2 {
			t.Fatalf("outcome %s mode %s source %s delta %d (%s), want measured pass-counts 2", res.Outcome, res.Mode, res.Source, res.Delta, res.Reason)
		}
	})
	t.Run("only one count: never zero, abstain", func(t *testing.T) {
		repo := jobsRepo()
		repo.CheckRuns = []ghfake.CheckRun{job(b1, "test", "neutral"), job(head, "test", "neutral"), counts(head, 12, 2)}
		res, _ := measure(t, repo, settle.Options{})
		if res.Outcome != settle.Abstained || res.Delta != 0 {
			t.Fatalf("outcome %s delta %d (%s), want abstained", res.Outcome, res.Delta, res.Reason)
		}
		if !strings.Contains(strings.Join(res.Notes, "\n"), "exists at the after SHA only") {
			t.Errorf("notes %q do not say the count is missing at the before SHA", res.Notes)
		}
	})
	t.Run("counts and per-test results: per-test wins", func(t *testing.T) {
		repo := artifactRepo(t, goodReport, []byte(`<testsuite name="pytest"><testcase classname="tests.test_a" name="test_one"/><testcase classname="tests.test_a" name="test_two"/></testsuite>`))
		repo.CheckRuns = append(repo.CheckRuns, counts(b1, 10, 4), counts(head, 12, 2))
		res, _ := measure(t, repo, settle.Options{})
		if res.Outcome != settle.Measured || res.Mode != settle.PerTest || res.Source != settle.SourceArtifacts || res.Delta != 1 {
			t.Fatalf("outcome %s mode %s source %s delta %d (%s), want per-test artifacts +1", res.Outcome, res.Mode, res.Source, res.Delta, res.Reason)
		}
	})
}
