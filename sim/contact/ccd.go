package contact

import (
	"math"

	"drape/sim/geom"
)

// This file holds the narrow phase of continuous collision detection
// (Bridson, Fedkiw & Anderson 2002 §6.4; Provot 1997 §3): four points move
// on straight lines x_i(t) = x_i + t·d_i over the step, t ∈ [0, 1], and a
// vertex–face or edge–edge pair collides at the first t at which the four
// points are coplanar and the primitives are within a distance tolerance δ
// of each other.

// cubic holds the coefficients of c0 + c1·t + c2·t² + c3·t³.
type cubic [4]float64

func (c *cubic) at(t float64) float64 { return c[0] + t*(c[1]+t*(c[2]+t*c[3])) }

// tripleCubic returns the coefficients of ((a1+t·b1)×(a2+t·b2))·(a3+t·b3).
func tripleCubic(a1, b1, a2, b2, a3, b3 geom.Vec3) cubic {
	a12 := a1.Cross(a2)
	b12 := b1.Cross(b2)
	m := b1.Cross(a2).Add(a1.Cross(b2))
	return cubic{
		a12.Dot(a3),
		m.Dot(a3) + a12.Dot(b3),
		b12.Dot(a3) + m.Dot(b3),
		b12.Dot(b3),
	}
}

// candidateTimes writes into ts, in increasing order, the times in [0, 1]
// that the geometric test must look at for the cubic c: its roots, and its
// end points and interior critical points (where a grazing contact, a double
// root, or a root at t = 0 or t = 1 lies when round-off keeps the value off
// zero). It returns the number written (at most 8).
//
// The roots are bracketed between consecutive critical points, where c is
// monotone, and found by bisection to full precision (60 halvings of the
// bracket), so no root is missed for lack of a sign change inside a
// bracket. The caller filters by distance, so extra times cost a distance
// evaluation and never give a false hit.
func candidateTimes(c cubic, ts *[8]float64) int {
	// Critical points: roots of c1 + 2c2·t + 3c3·t².
	var knots [4]float64
	nk := 0
	knots[nk] = 0
	nk++
	var crit [2]float64
	nc := quadraticRoots(3*c[3], 2*c[2], c[1], &crit)
	for i := 0; i < nc; i++ {
		if crit[i] > 0 && crit[i] < 1 {
			knots[nk] = crit[i]
			nk++
		}
	}
	knots[nk] = 1
	nk++
	n := 0
	for i := 0; i < nk; i++ {
		ts[n] = knots[i]
		n++
		if i+1 == nk {
			break
		}
		lo, hi := knots[i], knots[i+1]
		flo, fhi := c.at(lo), c.at(hi)
		if flo == 0 || fhi == 0 || (flo < 0) == (fhi < 0) {
			continue
		}
		for it := 0; it < 60; it++ {
			mid := 0.5 * (lo + hi)
			fm := c.at(mid)
			if (fm < 0) == (flo < 0) {
				lo, flo = mid, fm
			} else {
				hi = mid
			}
			if hi-lo < 1e-15 {
				break
			}
		}
		ts[n] = 0.5 * (lo + hi)
		n++
	}
	return n
}

// quadraticRoots writes the real roots of a·t² + b·t + c = 0 into r in
// increasing order and returns their number; a linear or constant equation
// gives one root or none. It uses the cancellation-free form
// q = −½(b + sign(b)·√disc), t = q/a, c/q.
func quadraticRoots(a, b, c float64, r *[2]float64) int {
	scale := math.Max(math.Abs(a), math.Max(math.Abs(b), math.Abs(c)))
	if scale == 0 {
		return 0
	}
	if math.Abs(a) <= 1e-14*scale {
		if b == 0 {
			return 0
		}
		r[0] = -c / b
		return 1
	}
	disc := b*b - 4*a*c
	if disc < 0 {
		// A double root pushed to a negative discriminant by round-off is
		// still a critical point: keep −b/2a when the discriminant is tiny.
		if disc > -1e-12*b*b {
			r[0] = -b / (2 * a)
			return 1
		}
		return 0
	}
	s := math.Sqrt(disc)
	q := -0.5 * (b + math.Copysign(s, b))
	t0, t1 := q/a, 0.0
	if q != 0 {
		t1 = c / q
	} else {
		t1 = t0
	}
	if t0 > t1 {
		t0, t1 = t1, t0
	}
	r[0], r[1] = t0, t1
	return 2
}

