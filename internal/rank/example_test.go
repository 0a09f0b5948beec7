package rank_test

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

func ExampleTokens() {
	fmt.Printf("%q\n", rank.Tokens("Does the files' cache-miss.log exist?"))
	// Output: ["file" "cache" "miss.log" "exist"]
}

func ExampleJaccard() {
	a := rank.Tokens("retry flaky tests once")
	b := rank.Tokens("Retry a flaky test twice")
	fmt.Printf("%.2f\n", rank.Jaccard(a, b))
	// Output: 0.60
}

func ExampleIndex_Rank() {
	lessons := []string{
		"Why does the cache miss on CI? Restore ~/.cache/go-build keyed by go.sum.",
		"How to fix flaky integration tests? Retry the docker service start once.",
		"Why is the go.sum check failing? Run go mod tidy and commit go.sum.",
	}
	d := rank.NewDict()
	var sets [][]uint32
	for _, l := range lessons {
		sets = append(sets, d.InternText(l))
	}
	x := rank.NewIndexIDs(d, sets)

	hits, _ := x.Rank(rank.Tokens("go.sum cache miss"))
	for _, h := range hits {
		fmt.Printf("lesson %d score %.3f\n", h.Doc, h.Score)
	}
	// A query sharing too little idf mass with every lesson gets silence.
	hits, _ = x.Rank(rank.Tokens("kubernetes helm chart tests"))
	fmt.Println(hits == nil)
	// Lesson 0 matches "cache" and "miss" (its "go.sum." keeps the final
	// dot, a token character), lesson 2 matches "go.sum": each token has
	// idf ln(1 + 3/2) = 0.916 in this corpus of three.
	// Output:
	// lesson 0 score 1.833
	// lesson 2 score 0.916
	// true
}

func ExampleCluster() {
	// Entries in anchor order: highest energy first.
	texts := []string{
		"Retry flaky docker tests once before failing the build",
		"Pin the Go toolchain version in go.mod",
		"Retry the flaky docker tests once before failing a build",
		"retry flaky docker tests once, then fail the build",
	}
	d := rank.NewDict()
	var sets [][]uint32
	for _, t := range texts {
		sets = append(sets, d.InternText(t))
	}
	fmt.Println(rank.Cluster(sets, 0.55, nil))
	// An accept function can refuse members, as source policies do.
	noThird := func(anchor int, members []int, cand int) bool { return cand != 3 }
	fmt.Println(rank.Cluster(sets, 0.55, noThird))
	// Output:
	// [[0 2 3]]
	// [[0 2]]
}
