package obstacle

import (
	"math"

	"drape/sim/geom"
)

// meshSDF is the signed distance to a triangle mesh: the distance to the
// closest triangle (found through a bounding-volume hierarchy over the
// triangles, bvh) with the sign of (p − c)·N, where c is the closest
// point and N the angle-weighted pseudo-normal of the feature c lies on:
// the face normal inside a face, the sum of the two face normals on an
// edge, the angle-weighted sum of the face normals at a vertex (Bærentzen
// & Aanæs 2005, "Signed distance computation using the angle weighted
// pseudonormal", which proves the sign correct for closed 2-manifolds).
// On an open mesh the sign tells which side of the closest surface p is
// on (the side counter-clockwise faces face is positive); an edge shared
// by more than two faces sums all their normals.
type meshSDF struct {
	pos   []geom.Vec3
	tris  [][3]int32
	faceN []geom.Vec3    // unit face normals (zero for a degenerate face)
	edgeN [][3]geom.Vec3 // pseudo-normal of edge i (Tris[f][i] → Tris[f][i+1])
	vertN []geom.Vec3    // angle-weighted vertex pseudo-normals (not unit)

	nodes []bvhNode // the hierarchy; nodes[0] is the root (none for no triangles)
	order []int32   // the triangles, grouped by leaf
}

// meshNormals returns the unit angle-weighted vertex normals of a mesh
// (zero where they cancel).
func meshNormals(pos []geom.Vec3, tris [][3]int32) []geom.Vec3 {
	n := make([]geom.Vec3, len(pos))
	for _, t := range tris {
		fn := pos[t[1]].Sub(pos[t[0]]).Cross(pos[t[2]].Sub(pos[t[0]])).Unit()
		for c := 0; c < 3; c++ {
			n[t[c]] = n[t[c]].Add(fn.Scale(cornerAngle(pos, t, c)))
		}
	}
	for i := range n {
		n[i] = n[i].Unit()
	}
	return n
}

// cornerAngle returns the interior angle of triangle t at corner c.
func cornerAngle(pos []geom.Vec3, t [3]int32, c int) float64 {
	a := pos[t[(c+1)%3]].Sub(pos[t[c]])
	b := pos[t[(c+2)%3]].Sub(pos[t[c]])
	return math.Atan2(a.Cross(b).Norm(), a.Dot(b))
}

func newMeshSDF(pos []geom.Vec3, tris [][3]int32) *meshSDF {
	m := &meshSDF{pos: pos, tris: tris}
	m.faceN = make([]geom.Vec3, len(tris))
	m.vertN = make([]geom.Vec3, len(pos))
	m.edgeN = make([][3]geom.Vec3, len(tris))
	edges := make(map[[2]int32]geom.Vec3, 3*len(tris)/2)
	ekey := func(a, b int32) [2]int32 {
		if a > b {
			a, b = b, a
		}
		return [2]int32{a, b}
	}
	for f, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		n := b.Sub(a).Cross(c.Sub(a)).Unit()
		m.faceN[f] = n
		for k := 0; k < 3; k++ {
			m.vertN[t[k]] = m.vertN[t[k]].Add(n.Scale(cornerAngle(pos, t, k)))
			e := ekey(t[k], t[(k+1)%3])
			edges[e] = edges[e].Add(n)
		}
	}
	for f, t := range tris {
		for k := 0; k < 3; k++ {
			m.edgeN[f][k] = edges[ekey(t[k], t[(k+1)%3])]
		}
	}

	m.buildBVH()
	return m
}

// distance returns the signed distance from p to the mesh and the outward
// normal at the closest point: (p − c)/|p − c| outside, (c − p)/|p − c|
// inside, the unit pseudo-normal when p is on the surface.
//
// The closest triangle is the brute force's over all triangles: the
// least squared distance, the lowest index among equals (closest).
func (m *meshSDF) distance(p geom.Vec3) (float64, geom.Vec3) {
	best, bestF, bestR, bestC := m.closest(p)
	if bestF < 0 {
		return math.Inf(1), geom.Vec3{Y: 1}
	}
	var N geom.Vec3
	t := m.tris[bestF]
	switch {
	case bestR == 0:
		N = m.faceN[bestF]
	case bestR <= 3:
		N = m.vertN[t[bestR-1]]
	default:
		N = m.edgeN[bestF][bestR-4]
	}
	v := p.Sub(bestC)
	d := math.Sqrt(best)
	s := 1.0
	if v.Dot(N) < 0 {
		s = -1
	}
	if d == 0 {
		n := N.Unit()
		if n == (geom.Vec3{}) {
			n = geom.Vec3{Y: 1}
		}
		return 0, n
	}
	return s * d, v.Scale(s / d)
}

// closestOnTriangle returns the point of triangle (a, b, c) closest to p
// and the feature it lies on: 0 the face's interior, 1–3 the vertices a,
// b, c, 4–6 the edges ab, bc, ca (Ericson, Real-Time Collision Detection
// §5.1.5). A degenerate triangle falls back to the closest of its edges.
func closestOnTriangle(p, a, b, c geom.Vec3) (geom.Vec3, int) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, 1
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, 2
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Scale(d1 / (d1 - d3))), 4
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, 3
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Scale(d2 / (d2 - d6))), 6
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Scale((d4 - d3) / ((d4 - d3) + (d5 - d6)))), 5
	}
	den := va + vb + vc
	if den > 0 {
		v, w := vb/den, vc/den
		return a.Add(ab.Scale(v)).Add(ac.Scale(w)), 0
	}
	// Degenerate: the closest point on the three edges.
	best, bq, br := math.Inf(1), a, 1
	for k, e := range [3][2]geom.Vec3{{a, b}, {b, c}, {c, a}} {
		q := closestOnSegment(p, e[0], e[1])
		if d := p.Sub(q).Norm(); d < best {
			best, bq, br = d, q, 4+k
		}
	}
	return bq, br
}

func closestOnSegment(p, a, b geom.Vec3) geom.Vec3 {
	ab := b.Sub(a)
	l := ab.Dot(ab)
	t := 0.0
	if l > 0 {
		t = math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l))
	}
	return a.Add(ab.Scale(t))
}
