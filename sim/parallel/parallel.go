package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Chunks is the fixed number of pieces every parallel loop is cut into.
// Reductions add the pieces' partial sums in piece order, so results are
// bit-identical whatever the number of cores.
const Chunks = 16

// spinFor is how long a worker keeps polling for its next job before it
// parks on its channel. A PCG solve posts two parallel passes per
// iteration, 50–300 µs long and a few µs apart; waking a parked goroutine
// through a channel costs tens of µs each time, so workers poll across
// the gaps and park only when the simulation pauses (between steps in the
// viewer, or for good). Measured on the 2-core machine, one step of
// BenchmarkStep: with workers woken by channels 2048 triangles took
// 1.9–2.9 ms and 22140 took 41–48 ms, slower than on one core (1.6 and
// 35 ms); with polling 1.3–2.0 and 20–24 ms.
const spinFor = 200 * time.Microsecond

// spinWait is how long ForChunks polls for its workers to finish before
// it parks.
const spinWait = 50 * time.Microsecond

// pool is the process-wide set of worker goroutines behind ForChunks,
// started on first use and kept. One loop runs at a time (mu); the caller
// does its share of the pieces itself.
var pool struct {
	mu      sync.Mutex
	workers []*worker
	next    atomic.Int32 // ForChunksBalanced: the next piece to take
}

// worker runs job whenever seq moves past the last value it has seen and
// then sets done to that value.
type worker struct {
	job      poolJob
	seq      atomic.Uint64
	done     atomic.Uint64
	sleeping atomic.Bool
	wake     chan struct{} // capacity 1: a token for a parked worker

	waiting  atomic.Bool   // the poster is parked until done reaches seq
	finished chan struct{} // capacity 1: a token for the parked poster
}

// poolJob asks worker w of workers to run its pieces of fn over [0, n),
// or, balanced, to take pieces from pool.next until none is left.
type poolJob struct {
	fn         func(k, lo, hi int)
	n          int
	w, workers int
	balanced   bool
}

func (w *worker) loop() {
	var last uint64
	for {
		last = w.await(last)
		j := w.job
		if j.balanced {
			takePieces(j.fn, j.n)
		} else {
			runPieces(j.fn, j.n, j.w, j.workers)
		}
		w.done.Store(last)
		if w.waiting.Load() {
			signal(w.finished)
		}
	}
}

// signal leaves a token in ch unless one is there already.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// spinUntil polls cond for up to d, yielding the processor every 64 polls,
// and reports whether cond became true.
func spinUntil(cond func() bool, d time.Duration) bool {
	start := time.Now()
	for i := 1; ; i++ {
		if cond() {
			return true
		}
		if i%64 == 0 {
			runtime.Gosched()
			if time.Since(start) >= d {
				return false
			}
		}
	}
}

// await returns the next job's sequence number once it exceeds last,
// polling for spinFor and then parking.
func (w *worker) await(last uint64) uint64 {
	posted := func() bool { return w.seq.Load() != last }
	for !spinUntil(posted, spinFor) {
		// Park. The poster stores seq before it reads sleeping and the
		// worker stores sleeping before it reads seq, so at least one of
		// them sees the other (Go's atomics are sequentially consistent):
		// no lost wake-up. A stale token costs one extra round of polling.
		w.sleeping.Store(true)
		if !posted() {
			<-w.wake
		}
		w.sleeping.Store(false)
	}
	return w.seq.Load()
}

// ForChunks calls fn(k, lo, hi) for the chunks pieces of [0, n), on up to
// GOMAXPROCS goroutines, and returns when all are done. Piece k is
// [k·n/chunks, (k+1)·n/chunks). fn must not call ForChunks itself. Callers
// in hot loops pass a func value made once, outside the loop, so that no
// call allocates.
func ForChunks(n int, fn func(k, lo, hi int)) { forChunks(n, fn, false, false) }

// PieceOf returns the piece of ForChunks and ForChunksBalanced over
// [0, n) that holds index i, 0 ≤ i < n: for data kept per piece and
// written before the loop runs.
func PieceOf(i, n int) int {
	k := i * Chunks / n // k·n/Chunks ≤ i already; the piece may start later
	for (k+1)*n/Chunks <= i {
		k++
	}
	return k
}

