package exact

import (
	"math"

	"drape/sim/geom"
)

// rayDirs are the directions PointInsideMesh tries in turn: the six axis
// directions (which the Checker's index accelerates), then oblique ones.
var rayDirs = []geom.Vec3{
	{X: 1}, {Y: 1}, {Z: 1}, {X: -1}, {Y: -1}, {Z: -1},
	{X: 0.5377, Y: 0.8315, Z: 0.1397}, {X: -0.3211, Y: 0.1178, Z: 0.9397},
	{X: 0.7071, Y: -0.6018, Z: -0.3714}, {X: -0.8, Y: -0.36, Z: 0.48},
	{X: 0.13, Y: -0.97, Z: 0.2}, {X: -0.41, Y: 0.58, Z: -0.7},
}

// crossing classifies the segment pq (p the query, q beyond the mesh's
// bounding box) against the closed triangle abc: a proper crossing of its
// interior; p on the triangle; a degenerate touch (through an edge, a
// vertex, within the plane, or across a zero-area face) that makes this
// ray useless for parity; or nothing.
type crossing uint8

const (
	miss crossing = iota
	hit
	onSurface
	degenerate
)

func classify(p, q, a, b, c geom.Vec3) crossing {
	if collinear(a, b, c) {
		switch {
		case SegmentTriangleIntersect(p, p, a, b, c):
			return onSurface
		case SegmentTriangleIntersect(p, q, a, b, c):
			return degenerate
		}
		return miss
	}
	o1, o2 := Orient3D(a, b, c, p), Orient3D(a, b, c, q)
	if o1 == 0 {
		switch {
		case SegmentTriangleIntersect(p, p, a, b, c):
			return onSurface
		case o2 == 0 && SegmentTriangleIntersect(p, q, a, b, c):
			return degenerate
		}
		return miss // touches the plane at p only, outside the triangle
	}
	if o2 == 0 || o1 == o2 {
		return miss // q is outside the bounding box, so not on the triangle
	}
	s1, s2, s3 := Orient3D(p, q, a, b), Orient3D(p, q, b, c), Orient3D(p, q, c, a)
	switch {
	case s1 == s2 && s2 == s3 && s1 != 0:
		return hit
	case min(s1, s2, s3) < 0 && max(s1, s2, s3) > 0:
		return miss
	}
	return degenerate
}

// rayEnd returns the far end of the ray from p along d: a point beyond the
// box [lo, hi] whichever way d points.
func rayEnd(p geom.Vec3, k int, lo, hi geom.Vec3) geom.Vec3 {
	d := rayDirs[k]
	if k < 6 {
		// An axis direction: move one coordinate only, so q differs
		// from p in that coordinate exactly.
		q := p
		switch {
		case d.X != 0:
			q.X = beyond(d.X, lo.X, hi.X)
		case d.Y != 0:
			q.Y = beyond(d.Y, lo.Y, hi.Y)
		default:
			q.Z = beyond(d.Z, lo.Z, hi.Z)
		}
		return q
	}
	L := 2*(hi.Sub(lo).Norm()+p.Sub(lo).Norm()+p.Sub(hi).Norm()) + 1
	return p.Add(d.Scale(L))
}

func beyond(s, lo, hi float64) float64 {
	if s > 0 {
		return hi + 1 + math.Abs(hi)
	}
	return lo - 1 - math.Abs(lo)
}

// parity casts the ray from p along rayDirs[k] and reports the parity of
// its crossings with the candidate faces, or ok=false when the ray touched
// a face degenerately, and on=true when p lies on a face.
func parity(p geom.Vec3, k int, lo, hi geom.Vec3, pos []geom.Vec3, tris [][3]int32, cand []int32) (odd, on, ok bool) {
	q := rayEnd(p, k, lo, hi)
	visit := func(t [3]int32) bool {
		switch classify(p, q, pos[t[0]], pos[t[1]], pos[t[2]]) {
		case hit:
			odd = !odd
		case onSurface:
			on = true
			return false
		case degenerate:
			return false
		}
		return true
	}
	if cand == nil {
		for _, t := range tris {
			if t[0] >= 0 && !visit(t) {
				return false, on, false
			}
		}
	} else {
		for _, f := range cand {
			if !visit(tris[f]) {
				return false, on, false
			}
		}
	}
	return odd, false, true
}

func meshBounds(pos []geom.Vec3, tris [][3]int32) (lo, hi geom.Vec3, ok bool) {
	lo = geom.Vec3{X: math.Inf(1), Y: math.Inf(1), Z: math.Inf(1)}
	hi = lo.Scale(-1)
	for _, t := range tris {
		if t[0] < 0 {
			continue
		}
		b := triBox(pos, t)
		lo = geom.Vec3{X: min(lo.X, b.lo.X), Y: min(lo.Y, b.lo.Y), Z: min(lo.Z, b.lo.Z)}
		hi = geom.Vec3{X: max(hi.X, b.hi.X), Y: max(hi.Y, b.hi.Y), Z: max(hi.Z, b.hi.Z)}
		ok = true
	}
	return lo, hi, ok && lo.IsFinite() && hi.IsFinite()
}

func inBox(p, lo, hi geom.Vec3) bool {
	return p.X >= lo.X && p.X <= hi.X && p.Y >= lo.Y && p.Y <= hi.Y && p.Z >= lo.Z && p.Z <= hi.Z
}

// PointInsideMesh reports whether p lies strictly inside the closed
// triangle mesh (pos, tris; faces with t[0] < 0 are dead), by the exact
// parity of the crossings of a ray from p: each face is classified with
// exact orientation predicates, and a ray that passes through an edge or
// a vertex, or runs within a face's plane across it, is discarded for the
// next of a fixed list of directions (the perturbation rule: only rays
// that cross face interiors transversally are counted). A point on the
// surface is not inside. If every direction is degenerate (no case is
// known), it answers false. Non-finite p: false. Cost: all faces per ray.
func PointInsideMesh(p geom.Vec3, pos []geom.Vec3, tris [][3]int32) bool {
	lo, hi, ok := meshBounds(pos, tris)
	if !ok || !p.IsFinite() || !inBox(p, lo, hi) {
		return false
	}
	for k := range rayDirs {
		odd, on, ok := parity(p, k, lo, hi, pos, tris, nil)
		if on {
			return false
		}
		if ok {
			return odd
		}
	}
	return false
}