// lerp returns x + t·d.
func lerp(x, d geom.Vec3, t float64) geom.Vec3 {
	return geom.Vec3{X: x.X + t*d.X, Y: x.Y + t*d.Y, Z: x.Z + t*d.Z}
}

// vertexFaceCCD returns the first time t ∈ [0, 1] at which point p (moving
// by dp over the step) comes within delta of triangle (a, b, c) (moving by
// da, db, dc), found among the coplanarity times of the four points
// (candidateTimes). When the motion keeps the point in the triangle's plane
// for the whole step (the cubic vanishes identically, as for a point
// sliding in the plane of the face) the coplanarity times say nothing and
// the first time of contact is found from the distance itself
// (firstContact). A degenerate (zero-area) face reports nothing: its edges'
// edge–edge tests cover it.
//
// Only times after `after` count (after < 0: all of [0, 1]): a caller that
// rejects the first time (a pair touching at x^n and separating there,
// addHit) asks again from it, since the primitives can still pass through
// each other later in the step (TestTouchingThenCrossing). The coplanar
// case searches from t = 0 only (after ≥ 0 reports nothing there).
func vertexFaceCCD(p, dp, a, da, b, db, c, dc geom.Vec3, delta, after float64) (float64, bool) {
	ab, dab := b.Sub(a), db.Sub(da)
	ac, dac := c.Sub(a), dc.Sub(da)
	ap, dap := p.Sub(a), dp.Sub(da)
	cu := tripleCubic(ab, dab, ac, dac, ap, dap)
	dist := func(t float64) float64 {
		return geom.PointTriangleDistance(lerp(p, dp, t), lerp(a, da, t), lerp(b, db, t), lerp(c, dc, t))
	}
	if coplanarThroughout(cu, func(t float64) float64 {
		return lerp(ab, dab, t).Cross(lerp(ac, dac, t)).Norm() * lerp(ap, dap, t).Norm()
	}) {
		if after >= 0 {
			return 0, false
		}
		return firstContact(dist, vfLipschitz(dp, da, db, dc), delta)
	}
	var ts [8]float64
	n := candidateTimes(cu, &ts)
	for i := 0; i < n; i++ {
		t := ts[i]
		if t <= after {
			continue
		}
		nrm := lerp(ab, dab, t).Cross(lerp(ac, dac, t))
		// Point-to-plane distance |f|/|n| first, the exact distance only
		// when that is small.
		if math.Abs(cu.at(t)) > delta*nrm.Norm() {
			continue
		}
		if dist(t) <= delta {
			return t, true
		}
	}
	return 0, false
}

