//go:build !unix

package ragflow

import "time"

// processCPU is not measured here; benchmarks report wall time only.
func processCPU() time.Duration { return 0 }
