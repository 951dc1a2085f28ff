package exact

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

type V = geom.Vec3

func v(x, y, z float64) V { return V{X: x, Y: y, Z: z} }

// TestOrient3DExact compares the filtered predicate with big.Rat on random
// points, on exactly coplanar points and on points one ulp off a plane,
// where a plain float determinant gets the sign wrong.
func TestOrient3DExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	wrongFloat := 0
	for i := 0; i < 20000; i++ {
		a, b, c := v(r.Float64(), r.Float64(), r.Float64()), v(r.Float64(), r.Float64(), r.Float64()), v(r.Float64(), r.Float64(), r.Float64())
		var d V
		switch i % 3 {
		case 0:
			d = v(r.Float64(), r.Float64(), r.Float64())
		case 1: // on the plane up to rounding, then nudged by ulps
			s, u := r.Float64(), r.Float64()
			d = a.Add(b.Sub(a).Scale(s)).Add(c.Sub(a).Scale(u))
			d.Z = math.Nextafter(d.Z, math.Inf(int(r.IntN(2))*2-1))
		default: // exactly coplanar: z = 0 plane through integer points
			a, b, c, d = v(float64(r.IntN(5)), float64(r.IntN(5)), 0), v(float64(r.IntN(5)), float64(r.IntN(5)), 0), v(float64(r.IntN(5)), float64(r.IntN(5)), 0), v(r.Float64(), r.Float64(), 0)
		}
		want := rat3(a, b, c, d)
		if got := Orient3D(a, b, c, d); got != want {
			t.Fatalf("Orient3D(%v, %v, %v, %v): got=%d, want=%d", a, b, c, d, got, want)
		}
		if s, ok := float3(a, b, c, d); ok && s != want {
			t.Fatalf("big.Float stage: got=%d, want=%d", s, want)
		}
		ad, bd, cd := a.Sub(d), b.Sub(d), c.Sub(d)
		if sgn(ad.Dot(bd.Cross(cd))) != want {
			wrongFloat++
		}
	}
	if wrongFloat == 0 {
		t.Errorf("the plain float determinant was never wrong: the cases are not hard enough")
	}
	t.Logf("plain float determinant wrong in %d of 20000 cases; exact stages used %d times", wrongFloat, exactCalls.Load())
}

func TestOrient2DExact(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < 20000; i++ {
		ax, ay, bx, by := r.Float64(), r.Float64(), r.Float64(), r.Float64()
		s := r.Float64()
		cx, cy := ax+s*(bx-ax), ay+s*(by-ay)
		if i%2 == 0 {
			cy = math.Nextafter(cy, 2)
		}
		if got, want := Orient2D(ax, ay, bx, by, cx, cy), rat2(ax, ay, bx, by, cx, cy); got != want {
			t.Fatalf("Orient2D: got=%d, want=%d", got, want)
		}
	}
	// Huge and tiny magnitudes go to the exact stages and stay right.
	if got := Orient2D(0, 0, 1e300, 1e300, 2e300, 2e300); got != 0 {
		t.Errorf("collinear at 1e300: got=%d", got)
	}
	if got := Orient2D(0, 0, 1e-310, 0, 0, 1e-310); got != 1 {
		t.Errorf("subnormal ccw: got=%d, want=1", got)
	}
	// A spread of exponents that the 512-bit stage cannot hold: only
	// big.Rat sees that 1e300 − 1e-300 is not 1e300.
	// With a = (2⁻¹⁰⁰⁰, 0), b = (2¹⁰⁰⁰, 2¹⁰⁰⁰), c = (2¹⁰⁰¹, 2¹⁰⁰¹) the
	// determinant is exactly −1, and 0 once b−a and c−a are rounded.
	lo, hi := math.Ldexp(1, -1000), math.Ldexp(1, 1000)
	if got := Orient2D(lo, 0, hi, hi, 2*hi, 2*hi); got != -1 {
		t.Errorf("wide exponents: got=%d, want=-1", got)
	}
	if _, ok := float2(lo, 0, hi, hi, 2*hi, 2*hi); ok {
		t.Errorf("the big.Float stage claims an exact result it cannot have")
	}
	a3, b3, c3, d3 := v(lo, 0, 0), v(hi, hi, 0), v(2*hi, 2*hi, 0), v(lo, 0, 1)
	if got, want := Orient3D(a3, b3, c3, d3), rat3(a3, b3, c3, d3); got != want || want == 0 {
		t.Errorf("wide exponents in 3D: got=%d, want=%d (non-zero)", got, want)
	}
	if _, ok := float3(a3, b3, c3, d3); ok {
		t.Errorf("the 3D big.Float stage claims an exact result it cannot have")
	}
	// Rounded differences with exact products: (1−2⁻⁶⁰)·2 − 1·(2−2⁻⁶⁰)
	// = −2⁻⁶⁰, but 0 if the differences are taken as exact.
	if got := Orient2D(0x1p-60, 0, 1, 1, 2, 2); got != -1 {
		t.Errorf("rounded differences: got=%d, want=-1", got)
	}
	// Products that underflow: 1e-200² is below the smallest subnormal.
	if got := Orient2D(0, 0, 1e-200, 0, 0, 1e-200); got != 1 {
		t.Errorf("underflowing ccw: got=%d, want=1", got)
	}
	if got := Orient3D(v(1e-120, 0, 0), v(0, 1e-120, 0), v(0, 0, 1e-120), v(0, 0, 0)); got != rat3(v(1e-120, 0, 0), v(0, 1e-120, 0), v(0, 0, 1e-120), v(0, 0, 0)) || got == 0 {
		t.Errorf("underflowing orient3d: got=%d", got)
	}
}

