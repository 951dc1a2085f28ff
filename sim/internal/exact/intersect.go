package exact

import (
	"math"

	"drape/sim/geom"
)

// The tests below are closed: touching counts as intersecting. Every
// predicate is Orient2D or Orient3D, so every answer is exact for finite
// coordinates.

// proj returns the 2D projection of p that drops coordinate k.
func proj(p geom.Vec3, k int) (float64, float64) {
	switch k {
	case 0:
		return p.Y, p.Z
	case 1:
		return p.Z, p.X
	}
	return p.X, p.Y
}

func orient2(a, b, c geom.Vec3, k int) int {
	ax, ay := proj(a, k)
	bx, by := proj(b, k)
	cx, cy := proj(c, k)
	return Orient2D(ax, ay, bx, by, cx, cy)
}

// collinear reports whether a, b, c lie on one line (or coincide): the
// three components of (b−a)×(c−a) are the three projections' orient2d.
func collinear(a, b, c geom.Vec3) bool {
	return orient2(a, b, c, 0) == 0 && orient2(a, b, c, 1) == 0 && orient2(a, b, c, 2) == 0
}

// between reports whether c lies in the axis-aligned box of a and b in the
// projection k (for points already known to be collinear with a, b).
func between(a, b, c geom.Vec3, k int) bool {
	ax, ay := proj(a, k)
	bx, by := proj(b, k)
	cx, cy := proj(c, k)
	return min(ax, bx) <= cx && cx <= max(ax, bx) && min(ay, by) <= cy && cy <= max(ay, by)
}

// segSeg2 reports whether the closed segments pq and ab meet in projection
// k (CLRS §33.1, SEGMENTS-INTERSECT, which also handles collinear overlap
// and segments that are points).
func segSeg2(p, q, a, b geom.Vec3, k int) bool {
	d1, d2 := orient2(p, q, a, k), orient2(p, q, b, k)
	d3, d4 := orient2(a, b, p, k), orient2(a, b, q, k)
	if d1*d2 < 0 && d3*d4 < 0 {
		return true
	}
	return d1 == 0 && between(p, q, a, k) || d2 == 0 && between(p, q, b, k) ||
		d3 == 0 && between(a, b, p, k) || d4 == 0 && between(a, b, q, k)
}

// pointInTri2 reports whether p lies in the closed, non-degenerate
// triangle abc in projection k: no two of the orientations of p against
// the edges have strictly opposite signs.
func pointInTri2(p, a, b, c geom.Vec3, k int) bool {
	s1, s2, s3 := orient2(a, b, p, k), orient2(b, c, p, k), orient2(c, a, p, k)
	return !(min(s1, s2, s3) < 0 && max(s1, s2, s3) > 0)
}

// segTri2 reports whether segment pq meets the closed triangle abc
// (possibly degenerate) in projection k: it crosses or touches an edge,
// or (for a non-degenerate triangle) p lies inside.
func segTri2(p, q, a, b, c geom.Vec3, k int) bool {
	if segSeg2(p, q, a, b, k) || segSeg2(p, q, b, c, k) || segSeg2(p, q, c, a, k) {
		return true
	}
	return orient2(a, b, c, k) != 0 && pointInTri2(p, a, b, c, k)
}

// projOrder returns the coordinate axes ordered by decreasing magnitude of
// the float normal (b−a)×(c−a): dropping the first is the projection that
// distorts the triangle's plane least.
func projOrder(a, b, c geom.Vec3) (int, int, int) {
	n := b.Sub(a).Cross(c.Sub(a))
	x, y, z := math.Abs(n.X), math.Abs(n.Y), math.Abs(n.Z)
	switch {
	case x >= y && x >= z:
		if y >= z {
			return 0, 1, 2
		}
		return 0, 2, 1
	case y >= z:
		if x >= z {
			return 1, 0, 2
		}
		return 1, 2, 0
	}
	if x >= y {
		return 2, 0, 1
	}
	return 2, 1, 0
}

