package parallel

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestForChunks checks that every index is visited exactly once, with the
// pieces ForChunks promises, when the workers are polling (calls back to
// back) and when they have parked (a pause longer than spinFor between
// calls), on 1 to 4 goroutines.
func TestForChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
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
				ForChunks(n, fn)
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("GOMAXPROCS=%d n=%d: index %d visited %d times", procs, n, i, c)
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

// withProcs sets GOMAXPROCS and the CPU cap to procs for the duration of
// f, so that a 2-CPU machine runs loops on up to procs goroutines.
func withProcs(procs int, f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	old := maxProcs
	defer func() { maxProcs = old }()
	maxProcs = procs
	f()
}

// TestWorkers checks the number of goroutines a loop gets: ⌊√(n/grain)⌋,
// at least 1, at most GOMAXPROCS, the CPUs and Chunks.
func TestWorkers(t *testing.T) {
	withProcs(8, func() {
		for _, c := range []struct{ n, grain, want int }{
			{0, 32, 1}, {127, 32, 1}, {128, 32, 2}, {288, 32, 3}, {1089, 32, 5},
			{2047, 32, 7}, {2048, 32, 8}, {1 << 20, 32, 8}, {100, 0, 8}, {100, -1, 8},
		} {
			if got := Workers(c.n, c.grain); got != c.want {
				t.Errorf("Workers(%d, %d) got=%d, want=%d", c.n, c.grain, got, c.want)
			}
		}
	})
	withProcs(32, func() {
		if got := Workers(1<<20, 1); got != Chunks {
			t.Errorf("GOMAXPROCS=32: Workers got=%d, want=%d", got, Chunks)
		}
	})
	withProcs(1, func() {
		if got := Workers(1<<20, 1); got != 1 {
			t.Errorf("GOMAXPROCS=1: Workers got=%d, want=1", got)
		}
	})
}

// TestForChunksThen checks the fused two-phase loop on 1 to 16
// goroutines, polling and parked: every piece runs first and then second
// exactly once, and when second runs for piece k, first has finished for
// every piece in deps[k] (it sees their writes); pieces whose
// dependencies reach across the whole range are included. The first
// phase of some pieces is slowed down so that the waits happen.
func TestForChunksThen(t *testing.T) {
	var deps Deps
	for k := range deps {
		lo, hi := max(k-1, 0), min(k+1, Chunks-1)
		if k == 5 {
			lo, hi = 0, Chunks-1 // a piece coupled to all of them
		}
		deps[k] = [2]int8{int8(lo), int8(hi)}
	}
	for _, procs := range []int{1, 2, 3, 4, 8, 16} {
		withProcs(procs, func() {
			for _, n := range []int{0, 20, 33, 1000, 4096} {
				var firstDone [Chunks][8]int64 // per piece: the round its first phase finished
				var bad [Chunks][8]int64
				var secondRuns [Chunks][8]int64
				round := int64(0)
				first := func(k, lo, hi int) {
					if k%5 == 2 {
						time.Sleep(100 * time.Microsecond)
					}
					firstDone[k][0] = round
				}
				second := func(k, lo, hi int) {
					secondRuns[k][0]++
					for j := deps[k][0]; j <= deps[k][1]; j++ {
						if firstDone[j][0] != round {
							bad[k][0]++
						}
					}
				}
				for rep := 1; rep <= 30; rep++ {
					round = int64(rep)
					if rep%10 == 9 {
						time.Sleep(2 * spinFor)
					}
					ForChunksThen(n, 1, first, second, &deps)
					for k := range Chunks {
						if firstDone[k][0] != round || secondRuns[k][0] != round || bad[k][0] != 0 {
							t.Fatalf("procs=%d n=%d round %d piece %d: first done in round %d, second ran %d times, saw %d unfinished dependencies",
								procs, n, rep, k, firstDone[k][0], secondRuns[k][0], bad[k][0])
						}
					}
				}
			}
		})
	}
}

// TestIdlePoolCPU checks that idle workers give their cores back: after a
// burst of loops on 16 goroutines, the process uses almost no CPU time
// while it waits (the workers poll for spinFor and then park).
func TestIdlePoolCPU(t *testing.T) {
	withProcs(16, func() {
		fn := func(k, lo, hi int) {}
		for i := 0; i < 1000; i++ {
			ForChunksGrain(1<<16, 1, fn)
		}
		time.Sleep(10 * spinFor) // let them park
		c0, ok := cpuTime()
		if !ok {
			t.Skip("no process CPU time on this platform")
		}
		const idle = 200 * time.Millisecond
		time.Sleep(idle)
		c1, _ := cpuTime()
		used := c1 - c0
		t.Logf("idle pool of %d workers: %v of CPU in %v", len(pool.workers), used, idle)
		if used > idle/20 {
			t.Errorf("idle pool of %d workers used %v of CPU in %v, want under %v", len(pool.workers), used, idle, idle/20)
		}
	})
}

// BenchmarkForChunks measures the cost of one parallel pass that does
// almost nothing: the synchronisation that every PCG pass pays, per
// number of goroutines.
func BenchmarkForChunks(b *testing.B) {
	for _, procs := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			withProcs(procs, func() {
				var sink [Chunks][8]int
				fn := func(k, lo, hi int) { sink[k][0] += hi - lo }
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					ForChunksGrain(4096, 1, fn)
				}
			})
		})
	}
}
