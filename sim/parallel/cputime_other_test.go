//go:build !linux

package parallel

import "time"

// cpuTime reports no CPU time where the test does not know how to read it.
func cpuTime() (time.Duration, bool) { return 0, false }
