package cloth

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"drape/sim/geom"
	"drape/sim/parallel"
)

// TestPCGFilteredSolve solves a hanging sheet's step system with some rows
// fixed and some constrained along a random normal, at 1 and 2 goroutines,
// and checks the modified PCG's promises (Baraff & Witkin 1998 §5.3): the
// prescribed components of Δv are those of z (exactly for fixed rows, to
// float32 round-off for normal ones), the filtered
// residual S·(b − A·Δv) is small against S·b, the two core counts agree
// bit for bit, and the single-reduction iteration takes one parallel
// hand-off per iteration (plus four to set up).
func TestPCGFilteredSolve(t *testing.T) {
	s := benchSheet(t, 32, 32)
	p := s.params
	s.assemble(p.Dt*p.Dt+p.Dt*p.DampStiff, 1+p.Dt*p.DampMass, p.Dt+p.DampStiff, true)
	s.gatherRows(false)
	n := s.sys.n
	rng := rand.New(rand.NewPCG(1, 2))
	kind := append([]uint8(nil), s.rowKind...)
	nrm := append([]geom.Vec3(nil), s.rowN...)
	z := append([]geom.Vec3(nil), s.rowZ...)
	for i := 0; i < n; i++ {
		switch rng.IntN(10) {
		case 0:
			kind[i] = rowFixed
			z[i] = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(0.01)
		case 1, 2:
			if kind[i] == rowFree {
				kind[i] = rowNormal
				nrm[i] = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
				nrm[i] = nrm[i].Scale(1 / nrm[i].Norm())
				z[i] = nrm[i].Scale(0.01 * rng.NormFloat64())
			}
		}
	}
	solveAt := func(procs int) ([]geom.Vec3, int, uint64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		dv := make([]geom.Vec3, n)
		var solver pcg
		h0 := parallel.Handoffs()
		it, res := solver.solve(s.sys, s.rhs, dv, z, kind, nrm, 1e-6, 2000)
		if it == 0 || it == 2000 || !(res < 1e-6) {
			t.Fatalf("GOMAXPROCS=%d: %d iterations, residual %g", procs, it, res)
		}
		return dv, it, parallel.Handoffs() - h0
	}
	dv, it, _ := solveAt(1)
	dv2, it2, handoffs := solveAt(2)
	if it2 != it {
		t.Errorf("iterations: 1 core %d, 2 cores %d", it, it2)
	}
	for i := range dv {
		if dv[i] != dv2[i] {
			t.Fatalf("row %d: 1 core %v, 2 cores %v", i, dv[i], dv2[i])
		}
	}
	if runtime.NumCPU() >= 2 && n >= 4*pcgGrain { // solveAt(2) ran on 2 goroutines
		if want := uint64(it + 4); handoffs != want {
			t.Errorf("%d rows, %d iterations: %d hand-offs, want %d", n, it, handoffs, want)
		}
	}
	var dvMax float64
	for _, d := range dv {
		dvMax = math.Max(dvMax, d.Norm())
	}
	ad := make([]geom.Vec3, n)
	s.sys.mulVec(ad, dv)
	var rr, bb float64
	for i := range dv {
		switch kind[i] {
		case rowFixed:
			if dv[i] != z[i] {
				t.Errorf("fixed row %d: Δv=%v, want z=%v", i, dv[i], z[i])
			}
			continue
		case rowNormal:
			// Exact but for the float32 rounding of the filtered
			// preconditioned residual, which leaves n·u at about 1e-8·|u|.
			if d := nrm[i].Dot(dv[i]) - nrm[i].Dot(z[i]); math.Abs(d) > 1e-6*dvMax {
				t.Errorf("normal row %d: n·Δv − n·z = %g, want 0 (|Δv| up to %g)", i, d, dvMax)
			}
		}
		ri := filter(kind[i], nrm[i], s.rhs[i].Sub(ad[i]))
		bi := filter(kind[i], nrm[i], s.rhs[i])
		rr += ri.Dot(ri)
		bb += bi.Dot(bi)
	}
	// The products inside the loop use A rounded to float32, so the true
	// residual stops near float32's 1e-7 relative precision.
	if rel := math.Sqrt(rr / bb); !(rel < 1e-4) {
		t.Errorf("filtered residual |S(b−AΔv)|/|Sb| = %g, want < 1e-4", rel)
	}
}
