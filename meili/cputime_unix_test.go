//go:build unix

package meili

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, so a benchmark can
// report its cost on a machine shared with other work (wall time per
// operation grows with the load; CPU time does not).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
