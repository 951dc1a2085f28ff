//go:build race

package monkey

// raceEnabled: the race detector slows the physics five to ten times.
const raceEnabled = true
