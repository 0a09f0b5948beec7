// Command printversion prints version.Get(), so the package test can check that the linker's
// -X flags the release builds use really set the version and commit.
package main

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/version"
)

func main() { fmt.Println(version.Get()) }