// bruteIntersect decides whether two triangles meet by exact linear
// programming in barycentric coordinates: is there (u1, v1, u2, v2) ≥ 0
// with u1+v1 ≤ 1, u2+v2 ≤ 1 and a0 + u1(a1−a0) + v1(a2−a0) = b0 + …?
// The feasible set is a bounded polytope in R⁴, so it is non-empty exactly
// when one of its vertices exists: the unique solution of 4 of the 9
// constraints taken as equalities that satisfies all of them. Every
// 4-subset is tried, in big.Rat. Shares nothing with TrianglesIntersect.
func bruteIntersect(a, b [3]V) bool {
	R := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	// Constraints as rows [c0 c1 c2 c3 | rhs], kind 0: =, 1: ≥.
	type row struct {
		c   [4]*big.Rat
		rhs *big.Rat
		eq  bool
	}
	var rows []row
	comp := func(p V, k int) float64 { return [3]float64{p.X, p.Y, p.Z}[k] }
	for k := 0; k < 3; k++ {
		// u1(a1−a0) + v1(a2−a0) − u2(b1−b0) − v2(b2−b0) = b0 − a0
		c := [4]*big.Rat{
			new(big.Rat).Sub(R(comp(a[1], k)), R(comp(a[0], k))),
			new(big.Rat).Sub(R(comp(a[2], k)), R(comp(a[0], k))),
			new(big.Rat).Neg(new(big.Rat).Sub(R(comp(b[1], k)), R(comp(b[0], k)))),
			new(big.Rat).Neg(new(big.Rat).Sub(R(comp(b[2], k)), R(comp(b[0], k)))),
		}
		rows = append(rows, row{c, new(big.Rat).Sub(R(comp(b[0], k)), R(comp(a[0], k))), true})
	}
	one, zero, neg := big.NewRat(1, 1), new(big.Rat), big.NewRat(-1, 1)
	for i := 0; i < 4; i++ {
		c := [4]*big.Rat{zero, zero, zero, zero}
		c[i] = one
		rows = append(rows, row{c, zero, false}) // x_i ≥ 0
	}
	rows = append(rows, row{[4]*big.Rat{neg, neg, zero, zero}, neg, false}) // −u1−v1 ≥ −1
	rows = append(rows, row{[4]*big.Rat{zero, zero, neg, neg}, neg, false})
	feasible := func(x [4]*big.Rat) bool {
		for _, rw := range rows {
			s := new(big.Rat)
			for i := 0; i < 4; i++ {
				s.Add(s, new(big.Rat).Mul(rw.c[i], x[i]))
			}
			cmp := s.Cmp(rw.rhs)
			if rw.eq && cmp != 0 || !rw.eq && cmp < 0 {
				return false
			}
		}
		return true
	}
	n := len(rows)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				for l := k + 1; l < n; l++ {
					// Gaussian elimination on the 4×4 system.
					var m [4][5]*big.Rat
					for r, idx := range [4]int{i, j, k, l} {
						for c := 0; c < 4; c++ {
							m[r][c] = new(big.Rat).Set(rows[idx].c[c])
						}
						m[r][4] = new(big.Rat).Set(rows[idx].rhs)
					}
					singular := false
					for c := 0; c < 4 && !singular; c++ {
						p := -1
						for r := c; r < 4; r++ {
							if m[r][c].Sign() != 0 {
								p = r
								break
							}
						}
						if p < 0 {
							singular = true
							break
						}
						m[c], m[p] = m[p], m[c]
						for r := 0; r < 4; r++ {
							if r == c || m[r][c].Sign() == 0 {
								continue
							}
							f := new(big.Rat).Quo(m[r][c], m[c][c])
							for cc := c; cc < 5; cc++ {
								m[r][cc].Sub(m[r][cc], new(big.Rat).Mul(f, m[c][cc]))
							}
						}
					}
					if singular {
						continue
					}
					var x [4]*big.Rat
					for r := 0; r < 4; r++ {
						x[r] = new(big.Rat).Quo(m[r][4], m[r][r])
					}
					if feasible(x) {
						return true
					}
				}
			}
		}
	}
	return false
}

