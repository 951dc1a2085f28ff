// Package simtest holds test fixtures shared by the sim packages' tests:
// jittered grids, random rotations and small vector helpers, and how much
// of a long test runs (under the race detector, with DRAPE_LONG). It is
// not used outside tests.
package simtest
