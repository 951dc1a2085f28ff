//go:build race

package fabric

// raceEnabled: the race detector slows the physics five to ten times, so
// the physics tests shrink further under it (make test runs them in full
// without it first).
const raceEnabled = true
