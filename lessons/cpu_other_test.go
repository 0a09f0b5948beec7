//go:build !unix

package lessons

import "time"

// processCPU is not measured here (no getrusage); the CPU metric reads 0.
func processCPU() time.Duration { return 0 }
