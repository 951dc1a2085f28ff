package cloth

import (
	"fmt"
	"sync"
	"testing"

	"drape/sim/geom"
)

// benchSizes are quad grids of about 2k, 8k and 22k triangles; the last
// is the curtain's 123 × 90 (Bender & Deul §7: 22140 triangles).
var benchSizes = []struct{ nx, ny int }{{32, 32}, {64, 64}, {123, 90}}

// benchSheet returns a vertical 2.46 m × 1.8 m sheet with the curtain's
// material hanging from its top row, after 20 steps so PCG works on a
// realistic, moving state.
func benchSheet(b testing.TB, nx, ny int) *Sim {
	b.Helper()
	m, err := geom.RegularGrid(2.46, 1.8, nx, ny)
	if err != nil {
		b.Fatal(err)
	}
	for i := range m.Pos {
		m.Pos[i].Z = 0.002 * float64(i%7-3) // break the planar symmetry
	}
	s, err := New(m, DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	for i, r := range m.Rest {
		if r.Y > 1.8-1e-9 {
			if err := s.Pin(int32(i), m.Pos[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	for k := 0; k < 20; k++ {
		if _, err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func BenchmarkAssemble(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("tris=%d", 2*sz.nx*sz.ny), func(b *testing.B) {
			s := benchSheet(b, sz.nx, sz.ny)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.assembleStep()
			}
			b.ReportMetric(float64(s.Mesh.NumTris()), "tris")
		})
	}
}

func BenchmarkSolve(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("tris=%d", 2*sz.nx*sz.ny), func(b *testing.B) {
			s := benchSheet(b, sz.nx, sz.ny)
			p := s.params
			s.assembleStep()
			s.gatherRows(false)
			start := append([]geom.Vec3(nil), s.rowDv...)
			its := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				copy(s.rowDv, start)
				n, _ := s.solver.solve(s.sys, s.rhs, s.rowDv, s.rowZ, s.rowKind, s.rowN, p.Tolerance, p.MaxIter)
				its += n
			}
			b.ReportMetric(float64(its)/float64(b.N), "iters")
			b.ReportMetric(float64(s.Mesh.NumTris()), "tris")
		})
	}
}

func BenchmarkStep(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("tris=%d", 2*sz.nx*sz.ny), func(b *testing.B) {
			s := benchSheet(b, sz.nx, sz.ny)
			its := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := s.Step()
				if err != nil {
					b.Fatal(err)
				}
				its += st.Iterations
			}
			b.ReportMetric(float64(its)/float64(b.N), "iters")
			b.ReportMetric(float64(s.Mesh.NumTris()), "tris")
		})
	}
}

// BenchmarkStepSideBySide steps two sheets at once, each on its own
// goroutine, as the viewer's side-by-side mode steps the adaptive and
// the full-resolution simulation: an op is one step of each. The two
// share the worker pool (sim/parallel), so this measures how their
// passes contend for it and for the cores.
func BenchmarkStepSideBySide(b *testing.B) {
	sims := []*Sim{benchSheet(b, 32, 32), benchSheet(b, 64, 64)}
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make([]error, len(sims))
	for i, s := range sims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range b.N {
				if _, err := s.Step(); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
