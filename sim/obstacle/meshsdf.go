package obstacle

import (
	"math"

	"drape/sim/geom"
)

// meshSDF is the signed distance to a triangle mesh: the distance to the
// closest triangle (found through a uniform grid of cells over the
// triangles' bounding boxes) with the sign of (p − c)·N, where c is the
// closest point and N the angle-weighted pseudo-normal of the feature c
// lies on: the face normal inside a face, the sum of the two face normals
// on an edge, the angle-weighted sum of the face normals at a vertex
// (Bærentzen & Aanæs 2005, "Signed distance computation using the angle
// weighted pseudonormal", which proves the sign correct for closed
// 2-manifolds). On an open mesh the sign tells which side of the closest
// surface p is on (the side counter-clockwise faces face is positive);
// an edge shared by more than two faces sums all their normals.
type meshSDF struct {
	pos   []geom.Vec3
	tris  [][3]int32
	faceN []geom.Vec3    // unit face normals (zero for a degenerate face)
	edgeN [][3]geom.Vec3 // pseudo-normal of edge i (Tris[f][i] → Tris[f][i+1])
	vertN []geom.Vec3    // angle-weighted vertex pseudo-normals (not unit)

	lo        geom.Vec3
	cell      float64
	dims      [3]int
	cellStart []int32 // cell c lists cellTris[cellStart[c]:cellStart[c+1]]
	cellTris  []int32
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
	var edgeSum float64
	for f, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		n := b.Sub(a).Cross(c.Sub(a)).Unit()
		m.faceN[f] = n
		for k := 0; k < 3; k++ {
			m.vertN[t[k]] = m.vertN[t[k]].Add(n.Scale(cornerAngle(pos, t, k)))
			e := ekey(t[k], t[(k+1)%3])
			edges[e] = edges[e].Add(n)
		}
		edgeSum += b.Sub(a).Norm() + c.Sub(b).Norm() + a.Sub(c).Norm()
	}
	for f, t := range tris {
		for k := 0; k < 3; k++ {
			m.edgeN[f][k] = edges[ekey(t[k], t[(k+1)%3])]
		}
	}

	// Grid: cells of twice the mean edge length, coarsened until there
	// are at most 4 cells per triangle (plus a few), over the bounding box.
	lo, hi := pos[0], pos[0]
	for _, p := range pos {
		lo = geom.Vec3{X: math.Min(lo.X, p.X), Y: math.Min(lo.Y, p.Y), Z: math.Min(lo.Z, p.Z)}
		hi = geom.Vec3{X: math.Max(hi.X, p.X), Y: math.Max(hi.Y, p.Y), Z: math.Max(hi.Z, p.Z)}
	}
	ext := hi.Sub(lo)
	cell := 2 * edgeSum / float64(3*len(tris))
	cell = math.Max(cell, 1e-3*math.Max(ext.X, math.Max(ext.Y, ext.Z)))
	if !(cell > 0) {
		cell = 1
	}
	for {
		m.dims = [3]int{int(ext.X/cell) + 1, int(ext.Y/cell) + 1, int(ext.Z/cell) + 1}
		if m.dims[0]*m.dims[1]*m.dims[2] <= 4*len(tris)+64 {
			break
		}
		cell *= 1.25
	}
	m.lo, m.cell = lo, cell
	ncell := m.dims[0] * m.dims[1] * m.dims[2]
	count := make([]int32, ncell+1)
	m.forCells(func(f int, c int) { count[c+1]++ })
	for c := 0; c < ncell; c++ {
		count[c+1] += count[c]
	}
	m.cellStart = append([]int32(nil), count...)
	m.cellTris = make([]int32, count[ncell])
	m.forCells(func(f int, c int) {
		m.cellTris[count[c]] = int32(f)
		count[c]++
	})
	return m
}

// forCells calls fn for every (triangle, cell) pair whose boxes overlap.
func (m *meshSDF) forCells(fn func(f, c int)) {
	for f, t := range m.tris {
		a, b, c := m.pos[t[0]], m.pos[t[1]], m.pos[t[2]]
		tlo := geom.Vec3{X: math.Min(a.X, math.Min(b.X, c.X)), Y: math.Min(a.Y, math.Min(b.Y, c.Y)), Z: math.Min(a.Z, math.Min(b.Z, c.Z))}
		thi := geom.Vec3{X: math.Max(a.X, math.Max(b.X, c.X)), Y: math.Max(a.Y, math.Max(b.Y, c.Y)), Z: math.Max(a.Z, math.Max(b.Z, c.Z))}
		i0, i1 := m.cellOf(tlo), m.cellOf(thi)
		for z := i0[2]; z <= i1[2]; z++ {
			for y := i0[1]; y <= i1[1]; y++ {
				for x := i0[0]; x <= i1[0]; x++ {
					fn(f, (z*m.dims[1]+y)*m.dims[0]+x)
				}
			}
		}
	}
}

