// Package parallel runs loops over index ranges on a process-wide pool of
// polling worker goroutines (ForChunks). Every loop is cut into the same
// fixed number of pieces (Chunks) and reductions add the pieces' partial
// sums in piece order (Partials), so results are bit-identical whatever the
// number of cores. Each call (a pass) holds its own state and the idle
// workers it took, so several simulations stepped on their own goroutines
// share the pool safely: a pass that finds no worker idle runs its pieces
// on its caller, with the same result. A pass takes more goroutines the
// more items it has, by a cost model, and never more than the CPUs
// (Parts). It implements no
// paper; it is the hot path's plumbing, shared by the solver and the
// geometry passes.
package parallel
