package parallel

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestForChunks checks that every index is visited exactly once, with the
// pieces ForChunks and ForChunksBalanced promise, when the workers are
// polling (calls back to back) and when they have parked (a pause longer
// than spinFor between calls), on 1 to 4 goroutines.
func TestForChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, balanced := range []bool{false, true} {
		testForChunks(t, balanced)
	}
}

// testForChunks is TestForChunks for ForChunks or ForChunksBalanced.
func testForChunks(t *testing.T, balanced bool) {
	loop := ForChunks
	if balanced {
		loop = ForChunksBalanced
	}
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 31, 32, 33, 1000, 12345} {
			seen := make([]int32, n)
			var pieces [Chunks][2]int
			fn := func(k, lo, hi int) {
				pieces[k] = [2]int{lo, hi}
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			}
			for rep := 0; rep < 50; rep++ {
				if rep%10 == 9 {
					time.Sleep(2 * spinFor)
				}
				clear(seen)
				loop(n, fn)
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("balanced=%v GOMAXPROCS=%d n=%d: index %d visited %d times", balanced, procs, n, i, c)
					}
				}
				for k, p := range pieces {
					if want := [2]int{k * n / Chunks, (k + 1) * n / Chunks}; p != want {
						t.Fatalf("GOMAXPROCS=%d n=%d: piece %d got=%v, want=%v", procs, n, k, p, want)
					}
				}
			}
		}
	}
}

// TestForPieces checks that ForPieces calls fn(k, k, k+1) once for every
// piece and that, with two goroutines and work for both, two pieces run
// at the same time: each piece waits up to 50 ms for another to be
// running. A loop of Chunks items through ForChunksBalanced runs on the
// caller alone and fails this (the collision passes over their per-piece
// lists did).
func TestForPieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	var seen [Chunks]atomic.Int32
	var running, most atomic.Int32
	ForPieces(2*minItems, func(k, lo, hi int) {
		if lo != k || hi != k+1 {
			t.Errorf("piece %d: got [%d, %d), want [%d, %d)", k, lo, hi, k, k+1)
		}
		seen[k].Add(1)
		n := running.Add(1)
		for start := time.Now(); n < 2 && time.Since(start) < 50*time.Millisecond; n = running.Load() {
			runtime.Gosched()
		}
		if n > most.Load() {
			most.Store(n)
		}
		running.Add(-1)
	})
	for k := range seen {
		if c := seen[k].Load(); c != 1 {
			t.Errorf("piece %d ran %d times, want once", k, c)
		}
	}
	if m := most.Load(); m < 2 {
		t.Errorf("at most %d piece ran at a time on two goroutines, want 2", m)
	}
}

// TestRunPiecesContiguous checks that each goroutine of a parallel loop
// runs one contiguous run of pieces, so that the goroutines meet at
// workers−1 boundaries rather than at every piece: rows on either side of
// a boundary share cache lines and mesh neighbours, which the cores would
// otherwise pass back and forth (at 1089 vertices that made a PCG
// iteration on two cores 2.5 times slower than on one).
func TestRunPiecesContiguous(t *testing.T) {
	for workers := 1; workers <= Chunks; workers++ {
		var got []int
		for w := 0; w < workers; w++ {
			var run []int
			runPieces(func(k, lo, hi int) { run = append(run, k) }, 1000, w, workers)
			for i := 1; i < len(run); i++ {
				if run[i] != run[i-1]+1 {
					t.Fatalf("workers=%d: goroutine %d ran pieces %v, want a contiguous run", workers, w, run)
				}
			}
			if len(run) < Chunks/workers || len(run) > Chunks/workers+1 {
				t.Fatalf("workers=%d: goroutine %d ran %d pieces, want %d or %d", workers, w, len(run), Chunks/workers, Chunks/workers+1)
			}
			got = append(got, run...)
		}
		for k := range Chunks {
			if k >= len(got) || got[k] != k {
				t.Fatalf("workers=%d: pieces run %v, want 0…%d once each in order", workers, got, Chunks-1)
			}
		}
	}
}

// BenchmarkForChunks measures the cost of one parallel pass that does
// almost nothing: the synchronisation that every PCG pass pays.
func BenchmarkForChunks(b *testing.B) {
	var sink [Chunks][8]int
	fn := func(k, lo, hi int) { sink[k][0] += hi - lo }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ForChunks(4096, fn)
	}
}

// TestPieceOf checks PieceOf against the pieces ForChunks passes to fn,
// for sizes below, at and above Chunks.
func TestPieceOf(t *testing.T) {
	for _, n := range []int{1, 5, Chunks - 1, Chunks, Chunks + 1, 2*Chunks + 3, 1000, 4097} {
		seen := make([]int, n)
		for i := range seen {
			seen[i] = -1
		}
		ForChunks(n, func(k, lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i] = k
			}
		})
		for i, k := range seen {
			if got := PieceOf(i, n); got != k {
				t.Fatalf("n = %d: index %d in piece %d, PieceOf says %d", n, i, k, got)
			}
		}
	}
}