// ForChunksBalanced is ForChunks for loops whose pieces cost very
// different amounts (the collision queries, whose work sits where the
// cloth touches something): each goroutine takes the next piece not yet
// taken, instead of a fixed contiguous run, so one busy region does not
// leave the other cores waiting. The pieces and what fn(k, …) computes
// for each are the same as ForChunks', so results that are kept per piece
// do not depend on the number of cores or on which goroutine ran a piece.
func ForChunksBalanced(n int, fn func(k, lo, hi int)) { forChunks(n, fn, true, false) }

// ForPieces calls fn(k, k, k+1) for every piece k of [0, Chunks), in
// parallel, each goroutine taking the next piece not yet taken (as
// ForChunksBalanced): for loops over lists kept one per piece by an
// earlier loop (the collision candidates), whatever each list holds.
// ForChunks and ForChunksBalanced run a loop of fewer than 2·Chunks
// indices on the caller alone, which is right for a loop over that few
// items and wrong for Chunks lists: before ForPieces, the CCD passes over
// the candidate lists and the cloth–cloth triangle tests ran on one core
// (bunny scene, 2 cores: 107 % CPU over steps 150–350).
func ForPieces(fn func(k, lo, hi int)) { forChunks(Chunks, fn, true, true) }

// forChunks is ForChunks (balanced false), ForChunksBalanced (balanced)
// and ForPieces (always, balanced): without always, a loop under
// 2·Chunks indices runs on the caller alone.
func forChunks(n int, fn func(k, lo, hi int), balanced, always bool) {
	workers := min(runtime.GOMAXPROCS(0), Chunks)
	if workers <= 1 || n < 2*Chunks && !always {
		runPieces(fn, n, 0, 1)
		return
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for len(pool.workers) < workers-1 {
		w := &worker{wake: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
		pool.workers = append(pool.workers, w)
		go w.loop()
	}
	pool.next.Store(0)
	ws := pool.workers[:workers-1]
	for i, w := range ws {
		w.job = poolJob{fn, n, i + 1, workers, balanced}
		w.seq.Add(1)
		if w.sleeping.Load() {
			signal(w.wake)
		}
	}
	if balanced {
		takePieces(fn, n)
	} else {
		runPieces(fn, n, 0, workers)
	}
	for _, w := range ws {
		want := w.seq.Load()
		finished := func() bool { return w.done.Load() == want }
		// Poll briefly: the pieces are balanced, so the worker is usually
		// about done. If it is not (its thread lost the core to another
		// process), park rather than burn the core it may need.
		for !spinUntil(finished, spinWait) {
			w.waiting.Store(true)
			if !finished() {
				<-w.finished
			}
			w.waiting.Store(false)
		}
	}
	for _, w := range ws {
		w.job.fn = nil // let fn's closure go
	}
}

// runPieces runs the w-th of workers contiguous runs of pieces of fn over
// [0, n).
func runPieces(fn func(k, lo, hi int), n, w, workers int) {
	for k := w * Chunks / workers; k < (w+1)*Chunks/workers; k++ {
		fn(k, k*n/Chunks, (k+1)*n/Chunks)
	}
}

// takePieces runs pieces of fn over [0, n) taken from pool.next until all
// are taken.
func takePieces(fn func(k, lo, hi int), n int) {
	for {
		k := int(pool.next.Add(1)) - 1
		if k >= Chunks {
			return
		}
		fn(k, k*n/Chunks, (k+1)*n/Chunks)
	}
}

// Partials holds one partial sum per chunk, padded against false sharing.
type Partials [Chunks][8]float64

// Sum returns the partial sums added in chunk order.
func (p *Partials) Sum() float64 { return p.SumAt(0) }

// SumAt returns the partial sums of slot j (0 ≤ j < 8) added in chunk
// order, for loops that reduce more than one sum.
func (p *Partials) SumAt(j int) float64 {
	var s float64
	for k := range p {
		s += p[k][j]
	}
	return s
}
