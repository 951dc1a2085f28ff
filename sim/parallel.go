package sim

import (
	"runtime"
	"sync"
)

// chunks is the fixed number of pieces every parallel loop is cut into.
// Reductions add the pieces' partial sums in piece order, so results are
// bit-identical whatever the number of cores.
const chunks = 16

// forChunks calls fn(lo, hi) for the chunks pieces of [0, n), on up to
// GOMAXPROCS goroutines, and returns when all are done. Piece k is
// [k·n/chunks, (k+1)·n/chunks).
func forChunks(n int, fn func(k, lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > chunks {
		workers = chunks
	}
	if workers <= 1 || n < 2*chunks {
		for k := 0; k < chunks; k++ {
			fn(k, k*n/chunks, (k+1)*n/chunks)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			defer wg.Done()
			for k := w; k < chunks; k += workers {
				fn(k, k*n/chunks, (k+1)*n/chunks)
			}
		}(w)
	}
	wg.Wait()
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
