// Package parallel runs loops over index ranges on a process-wide pool of
// polling worker goroutines (ForChunks, ForChunksGrain, ForChunksThen).
// Every loop is cut into the same fixed number of pieces (Chunks) and
// reductions add the pieces' partial sums in piece order (Partials), so
// results are bit-identical whatever the number of cores. How many
// goroutines take part is chosen per loop from its size (Workers: at least
// a grain of items each, no more than GOMAXPROCS or the CPUs), so small
// loops run on few cores and hand-offs never cost more than the work.
// Idle workers poll briefly and then park. ForChunksThen fuses a row-local
// pass with a pass that reads neighbouring rows into one hand-off, for the
// single-reduction CG of sim/cloth. It implements no paper; it is the hot
// path's plumbing, shared by the solver and the geometry passes.
package parallel
