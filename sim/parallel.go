package sim

import (
	"runtime"
	"sync"
)

// chunks is the fixed number of pieces every parallel loop is cut into.
// Reductions add the pieces' partial sums in piece order, so results are
// bit-identical whatever the number of cores.
const chunks = 16

// pool is the process-wide set of worker goroutines behind forChunks,
// started on first use and kept: a PCG solve runs two parallel passes per
// iteration, hundreds per step, and starting goroutines for each would
// allocate and wake the scheduler every time. One loop runs at a time
// (mu); the caller does its share of the pieces itself.
var pool struct {
	mu      sync.Mutex
	jobs    []chan poolJob // one per worker goroutine
	done    chan struct{}
	started bool
}

// poolJob asks worker w of workers to run its pieces of fn over [0, n).
type poolJob struct {
	fn         func(k, lo, hi int)
	n          int
	w, workers int
}

// forChunks calls fn(k, lo, hi) for the chunks pieces of [0, n), on up to
// GOMAXPROCS goroutines, and returns when all are done. Piece k is
// [k·n/chunks, (k+1)·n/chunks). fn must not call forChunks itself. Callers
// in hot loops pass a func value made once, outside the loop, so that no
// call allocates.
func forChunks(n int, fn func(k, lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 || n < 2*chunks {
		runPieces(fn, n, 0, 1)
		return
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if !pool.started {
		pool.done = make(chan struct{}, chunks)
		pool.started = true
	}
	for len(pool.jobs) < workers-1 {
		ch := make(chan poolJob, 1)
		pool.jobs = append(pool.jobs, ch)
		go func() {
			for j := range ch {
				runPieces(j.fn, j.n, j.w, j.workers)
				pool.done <- struct{}{}
			}
		}()
	}
	for w := 1; w < workers; w++ {
		pool.jobs[w-1] <- poolJob{fn, n, w, workers}
	}
	runPieces(fn, n, 0, workers)
	for w := 1; w < workers; w++ {
		<-pool.done
	}
}

// runPieces runs pieces w, w+stride, … of fn over [0, n).
func runPieces(fn func(k, lo, hi int), n, w, stride int) {
	for k := w; k < chunks; k += stride {
		fn(k, k*n/chunks, (k+1)*n/chunks)
	}
}

// partials holds one partial sum per chunk, padded against false sharing.
type partials [chunks][8]float64

// sum returns the partial sums added in chunk order.
func (p *partials) sum() float64 {
	var s float64
	for k := range p {
		s += p[k][0]
	}
	return s
}
