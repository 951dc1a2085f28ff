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
// started on first use and kept, and the pass states they run. A pass
// (one call of ForChunks) takes idle workers for itself, posts its job to
// them, does its share and hands them back; the lock is held only to take
// and hand back, so passes of several simulations stepped on their own
// goroutines (the viewer's side-by-side mode) run at the same time, each
// with the workers it got. A pass that finds none idle runs its pieces on
// its caller alone: the same pieces, so the same result (Chunks).
var pool struct {
	mu      sync.Mutex
	idle    []*worker // workers that no pass holds
	started int       // workers started
	active  int       // passes between takeWorkers and giveBack
	free    []*pass   // pass states not in use, kept so that passes do not allocate
}

// pass is the state of one parallel pass, owned by its caller from
// takeWorkers to giveBack: nothing of it is global to the pool, so two
// passes never see each other's job.
type pass struct {
	fn       func(k, lo, hi int)
	n        int
	balanced bool
	next     atomic.Int32 // balanced: the next piece to take
	workers  []*worker    // the workers taking part besides the caller
	yield    bool         // its goroutines yield while they poll (mayYield)
}

// worker runs its pass's share whenever seq moves past the last value it
// has seen and then sets done to that value.
type worker struct {
	pass     *pass // the pass it was last posted to; written before seq, read after it
	part     int   // its part of the pass: 1 … len(pass.workers)
	seq      atomic.Uint64
	done     atomic.Uint64
	sleeping atomic.Bool
	wake     chan struct{} // capacity 1: a token for a parked worker

	waiting  atomic.Bool   // the poster is parked until done reaches seq
	finished chan struct{} // capacity 1: a token for the parked poster
}

func (w *worker) loop() {
	var last uint64
	yield := true
	for {
		last = w.await(last, yield)
		p := w.pass
		p.run(w.part)
		yield = p.yield
		// p belongs to its caller again once done is stored: nothing of
		// it is read after this.
		w.done.Store(last)
		if w.waiting.Load() {
			signal(w.finished)
		}
	}
}

// run runs part w of p's 1 + len(p.workers) parts: a contiguous run of
// pieces, or, balanced, pieces taken from p.next until none is left.
func (p *pass) run(w int) {
	if p.balanced {
		takePieces(p.fn, p.n, &p.next)
	} else {
		runPieces(p.fn, p.n, w, 1+len(p.workers))
	}
}

// signal leaves a token in ch unless one is there already.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// spinUntil polls cond for up to d, yielding the processor every 64 polls
// if yield (mayYield), and reports whether cond became true.
func spinUntil(cond func() bool, d time.Duration, yield bool) bool {
	start := time.Now()
	for i := 1; ; i++ {
		if cond() {
			return true
		}
		if i%64 == 0 {
			if yield {
				runtime.Gosched()
			}
			if time.Since(start) >= d {
				return false
			}
		}
	}
}

// mayYield reports whether goroutines that poll for the pool should
// yield the processor as they poll, with gomaxprocs Ps and busy
// goroutines of the pool (workers started, and a caller per pass). Only
// where the pool's goroutines may hold every P: then another goroutine
// (the viewer's render loop) may be waiting for one, and without a yield
// it would wait for the runtime's preemption, 10 ms. Where Ps are left
// over, a goroutine made ready takes one of them, and a yield costs:
// runtime.Gosched wakes an idle P to look for work (wakep), so every
// poll set a thread spinning on the cores the pass needs. With
// GOMAXPROCS 8 and 16 on the 2-core machine that made a step of the
// 2048-triangle sheet 1.45–1.6× and the 8192 one 1.8–1.9× as long as with
// GOMAXPROCS 2; without the yield 1.03–1.08× and 1.0–1.1×
// (BenchmarkStep, three interleaved rounds, 2026-11-29;
// docs/notes/performance-history.md).
func mayYield(gomaxprocs, busy int) bool { return gomaxprocs <= busy }

