package settle_test

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

func ExampleDiff() {
	before := map[string]junit.Status{
		"pkg::TestFixed":   junit.Failed,
		"pkg::TestBroken":  junit.Passed,
		"pkg::TestFlappy":  junit.Failed,
		"pkg::TestSkipped": junit.Skipped,
		"pkg::TestRemoved": junit.Passed,
	}
	after := map[string]junit.Status{
		"pkg::TestFixed":   junit.Passed,
		"pkg::TestBroken":  junit.Failed,
		"pkg::TestFlappy":  junit.Passed,
		"pkg::TestSkipped": junit.Passed,
		"pkg::TestAdded":   junit.Passed,
	}
	d := settle.Diff(before, after, []string{"pkg::TestFlappy"})
	fmt.Println("improvements:", d.Improvements)
	fmt.Println("regressions:", d.Regressions)
	fmt.Println("delta:", d.Delta)
	// Output:
	// improvements: [pkg::TestFixed pkg::TestFlappy]
	// regressions: [pkg::TestBroken]
	// delta: 0
}

func ExampleFlakyHistory() {
	h := settle.LoadFlakyHistory([]byte(`{"tests": {"pkg::TestFlappy": [true, false]}}`))
	h.Update(map[string]junit.Status{"pkg::TestFlappy": junit.Passed}, map[string]junit.Status{"pkg::TestFlappy": junit.Failed})
	fmt.Println(h.Quarantined())
	// Output: [pkg::TestFlappy]
}
