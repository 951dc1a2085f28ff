package springs

import (
	"math"

	"drape/sim/geom"
)

// refine checks the subdivision criteria on the current state and
// subdivides where they fire; it returns the number of subdivisions. The
// candidates are collected first and subdivided afterwards, so the order
// of the grid walk does not matter and each particle is subdivided at
// most once per animation step (§4.1).
//
// With coarsening on (CoarsenFraction f > 0) the same walk counts, for
// every active and fixed particle, the checks in a row in which it was
// quiet (see coarsen): no turning angle reached f·θ at its own spacing nor,
// if it is subdivided, at the spacing it had before.
func (c *Cloth) refine() int {
	thr := c.p.AngleDeg * math.Pi / 180
	calm := c.p.CoarsenFraction * thr
	var todo []int32
	for id := range c.pos {
		p := int32(id)
		if !c.massive(p) {
			continue
		}
		l := c.layer[p]
		deeper := int(l) < c.p.MaxLayer
		if calm <= 0 {
			if deeper && c.exceeds(p, l, thr) {
				todo = append(todo, p)
			}
			continue
		}
		loud := c.exceeds(p, l, calm)
		if loud && deeper && c.exceeds(p, l, thr) {
			todo = append(todo, p)
		}
		if loud || l > c.birth(p) && c.exceeds(p, l-1, calm) {
			c.quiet[p] = 0
		} else if c.quiet[p] < math.MaxInt32 {
			c.quiet[p]++
		}
	}
	n := 0
	for _, id := range todo {
		if c.subdivide(id) {
			n++
		}
	}
	return n
}

// exceeds reports whether, seen at the spacing 2^(m−l) of layer l, the
// angle criterion (§4.2) or the hanging-spring criterion (§4.3, with the
// constants of layer l) around particle id turns by more than thr
// (radians). refine asks it at the particle's layer with thr = θ for
// subdivision; coarsening asks it also one layer coarser, where the
// particle's neighbours at twice the spacing exist (see coarsen).
func (c *Cloth) exceeds(id int32, l uint8, thr float64) bool {
	if thr <= 0 {
		return false
	}
	s := c.spacing(l)
	i, j := c.gi[id], c.gj[id]
	x := c.pos[id]
	// §4.2: both neighbours along an axis exist → turning angle
	for _, o := range [2][2]int32{{1, 0}, {0, 1}} {
		a, b := c.at(i-o[0]*s, j-o[1]*s), c.at(i+o[0]*s, j+o[1]*s)
		if a >= 0 && b >= 0 && TurningAngle(c.pos[a], x, c.pos[b]) > thr {
			return true
		}
	}
	if c.p.Hanging <= 0 {
		return false
	}
	// §4.3: each structural neighbour B on its own
	k := c.p.stiffness(structural, int(l))
	for _, o := range [4][2]int32{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		b := c.at(i+o[0]*s, j+o[1]*s)
		if b < 0 {
			continue
		}
		l := c.p.Hanging * c.rest[id].Sub(c.rest[b]).Norm() / k
		m, ok := HangingMidpoint(x, c.pos[b], l, c.p.Gravity)
		if ok && TurningAngle(x, m, c.pos[b]) > thr {
			return true
		}
	}
	return false
}

// TurningAngle returns π − ∠(a−x, b−x), the angle by which the polyline
// a, x, b turns at x: 0 when straight, π when folded back (Olson & Rudnick
// §4.2 measure the angle between the two vectors; decision: its supplement,
// so that a flat sheet gives 0 and the threshold reads as a bend). 0 if x
// coincides with a or b.
func TurningAngle(a, x, b geom.Vec3) float64 {
	u, w := a.Sub(x), b.Sub(x)
	nu, nw := u.Norm(), w.Norm()
	if nu == 0 || nw == 0 {
		return 0
	}
	cos := u.Dot(w) / (nu * nw)
	return math.Pi - math.Acos(max(-1, min(1, cos)))
}

