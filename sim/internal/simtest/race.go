//go:build race

package simtest

// Race is true when the tests run under the race detector.
const Race = true
