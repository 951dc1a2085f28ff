package obstacle

import (
	"math"

	"drape/sim/geom"
)

// localDistance returns the signed distance and outward unit normal of the
// local shape at local point p. The formulas are the exact Euclidean
// distances to each primitive (Quílez's signed distance functions, with
// the interior distance to the nearest face); Bender & Deul §6 and
// Bridson et al. §6 only need distance and normal from it.
func (o *Obstacle) localDistance(p geom.Vec3) (float64, geom.Vec3) {
	up := geom.Vec3{Y: 1}
	switch o.Kind {
	case Plane:
		return p.Y, up
	case Sphere:
		r := p.Norm()
		if r == 0 {
			return -o.radius, up
		}
		return r - o.radius, p.Scale(1 / r)
	case Box:
		return boxDistance(p, o.half)
	case Capsule:
		c := geom.Vec3{Y: math.Max(-o.height/2, math.Min(o.height/2, p.Y))}
		v := p.Sub(c)
		l := v.Norm()
		if l == 0 {
			return -o.radius, geom.Vec3{X: 1}
		}
		return l - o.radius, v.Scale(1 / l)
	case Cylinder:
		return cylinderDistance(p, o.radius, o.height/2)
	case Mesh:
		return o.sdf.distance(p)
	}
	return math.Inf(1), up
}

// boxDistance is the signed distance to the box [−h, h]: outside, the
// distance to the clamped point; inside, minus the distance to the nearest
// face (ties go to the first axis, X before Y before Z).
func boxDistance(p, h geom.Vec3) (float64, geom.Vec3) {
	q := [3]float64{math.Abs(p.X) - h.X, math.Abs(p.Y) - h.Y, math.Abs(p.Z) - h.Z}
	if q[0] > 0 || q[1] > 0 || q[2] > 0 {
		c := geom.Vec3{
			X: math.Max(-h.X, math.Min(h.X, p.X)),
			Y: math.Max(-h.Y, math.Min(h.Y, p.Y)),
			Z: math.Max(-h.Z, math.Min(h.Z, p.Z)),
		}
		v := p.Sub(c)
		d := v.Norm()
		return d, v.Scale(1 / d)
	}
	k := 0
	for i := 1; i < 3; i++ {
		if q[i] > q[k] {
			k = i
		}
	}
	var n geom.Vec3
	switch k {
	case 0:
		n.X = sign(p.X)
	case 1:
		n.Y = sign(p.Y)
	default:
		n.Z = sign(p.Z)
	}
	return q[k], n
}

// cylinderDistance is the signed distance to the capped cylinder
// ρ ≤ r, |y| ≤ hh about local Y, with ρ = √(x²+z²).
func cylinderDistance(p geom.Vec3, r, hh float64) (float64, geom.Vec3) {
	rho := math.Hypot(p.X, p.Z)
	u := geom.Vec3{X: 1}
	if rho > 0 {
		u = geom.Vec3{X: p.X / rho, Z: p.Z / rho}
	}
	dr, dy := rho-r, math.Abs(p.Y)-hh
	sy := sign(p.Y)
	if dr > 0 || dy > 0 {
		a, b := math.Max(dr, 0), math.Max(dy, 0)
		d := math.Hypot(a, b)
		return d, u.Scale(a / d).Add(geom.Vec3{Y: sy * b / d})
	}
	if dr > dy {
		return dr, u
	}
	return dy, geom.Vec3{Y: sy}
}

// sign returns −1 for negative x and +1 otherwise (also for ±0).
func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
