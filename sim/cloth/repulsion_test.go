package cloth

import (
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// TestPairCouplingProduct checks pairCoupling's product (sigmas, row)
// against the dense
// product of Σ_p coef·(w wᵀ)⊗(n nᵀ) without its diagonal blocks, on
// random springs over a few rows (shared rows, and points that are not
// rows).
func TestPairCouplingProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const nrows = 7
	var pc pairCoupling
	pc.reset()
	pc.coef = 2.5
	for p := 0; p < 12; p++ {
		var r [4]int32
		var w [4]float64
		for k := range r {
			r[k] = int32(rng.IntN(nrows+1)) - 1 // −1: not a row
			w[k] = rng.Float64()*2 - 1
		}
		n := geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Unit()
		pc.rows, pc.w, pc.n = append(pc.rows, r), append(pc.w, w), append(pc.n, n)
	}
	x := make([]geom.Vec3, nrows)
	for i := range x {
		x[i] = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
	}
	pc.finish(nrows)
	pc.sigmas(x, nil)
	got := make([]geom.Vec3, nrows)
	for i := range got {
		if pc.hasRow(i) {
			got[i] = pc.row(i, x[i])
		}
	}
	want := make([]geom.Vec3, nrows)
	for p, r := range pc.rows {
		for a, i := range r {
			for b, j := range r {
				if i < 0 || j < 0 || a == b {
					continue
				}
				// Block (i, j) of the spring, applied to x_j. Two points of
				// one spring on the same row make a diagonal block, which is
				// the matrix's, not the coupling's, only when a == b.
				n := pc.n[p]
				want[i] = want[i].Add(n.Scale(pc.coef * pc.w[p][a] * pc.w[p][b] * n.Dot(x[j])))
			}
		}
	}
	for i := range want {
		if d := got[i].Sub(want[i]).Norm(); d > 1e-12*(1+want[i].Norm()) {
			t.Errorf("row %d: got %v, want %v", i, got[i], want[i])
		}
	}
	// The PCG's float32 vectors (x is rounded to float32, so within 1e-6).
	x32 := make([]vec3f32, nrows)
	for i, v := range x {
		x32[i] = vec3f32{float32(v.X), float32(v.Y), float32(v.Z)}
	}
	pc.sigmas(nil, x32)
	for i := range want {
		if !pc.hasRow(i) {
			continue
		}
		if d := pc.row(i, x[i]).Sub(want[i]).Norm(); d > 1e-6*(1+want[i].Norm()) {
			t.Errorf("row %d from float32: got %v, want %v", i, pc.row(i, x[i]), want[i])
		}
	}
}
