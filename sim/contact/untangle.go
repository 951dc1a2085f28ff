package contact

import (
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file holds the geometry of untangling: intersection contour
// minimisation (Volino & Magnenat-Thalmann 2006, "Resolving surface
// collisions through intersection contour minimization", SIGGRAPH 2006,
// §3–§4), for a cloth that the collision pipeline did not keep
// intersection-free (a tangled OBJ, a pin or a drag pulled through).
//
// Where two triangles A and B that share no vertex intersect, they meet in
// a segment S = [P₁, P₂], each end an edge of one crossing the other
// (§3.1). The segments of all intersecting pairs form the intersection
// contour, of length L = Σ |P₂ − P₁|. Volino & Magnenat-Thalmann move the
// two surfaces along −∂L/∂x: shortening the contour until it vanishes
// separates the surfaces, and the direction needs no knowledge of which
// side each surface "should" be on, which the proximity pipeline cannot
// tell once the surfaces have crossed.
//
// Decision: the gradient is the exact one of L summed per triangle pair,
// not the paper's per edge–triangle formula. For an edge (a, b), E = b − a,
// crossing the plane of triangle (p₀, p₁, p₂), normal n, at
// P = a + t·E with barycentric coordinates w in the triangle,
//
//	∂P/∂a = (1−t)·M,  ∂P/∂b = t·M,  M = I − E·nᵀ/(n·E),
//	∂P/∂p_i = w_i·E·nᵀ/(n·E)
//
// (P stays on the edge's line and in the plane, whose offset at P moves by
// Σ w_i n·dp_i/|n|), so with u = (P₂ − P₁)/|P₂ − P₁|, P's share of ∂|S|/∂x
// is ±(1−t)·(u − n·(E·u)/(n·E)) on a, ±t·(…) on b and ±w_i·n·(E·u)/(n·E)
// on p_i. Summed over the two faces on either side of the edge (the two
// triangle pairs that share the end point P), the edge's share is the
// paper's G = R − (E·R)/(E·N)·N (§3.2, R the unit contour directions in
// the faces, N the unit normal), split between a and b by (1−t, t), which
// is what the paper does with its per-edge G; the triangle's vertices get
// the opposite, by barycentric weight. A later SCA 2012 paper, cited in
// a public port of the method, argues for a factor 2 on the normal term;
// it is not taken: the exact derivative has factor 1, and the
// finite-difference test (TestContourGradient) checks it. Computing per pair needs no edge
// adjacency, and a boundary edge (one face) is handled by the same sum.
// Where n·E is nearly 0 (an edge grazing the plane) the term (E·u)/(n̂·E)
// is clamped to ±gradClamp, keeping the direction's sign: the exact value
// is unbounded there and one grazing edge would otherwise swamp the rest.
//
// A straight contour through the interior of both surfaces has a gradient
// that cancels edge by edge: L then shrinks only from its ends, where the
// contour meets a boundary (two sheets passing through each other slide
// apart) or curves (a poke through a sheet withdraws). The caller supplies
// the rest (cloth.Sim.untangle lets the tangled region pass through itself
// and moves it by gravity and the corrective displacement together).
//
// Which faces are tangled (Faces, Verts): those of an intersecting pair
// (Crossing) and Rings rings of faces round them (Band). Baraff, Witkin &
// Kass 2003 ("Untangling cloth", §3) flag the region the contour
// encloses and let it pass through; here the flagged set is a band round
// the contour, since a contour that runs from boundary to
// boundary (a tangled start) encloses no region of its own, and the
// band is what the next step's contour can reach; the regions that small
// contours do enclose are flagged and pushed back as well, when Adj is
// set (untangle_regions.go). The collision pipeline
// skips the cloth–cloth pairs of two tangled faces of one contour
// (Cloth.Tangled, Cloth.Contour; untangle_contours.go), so that the
// surfaces can pass back through each other where they cross, and keeps
// every other pair, so that untangling makes no new crossing elsewhere.
//
// Decision, and its known weakness: within the band two sheets resting
// on each other lose their repulsion and can sink through each other, so
// that a tangle can grow before it shrinks (a poke of two-sheets, one of
// nine tried, went from 16 to 86 pairs and did not recover in 1 s). Only
// skipping pairs with a Crossing face (band–band pairs kept) cured that
// in all nine, but then the tangled start of scene/testdata/tangled.json
// stalled at 2–4 pairs for 3 s, where the whole band has to pass through.
// Both flags are kept apart (Crossing, Band) for a caller that chooses
// the other rule: cloth.Sim chooses per contour, by whether it grows
// (cloth/untangle_rules.go), and marks the ring faces of a contour under
// the crossing-only rule Rim.

// gradClamp bounds |E·u|/|n̂·E|, the normal term of an end point's
// gradient (see the file comment).
const gradClamp = 4.0

// Untangler finds the intersection contour of a cloth and its gradient.
// It keeps its work arrays from call to call; the zero value is ready.
type Untangler struct {
	// Rings is the number of rings of faces round the intersecting ones
	// that Find flags as tangled as well (0: only the intersecting faces).
	Rings int
	// Adj, when it has a slot per face of the tris Find is given (the
	// face across each edge, −1 on the boundary: geom.Mesh.Adj), lets
	// Find also flag and push the regions its contours enclose
	// (untangle_regions.go).
	Adj [][3]int32

	g      grid
	chunk  [parallel.Chunks][][2]int32 // the pairs each piece of the query found
	fnFind func(k, lo, hi int)
	x      []geom.Vec3
	tris   [][3]int32

	pairs    [][2]int32  // the crossing pairs, then the tight ones (tightPairs)
	crossing int         // how many of pairs share no vertex
	tight    []bool      // tightPairs' scratch: per face slot, on a contour
	queue    []int32     // tightPairs' scratch: the faces to search from
	grad     []geom.Vec3 // −∂L/∂x per vertex slot
	faces    []uint8     // per face slot: 0, Band or Crossing
	verts    []bool      // per vertex slot: a corner of a tangled face
	length   float64

	contour []int32 // per face slot: its contour (Contour), −1 for none
	comp    []int32 // contours' scratch: per face slot, a pair through it
	up      []int32 // contours' union–find over the pairs
	vlabel  []int32 // contours' scratch: per vertex slot, a contour

	// regions' scratch (untangle_regions.go), per vertex slot unless said
	cuts     []cutEdge
	keys     []uint64 // the cut edges' keys, sorted
	part     []int32  // union–find over the edges that are not cut
	piece    []int32  // union–find over every edge
	bound    []bool   // on the boundary; per root of part: the part is
	live     []bool   // a corner of a live face; later: in an enclosed region
	size     []int32  // per root of part: its vertices
	psize    []int32  // per root of piece: its vertices
	push     []geom.Vec3
	ends     []int32 // per root of part: cut-edge ends in it
	encl     []bool  // per root of part: an enclosed region
	out      []int32 // per root of part: cut edges from it to the outside
	rcont    []int32 // per root of part: the contour of its cut edges
	npairs   []int32 // per contour: its crossing pairs
	enclosed int     // enclosed regions found by the last Find
}

// Find finds the pairs of live faces of the cloth (x; tris: 3 vertex slots
// per face, t[0] < 0 a free slot) that share no vertex and intersect, by
// IntersectingPairs' test, in the same grid, and computes the contour's
// length and gradient and the tangled faces and vertices (Rings rings
// round the intersecting faces, and with Adj the regions small contours
// enclose), the contours closed through the tight pairs that join them
// (untangle_tight.go). It returns the number of pairs that share no
// vertex; when it is 0 the gradient is zero and nothing is tangled.
// Gradient, Faces, Verts and Pairs are valid until the next call.
func (u *Untangler) Find(x []geom.Vec3, tris [][3]int32) int {
	u.pairs, u.crossing = u.pairs[:0], 0
	u.length = 0
	u.grad = buf.Grow(u.grad, len(x))
	u.faces = buf.Grow(u.faces, len(tris))
	u.verts = buf.Grow(u.verts, len(x))
	u.contour = u.contour[:0]
	u.enclosed = 0
	if !faceGrid(&u.g, x, tris, nil) {
		clear(u.grad)
		clear(u.faces)
		clear(u.verts)
		return 0
	}
	u.x, u.tris = x, tris
	for k := range u.chunk {
		u.chunk[k] = u.chunk[k][:0]
	}
	if u.fnFind == nil {
		u.fnFind = u.findChunk
	}
	parallel.ForChunksBalanced(len(tris), u.fnFind)
	u.x, u.tris = nil, nil
	for k := range u.chunk {
		u.pairs = append(u.pairs, u.chunk[k]...)
	}
	if len(u.pairs) == 0 {
		// Nothing tangled: only the flags the last tangled call set need
		// clearing, but they are few bytes per slot; clear them all.
		clear(u.grad)
		clear(u.faces)
		clear(u.verts)
		return 0
	}
	clear(u.grad)
	u.cuts = u.cuts[:0]
	u.crossing = len(u.pairs)
	u.tightPairs(x, tris)
	for i, p := range u.pairs {
		var pts [6]endPoint
		var n int
		if i < u.crossing {
			n = endPoints(x, tris[p[0]], tris[p[1]], &pts)
			u.length += pairGradient(pts[:n], u.grad)
		} else {
			var v int32
			v, n = tightEnds(x, tris[p[0]], tris[p[1]], &pts)
			u.length += tightGradient(x, v, pts[:n], u.grad)
		}
		if len(u.Adj) == len(tris) {
			u.addCuts(x, pts[:n], int32(i))
		}
	}
	u.flag(tris)
	u.contour = buf.Grow(u.contour, len(tris))
	for i := range u.contour {
		u.contour[i] = -1
	}
	u.contours(tris)
	u.regions(x, tris)
	return u.crossing
}

// findChunk is Find's query for faces [lo, hi): each face against the
// faces of higher index whose boxes overlap its own.
func (u *Untangler) findChunk(k, lo, hi int) {
	out := u.chunk[k][:0]
	g, x, tris := &u.g, u.x, u.tris
	for f := lo; f < hi; f++ {
		if g.lo[f].X > g.hi[f].X {
			continue
		}
		t := tris[f]
		a := x[t[0]]
		n := x[t[1]].Sub(a).Cross(x[t[2]].Sub(a))
		for o := range g.overlapping(g.lo[f], g.hi[f]) {
			if o <= int32(f) {
				continue
			}
			// Early out (Möller 1997): u wholly on one side of t's plane
			// cannot meet t. Most box pairs of a smooth or folded sheet
			// end here, at a third of crossing's cost.
			u := tris[o]
			d0, d1, d2 := n.Dot(x[u[0]].Sub(a)), n.Dot(x[u[1]].Sub(a)), n.Dot(x[u[2]].Sub(a))
			if d0 > 0 && d1 > 0 && d2 > 0 || d0 < 0 && d1 < 0 && d2 < 0 {
				continue
			}
			if crossing(x, t, u) {
				out = append(out, [2]int32{int32(f), o})
			}
		}
	}
	u.chunk[k] = out
}

// flag marks the faces of the pairs and u.Rings rings round them, and the
// corners of the marked faces.
func (u *Untangler) flag(tris [][3]int32) {
	clear(u.faces)
	clear(u.verts)
	for _, p := range u.pairs {
		for _, f := range p {
			u.faces[f] = Crossing
			for _, v := range tris[f] {
				u.verts[v] = true
			}
		}
	}
	for r := 0; r < u.Rings; r++ {
		// One ring: every live face with a marked corner, then its corners
		// (marked after the pass, so that a ring grows by one face).
		for f, t := range tris {
			if t[0] >= 0 && u.faces[f] == 0 && (u.verts[t[0]] || u.verts[t[1]] || u.verts[t[2]]) {
				u.faces[f] = Band
			}
		}
		for f, t := range tris {
			if u.faces[f] != 0 {
				u.verts[t[0]], u.verts[t[1]], u.verts[t[2]] = true, true, true
			}
		}
	}
}

// Pairs returns the intersecting face pairs of the last Find that share
// no vertex, (f, g) with f < g: the pairs the exact oracle counts, and
// not the tight ones (tightPairs).
func (u *Untangler) Pairs() [][2]int32 { return u.pairs[:u.crossing] }

// Length returns the length of the last Find's intersection contour, m:
// Σ over the pairs, the tight ones too, of the length of their
// intersection segment.
func (u *Untangler) Length() float64 { return u.length }

// Gradient returns −∂L/∂x per vertex slot (dimensionless) of the last
// Find: the direction that shortens the intersection contour; with Adj,
// plus the push of each enclosed region to its side (at most 1 long,
// untangle_regions.go).
func (u *Untangler) Gradient() []geom.Vec3 { return u.grad }

// Faces returns per face slot of the last Find Crossing (in a crossing
// pair), Band (within Rings rings of one) or 0.
func (u *Untangler) Faces() []uint8 { return u.faces }

// The tangled flags of a face (Untangler.Faces, Cloth.Tangled).
const (
	Band     uint8 = 1 // within Untangler.Rings rings of a crossing face
	Crossing uint8 = 2 // in a pair of faces that cross
	// Rim is a Band face that keeps its collisions with the other Rim
	// faces of its contour: only pairs with a Crossing face pass. Find
	// never sets it; a caller that chooses the crossing-only rule for a
	// contour (cloth.Sim's untangle) sets it in Cloth.Tangled.
	Rim uint8 = 4
)

// Contour returns per face slot of the last Find the contour (numbered
// from 0 in each Find) of a tangled face, −1 for an untangled one; nil
// when nothing crosses. See untangle_contours.go.
func (u *Untangler) Contour() []int32 {
	if len(u.contour) == 0 {
		return nil
	}
	return u.contour
}

// Verts returns per vertex slot whether it is a corner of a tangled face.
func (u *Untangler) Verts() []bool { return u.verts }

// ContourLength returns the length of the intersection contour of faces
// t and u at x, m: the distance between the ends of their intersection
// segment; 0 when they do not cross (or share a vertex).
func ContourLength(x []geom.Vec3, t, u [3]int32) float64 {
	if !crossing(x, t, u) {
		return 0
	}
	var pts [6]endPoint
	n := endPoints(x, t, u, &pts)
	i, j := farthest(pts[:n])
	if i < 0 {
		return 0
	}
	return pts[j].p.Sub(pts[i].p).Norm()
}

// endPoint is an end of an intersection segment: edge (a, b) crossing the
// plane of triangle tri at P = a + t·E (E = b − a), with barycentric
// coordinates w of P in tri and tri's normal n (not unit).
type endPoint struct {
	a, b int32
	tri  [3]int32
	t    float64
	w    [3]float64
	p    geom.Vec3
	e, n geom.Vec3
}

// endPoints writes the crossings of the edges of t with u and of u with t
// (segmentCrosses' test) into pts and returns their number: 2 for two
// triangles in general position that intersect, more where the segment
// ends on an edge of both or passes through a vertex.
func endPoints(x []geom.Vec3, t, u [3]int32, pts *[6]endPoint) int {
	n := 0
	for side := 0; side < 2; side++ {
		a3, b3 := t, u
		if side == 1 {
			a3, b3 = u, t
		}
		for i := 0; i < 3; i++ {
			if edgeEnd(x, a3[i], a3[(i+1)%3], b3, &pts[n]) {
				n++
			}
		}
	}
	return n
}

// edgeEnd sets *p to the end point where edge (a, b) crosses triangle tri
// and reports whether it does (segmentCrosses' test).
func edgeEnd(x []geom.Vec3, a, b int32, tri [3]int32, p *endPoint) bool {
	p0, p1, p2 := x[tri[0]], x[tri[1]], x[tri[2]]
	xa, xb := x[a], x[b]
	if !segmentCrosses(xa, xb, p0, p1, p2) {
		return false
	}
	nn := p1.Sub(p0).Cross(p2.Sub(p0))
	e := xb.Sub(xa)
	ne := nn.Dot(e)
	if ne == 0 {
		return false
	}
	tt := nn.Dot(p0.Sub(xa)) / ne
	q := xa.Add(e.Scale(tt))
	// Barycentric coordinates of P from the sub-areas along n.
	nn2 := nn.Dot(nn)
	w1 := q.Sub(p0).Cross(p2.Sub(p0)).Dot(nn) / nn2
	w2 := p1.Sub(p0).Cross(q.Sub(p0)).Dot(nn) / nn2
	*p = endPoint{a: a, b: b, tri: tri, t: tt, w: [3]float64{1 - w1 - w2, w1, w2}, p: q, e: e, n: nn}
	return true
}

// farthest returns the two points of pts farthest apart, or −1, −1 for
// fewer than two.
func farthest(pts []endPoint) (int, int) {
	bi, bj, best := -1, -1, -1.0
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			if d := pts[j].p.Sub(pts[i].p).Dot(pts[j].p.Sub(pts[i].p)); d > best {
				bi, bj, best = i, j, d
			}
		}
	}
	return bi, bj
}

