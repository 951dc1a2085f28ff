package parallel

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Chunks is the fixed number of pieces every parallel loop is cut into.
// Reductions add the pieces' partial sums in piece order, so results are
// bit-identical whatever the number of cores.
const Chunks = 16

// Grain is the grain ForChunks passes to Workers: the number of items
// whose work costs about one hand-off. The loops that use ForChunks cost
// from a few ns per item (vector updates) to 1–2 µs (element assembly,
// BenchmarkAssemble at 22140 triangles on one core), and one hand-off
// costs about 1 µs per goroutine (BenchmarkForChunks, 2 CPUs); 16 keeps
// the expensive loops on nearly every core (2048 triangles: 11
// goroutines) and gives the cheap ones, which run once per step, fewer
// than before, when any loop of 32 items or more ran on every core. Loops
// in the PCG iteration pass their own grain to ForChunksGrain.
const Grain = 16

// spinFor is how long a worker keeps polling for its next job before it
// parks on its channel. A PCG solve posts one or two parallel passes per
// iteration, 50–300 µs long and a few µs apart; waking a parked goroutine
// through a channel costs tens of µs each time, so workers poll across
// the gaps and park only when the simulation pauses (between steps in the
// viewer, or for good). Measured on the 2-core machine, one step of
// BenchmarkStep: with workers woken by channels 2048 triangles took
// 1.9–2.9 ms and 22140 took 41–48 ms, slower than on one core (1.6 and
// 35 ms); with polling 1.3–2.0 and 20–24 ms. The spinning is bounded:
// an idle pool costs at most spinFor of CPU per worker after the last
// loop and nothing after that (TestIdlePoolCPU).
const spinFor = 200 * time.Microsecond

// spinWait is how long ForChunks, and a piece waiting for the pieces it
// depends on (ForChunksThen), polls before it parks.
const spinWait = 50 * time.Microsecond

// pool is the process-wide set of worker goroutines behind ForChunks,
// started on first use and kept. One loop runs at a time (mu); the caller
// does its share of the pieces itself.
var pool struct {
	mu       sync.Mutex
	workers  []*worker
	gen      uint64
	handoffs atomic.Uint64
	ready    [Chunks]paddedGen // ForChunksThen: first phase of piece k done in pass ready[k]
}

