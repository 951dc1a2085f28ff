//go:build race

package scene

// raceEnabled: the race detector slows the physics five to ten times, so
// the long scene runs shrink further under it (make test runs them in full
// without it first).
const raceEnabled = true
