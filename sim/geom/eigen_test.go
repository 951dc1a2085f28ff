package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSymEigen3: on matrices with known eigenvalues (diagonal, a diagonal
// turned by a rotation, repeated eigenvalues, a rank-one matrix) and on
// random symmetric ones, every pair satisfies A·v = λ·v and the
// eigenvectors are orthonormal, to 1e-12 of the largest |λ|; the known
// eigenvalues come back to the same tolerance.
func TestSymEigen3(t *testing.T) {
	rot := rotation(Vec3{1, 2, 3}.Unit(), 0.7)
	turned := func(d [3]float64) [3][3]float64 { // R·diag(d)·Rᵀ
		var a [3][3]float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for k := 0; k < 3; k++ {
					a[i][j] += rot[i][k] * d[k] * rot[j][k]
				}
			}
		}
		return a
	}
	cases := []struct {
		name string
		a    [3][3]float64
		want []float64 // sorted eigenvalues, nil when unknown
	}{
		{"diagonal", [3][3]float64{{3, 0, 0}, {0, -1, 0}, {0, 0, 2}}, []float64{-1, 2, 3}},
		{"zero", [3][3]float64{}, []float64{0, 0, 0}},
		{"rotated diagonal", turned([3]float64{5, 0.25, -2}), []float64{-2, 0.25, 5}},
		{"repeated", turned([3]float64{4, 4, 1}), []float64{1, 4, 4}},
		{"all equal", turned([3]float64{-3, -3, -3}), []float64{-3, -3, -3}},
		{"rank one", [3][3]float64{{1, 2, 3}, {2, 4, 6}, {3, 6, 9}}, []float64{0, 0, 14}},
		{"wide range", turned([3]float64{1e6, 1, 1e-6}), []float64{1e-6, 1, 1e6}},
		{"zero diagonal", [3][3]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, 0}}, []float64{-1, 0, 1}},
	}
	r := rand.New(rand.NewPCG(3, 7))
	for i := 0; i < 200; i++ {
		var a [3][3]float64
		for p := 0; p < 3; p++ {
			for q := p; q < 3; q++ {
				a[p][q] = r.NormFloat64()
				a[q][p] = a[p][q]
			}
		}
		cases = append(cases, struct {
			name string
			a    [3][3]float64
			want []float64
		}{"random", a, nil})
	}
	for _, c := range cases {
		vals, vecs := SymEigen3(c.a)
		big := math.Max(math.Abs(vals[0]), math.Max(math.Abs(vals[1]), math.Abs(vals[2])))
		tol := 1e-12 * math.Max(big, 1e-300)
		for k := 0; k < 3; k++ {
			v := vecs[k]
			av := Vec3{
				c.a[0][0]*v.X + c.a[0][1]*v.Y + c.a[0][2]*v.Z,
				c.a[1][0]*v.X + c.a[1][1]*v.Y + c.a[1][2]*v.Z,
				c.a[2][0]*v.X + c.a[2][1]*v.Y + c.a[2][2]*v.Z,
			}
			if d := av.Sub(v.Scale(vals[k])).Norm(); !(d <= tol) {
				t.Errorf("%s %v: |A·v − λ·v| for pair %d got=%g, want ≤ %g", c.name, c.a, k, d, tol)
			}
			for j := 0; j < 3; j++ {
				want := 0.0
				if j == k {
					want = 1
				}
				if got := v.Dot(vecs[j]); math.Abs(got-want) > 1e-12 {
					t.Errorf("%s %v: v%d·v%d got=%v, want=%v", c.name, c.a, k, j, got, want)
				}
			}
		}
		if c.want == nil {
			continue
		}
		got := slices.Sorted(slices.Values(vals[:]))
		for k := range got {
			if math.Abs(got[k]-c.want[k]) > tol {
				t.Errorf("%s: eigenvalues got=%v, want=%v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestSymEigen3NaN: a NaN in the matrix gives NaN eigenvalues, not a
// plausible answer.
func TestSymEigen3NaN(t *testing.T) {
	for _, a := range [][3][3]float64{
		{{1, math.NaN(), 0}, {math.NaN(), 2, 0}, {0, 0, 3}},
		{{math.NaN(), 1, 0}, {1, 2, 0}, {0, 0, 3}},
	} {
		vals, _ := SymEigen3(a)
		if !math.IsNaN(vals[0] + vals[1] + vals[2]) {
			t.Errorf("%v: eigenvalues got=%v, want a NaN", a, vals)
		}
	}
}

// rotation returns the rotation matrix about the unit axis n by angle
// (Rodrigues' formula).
func rotation(n Vec3, angle float64) [3][3]float64 {
	s, c := math.Sincos(angle)
	k := [3][3]float64{{0, -n.Z, n.Y}, {n.Z, 0, -n.X}, {-n.Y, n.X, 0}}
	var r [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			var kk float64
			for l := 0; l < 3; l++ {
				kk += k[i][l] * k[l][j]
			}
			r[i][j] = s*k[i][j] + (1-c)*kk
			if i == j {
				r[i][j]++
			}
		}
	}
	return r
}