// SegmentsIntersect reports whether the closed 3D segments pq and ab share
// a point. Non-coplanar segments never do. Coplanar ones do exactly when
// all three coordinate projections of them meet: at least one projection
// is one-to-one on the plane (or line) that holds the four points, and
// a 3D intersection projects to an intersection in every projection.
func SegmentsIntersect(p, q, a, b geom.Vec3) bool {
	if Orient3D(p, q, a, b) != 0 {
		return false
	}
	return segSeg2(p, q, a, b, 0) && segSeg2(p, q, a, b, 1) && segSeg2(p, q, a, b, 2)
}

// SegmentTriangleIntersect reports whether the closed segment pq meets the
// closed triangle abc.
//   - A degenerate (collinear) triangle is the union of its edges.
//   - If p and q are strictly on one side of the triangle's plane: no.
//   - If both lie in the plane: the coplanar case, decided in the three
//     projections as in SegmentsIntersect (the triangle's plane projects
//     one-to-one in at least one of them).
//   - Otherwise the line pq crosses the plane at one point of the
//     segment, which is in the closed triangle exactly when the signed
//     volumes orient3d(p, q, ·, ·) of the three edges have no strictly
//     opposite signs (the line passes on the same side of every edge).
func SegmentTriangleIntersect(p, q, a, b, c geom.Vec3) bool {
	if collinear(a, b, c) {
		return SegmentsIntersect(p, q, a, b) || SegmentsIntersect(p, q, b, c) || SegmentsIntersect(p, q, c, a)
	}
	o1, o2 := Orient3D(a, b, c, p), Orient3D(a, b, c, q)
	if o1*o2 > 0 {
		return false
	}
	if o1 == 0 && o2 == 0 {
		// All three projections must agree; the one along the normal's
		// largest (float) component goes first because it is the one
		// likely to say no. The order changes the speed only.
		k0, k1, k2 := projOrder(a, b, c)
		return segTri2(p, q, a, b, c, k0) && segTri2(p, q, a, b, c, k1) && segTri2(p, q, a, b, c, k2)
	}
	s1, s2, s3 := Orient3D(p, q, a, b), Orient3D(p, q, b, c), Orient3D(p, q, c, a)
	return !(min(s1, s2, s3) < 0 && max(s1, s2, s3) > 0)
}

// TrianglesIntersect reports whether the closed triangles a and b share a
// point (touching, coplanar overlap and degenerate triangles included).
// Exact for finite coordinates; a triangle with a NaN or infinite
// coordinate is reported as intersecting, so that a blown-up simulation
// cannot pass a check.
//
// It relies on: two closed triangles meet exactly when an edge of one
// meets the other. (⇐ is clear. ⇒: if the planes differ, a ∩ b lies on
// the planes' common line L, where a ∩ L and b ∩ L are segments whose
// endpoints lie on edges; two overlapping segments contain an endpoint of
// one in the other. If the triangles are coplanar, the convex set a ∩ b
// has a boundary point on an edge of a or b. A degenerate triangle is the
// union of its edges.)
func TrianglesIntersect(a, b [3]geom.Vec3) bool {
	for _, t := range [2][3]geom.Vec3{a, b} {
		for _, p := range t {
			if !p.IsFinite() {
				return true
			}
		}
	}
	// Quick exact rejection: all of one triangle strictly on one side of
	// the other's plane (a degenerate triangle's "plane" gives all zeros
	// and never rejects).
	if oneSide(a, b) || oneSide(b, a) {
		return false
	}
	for i := 0; i < 3; i++ {
		if SegmentTriangleIntersect(a[i], a[(i+1)%3], b[0], b[1], b[2]) ||
			SegmentTriangleIntersect(b[i], b[(i+1)%3], a[0], a[1], a[2]) {
			return true
		}
	}
	return false
}

// oneSide reports whether the vertices of b lie strictly on one side of
// the plane through a.
func oneSide(a, b [3]geom.Vec3) bool {
	s0 := Orient3D(a[0], a[1], a[2], b[0])
	return s0 != 0 && Orient3D(a[0], a[1], a[2], b[1]) == s0 && Orient3D(a[0], a[1], a[2], b[2]) == s0
}

// BelowPlane reports whether p lies strictly on the solid side of the
// plane through point with outward normal (not necessarily unit):
// (p − point)·normal < 0, the sign computed exactly.
func BelowPlane(p, point, normal geom.Vec3) bool { return dotSign(p, point, normal) < 0 }