func tri(a, b, c V) [3]V { return [3]V{a, b, c} }

// TestSegmentPredicates is a table for the building blocks on their own
// (TrianglesIntersect tests both triangles' edges, which hides a fault in
// one of them).
func TestSegmentPredicates(t *testing.T) {
	segs := []struct {
		name       string
		p, q, a, b V
		want       bool
	}{
		{"crossing", v(0, 0, 0), v(2, 2, 0), v(0, 2, 0), v(2, 0, 0), true},
		{"skew", v(0, 0, 0), v(2, 2, 0), v(0, 2, 1), v(2, 0, 1), false},
		{"T-junction", v(0, 0, 0), v(2, 0, 0), v(1, 0, 0), v(1, 1, 0), true},
		{"T-junction, short", v(0, 0, 0), v(2, 0, 0), v(1, 0x1p-60, 0), v(1, 1, 0), false},
		{"collinear overlap", v(0, 0, 0), v(2, 2, 2), v(1, 1, 1), v(3, 3, 3), true},
		{"collinear end to end", v(0, 0, 0), v(1, 1, 1), v(1, 1, 1), v(3, 3, 3), true},
		{"collinear apart", v(0, 0, 0), v(1, 1, 1), v(2, 2, 2), v(3, 3, 3), false},
		{"collinear inside", v(0, 0, 0), v(3, 3, 3), v(1, 1, 1), v(2, 2, 2), true},
		{"point on segment", v(0, 0, 0), v(2, 4, 6), v(1, 2, 3), v(1, 2, 3), true},
		{"point off segment", v(0, 0, 0), v(2, 4, 6), v(1, 2, 3.5), v(1, 2, 3.5), false},
		{"parallel", v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(1, 1, 0), false},
	}
	for _, c := range segs {
		for s := 0; s < 8; s++ {
			p, q, a, b := c.p, c.q, c.a, c.b
			if s&1 != 0 {
				p, q = q, p
			}
			if s&2 != 0 {
				a, b = b, a
			}
			if s&4 != 0 {
				p, q, a, b = a, b, p, q
			}
			if got := SegmentsIntersect(p, q, a, b); got != c.want {
				t.Errorf("SegmentsIntersect %s (variant %d): got=%v, want=%v", c.name, s, got, c.want)
			}
		}
	}
	line := tri(v(0, 0, 0), v(1, 0, 0), v(2, 0, 0)) // a degenerate triangle: the segment [0, 2] on X
	base := tri(v(0, 0, 0), v(1, 0, 0), v(0, 1, 0))
	st := []struct {
		name string
		p, q V
		t    [3]V
		want bool
	}{
		{"crosses a degenerate triangle's second edge", v(1.5, -1, 0), v(1.5, 1, 0), line, true},
		{"crosses a degenerate triangle's first edge", v(0.5, -1, 0), v(0.5, 1, 0), line, true},
		{"misses a degenerate triangle", v(2.5, -1, 0), v(2.5, 1, 0), line, false},
		{"pierces", v(0.2, 0.2, -1), v(0.2, 0.2, 1), base, true},
		{"ends on the face", v(0.2, 0.2, 0), v(0.2, 0.2, 1), base, true},
		{"stops short", v(0.2, 0.2, 1e-300), v(0.2, 0.2, 1), base, false},
		{"through an edge", v(0.5, 0, -1), v(0.5, 0, 1), base, true},
		{"through a vertex", v(-1, 2, -1), v(1, 0, 1), base, true},
		{"beside a vertex", v(-1, 2, -1), v(1, 0x1p-50, 1), base, false},
		{"through a vertex, hitting it", v(1, -1, -1), v(1, 1, 1), base, true},
		{"in the plane, inside", v(0.1, 0.1, 0), v(0.2, 0.2, 0), base, true},
		{"in the plane, crossing", v(-1, 0.5, 0), v(2, 0.5, 0), base, true},
		{"in the plane, outside", v(1, 1, 0), v(2, 0.5, 0), base, false},
		{"in the plane, touching a vertex", v(0, 1, 0), v(-1, 3, 0), base, true},
	}
	for _, c := range st {
		for s := 0; s < 6; s++ {
			p, q := c.p, c.q
			if s&1 != 0 {
				p, q = q, p
			}
			r := s / 2
			tr := [3]V{c.t[r], c.t[(r+1)%3], c.t[(r+2)%3]}
			if got := SegmentTriangleIntersect(p, q, tr[0], tr[1], tr[2]); got != c.want {
				t.Errorf("SegmentTriangleIntersect %s (variant %d): got=%v, want=%v", c.name, s, got, c.want)
			}
		}
	}
}

