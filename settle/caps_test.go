package settle_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

func casesXML(n int, failing string) []byte {
	var b strings.Builder
	b.WriteString(`<testsuite name="s">`)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("t%d", i)
		if name == failing {
			fmt.Fprintf(&b, `<testcase classname="c" name="%s"><failure message="x"/></testcase>`, name)
		} else {
			fmt.Fprintf(&b, `<testcase classname="c" name="%s"/>`, name)
		}
	}
	b.WriteString(`</testsuite>`)
	return []byte(b.String())
}

// TestPerCommitCapsAbstainForGood: the JUnit reports of one commit are capped in testcases
// and XML bytes across all its artifacts; past a cap the measurement abstains, says why, and
// marks the abstention final so the action records it instead of measuring again.
func TestPerCommitCapsAbstainForGood(t *testing.T) {
	twoArtifacts := func() ghfake.Repo {
		r := artifactRepo(t, casesXML(3, "t1"), casesXML(3, ""))
		r.Artifacts = append(r.Artifacts, ghfake.Artifact{ID: 211, RunID: 21, Name: "junit-more", Zip: ghfake.Zip(map[string][]byte{"more.xml": casesXML(3, "")})})
		return r
	}
	for _, tt := range []struct {
		name   string
		repo   ghfake.Repo
		lim    func(*settle.Limits)
		reason string // "" means measured
	}{
		{"within the caps", twoArtifacts(), func(l *settle.Limits) { l.MaxCases = 6 }, ""},
		{"testcases over the cap", artifactRepo(t, casesXML(5, "t1"), casesXML(5, "")), func(l *settle.Limits) { l.MaxCases = 4 }, "more than 4 testcases"},
		{"testcases over the cap across artifacts", twoArtifacts(), func(l *settle.Limits) { l.MaxCases = 5 }, "more than 5 testcases"},
		{"bytes over the cap", artifactRepo(t, casesXML(5, "t1"), casesXML(5, "")), func(l *settle.Limits) { l.MaxCommitBytes = 100 }, "more than 100 bytes of XML"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lim := settle.DefaultLimits()
			tt.lim(&lim)
			res, _ := measure(t, tt.repo, settle.Options{Limits: lim})
			if tt.reason == "" {
				if res.Outcome != settle.Measured || res.Final {
					t.Fatalf("outcome %s (%s), final %v", res.Outcome, res.Reason, res.Final)
				}
				return
			}
			if res.Outcome != settle.Abstained || !res.Final || !strings.Contains(res.Reason, tt.reason) || !strings.Contains(res.Reason, "does not try this pull request again") {
				t.Fatalf("outcome %s, final %v, reason %q; want a final abstention saying %q", res.Outcome, res.Final, res.Reason, tt.reason)
			}
		})
	}
	// An ordinary abstention stays retryable.
	res, _ := measure(t, artifactRepo(t, []byte(`<testsuite><testcase name="t">`), casesXML(2, "")), settle.Options{})
	if res.Outcome != settle.Abstained || res.Final {
		t.Fatalf("broken report: outcome %s, final %v (%s)", res.Outcome, res.Final, res.Reason)
	}
}

// TestDefaultCasesCap: with the default limits, a pull request whose artifacts hold more
// testcases than any real suite (the attack: a few MB of zip inflating to millions of tiny
// testcases) abstains for good instead of holding every testcase in memory. A long sweep
// (200,001 testcases); TestPerCommitCapsAbstainForGood is the fast case, with small caps.
func TestDefaultCasesCap(t *testing.T) {
	exhaustive.Only(t)
	n := settle.DefaultLimits().MaxCases + 1
	res, _ := measure(t, artifactRepo(t, casesXML(3, "t1"), casesXML(n, "")), settle.Options{})
	if res.Outcome != settle.Abstained || !res.Final || !strings.Contains(res.Reason, fmt.Sprintf("more than %d testcases", n-1)) {
		t.Fatalf("outcome %s, final %v, reason %q", res.Outcome, res.Final, res.Reason)
	}
}
