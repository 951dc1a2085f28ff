package detail

import (
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// clearSteps is the number of bisection steps by which clear finds how
// far a displacement may go: the scale back is within 2⁻¹² of |d_i| of
// the largest one that keeps the point out (under a micrometre for the
// millimetre displacements of folds).
const clearSteps = 12

// clear scales back, after the solve, every displacement that carries its
// fine point into an obstacle, and returns how many it scaled back.
// Tsiknis ch. 3 tests a step's displacements d + δd at the full step and
// scales them back to where the fine mesh is intersection-free. Decisions:
//
//   - Per point, not the whole step by one factor: the points are
//     independent along their normals, and one fold touching a body would
//     otherwise flatten every fold of the cloth.
//   - A point x_i + d_i·n̂_i may not lie deeper inside an obstacle than its
//     Loop point x_i does (min(0, φ(x_i)), φ the signed distance): the
//     coarse cloth stays a thickness h out of the bodies, but its Loop
//     surface cuts corners and may dip in where it wraps one; the detail
//     neither pushes that in further nor moves points the displacement
//     leaves alone.
//   - The largest admissible fraction α of d_i is found by bisection on
//     [0, 1] (clearSteps steps, keeping the admissible end), which finds a
//     boundary crossing; the fold's displacement is millimetres, against
//     bodies centimetres thick, so the segment x_i → x_i + d_i·n̂_i crosses
//     a surface at most once in practice.
//
// The scaled d_i is kept: the next frame's warm start starts from the
// intersection-free displacements, as the thesis's next step does.
func (d *Detailer) clear(obs []Obstacle) int {
	if len(obs) == 0 {
		return 0
	}
	n := 0
	for i := 0; i < d.t.nf; i++ {
		di := d.d[i]
		if di == 0 {
			continue
		}
		x, dir := d.x[i], d.n[i].Scale(di)
		a := 1.0
		for _, o := range obs {
			y := x.Add(dir.Scale(a))
			if !inBox(y, o.Lo, o.Hi) {
				continue // outside the box, outside the body
			}
			s1 := o.SignedDistance(y)
			if s1 >= 0 {
				continue
			}
			floor := min(0, o.SignedDistance(x))
			if s1 >= floor {
				continue
			}
			lo, hi := 0.0, a
			for k := 0; k < clearSteps; k++ {
				m := 0.5 * (lo + hi)
				if o.SignedDistance(x.Add(dir.Scale(m))) >= floor {
					lo = m
				} else {
					hi = m
				}
			}
			a = lo
		}
		if a < 1 {
			d.d[i] = a * di
			n++
		}
	}
	return n
}

func inBox(p, lo, hi geom.Vec3) bool {
	return p.X >= lo.X && p.X <= hi.X && p.Y >= lo.Y && p.Y <= hi.Y && p.Z >= lo.Z && p.Z <= hi.Z
}

// ObstacleAt returns obstacle o at pose P as the detail sees it. It keeps o
// and reads only its shape (SignedDistanceAt, BoundsAt), which may run
// while the simulation moves o (obstacle.Obstacle).
func ObstacleAt(o *obstacle.Obstacle, P obstacle.Pose) Obstacle {
	lo, hi := o.BoundsAt(P)
	return Obstacle{Lo: lo, Hi: hi, SignedDistance: func(p geom.Vec3) float64 {
		d, _ := o.SignedDistanceAt(P, p)
		return d
	}}
}
