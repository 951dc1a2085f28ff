package contact

import (
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file counts and lists pairs of cloth faces that intersect now
// (IntersectingPairs for the UI, TangleCheck for a given set of faces),
// with their own grid and a segment–triangle test by the signs of
// tetrahedron volumes, apart from the collision pipeline's predicates.

// IntersectingPairs returns the number of pairs of live triangles of the
// cloth (x, tris: 3 vertex slots per face, t[0] < 0 a free slot) that share
// no vertex and intersect: an edge of one crosses the other (segment–triangle
// test by the signs of tetrahedron volumes). Coplanar overlaps are not
// counted. It uses its own spatial hash (cells of the mean edge length) and
// allocates its work arrays; it is meant for the UI's count of tangles, not
// the step.
func IntersectingPairs(x []geom.Vec3, tris [][3]int32) int {
	var g grid
	if !faceGrid(&g, x, tris, nil) {
		return 0
	}
	n := 0
	for f, t := range tris {
		if g.lo[f].X > g.hi[f].X {
			continue
		}
		for o := range g.overlapping(g.lo[f], g.hi[f]) {
			if o <= int32(f) {
				continue
			}
			if crossing(x, t, tris[o]) {
				n++
			}
		}
	}
	return n
}

// TangleCheck finds the faces of a set that intersect another face of the
// cloth sharing no vertex with them, by IntersectingPairs' test. It keeps
// its work arrays from call to call. cloth.Sim.Adapt uses it to check the
// faces an adaptation made (a flip or a join across a sharp fold can cut
// through the fold, where no contact hold reaches).
type TangleCheck struct {
	g     grid // over the faces of the set, indexed by their place in it
	found []bool
	pairs [][2]int32
}

// Find returns up to limit pairs (f, g) with f in faces and g any live face
// of the cloth that shares no vertex with f and intersects it, one pair per
// f (its lowest-numbered g); nil when there is none. The result is valid
// until the next call.
//
// The grid holds the faces of the set only, and every face of the cloth
// is looked up in it: an adaptation changes tens of the cloth's thousands
// of faces (59 of 2888 on average on sphere-adaptive), and hashing all of
// them, as IntersectingPairs does, cost more than the lookups. On a
// 9800-face cloth folded 2 mm apart (a scratch benchmark, 3 runs each,
// 2026-11-26): 0.97 ms against 1.41–1.55 ms with the grid over every
// face for a set of 50 faces, 1.34–1.45 against 1.99–2.16 ms for 300,
// 5.2–5.6 against 4.5–5.1 ms for 2000.
func (tc *TangleCheck) Find(x []geom.Vec3, tris [][3]int32, faces []int32, limit int) [][2]int32 {
	return tc.find(x, tris, faces, x, tris, true, limit)
}

// FindBody is Find against a body's surface instead of the cloth: up to
// limit pairs (f, b) with f in faces and b a face of the body (y: its
// vertex positions, body: its faces) that intersect, one pair per f; nil
// when there is none. cloth.Sim.Adapt uses it on mesh obstacles: a flip
// across cloth draped over a box's edge makes a straight edge from one
// side of the box to the other, through the box (drape-box, the monkey's
// seed 12: 12 cloth faces through the box after one refinement, every
// vertex outside it).
func (tc *TangleCheck) FindBody(x []geom.Vec3, tris [][3]int32, faces []int32, y []geom.Vec3, body [][3]int32, limit int) [][2]int32 {
	return tc.find(x, tris, faces, y, body, false, limit)
}

// find looks every face of the surface (y, other) up in a grid over the
// faces of the set; self says that the surface is the cloth itself, whose
// faces sharing a vertex with a face of the set do not count.
func (tc *TangleCheck) find(x []geom.Vec3, tris [][3]int32, faces []int32, y []geom.Vec3, other [][3]int32, self bool, limit int) [][2]int32 {
	tc.pairs = tc.pairs[:0]
	if len(faces) == 0 || limit < 1 {
		return nil
	}
	g := &tc.g
	if !faceGrid(g, x, tris, faces) {
		return nil
	}
	// The set's box: a body face far larger than the cells (a ground or
	// a table top) is looked up only where the set is.
	setLo, setHi := geom.Vec3{X: math.Inf(1), Y: math.Inf(1), Z: math.Inf(1)}, geom.Vec3{X: math.Inf(-1), Y: math.Inf(-1), Z: math.Inf(-1)}
	for k := range faces {
		if g.lo[k].X <= g.hi[k].X {
			setLo, setHi = vmin(setLo, g.lo[k]), vmax(setHi, g.hi[k])
		}
	}
	tc.found = buf.Grow(tc.found, len(faces))
	clear(tc.found)
	for o, u := range other {
		lo, hi, ok := faceBox(y, u)
		if !ok {
			continue
		}
		lo, hi = vmax(lo, setLo), vmin(hi, setHi)
		if lo.X > hi.X || lo.Y > hi.Y || lo.Z > hi.Z {
			continue
		}
		for k := range g.overlapping(lo, hi) {
			f := faces[k]
			if tc.found[k] {
				continue
			}
			t := tris[f]
			if self {
				if f == int32(o) || !crossing(x, t, u) {
					continue
				}
			} else if !trianglesIntersect(x[t[0]], x[t[1]], x[t[2]], y[u[0]], y[u[1]], y[u[2]]) {
				continue
			}
			tc.found[k] = true
			tc.pairs = append(tc.pairs, [2]int32{f, int32(o)})
			if len(tc.pairs) >= limit {
				return tc.pairs
			}
		}
	}
	if len(tc.pairs) == 0 {
		return nil
	}
	return tc.pairs
}

// faceBox returns the box of face t at x, and false for a free slot, a
// vertex slot out of range or a corner that is not finite.
func faceBox(x []geom.Vec3, t [3]int32) (lo, hi geom.Vec3, ok bool) {
	if t[0] < 0 || t[1] < 0 || t[2] < 0 || int(t[0]) >= len(x) || int(t[1]) >= len(x) || int(t[2]) >= len(x) {
		return lo, hi, false
	}
	a, b, c := x[t[0]], x[t[1]], x[t[2]]
	if !a.IsFinite() || !b.IsFinite() || !c.IsFinite() {
		return lo, hi, false
	}
	return vmin(a, vmin(b, c)), vmax(a, vmax(b, c)), true
}

// faceGrid fills g with the boxes of the faces of tris that faces names
// (every slot when faces is nil), entry k for the k-th, the live and
// finite ones (others get an empty box), and builds it with cells of
// their mean edge length; it reports whether any face is in it.
func faceGrid(g *grid, x []geom.Vec3, tris [][3]int32, faces []int32) bool {
	n := len(tris)
	if faces != nil {
		n = len(faces)
	}
	g.lo, g.hi = buf.Grow(g.lo, n), buf.Grow(g.hi, n)
	sum, cnt := 0.0, 0
	for k := 0; k < n; k++ {
		f := int32(k)
		if faces != nil {
			f = faces[k]
		}
		var ok bool
		if f >= 0 && int(f) < len(tris) {
			g.lo[k], g.hi[k], ok = faceBox(x, tris[f])
		}
		if !ok {
			g.lo[k], g.hi[k] = geom.Vec3{X: 1}, geom.Vec3{}
			continue
		}
		t := tris[f]
		a, b, c := x[t[0]], x[t[1]], x[t[2]]
		sum += b.Sub(a).Norm() + c.Sub(b).Norm() + a.Sub(c).Norm()
		cnt += 3
	}
	if cnt == 0 {
		return false
	}
	cell := sum / float64(cnt)
	if !(cell > 0) {
		cell = 1
	}
	g.build(cell)
	return true
}

// crossing reports whether faces t and u share no vertex and intersect.
func crossing(x []geom.Vec3, t, u [3]int32) bool {
	if has(u, t[0]) || has(u, t[1]) || has(u, t[2]) {
		return false
	}
	return trianglesIntersect(x[t[0]], x[t[1]], x[t[2]], x[u[0]], x[u[1]], x[u[2]])
}

// trianglesIntersect reports whether an edge of (a0, a1, a2) crosses
// triangle (b0, b1, b2) or an edge of the latter crosses the former.
func trianglesIntersect(a0, a1, a2, b0, b1, b2 geom.Vec3) bool {
	return segmentCrosses(a0, a1, b0, b1, b2) || segmentCrosses(a1, a2, b0, b1, b2) || segmentCrosses(a2, a0, b0, b1, b2) ||
		segmentCrosses(b0, b1, a0, a1, a2) || segmentCrosses(b1, b2, a0, a1, a2) || segmentCrosses(b2, b0, a0, a1, a2)
}

// orient returns the signed volume (b−a)×(c−a)·(d−a).
func orient(a, b, c, d geom.Vec3) float64 {
	return b.Sub(a).Cross(c.Sub(a)).Dot(d.Sub(a))
}

// segmentCrosses reports whether segment (p, q) meets triangle (a, b, c)
// with its end points on opposite sides of the triangle's plane, one of
// them by more than round-off (1e-10 of the volume scale |ab×ac|·|pq|): a
// segment in or nearly in the plane does not count, nor does one whose
// end touches the plane from the side of the other end.
//
// An end within round-off of the plane but on the other side does count.
// Found by the monkey (two-sheets seed 942 × 60 s, 2026-12-02): a vertex
// lay 2·10⁻¹⁶ m above a face of the other layer, inside it, while its six
// neighbours were 3–28 mm below. The oracle counted its six faces
// crossing that face for 1.2 s, until a reset; untangling found nothing,
// since both ends had to be 10⁻¹⁰ clear of the plane. The collision phase
// held the vertex there: at so small a distance its pair's normal is the
// face's (testVF), which pushed it away from its own sheet, and CCD
// stopped the sheet pulling it back through. Counted, the crossing is a
// contour round the vertex that untangling closes by moving it through.
func segmentCrosses(p, q, a, b, c geom.Vec3) bool {
	n := b.Sub(a).Cross(c.Sub(a))
	eps := 1e-10 * n.Norm() * q.Sub(p).Norm()
	dp, dq := p.Sub(a).Dot(n), q.Sub(a).Dot(n)
	if !(dp > 0 && dq < 0 || dp < 0 && dq > 0) || max(math.Abs(dp), math.Abs(dq)) <= eps {
		return false
	}
	s1, s2, s3 := orient(p, q, a, b), orient(p, q, b, c), orient(p, q, c, a)
	return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)
}