// edgeEdgeCCD returns the first time t ∈ [0, 1] at which segment (p0, p1)
// comes within delta of segment (q0, q1), each end point moving by its d.
// Parallel edges (the cubic's normal (p1−p0)×(q1−q0) vanishes) and edges
// that stay coplanar throughout are found from the distance itself
// (firstContact), since the coplanarity cubic vanishes identically there.
// after is vertexFaceCCD's.
func edgeEdgeCCD(p0, dp0, p1, dp1, q0, dq0, q1, dq1 geom.Vec3, delta, after float64) (float64, bool) {
	e1, de1 := p1.Sub(p0), dp1.Sub(dp0)
	e2, de2 := q1.Sub(q0), dq1.Sub(dq0)
	w, dw := q0.Sub(p0), dq0.Sub(dp0)
	cu := tripleCubic(e1, de1, e2, de2, w, dw)
	dist := func(t float64) float64 {
		d, _, _ := segmentDistance(lerp(p0, dp0, t), lerp(p1, dp1, t), lerp(q0, dq0, t), lerp(q1, dq1, t))
		return d
	}
	if coplanarThroughout(cu, func(t float64) float64 {
		return lerp(e1, de1, t).Norm() * lerp(e2, de2, t).Norm() * lerp(w, dw, t).Norm()
	}) {
		if after >= 0 {
			return 0, false
		}
		return firstContact(dist, eeLipschitz(dp0, dp1, dq0, dq1), delta)
	}
	var ts [8]float64
	n := candidateTimes(cu, &ts)
	for i := 0; i < n; i++ {
		t := ts[i]
		if t <= after {
			continue
		}
		nrm := lerp(e1, de1, t).Cross(lerp(e2, de2, t))
		nn := nrm.Norm()
		if math.Abs(cu.at(t)) > delta*nn {
			continue
		}
		if dist(t) <= delta {
			return t, true
		}
	}
	// Nearly parallel edges: |n| is small all along and the plane test above
	// is meaningless; fall back to the distance.
	if after < 0 && nearlyParallel(e1, de1, e2, de2) {
		return firstContact(dist, eeLipschitz(dp0, dp1, dq0, dq1), delta)
	}
	return 0, false
}

// coplanarThroughout reports whether the coplanarity cubic is negligible
// against the scale of the geometry at t = 0, ½ and 1 (scale(t) is the
// product of the three lengths that make up the triple product): the four
// points then stay (nearly) coplanar, or the primitives degenerate, for the
// whole step. Relative tolerance 1e-9.
func coplanarThroughout(c cubic, scale func(t float64) float64) bool {
	for _, t := range [3]float64{0, 0.5, 1} {
		s := scale(t)
		if math.Abs(c.at(t)) > 1e-9*s || s == 0 && c.at(t) != 0 {
			return false
		}
	}
	return true
}

// vfLipschitz bounds the change over the step of the distance between a
// point moving by dp and a triangle whose corners move by da, db, dc: in the
// frame moving with the first corner the point moves by dp−da and every
// point of the triangle by at most max(|db−da|, |dc−da|).
func vfLipschitz(dp, da, db, dc geom.Vec3) float64 {
	return dp.Sub(da).Norm() + math.Max(db.Sub(da).Norm(), dc.Sub(da).Norm())
}

// eeLipschitz is vfLipschitz for two segments, in the frame of q0.
func eeLipschitz(dp0, dp1, dq0, dq1 geom.Vec3) float64 {
	return math.Max(dp0.Sub(dq0).Norm(), dp1.Sub(dq0).Norm()) + dq1.Sub(dq0).Norm()
}

// nearlyParallel reports whether the two edges are within 1e-6 rad of
// parallel at the start or the end of the step.
func nearlyParallel(e1, de1, e2, de2 geom.Vec3) bool {
	for _, t := range [2]float64{0, 1} {
		a, b := lerp(e1, de1, t), lerp(e2, de2, t)
		if a.Cross(b).Norm() <= 1e-6*a.Norm()*b.Norm() {
			return true
		}
	}
	return false
}

// firstContact returns the first t ∈ [0, 1] with dist(t) ≤ delta, for
// motions the coplanarity cubic cannot resolve (coplanar or parallel
// primitives, round bodies), by conservative advancement: lip bounds how
// fast the distance can change per unit t (the largest relative
// displacement of the primitives' points), so no contact lies in
// (t, t + (dist(t)−delta)/lip) and that step is safe. The step is taken
// with a margin (delta/2 instead of delta), so an approach that only
// grazes delta ends in a bounded number of steps; after
// firstContactSteps steps the current time is reported as a contact (a
// spurious contact costs an impulse, a missed one an intersection; the
// caller can tell by dist there).
func firstContact(dist func(float64) float64, lip, delta float64) (float64, bool) {
	t := 0.0
	for it := 0; it < firstContactSteps; it++ {
		d := dist(t)
		if d <= delta {
			return t, true
		}
		if lip <= 0 {
			return 0, false
		}
		t += (d - 0.5*delta) / lip
		if t > 1 {
			if d1 := dist(1); d1 <= delta {
				return 1, true
			}
			return 0, false
		}
	}
	return t, true
}

