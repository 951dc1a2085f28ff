package contact

import (
	"math"
	"slices"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file finds the regions an intersection contour encloses and which
// way each has to go: the "which side" that the contour's gradient
// (untangle.go) does without. Baraff, Witkin & Kass 2003 ("Untangling
// cloth", SIGGRAPH 2003, §3, global intersection analysis) trace each
// intersection path and flood-fill the mesh from it: where a closed path
// cuts a piece of the mesh in two, the smaller part is the one that went
// through the other surface, and its collisions are reversed so that it
// comes back.
//
// Why it is needed. A closed contour through the interior of both
// surfaces shrinks under the gradient only by its curvature, and where
// the cloth's elasticity holds the fold that made it (a fold of a pile
// pressed through the layer under it), it does not shrink at all:
// drop-pile with self-collision off for 0.72 s and then on kept 2–3
// crossing pairs for 5 s, its contour's length oscillating between 3.4
// and 4.8 cm (docs/robustness.md). Nothing in the gradient says which
// side of the other sheet the enclosed part belongs on; the region does.
//
// How, here. The contour meets the mesh's edges exactly where an edge
// pierces a face of the other surface (the end points of the segments,
// untangle.go): between two such edges a contour runs inside one face.
// Removing the cut edges from the mesh's edge graph therefore leaves the
// vertices in the parts the contour bounds (union–find, one pass over the
// edges). A part is enclosed when none of its vertices is on the mesh's
// boundary (or next to a face left out of the search, a pinned one) and
// it holds at most half the vertices of its piece of mesh (a closed
// mesh has no boundary: the larger part is then the outside); a contour
// from boundary to boundary (two sheets through each other along a
// line, scene/testdata/tangled.json) encloses nothing, and its sheets
// untangle by the gradient as before.
//
// Each cut edge (a, b) pierces a face of normal n; a belongs on b's side
// of it: the direction s·n̂ with s = sign(n·(x_b − x_a)), and b the
// opposite one. An enclosed region moves as one along the mean of the
// directions of its cut-edge ends whose other end is outside every
// enclosed region (nested contours: a plateau through two sheets makes a
// ring between them whose inner edges lead to the plateau's top, itself
// on the wrong side), a vector of length at most 1 (1 when they agree;
// less where a dome's walls point every way), added to the gradient of
// each of its vertices; a region with no such edge is only flagged. Its faces are flagged Crossing with
// the contour of its cut edges, so that they pass through the other
// surface's faces of that contour, which the collision phase would
// otherwise stop.
//
// Decision: a push of the region rather than BWK03's reversal of its
// collision responses: drape's untangling already moves the tangled
// faces by a corrective velocity (cloth.Sim's untangle) and exempts them
// from the collisions of their contour; the push is the same kind of
// correction, and the flood fill is what the rest needed. Only contours
// of at most regionPairs pairs are given regions (see there).
//
// What it does not see: the contour of a fold so tight that the two
// sides' faces share a vertex. Find adds the tight pairs there to the
// contour (untangle_tight.go), and their ends on an edge are cut edges,
// but the contour passes through the shared vertex itself, whose edges
// are not cut: the parts either side stay joined there, enclose
// nothing, and are left to the gradient, which the tight pairs now
// complete (drop-pile, T = 0.65 s, before them: 6–7 pairs between faces
// two rows apart, for 5 s).

// regionPairs: only the regions of contours of at most this many
// crossing pairs are pushed. In a pile, the layers' contours join into
// one that crosses several layers, and a region's cut edges pierce faces
// of different layers, so that the mean direction is a guess. Measured on
// drop-pile with self-collision off for T = 0.60, 0.61, …, 0.90 s and
// then on (31 runs; pairs 5 s after; docs/robustness.md): without
// regions 5 runs end at 0 pairs, median 551; with the regions of
// contours of at most 20 pairs 8 runs, median 469; with every contour's
// regions 7 runs, median 986. Tried as well and not better: the regions
// of contours of at most 20 pairs whose cut edges agree (the mean
// direction at least 0.9 long; 8 runs, median 651), and of contours whose
// crossing faces form at most two strips, one per sheet, whatever their
// length (8 runs, median 957). The pile's figures swing with its
// trajectory; the gain is in the runs that end at 0.
const regionPairs = 20

// cutEdge is a mesh edge (a, b) that pierces a face of the other surface
// along a contour, with the direction a has to go (b the opposite one)
// and the crossing pair whose segment ends there.
type cutEdge struct {
	a, b int32
	dir  geom.Vec3 // unit: from a's side of the pierced face's plane to b's
	pair int32     // index in Untangler.pairs
}

// addCuts records the end points of pair's segment (endPoints) as cut
// edges; Find calls it as it computes the gradient, when Adj is set.
func (u *Untangler) addCuts(x []geom.Vec3, pts []endPoint, pair int32) {
	for _, e := range pts {
		nn := e.n.Norm()
		s := e.n.Dot(x[e.b].Sub(x[e.a]))
		if !(nn > 0) || s == 0 || math.IsInf(nn, 0) {
			continue
		}
		u.cuts = append(u.cuts, cutEdge{e.a, e.b, e.n.Scale(math.Copysign(1/nn, s)), pair})
	}
}

// edgeKey returns the key of the undirected edge (a, b) in regions'
// sorted cut list.
func edgeKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

// regions adds the push of each enclosed region to u.grad and flags its
// faces and vertices (see the file comment). It needs u.Adj for tris
// and the cut edges (addCuts), and runs after contours.
func (u *Untangler) regions(x []geom.Vec3, tris [][3]int32) {
	if len(u.Adj) != len(tris) { // Find has set u.enclosed to 0
		return
	}
	// The cut edges (addCuts, from the end points of every pair's
	// segment), by key.
	if len(u.cuts) == 0 {
		return
	}
	u.keys = u.keys[:0]
	for _, e := range u.cuts {
		u.keys = append(u.keys, edgeKey(e.a, e.b))
	}
	slices.Sort(u.keys)
	// Parts (edges other than the cut ones) and pieces (every edge), and
	// which vertices are on the boundary.
	nv := len(x)
	u.part = buf.Grow(u.part, nv)
	u.piece = buf.Grow(u.piece, nv)
	for v := range u.part {
		u.part[v], u.piece[v] = int32(v), int32(v)
	}
	u.bound = buf.Zeroed(u.bound, nv)
	u.live = buf.Zeroed(u.live, nv)
	for f, t := range tris {
		if t[0] < 0 {
			continue
		}
		for i := 0; i < 3; i++ {
			a, b := t[i], t[(i+1)%3]
			u.live[a] = true
			joinSets(u.piece, a, b)
			if _, cut := slices.BinarySearch(u.keys, edgeKey(a, b)); !cut {
				joinSets(u.part, a, b)
			}
			if g := u.Adj[f][i]; g < 0 || int(g) >= len(tris) || tris[g][0] < 0 {
				u.bound[a], u.bound[b] = true, true
			}
		}
	}
	// Per root: vertices and boundary of parts, vertices of pieces.
	u.size = buf.Zeroed(u.size, nv)
	u.psize = buf.Zeroed(u.psize, nv)
	for v := range u.live {
		if !u.live[v] {
			continue
		}
		r := setRoot(u.part, int32(v))
		u.size[r]++
		if u.bound[v] {
			u.bound[r] = true
		}
		u.psize[setRoot(u.piece, int32(v))]++
	}
	// The parts the contours touch, and of which contour.
	u.ends = buf.Zeroed(u.ends, nv)
	u.rcont = buf.Grow(u.rcont, nv)
	for _, e := range u.cuts {
		for _, v := range [2]int32{e.a, e.b} {
			r := setRoot(u.part, v)
			u.ends[r]++
			u.rcont[r] = u.contour[u.pairs[e.pair][0]]
		}
	}
	u.countPairs()
	u.encl = buf.Zeroed(u.encl, nv)
	for v, ok := range u.live {
		if r := int32(v); ok && setRoot(u.part, r) == r {
			u.encl[r] = u.ends[r] > 0 && !u.bound[r] && 2*u.size[r] <= u.psize[setRoot(u.piece, r)] && u.npairs[u.rcont[r]] <= regionPairs
		}
	}
	// The mean direction of the cut edges between an enclosed part and
	// the outside: an edge between two enclosed parts (nested contours)
	// tells neither which side is its own.
	u.push = buf.Zeroed(u.push, nv)
	u.out = buf.Zeroed(u.out, nv)
	for _, e := range u.cuts {
		ra, rb := setRoot(u.part, e.a), setRoot(u.part, e.b)
		if u.encl[ra] && !u.encl[rb] {
			u.push[ra] = u.push[ra].Add(e.dir)
			u.out[ra]++
		}
		if u.encl[rb] && !u.encl[ra] {
			u.push[rb] = u.push[rb].Sub(e.dir)
			u.out[rb]++
		}
	}
	// Enclosed parts: push their vertices, flag their faces.
	for v := range u.live {
		if !u.live[v] {
			continue
		}
		r := setRoot(u.part, int32(v))
		if !u.encl[r] {
			u.live[v] = false // not in an enclosed region: faces' test below
			continue
		}
		if u.out[r] > 0 {
			u.grad[v] = u.grad[v].Add(u.push[r].Scale(1 / float64(u.out[r])))
		}
		u.verts[v] = true
		if r == int32(v) {
			u.enclosed++
		}
	}
	for f, t := range tris {
		if t[0] < 0 {
			continue
		}
		for _, v := range t {
			if u.live[v] {
				u.faces[f] = Crossing
				if u.contour[f] < 0 {
					u.contour[f] = u.rcont[setRoot(u.part, v)]
				}
				for _, w := range t {
					u.verts[w] = true
				}
				break
			}
		}
	}
}

// countPairs counts in u.npairs the crossing pairs of each contour.
func (u *Untangler) countPairs() {
	nc := int32(0)
	for _, c := range u.contour {
		nc = max(nc, c+1)
	}
	u.npairs = buf.Zeroed(u.npairs, int(nc))
	for _, p := range u.pairs[:u.crossing] { // not the tight ones (untangle_tight.go)
		u.npairs[u.contour[p[0]]]++
	}
}

// Enclosed returns the number of regions the last Find's contours
// enclose (see untangle_regions.go); 0 without Adj.
func (u *Untangler) Enclosed() int { return u.enclosed }

// setRoot returns the root of v in the union–find up (contours' over the
// pairs, regions' over the vertices), halving the path.
func setRoot(up []int32, v int32) int32 {
	for up[v] != v {
		up[v] = up[up[v]]
		v = up[v]
	}
	return v
}

// joinSets joins the sets of a and b in the union–find up.
func joinSets(up []int32, a, b int32) {
	ra, rb := setRoot(up, a), setRoot(up, b)
	if ra != rb {
		up[max(ra, rb)] = min(ra, rb)
	}
}
