package textidx_test

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx"
)

func ExampleTokens() {
	fmt.Printf("%q\n", textidx.Tokens("Does the files' cache-miss.log exist?"))
	// Output: ["file" "cache" "miss.log" "exist"]
}

func ExampleJaccard() {
	a := textidx.Tokens("retry flaky tests once")
	b := textidx.Tokens("Retry a flaky test twice")
	fmt.Printf("%.2f\n", textidx.Jaccard(a, b))
	// Output: 0.60
}
