// Package simtest holds test fixtures shared by the sim packages' tests:
// jittered grids, random rotations and small vector helpers. It is not
// used outside tests.
package simtest