// cellOf returns the cell containing p, clamped to the grid.
func (m *meshSDF) cellOf(p geom.Vec3) [3]int {
	q := [3]float64{(p.X - m.lo.X) / m.cell, (p.Y - m.lo.Y) / m.cell, (p.Z - m.lo.Z) / m.cell}
	var c [3]int
	for a := 0; a < 3; a++ {
		x := math.Floor(q[a])
		switch {
		case !(x >= 0): // also NaN
			c[a] = 0
		case x >= float64(m.dims[a]):
			c[a] = m.dims[a] - 1
		default:
			c[a] = int(x)
		}
	}
	return c
}

// distance returns the signed distance from p to the mesh and the outward
// normal at the closest point: (p − c)/|p − c| outside, (c − p)/|p − c|
// inside, the unit pseudo-normal when p is on the surface.
//
// Search: the cells at Chebyshev distance k = 0, 1, 2, … from p's
// (clamped) cell, shell by shell, until the best distance is no larger
// than a lower bound on the distance to every cell not yet visited (any
// triangle not yet seen lies entirely in such cells).
func (m *meshSDF) distance(p geom.Vec3) (float64, geom.Vec3) {
	pc := m.cellOf(p)
	slack := 1e-9 * m.cell
	best := math.Inf(1)
	bestF, bestR := -1, 0
	var bestC geom.Vec3
	visit := func(x, y, z int) {
		if x < 0 || y < 0 || z < 0 || x >= m.dims[0] || y >= m.dims[1] || z >= m.dims[2] {
			return
		}
		// Skip a cell whose box is no closer than the best so far. The
		// box is grown by slack because a triangle's cells come from a
		// rounded division and may miss it by an ulp.
		if cellDist2(p, m.lo.Add(geom.Vec3{X: float64(x), Y: float64(y), Z: float64(z)}.Scale(m.cell)), m.cell, slack) >= best {
			return
		}
		c := (z*m.dims[1]+y)*m.dims[0] + x
		for _, f := range m.cellTris[m.cellStart[c]:m.cellStart[c+1]] {
			t := m.tris[f]
			q, r := closestOnTriangle(p, m.pos[t[0]], m.pos[t[1]], m.pos[t[2]])
			v := p.Sub(q)
			if d2 := v.Dot(v); d2 < best || (d2 == best && int(f) < bestF) {
				best, bestF, bestR, bestC = d2, int(f), r, q
			}
		}
	}
	pp := [3]float64{p.X, p.Y, p.Z}
	lo := [3]float64{m.lo.X, m.lo.Y, m.lo.Z}
	for k := 0; ; k++ {
		for dz := -k; dz <= k; dz++ {
			for dy := -k; dy <= k; dy++ {
				if dz == -k || dz == k || dy == -k || dy == k {
					for dx := -k; dx <= k; dx++ {
						visit(pc[0]+dx, pc[1]+dy, pc[2]+dz)
					}
				} else {
					visit(pc[0]-k, pc[1]+dy, pc[2]+dz)
					visit(pc[0]+k, pc[1]+dy, pc[2]+dz)
				}
			}
		}
		bound := math.Inf(1)
		for a := 0; a < 3; a++ {
			if pc[a]-k-1 >= 0 { // unvisited cells below
				edge := lo[a] + float64(pc[a]-k)*m.cell
				bound = math.Min(bound, math.Max(0, pp[a]-edge-slack))
			}
			if pc[a]+k+1 < m.dims[a] { // unvisited cells above
				edge := lo[a] + float64(pc[a]+k+1)*m.cell
				bound = math.Min(bound, math.Max(0, edge-pp[a]-slack))
			}
		}
		if math.IsInf(bound, 1) || best <= bound*bound {
			break
		}
	}
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

// cellDist2 returns the squared distance from p to the cube
// [lo − slack, lo + cell + slack]³.
func cellDist2(p, lo geom.Vec3, cell, slack float64) float64 {
	d := func(x, a float64) float64 {
		switch {
		case x < a-slack:
			return a - slack - x
		case x > a+cell+slack:
			return x - a - cell - slack
		}
		return 0
	}
	dx, dy, dz := d(p.X, lo.X), d(p.Y, lo.Y), d(p.Z, lo.Z)
	return dx*dx + dy*dy + dz*dz
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
