package contact

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// This file holds the tests' cloths and bodies (sheets, icospheres,
// boxes), their explicit integrator (stepExplicit), and their own
// predicates of penetration and crossing, independent of the collision
// code.

// sheet returns a w × w m cloth of 2·n² triangles lying in the plane
// z = z0, centred on (cx, cy), with mass density 0.1 kg/m² lumped equally
// on the vertices and velocity v.
func sheet(t testing.TB, w float64, n int, cx, cy, z0 float64, v geom.Vec3) *Cloth {
	t.Helper()
	m, err := geom.RegularGrid(w, w, n, n)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cloth{Tris: m.Tris}
	mass := 0.1 * w * w / float64(len(m.Pos))
	for _, p := range m.Pos {
		c.X = append(c.X, geom.Vec3{X: p.X - w/2 + cx, Y: p.Y - w/2 + cy, Z: z0})
		c.V = append(c.V, v)
		c.InvMass = append(c.InvMass, 1/mass)
	}
	return c
}

// join appends cloth b to a (vertex slots and faces renumbered).
func join(a, b *Cloth) *Cloth {
	off := int32(len(a.X))
	out := &Cloth{
		X:       append(append([]geom.Vec3{}, a.X...), b.X...),
		V:       append(append([]geom.Vec3{}, a.V...), b.V...),
		InvMass: append(append([]float64{}, a.InvMass...), b.InvMass...),
		Tris:    append([][3]int32{}, a.Tris...),
	}
	for _, t := range b.Tris {
		out.Tris = append(out.Tris, [3]int32{t[0] + off, t[1] + off, t[2] + off})
	}
	return out
}

// sphereBody returns a static icosphere of radius r (subdivision s) at c.
func sphereBody(r float64, s int, c geom.Vec3) Body {
	pos, tris := geom.Icosphere(s)
	for i := range pos {
		pos[i] = pos[i].Scale(r).Add(c)
	}
	return Body{Tris: tris, From: pos, To: pos, Static: true, Friction: 0.3}
}

