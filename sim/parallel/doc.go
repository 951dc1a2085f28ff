// Package parallel runs loops over index ranges on a process-wide pool of
// polling worker goroutines (ForChunks). Every loop is cut into the same
// fixed number of pieces (Chunks) and reductions add the pieces' partial
// sums in piece order (Partials), so results are bit-identical whatever the
// number of cores. It implements no paper; it is the hot path's plumbing,
// shared by the solver and the geometry passes.
package parallel
