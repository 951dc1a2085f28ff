package simtest

import (
	"os"
	"testing"
)

// How much of a long test runs. make test runs the sim suite in full
// without the race detector first, then everything again under -race
// -short to check the concurrency; the race detector slows the physics
// five to ten times, so a long physics run that holds one simulation
// checks nothing there that the kept runs (concurrent simulations, the
// interrupt, the determinism across cores, the viewer's loop) do not, and
// it skips. DRAPE_LONG=1 runs the longer versions that CI leaves out
// (all the seeds of a replay, the whole of a scene), docs/testing.md.

// SkipUnderRace skips a long single-simulation physics run under the
// race detector.
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if Race {
		t.Skip("long physics run; make test runs it without the race detector")
	}
}

// Long reports whether DRAPE_LONG asks for the long versions.
func Long() bool { return os.Getenv("DRAPE_LONG") != "" }
