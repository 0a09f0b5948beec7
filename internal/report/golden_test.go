package report

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/golden"
)

// The whole bot pull request (title, body) and step summary of the sample report, byte for
// byte: every section, table and escape at once, where TestBodySections checks pieces.
func TestBodyGolden(t *testing.T) {
	t.Parallel()
	golden.Check(t, "sample.title.golden.txt", Title(sample())+"\n")
	golden.Check(t, "sample.body.golden.md", Body(sample()))
	golden.Check(t, "sample.summary.golden.md", Summary(sample(), "settled"))
}
