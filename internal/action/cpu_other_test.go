//go:build !unix

package action

import "time"

func processCPU() time.Duration { return 0 }