// pairGradient adds −∂ℓ/∂x, ℓ the length of the intersection segment of
// two faces that cross, given their end points (endPoints), to grad, and
// returns ℓ; see the file comment for the formulas. A segment of zero
// length adds nothing.
func pairGradient(pts []endPoint, grad []geom.Vec3) float64 {
	i, j := farthest(pts)
	if i < 0 {
		return 0
	}
	d := pts[j].p.Sub(pts[i].p)
	l := d.Norm()
	if !(l > 0) || math.IsInf(l, 0) {
		return 0
	}
	dir := d.Scale(1 / l)
	// ℓ grows with P_j along dir and with P_i against it: −∂ℓ/∂P_j = −dir,
	// −∂ℓ/∂P_i = +dir.
	addEnd(&pts[i], dir, grad)
	addEnd(&pts[j], dir.Scale(-1), grad)
	return l
}

// addEnd adds P's share of the descent direction to its edge and triangle
// corners: with g = −∂ℓ/∂P, the edge gets (1−t, t)·(g − n·(E·g)/(n·E)) and
// the triangle's corner i gets w_i·n·(E·g)/(n·E).
func addEnd(p *endPoint, g geom.Vec3, grad []geom.Vec3) {
	nn := p.n.Norm()
	en := p.e.Norm()
	if nn == 0 || en == 0 {
		return
	}
	nu := p.n.Scale(1 / nn)
	c := p.e.Dot(g) / nu.Dot(p.e) // (E·g)/(n̂·E)
	if lim := float64(gradClamp); c > lim || c < -lim || math.IsNaN(c) {
		c = math.Copysign(lim, c)
	}
	ng := nu.Scale(c)
	ge := g.Sub(ng)
	grad[p.a] = grad[p.a].Add(ge.Scale(1 - p.t))
	grad[p.b] = grad[p.b].Add(ge.Scale(p.t))
	for k, v := range p.tri {
		grad[v] = grad[v].Add(ng.Scale(p.w[k]))
	}
}
