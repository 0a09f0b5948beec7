package version_test

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/version"
)

func ExampleInfo_String() {
	// What a release binary built with -ldflags "-X ...version.Version=v1.2.3 -X ...version.Commit=..." prints.
	i := version.Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.26.8", Platform: "linux/arm64"}
	fmt.Println(i)
	// Output: darwin-memo v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, go1.26.8, linux/arm64)
}