// HangingMidpoint returns the midpoint M of a parabola of arc length l
// hung between A and B under gravity g (Olson & Rudnick §4.3), and false
// when l ≤ |B−A| (the spring cannot hang: it is taut) or g = 0.
//
// The parabola lies in the vertical plane through A and B: with ŷ = −g/|g|
// (up), s the horizontal distance from A toward B and y the height above A,
// f(s) = α·s² + (B_y/B_s − α·B_s)·s passes through (0, 0) and (B_s, B_y),
// and α ≥ 0 (sagging) is found by bracketing and bisection so that its arc
// length (ArcLength) equals l. M = (B_s/2, f(B_s/2)). Decision: the paper
// projects onto (x−A_x, z−A_z), i.e. drops the height, which cannot be
// what is meant for hanging under gravity along y; the plane spanned by
// the chord and gravity is used instead, so the result does not depend
// on where the cloth is or which way it faces.
//
// A vertical pair (B_s < 10⁻⁹·|B−A|) has no parabola f(s) through both
// points; M is then the limit of the parabola for B_s → 0, the fold of a
// slack string hanging below the lower end: M = A + (B_y − l)/2·ŷ.
func HangingMidpoint(a, b geom.Vec3, l float64, g geom.Vec3) (geom.Vec3, bool) {
	gn := g.Norm()
	d := b.Sub(a)
	chord := d.Norm()
	if gn == 0 || !(l > chord) || chord == 0 {
		return geom.Vec3{}, false
	}
	up := g.Scale(-1 / gn)
	by := d.Dot(up)
	hor := d.Sub(up.Scale(by))
	bs := hor.Norm()
	if bs < 1e-9*chord {
		return a.Add(up.Scale((by - l) / 2)), true
	}
	sh := hor.Scale(1 / bs)
	alpha := HangingAlpha(bs, by, l)
	beta := by/bs - alpha*bs
	s := bs / 2
	return a.Add(sh.Scale(s)).Add(up.Scale(alpha*s*s + beta*s)), true
}

// HangingAlpha returns α ≥ 0 such that the parabola f(s) = α·s² +
// (by/bs − α·bs)·s has arc length l over [0, bs] (bs > 0). The arc length
// grows monotonically with α ≥ 0 from the chord; α is bracketed by doubling
// and then bisected to relative precision 10⁻¹² (about 40 evaluations; the
// criterion is checked for every slack structural spring, so this is its
// cost). It returns 0 when
// l ≤ the chord length.
func HangingAlpha(bs, by, l float64) float64 {
	if l <= math.Hypot(bs, by) {
		return 0
	}
	hi := 1 / bs
	for ArcLength(hi, bs, by) < l {
		hi *= 2
		if math.IsInf(hi, 1) {
			return math.MaxFloat64
		}
	}
	lo := 0.0
	for hi-lo > 1e-12*hi {
		mid := lo + (hi-lo)/2
		if ArcLength(mid, bs, by) < l {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// ArcLength returns ∫₀^bs √(1 + f'(s)²) ds for f(s) = α·s² + (by/bs − α·bs)·s,
// in closed form: with u = f'(s) = 2αs + β running from u₀ = β to
// u₁ = 2α·bs + β and F(u) = ½(u√(1+u²) + asinh u), the length is
// (F(u₁) − F(u₀))/(2α). When u₀ and u₁ have the same sign the difference is
// rewritten without cancellation:
//
//	u₁√(1+u₁²) − u₀√(1+u₀²) = (u₁−u₀)(u₁+u₀)(1+u₁²+u₀²) / (u₁√(1+u₁²) + u₀√(1+u₀²)),
//	asinh u₁ − asinh u₀ = asinh((u₁²−u₀²) / (u₁√(1+u₀²) + u₀√(1+u₁²))),
//
// and u₁−u₀ = 2α·bs cancels the 1/(2α) analytically, so α → 0 gives the chord.
func ArcLength(alpha, bs, by float64) float64 {
	beta := by/bs - alpha*bs
	u0, u1 := beta, 2*alpha*bs+beta
	if u0 < 0 && u1 <= 0 { // F is odd: mirror
		u0, u1 = -u1, -u0
	}
	r0, r1 := math.Sqrt(1+u0*u0), math.Sqrt(1+u1*u1)
	if u0 >= 0 {
		// (u₁−u₀)/(2α) = bs
		p := bs * (u1 + u0) * (1 + u1*u1 + u0*u0) / (u1*r1 + u0*r0)
		var q float64
		if alpha == 0 {
			q = bs / r0
		} else {
			q = math.Asinh((u1-u0)*(u1+u0)/(u1*r0+u0*r1)) / (2 * alpha)
		}
		return (p + q) / 2
	}
	// u₀ < 0 < u₁: F(u₁) > 0 > F(u₀), no cancellation (α > 0 here)
	F := func(u, r float64) float64 { return (u*r + math.Asinh(u)) / 2 }
	return (F(u1, r1) - F(u0, r0)) / (2 * alpha)
}