// TestConcurrentPasses runs passes of ForChunks, ForChunksBalanced and
// ForPieces from four goroutines at once, as simulations stepped side by
// side do, and checks that every pass visits each of its own indices
// exactly once, with the promised pieces: a pass that ran another's job,
// or took pieces from another's counter, fails here (and, under -race,
// a hand-over without a happens-before edge).
func TestConcurrentPasses(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	// As on a 4-core machine, so that passes have workers to contend
	// for even on fewer cores.
	defer func(n int) { numCPU = n }(numCPU)
	numCPU = 4
	loops := []func(n int, fn func(k, lo, hi int)){
		ForChunks, ForChunksBalanced,
		func(_ int, fn func(k, lo, hi int)) { ForPieces(Chunks*minItems, fn) },
	}
	done := make(chan string, 4)
	for g := range 4 {
		go func() {
			n := 1000 + 37*g
			seen := make([]int32, n)
			var pieces [Chunks][2]int
			for rep := range 300 {
				kind := (rep + g) % len(loops)
				m := n
				if kind == 2 {
					m = Chunks // ForPieces: fn(k, k, k+1)
				}
				clear(seen)
				loops[kind](m, func(k, lo, hi int) {
					pieces[k] = [2]int{lo, hi}
					for i := lo; i < hi; i++ {
						seen[i]++
					}
				})
				for i, c := range seen[:m] {
					if c != 1 {
						done <- fmt.Sprintf("goroutine %d, pass %d (loop %d, n=%d): index %d visited %d times", g, rep, kind, m, i, c)
						return
					}
				}
				for k, p := range pieces {
					if want := [2]int{k * m / Chunks, (k + 1) * m / Chunks}; p != want {
						done <- fmt.Sprintf("goroutine %d, pass %d (loop %d): piece %d got=%v, want=%v", g, rep, kind, k, p, want)
						return
					}
				}
			}
			done <- ""
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

// TestPartsCap checks that a pass takes no more goroutines than there
// are CPUs, whatever GOMAXPROCS says, none beyond the caller for a short
// loop, a second from 2·minItems items, and a p-th from p(p−1)·partItems.
func TestPartsCap(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(n int) { numCPU = n }(numCPU)
	for _, c := range []struct {
		procs, cpus, n int
		want           int
	}{
		{1, 16, 100000, 1},
		{64, 16, 100000, 16},
		{64, 2, 100000, 2},
		{8, 16, 100000, 8},
		{64, 16, 2*minItems - 1, 1},
		{64, 16, 2 * minItems, 2},
		{64, 16, 6*partItems - 1, 2},
		{64, 16, 6 * partItems, 3},
		{64, 16, 56*partItems - 1, 7},
		{64, 16, 56 * partItems, 8},
	} {
		runtime.GOMAXPROCS(c.procs)
		numCPU = c.cpus
		if got := Parts(c.n); got != c.want {
			t.Errorf("GOMAXPROCS=%d, CPUs=%d, n=%d: got=%d, want=%d", c.procs, c.cpus, c.n, got, c.want)
		}
	}
}

// TestForPiecesSmallWork checks that ForPieces runs a pass whose work is
// under 2·minItems on its caller alone, however many goroutines there
// are: no piece runs beside another.
func TestForPiecesSmallWork(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	defer func(n int) { numCPU = n }(numCPU)
	numCPU = 4
	var running, most atomic.Int32
	ForPieces(2*minItems-1, func(k, lo, hi int) {
		n := running.Add(1)
		if n > most.Load() {
			most.Store(n)
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
	})
	if m := most.Load(); m != 1 {
		t.Errorf("%d pieces ran at a time, want 1", m)
	}
}

// TestPassYields checks when a pass's goroutines yield as they poll
// (mayYield): where the pool's goroutines may hold every P, and not
// where Ps are left over. The first case fails if they never yield, the
// second if they always do (before, on every poll).
func TestPassYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	giveBack(takeWorkers(1)) // at least one worker started
	pool.mu.Lock()
	busy := pool.started + 1 // the workers and this pass's caller
	pool.mu.Unlock()
	for _, c := range []struct {
		procs int
		want  bool
	}{{busy, true}, {busy + 1, false}, {busy + 8, false}} {
		runtime.GOMAXPROCS(c.procs)
		p := takeWorkers(1)
		got := p.yield
		giveBack(p)
		if got != c.want {
			t.Errorf("GOMAXPROCS %d, %d goroutines of the pool: yield %v, want %v", c.procs, busy, got, c.want)
		}
	}
}