// TestTrianglesIntersectCases is the hand-made table: crossing, touching,
// coplanar and degenerate configurations with the expected answers; each
// is also checked with the triangles swapped, with vertices rotated, and
// against bruteIntersect.
func TestTrianglesIntersectCases(t *testing.T) {
	base := tri(v(0, 0, 0), v(1, 0, 0), v(0, 1, 0))
	cases := []struct {
		name string
		a, b [3]V
		want bool
	}{
		{"separated above", base, tri(v(0, 0, 1), v(1, 0, 1), v(0, 1, 1)), false},
		{"parallel, one ulp above", base, tri(v(0, 0, 0x1p-1074), v(1, 0, 0x1p-1074), v(0, 1, 0x1p-1074)), false},
		{"piercing", base, tri(v(0.2, 0.2, -1), v(0.3, 0.2, 1), v(0.2, 0.3, 1)), true},
		{"crossing through an edge", base, tri(v(0.5, -0.5, -1), v(0.5, 0.5, 1), v(0.5, -0.5, 1)), true},
		{"vertex touches face", base, tri(v(0.2, 0.2, 0), v(0.3, 0.2, 1), v(0.2, 0.3, 1)), true},
		{"vertex just above face", base, tri(v(0.2, 0.2, 1e-300), v(0.3, 0.2, 1), v(0.2, 0.3, 1)), false},
		{"vertex touches vertex", base, tri(v(1, 0, 0), v(2, 0, 1), v(2, 1, 1)), true},
		{"vertex touches edge", base, tri(v(0.5, 0, 0), v(0.5, -1, 1), v(0.6, -1, -1)), true},
		{"edge crosses edge", base, tri(v(0.5, -0.5, 0), v(0.5, 0.5, 0.0), v(3, 3, 5)), true},
		{"edges skew, near miss", base, tri(v(0.5, -0.5, 1e-9), v(0.5, 0.5, 1e-9), v(0.5, 0, 1)), false},
		{"coplanar overlap", base, tri(v(0.5, 0.5, 0), v(-0.5, 0.5, 0), v(0.5, -0.5, 0)), true},
		{"coplanar contained", base, tri(v(0.1, 0.1, 0), v(0.2, 0.1, 0), v(0.1, 0.2, 0)), true},
		{"coplanar containing", tri(v(0.1, 0.1, 0), v(0.2, 0.1, 0), v(0.1, 0.2, 0)), base, true},
		{"coplanar disjoint", base, tri(v(1, 1, 0), v(2, 1, 0), v(1, 2, 0)), false},
		{"coplanar shared edge", base, tri(v(1, 0, 0), v(0, 1, 0), v(1, 1, 0)), true},
		{"coplanar T-junction", base, tri(v(0.5, 0, 0), v(0.5, -1, 0), v(0.7, -1, 0)), true},
		{"coplanar T-junction, one ulp away", base, tri(v(0.5, -0x1p-60, 0), v(0.5, -1, 0), v(0.7, -1, 0)), false},
		{"coplanar touching at a point", base, tri(v(0.5, 0.5, 0), v(1, 1, 0), v(0, 2, 0)), true},
		{"coplanar, one ulp apart", base, tri(v(1, math.Nextafter(0, 1), 0), v(0, math.Nextafter(1, 2), 0), v(1, 1, 0)), false},
		{"identical", base, base, true},
		{"degenerate segment piercing", base, tri(v(0.3, 0.3, -1), v(0.3, 0.3, 1), v(0.3, 0.3, 0.5)), true},
		{"degenerate segment beside", base, tri(v(0.6, 0.6, -1), v(0.6, 0.6, 1), v(0.6, 0.6, 0.5)), false},
		{"degenerate segment in the plane", base, tri(v(-1, 0.3, 0), v(2, 0.3, 0), v(0.5, 0.3, 0)), true},
		{"degenerate point on face", base, tri(v(0.25, 0.25, 0), v(0.25, 0.25, 0), v(0.25, 0.25, 0)), true},
		{"degenerate point off face", base, tri(v(0.25, 0.25, 1), v(0.25, 0.25, 1), v(0.25, 0.25, 1)), false},
		{"two collinear segments overlapping", tri(v(0, 0, 0), v(2, 2, 2), v(1, 1, 1)), tri(v(1.5, 1.5, 1.5), v(3, 3, 3), v(3, 3, 3)), true},
		{"two collinear segments apart", tri(v(0, 0, 0), v(1, 1, 1), v(0.5, 0.5, 0.5)), tri(v(1.5, 1.5, 1.5), v(3, 3, 3), v(3, 3, 3)), false},
		{"NaN", base, tri(v(math.NaN(), 0, 0), v(1, 0, 0), v(0, 1, 0)), true},
	}
	for _, c := range cases {
		for s := 0; s < 6; s++ {
			a, b := c.a, c.b
			if s%2 == 1 {
				a, b = b, a
			}
			r := s / 2
			a = [3]V{a[r], a[(r+1)%3], a[(r+2)%3]}
			if got := TrianglesIntersect(a, b); got != c.want {
				t.Errorf("%s (variant %d): got=%v, want=%v", c.name, s, got, c.want)
			}
		}
		if c.name != "NaN" {
			if got := bruteIntersect(c.a, c.b); got != c.want {
				t.Errorf("%s: the brute-force oracle says %v, the table %v", c.name, got, c.want)
			}
		}
	}
}

// TestTrianglesIntersectRandom compares TrianglesIntersect with the
// linear-programming oracle on random triangles: small integer
// coordinates (many touching, coplanar and degenerate cases) and random
// floats near each other.
func TestTrianglesIntersectRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	n := 1500
	if testing.Short() {
		n = 300
	}
	hits := 0
	for i := 0; i < n; i++ {
		var a, b [3]V
		for k := 0; k < 3; k++ {
			if i%2 == 0 {
				a[k] = v(float64(r.IntN(3)), float64(r.IntN(3)), float64(r.IntN(2)))
				b[k] = v(float64(r.IntN(3)), float64(r.IntN(3)), float64(r.IntN(2)))
			} else {
				a[k] = v(r.Float64(), r.Float64(), r.Float64())
				b[k] = v(r.Float64(), r.Float64(), r.Float64())
			}
		}
		want := bruteIntersect(a, b)
		if got := TrianglesIntersect(a, b); got != want {
			t.Fatalf("%v vs %v: got=%v, want=%v", a, b, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < n/10 || hits > 9*n/10 {
		t.Errorf("%d of %d intersect: the sample is lopsided", hits, n)
	}
	t.Logf("%d of %d random pairs intersect", hits, n)
}