// boxBody returns a static axis-aligned box [lo, hi] as 12 outward
// counter-clockwise triangles.
func boxBody(lo, hi geom.Vec3) Body {
	var p []geom.Vec3
	for i := 0; i < 8; i++ {
		x, y, z := lo.X, lo.Y, lo.Z
		if i&1 != 0 {
			x = hi.X
		}
		if i&2 != 0 {
			y = hi.Y
		}
		if i&4 != 0 {
			z = hi.Z
		}
		p = append(p, geom.Vec3{X: x, Y: y, Z: z})
	}
	quads := [][4]int32{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	var tris [][3]int32
	for _, q := range quads {
		tris = append(tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return Body{Tris: tris, From: p, To: p, Static: true, Friction: 0.3}
}

// insideConvex reports whether p lies strictly inside the convex closed
// body b by more than tol (behind every face plane): the test's own check,
// independent of the collision code.
func insideConvex(b *Body, p geom.Vec3, tol float64) bool {
	for _, t := range b.Tris {
		a, bb, c := b.To[t[0]], b.To[t[1]], b.To[t[2]]
		n := bb.Sub(a).Cross(c.Sub(a)).Unit()
		if p.Sub(a).Dot(n) > -tol {
			return false
		}
	}
	return true
}

// segTri is the test's own segment–triangle intersection: the point where
// segment (p, q) meets the plane of (a, b, c), strictly between its ends,
// tested for being inside the triangle by barycentric coordinates.
func segTri(p, q, a, b, c geom.Vec3) bool {
	n := b.Sub(a).Cross(c.Sub(a))
	dp, dq := p.Sub(a).Dot(n), q.Sub(a).Dot(n)
	if dp*dq >= 0 {
		return false
	}
	s := dp / (dp - dq)
	x := p.Add(q.Sub(p).Scale(s))
	// Barycentric coordinates by sub-areas along n.
	nn := n.Dot(n)
	u := b.Sub(x).Cross(c.Sub(x)).Dot(n) / nn
	v := c.Sub(x).Cross(a.Sub(x)).Dot(n) / nn
	w := 1 - u - v
	const eps = -1e-12
	return u > eps && v > eps && w > eps
}

func triTri(a [3]geom.Vec3, b [3]geom.Vec3) bool {
	for k := 0; k < 3; k++ {
		if segTri(a[k], a[(k+1)%3], b[0], b[1], b[2]) || segTri(b[k], b[(k+1)%3], a[0], a[1], a[2]) {
			return true
		}
	}
	return false
}

func boxOf(t [3]geom.Vec3) (lo, hi geom.Vec3) {
	lo, hi = t[0], t[0]
	for _, p := range t[1:] {
		lo = geom.Vec3{X: math.Min(lo.X, p.X), Y: math.Min(lo.Y, p.Y), Z: math.Min(lo.Z, p.Z)}
		hi = geom.Vec3{X: math.Max(hi.X, p.X), Y: math.Max(hi.Y, p.Y), Z: math.Max(hi.Z, p.Z)}
	}
	return
}

func boxesOverlap(alo, ahi, blo, bhi geom.Vec3) bool {
	return alo.X <= bhi.X && blo.X <= ahi.X && alo.Y <= bhi.Y && blo.Y <= ahi.Y && alo.Z <= bhi.Z && blo.Z <= ahi.Z
}

// crossingsWithBody counts cloth–body triangle pairs that intersect (brute
// force over all pairs with a box check).
func crossingsWithBody(x []geom.Vec3, tris [][3]int32, b *Body) int {
	n := 0
	blo, bhi := make([]geom.Vec3, len(b.Tris)), make([]geom.Vec3, len(b.Tris))
	for i, u := range b.Tris {
		blo[i], bhi[i] = boxOf([3]geom.Vec3{b.To[u[0]], b.To[u[1]], b.To[u[2]]})
	}
	for _, t := range tris {
		ct := [3]geom.Vec3{x[t[0]], x[t[1]], x[t[2]]}
		clo, chi := boxOf(ct)
		for i, u := range b.Tris {
			if boxesOverlap(clo, chi, blo[i], bhi[i]) && triTri(ct, [3]geom.Vec3{b.To[u[0]], b.To[u[1]], b.To[u[2]]}) {
				n++
			}
		}
	}
	return n
}

// selfCrossings counts pairs of cloth triangles sharing no vertex that
// intersect (brute force, the test's own predicate).
func selfCrossings(x []geom.Vec3, tris [][3]int32) int {
	n := 0
	lo := make([]geom.Vec3, len(tris))
	hi := make([]geom.Vec3, len(tris))
	for i, t := range tris {
		lo[i], hi[i] = boxOf([3]geom.Vec3{x[t[0]], x[t[1]], x[t[2]]})
	}
	for i, t := range tris {
		for j := i + 1; j < len(tris); j++ {
			u := tris[j]
			if !boxesOverlap(lo[i], hi[i], lo[j], hi[j]) {
				continue
			}
			if has(u, t[0]) || has(u, t[1]) || has(u, t[2]) {
				continue
			}
			if triTri([3]geom.Vec3{x[t[0]], x[t[1]], x[t[2]]}, [3]geom.Vec3{x[u[0]], x[u[1]], x[u[2]]}) {
				n++
			}
		}
	}
	return n
}

// stepExplicit is the test's integrator: gravity into v, Resolve, then
// x += dt·v. It returns the stats and the error of Resolve.
func stepExplicit(s *Solver, c *Cloth, bodies []Body, dt float64, g geom.Vec3, p Params) (Stats, error) {
	for i := range c.V {
		if c.InvMass[i] > 0 {
			c.V[i] = c.V[i].Add(g.Scale(dt))
		}
	}
	st, err := s.Resolve(c, bodies, dt, p)
	for i := range c.X {
		c.X[i] = c.X[i].Add(c.V[i].Scale(dt))
	}
	return st, err
}