type paddedGen struct {
	atomic.Uint64
	_ [56]byte
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

// poolJob asks worker w of workers to run its pieces of fn over [0, n)
// (and then of second, after deps, when second is not nil).
type poolJob struct {
	fn, second func(k, lo, hi int)
	deps       *Deps
	gen        uint64
	n          int
	w, workers int
}

func (j *poolJob) run() {
	if j.second == nil {
		runPieces(j.fn, j.n, j.w, j.workers)
		return
	}
	runPhased(j.fn, j.second, j.deps, j.gen, j.n, j.w, j.workers)
}

func (w *worker) loop() {
	var last uint64
	for {
		last = w.await(last)
		w.job.run()
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

// maxProcs is runtime.NumCPU(), the CPUs this process may run on; tests
// raise it to run more goroutines than the machine has CPUs.
var maxProcs = runtime.NumCPU()

// Workers returns how many goroutines a loop over n items runs on, for a
// loop whose grain items cost about as much as one hand-off to a worker:
// ⌊√(n/grain)⌋, at least 1, at most GOMAXPROCS, the CPUs and Chunks. With
// t the time per item and h the cost of a hand-off per goroutine, a loop
// on w goroutines takes about n·t/w + h·w, least at w = √(n·t/h) =
// √(n/grain): the w-th goroutine saves n·t/(w(w−1)), which must outweigh
// its hand-off, so small loops run on few cores and only large ones on
// many. A grain ≤ 0 means every core. More goroutines than CPUs never
// help a loop whose pieces all have to finish before it returns: the
// extra ones only wait for a core (before this cap, GOMAXPROCS=8 on 2
// CPUs made BenchmarkSolve 1.1–1.5 times slower than GOMAXPROCS=2 at
// 1089–11284 rows, medians of 5 runs).
func Workers(n, grain int) int {
	w := min(runtime.GOMAXPROCS(0), maxProcs, Chunks)
	if grain > 0 {
		w = min(w, int(math.Sqrt(float64(n)/float64(grain))))
	}
	return max(w, 1)
}

// Handoffs returns how many loops have been handed to more than one
// goroutine since the program started: the synchronisations benchmarks
// count per PCG iteration.
func Handoffs() uint64 { return pool.handoffs.Load() }

// ForChunks is ForChunksGrain(n, Grain, fn).
func ForChunks(n int, fn func(k, lo, hi int)) { ForChunksGrain(n, Grain, fn) }

// ForChunksGrain calls fn(k, lo, hi) for the Chunks pieces of [0, n), on
// Workers(n, grain) goroutines (grain: the items that cost one hand-off), and returns when all are done. Piece k is
// [k·n/Chunks, (k+1)·n/Chunks); each goroutine runs one contiguous run of
// pieces. fn must not call ForChunks itself. Callers in hot loops pass a
// func value made once, outside the loop, so that no call allocates.
func ForChunksGrain(n, grain int, fn func(k, lo, hi int)) {
	workers := Workers(n, grain)
	if workers <= 1 || n < 2*Chunks {
		runPieces(fn, n, 0, 1)
		return
	}
	dispatch(poolJob{fn: fn, n: n, workers: workers})
}

// Deps says, for each piece k of a ForChunksThen loop, which pieces' first
// phase its second phase reads: pieces Deps[k][0] through Deps[k][1].
type Deps [Chunks][2]int8

// ForChunksThen calls first(k, lo, hi) and second(k, lo, hi) for the Chunks
// pieces of [0, n), like ForChunksGrain, as one hand-off: second runs for
// piece k once first has returned for piece k and for every piece from
// deps[k][0] to deps[k][1]. A goroutine runs first over its run of pieces,
// then second over the same run, waiting (polling, then sleeping) only
// for pieces of its neighbours. This fuses a row-local update with the
// sparse product that reads its neighbours' rows (PCG), which otherwise
// takes two loops and two hand-offs.
func ForChunksThen(n, grain int, first, second func(k, lo, hi int), deps *Deps) {
	workers := Workers(n, grain)
	if workers <= 1 || n < 2*Chunks {
		runPieces(first, n, 0, 1)
		runPieces(second, n, 0, 1)
		return
	}
	dispatch(poolJob{fn: first, second: second, deps: deps, n: n, workers: workers})
}

// dispatch runs job on job.workers goroutines, the caller being the first.
func dispatch(job poolJob) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	pool.handoffs.Add(1)
	pool.gen++
	job.gen = pool.gen
	for len(pool.workers) < job.workers-1 {
		w := &worker{wake: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
		pool.workers = append(pool.workers, w)
		go w.loop()
	}
	ws := pool.workers[:job.workers-1]
	for i, w := range ws {
		w.job = job
		w.job.w = i + 1
		w.seq.Add(1)
		if w.sleeping.Load() {
			signal(w.wake)
		}
	}
	job.run()
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
		w.job.fn, w.job.second, w.job.deps = nil, nil, nil // let the closures go
	}
}

// runPieces runs the w-th of workers contiguous runs of pieces of fn over
// [0, n).
func runPieces(fn func(k, lo, hi int), n, w, workers int) {
	for k := w * Chunks / workers; k < (w+1)*Chunks/workers; k++ {
		fn(k, k*n/Chunks, (k+1)*n/Chunks)
	}
}

// runPhased runs the w-th of workers runs of pieces of first, marks each
// piece ready for pass gen, and then runs second over the same pieces,
// each once the pieces it depends on are ready.
func runPhased(first, second func(k, lo, hi int), deps *Deps, gen uint64, n, w, workers int) {
	k0, k1 := w*Chunks/workers, (w+1)*Chunks/workers
	for k := k0; k < k1; k++ {
		first(k, k*n/Chunks, (k+1)*n/Chunks)
		pool.ready[k].Store(gen)
	}
	for k := k0; k < k1; k++ {
		for j := int(deps[k][0]); j <= int(deps[k][1]); j++ {
			if j >= k0 && j < k1 {
				continue // ours: done above
			}
			waitReady(j, gen)
		}
		second(k, k*n/Chunks, (k+1)*n/Chunks)
	}
}

// waitReady returns once piece j's first phase of pass gen is done:
// polling for spinWait and then sleeping in short naps, so that a
// goroutine whose neighbour lost its core gives the core back.
func waitReady(j int, gen uint64) {
	r := &pool.ready[j]
	if r.Load() >= gen {
		return
	}
	if spinUntil(func() bool { return r.Load() >= gen }, spinWait) {
		return
	}
	for r.Load() < gen {
		time.Sleep(20 * time.Microsecond)
	}
}

// Partials holds one partial sum per chunk, padded against false sharing.
type Partials [Chunks][8]float64

// Sum returns the partial sums added in chunk order.
func (p *Partials) Sum() float64 {
	var s float64
	for k := range p {
		s += p[k][0]
	}
	return s
}