// firstContactSteps caps conservative advancement. A face sliding fast
// along a sphere a fraction of a millimetre off it (10 m/s, 0.3–0.6 mm, on
// TestDropOnRoundBodies) advances by d/lip ≈ 1 % of the step at a time:
// 64 steps ended half-way and reported a contact that was not there,
// again in every pass, until an impact zone took the face.
const firstContactSteps = 1024

// bisectFirst narrows [lo, hi] with dist(lo) > delta ≥ dist(hi) to the first
// time within delta, returning a time at which dist ≤ delta.
func bisectFirst(dist func(float64) float64, lo, hi, delta float64) float64 {
	for it := 0; it < 60 && hi-lo > 1e-14; it++ {
		mid := 0.5 * (lo + hi)
		if dist(mid) <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// segmentDistance returns the distance between segments (p0, p1) and
// (q0, q1) and the parameters s, u ∈ [0, 1] of the closest points
// p0 + s·(p1−p0) and q0 + u·(q1−q0) (Ericson, Real-Time Collision Detection
// §5.1.9). Degenerate segments are handled as points; for parallel
// segments one closest pair is returned.
func segmentDistance(p0, p1, q0, q1 geom.Vec3) (dist, s, u float64) {
	d1, d2 := p1.Sub(p0), q1.Sub(q0)
	r := p0.Sub(q0)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	const eps = 1e-30
	switch {
	case a <= eps && e <= eps:
		s, u = 0, 0
	case a <= eps:
		s, u = 0, clamp01(f/e)
	default:
		c := d1.Dot(r)
		if e <= eps {
			u, s = 0, clamp01(-c/a)
		} else {
			b := d1.Dot(d2)
			den := a*e - b*b
			if den > 1e-14*a*e {
				s = clamp01((b*f - c*e) / den)
			} else {
				s = 0
			}
			u = (b*s + f) / e
			if u < 0 {
				u, s = 0, clamp01(-c/a)
			} else if u > 1 {
				u, s = 1, clamp01((b-c)/a)
			}
		}
	}
	cp := lerp(p0, d1, s)
	cq := lerp(q0, d2, u)
	return cp.Sub(cq).Norm(), s, u
}

// pointTriangle returns the barycentric weights (w0, w1, w2) of the point of
// triangle (a, b, c) closest to p (Ericson §5.1.5), so that the closest
// point is w0·a + w1·b + w2·c. A degenerate triangle is handled through the
// region tests as well (its closest point lies on an edge or a vertex).
func pointTriangle(p, a, b, c geom.Vec3) (w0, w1, w2 float64) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return 1, 0, 0
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return 0, 1, 0
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return 1 - v, v, 0
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return 0, 0, 1
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		w := d2 / (d2 - d6)
		return 1 - w, 0, w
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return 0, 1 - w, w
	}
	den := va + vb + vc
	if den == 0 || math.IsNaN(den) {
		// Degenerate triangle: closest of the three edges.
		best, bw := math.Inf(1), [3]float64{1, 0, 0}
		for k := 0; k < 3; k++ {
			x0, x1 := [3]geom.Vec3{a, b, c}[k], [3]geom.Vec3{a, b, c}[(k+1)%3]
			d, s, _ := segmentDistance(x0, x1, p, p)
			if d < best {
				best = d
				bw = [3]float64{}
				bw[k], bw[(k+1)%3] = 1-s, s
			}
		}
		return bw[0], bw[1], bw[2]
	}
	v, w := vb/den, vc/den
	return 1 - v - w, v, w
}

func clamp01(x float64) float64 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}
