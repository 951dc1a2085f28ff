package geom

import "math"

// SymEigen3 returns the eigenvalues of the symmetric 3×3 matrix a and
// their unit eigenvectors (vecs[k] belongs to vals[k]), unordered, by
// cyclic Jacobi rotations (Golub & Van Loan §8.5): each rotation zeroes
// one off-diagonal pair, and V, the product of the rotations, is
// orthogonal to round-off, so the eigenvectors are orthonormal even for
// repeated eigenvalues.
//
// It stops when off(A)² = Σ_{p<q} a_pq² ≤ 10⁻³²·Σ_p a_pp², that is when
// what is left off the diagonal is about 10⁻¹⁶ of it, the round-off of a
// float64: eigenvalues are then exact to round-off and eigenvectors to
// 10⁻¹⁶ over the relative gap between eigenvalues. It takes at most four
// sweeps on 10⁵ random matrices of every conditioning (50 is a cap that
// is not reached). The threshold is the impact zones' (sim/contact),
// whose rigid fits are in the golden hashes; the OBJ reader's best-fit
// plane stopped at 10⁻³⁰, which costs it at most one more sweep on a
// matrix it computes once. The zero matrix returns at once; a NaN in a
// gives NaN eigenvalues (the stopping test fails, and the sweeps run to
// the cap).
func SymEigen3(a [3][3]float64) (vals [3]float64, vecs [3]Vec3) {
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 50; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		diag := a[0][0]*a[0][0] + a[1][1]*a[1][1] + a[2][2]*a[2][2]
		if off <= 1e-32*diag {
			break
		}
		for p := 0; p < 2; p++ {
			for q := p + 1; q < 3; q++ {
				if a[p][q] == 0 {
					continue
				}
				// The rotation J in the (p, q) plane with tan φ = t that
				// zeroes a_pq: θ = (a_qq − a_pp)/(2a_pq), t the smaller
				// root of t² + 2θt − 1 = 0.
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < 3; k++ { // A ← A·J
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := 0; k < 3; k++ { // A ← Jᵀ·A
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := 0; k < 3; k++ { // V ← V·J
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	for k := 0; k < 3; k++ {
		vecs[k] = Vec3{v[0][k], v[1][k], v[2][k]}
	}
	return [3]float64{a[0][0], a[1][1], a[2][2]}, vecs
}
