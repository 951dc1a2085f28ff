package fabric

import "math"

// PeirceAngle is the angle of the cantilever test's reference line below
// the horizontal, 41.5° (Peirce 1930; ASTM D1388 option A): when the tip
// of the overhanging strip touches it, the overhang is twice the bending
// length.
const PeirceAngle = 41.5 * math.Pi / 180

// elasticaTip returns the angle below the horizontal of the chord from the
// clamp to the tip of an inextensible heavy cantilever of length λ in
// units of its bending length c = (B/w)^⅓: the planar elastica
//
//	θ''(s) = −(λ − s)·cos θ(s),  θ(0) = 0,  θ'(λ) = 0
//
// (s in units of c, θ the slope angle below the horizontal), solved by
// shooting on θ'(0) with a fixed-step RK4 of 500 steps.
func elasticaTip(lambda float64) float64 {
	// integrate returns θ'(λ) and the tip position for a start slope k.
	integrate := func(k float64) (float64, float64, float64) {
		const n = 500
		h := lambda / n
		th, dth, x, y := 0.0, k, 0.0, 0.0
		f := func(s, th, dth float64) (float64, float64, float64, float64) {
			return dth, -(lambda - s) * math.Cos(th), math.Cos(th), math.Sin(th)
		}
		for i := 0; i < n; i++ {
			s := float64(i) * h
			a1, b1, c1, d1 := f(s, th, dth)
			a2, b2, c2, d2 := f(s+h/2, th+h/2*a1, dth+h/2*b1)
			a3, b3, c3, d3 := f(s+h/2, th+h/2*a2, dth+h/2*b2)
			a4, b4, c4, d4 := f(s+h, th+h*a3, dth+h*b3)
			th += h / 6 * (a1 + 2*a2 + 2*a3 + a4)
			dth += h / 6 * (b1 + 2*b2 + 2*b3 + b4)
			x += h / 6 * (c1 + 2*c2 + 2*c3 + c4)
			y += h / 6 * (d1 + 2*d2 + 2*d3 + d4)
		}
		return dth, x, y
	}
	// θ'(λ) decreases with k: bisect on k in [0, λ²/2] (the linear
	// beam's clamp curvature is λ²/2; gravity's moment only shrinks as
	// the strip bends).
	lo, hi := 0.0, lambda*lambda/2+1
	for i := 0; i < 50; i++ {
		mid := (lo + hi) / 2
		if d, _, _ := integrate(mid); d > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	_, x, y := integrate((lo + hi) / 2)
	return math.Atan2(y, x)
}

// ElasticaOverhang returns the overhang l/c at which the tip of the exact
// inextensible heavy elastica reaches the angle phi below the horizontal
// (bisection on elasticaTip). At PeirceAngle it is 2.0004: the
// standard's rule c = l/2 is exact to 0.02 % (the angle was chosen for
// it), while Peirce's small-angle formula c = l·(cos(θ/2)/(8·tan θ))^⅓
// gives l/c = 1.963.
func ElasticaOverhang(phi float64) float64 {
	lo, hi := 0.5, 5.0
	for i := 0; i < 40; i++ {
		mid := (lo + hi) / 2
		if elasticaTip(mid) < phi {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