// await returns the next job's sequence number once it exceeds last,
// polling (yielding as it does if yield) for spinFor and then parking.
func (w *worker) await(last uint64, yield bool) uint64 {
	posted := func() bool { return w.seq.Load() != last }
	for !spinUntil(posted, spinFor, yield) {
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

// ForChunks calls fn(k, lo, hi) for the Chunks pieces of [0, n) and
// returns when all are done: on the caller and, where the loop is long
// enough to pay for them (Parts), on workers of the pool. Piece k is
// [k·n/Chunks, (k+1)·n/Chunks). fn must not call ForChunks itself.
// Callers in hot loops pass a func value made once, outside the loop, so
// that no call allocates. Safe for concurrent use: passes of several
// callers share the pool's workers (see pool).
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
// work is the pass's size in ForChunks' indices, about 10–20 ns of work
// each (a PCG iteration's passes cost 22 ns per vertex on the full
// curtain): the caller weighs its lists' entries by what one costs, and
// Parts sizes the pass by it. ForChunks and ForChunksBalanced size a
// loop by its length, which would run Chunks lists of any size on the
// caller alone: before ForPieces, the CCD passes over the candidate
// lists and the cloth–cloth triangle tests ran on one core (bunny scene,
// 2 cores: 107 % CPU over steps 150–350).
func ForPieces(work int, fn func(k, lo, hi int)) { forChunks(work, fn, true, true) }

// Parts returns how many goroutines a pass over n items takes at most,
// the caller included, and never more than Chunks, GOMAXPROCS or the CPUs
// the process may run on (runtime.NumCPU). This is the pool's cost model.
// A second goroutine joins a pass of at least 2·minItems items; a p-th,
// p ≥ 3, one of at least p(p−1)·partItems items. That is where p parts
// beat p−1 if a pass costs W/p + o·p (its work shared out, and o to post
// to and wait on each worker) and W/o = n/partItems: more cores pay only
// for larger passes. Goroutines beyond the CPUs add no speed to a pass;
// they wait for a time slice while the pass waits for them, and between
// passes they poll on the cores the caller needs. Before that cap, each
// pass of the adaptive curtain with GOMAXPROCS=8 on the 2-core machine
// was posted to 7 workers, and the run took 3.0× as long as with
// GOMAXPROCS=2 (40.8 against 13.6 ms a step;
// docs/notes/performance-history.md).
func Parts(n int) int {
	most := max(1, min(runtime.GOMAXPROCS(0), numCPU, Chunks))
	p := 1
	if n >= 2*minItems {
		p = 2
	}
	for p < most && n >= (p+1)*p*partItems {
		p++
	}
	return min(p, most)
}

// minItems is the fewest items a pass gives each of two goroutines: a
// loop under 2·minItems items runs on its caller alone. On two cores the
// one worker polls on its own core between passes, and a pass of a few
// dozen items already gains from it: with 256 instead, sphere-adaptive,
// curtain-adaptive, hanging and bunny stepped 15–70 % slower on the
// 2-core machine (6 s each, three interleaved rounds, 2026-11-29).
const minItems = Chunks

// partItems sets the size at which a third and later goroutine join a
// pass (Parts). On the 16-core device machine (2026-11-29,
// docs/performance.md#across-cores-the-16-core-device-machine) each
// scene was fastest at about √(n/partItems) cores for its vertex count
// n (about half its triangles): drape-box and hanging (270 and 960) at
// 2, sphere-adaptive at 2–4, bunny (1800) at 4, the full curtain
// (11 200) at 8; a goroutine per 16 items, which took all 16 cores for
// every pass over 256 items, stepped drape-box 10× slower than on one
// core.
const partItems = 128

// numCPU is runtime.NumCPU(), read once: the CPUs the process may run on
// at start-up.
var numCPU = runtime.NumCPU()

// forChunks is ForChunks (balanced false), ForChunksBalanced (balanced)
// and ForPieces (pieces, balanced): n is the loop's length, or for
// ForPieces its work, and the loop runs over [0, Chunks).
func forChunks(n int, fn func(k, lo, hi int), balanced, pieces bool) {
	parts := Parts(n)
	if pieces {
		n = Chunks
	}
	if parts <= 1 {
		runPieces(fn, n, 0, 1)
		return
	}
	p := takeWorkers(parts - 1)
	if len(p.workers) == 0 { // all taken by other passes
		giveBack(p)
		runPieces(fn, n, 0, 1)
		return
	}
	p.fn, p.n, p.balanced = fn, n, balanced
	p.next.Store(0)
	for i, w := range p.workers {
		w.pass, w.part = p, i+1
		w.seq.Add(1)
		if w.sleeping.Load() {
			signal(w.wake)
		}
	}
	p.run(0)
	for _, w := range p.workers {
		want := w.seq.Load()
		finished := func() bool { return w.done.Load() == want }
		// Poll briefly: the pieces are balanced, so the worker is usually
		// about done. If it is not (its thread lost the core to another
		// process), park rather than burn the core it may need.
		for !spinUntil(finished, spinWait, p.yield) {
			w.waiting.Store(true)
			if !finished() {
				<-w.finished
			}
			w.waiting.Store(false)
		}
	}
	p.fn = nil // let fn's closure go
	giveBack(p)
}

// takeWorkers returns a pass state holding up to k idle workers, starting
// new ones while fewer than Parts' cap less one run in all.
func takeWorkers(k int) *pass {
	procs := runtime.GOMAXPROCS(0)
	pool.mu.Lock()
	defer pool.mu.Unlock()
	var p *pass
	if m := len(pool.free); m > 0 {
		p, pool.free = pool.free[m-1], pool.free[:m-1]
	} else {
		p = &pass{workers: make([]*worker, 0, Chunks)}
	}
	for ; pool.started < k && len(pool.idle) < k; pool.started++ {
		w := &worker{wake: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
		pool.idle = append(pool.idle, w)
		go w.loop()
	}
	m := len(pool.idle)
	take := min(k, m)
	p.workers = append(p.workers[:0], pool.idle[m-take:]...)
	pool.idle = pool.idle[:m-take]
	pool.active++
	p.yield = mayYield(procs, pool.started+pool.active)
	return p
}

// giveBack returns p's workers to the idle list and p to the free list.
func giveBack(p *pass) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	pool.idle = append(pool.idle, p.workers...)
	clear(p.workers)
	p.workers = p.workers[:0]
	pool.active--
	pool.free = append(pool.free, p)
}

// runPieces runs the w-th of workers contiguous runs of pieces of fn over
// [0, n).
func runPieces(fn func(k, lo, hi int), n, w, workers int) {
	for k := w * Chunks / workers; k < (w+1)*Chunks/workers; k++ {
		fn(k, k*n/Chunks, (k+1)*n/Chunks)
	}
}

// takePieces runs pieces of fn over [0, n) taken from next until all are
// taken.
func takePieces(fn func(k, lo, hi int), n int, next *atomic.Int32) {
	for {
		k := int(next.Add(1)) - 1
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
