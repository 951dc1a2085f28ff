package contact

import (
	"math"
	"slices"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file closes the contours of tight folds: the tight pairs of
// Untangler.Find.
//
// Find, like the exact oracle, counts only the pairs of faces that share
// no vertex (two faces next to each other cannot cross in a cloth that
// is free of crossings, and their primitives share points). Where a
// layer is folded so tightly through itself, or a vertex pushed so far
// through its own neighbourhood, that the faces on either side of the
// crossing share a vertex, the intersection curve runs on through pairs
// that share a vertex: Volino & Magnenat-Thalmann's contour (2006, §3.1)
// is the whole curve, and a curve cut where it enters them has open ends
// the gradient pulls at, pointlessly.
//
// Found by the monkey (sphere-adaptive seeds 920 and 921 × 8 s, the last
// 1–2 crossing pairs for over 1 s on a 10 000-face sheet): at the end
// every end point of the remaining pairs' segments (4 of 4) led into a
// pair that shares a vertex, and 6 such pairs crossed there; the
// gradient's direction turned from one check to the next and the
// correction's gain stayed at 1 (docs/robustness.md). The regions' file
// (untangle_regions.go) had named the same gap for drop-pile.
//
// So Find also takes the tight pairs: two faces that share exactly one
// vertex v, where the edge of one opposite v crosses the other. Two
// triangles with a common corner meet in a segment [v, Q] on the line
// where their planes meet, Q where that line leaves one of them, through
// the edge opposite v (generically one edge; with two, the one farther
// from v). Its length |Q − v| has the gradient of an end point at Q
// (addEnd) and −∂/∂v = (Q − v)/|Q − v| at v, which moves with its own
// vertex. The tight pairs that join, face by face, a contour of the
// crossing pairs are added to that contour (its length and gradient,
// its tangled faces, whose collisions with one another the collision
// phase skips, and its cut edges), and to nothing else: Find still
// returns and Pairs still lists only the pairs that share no vertex, so
// an episode of untangling begins and ends where the oracle sees
// crossings. Tight pairs on their own are left alone: a crumpled pile
// keeps 9–11 of them that join no contour (drop-pile seed 921, 6.6 s),
// invisible to every check, and untangling each would exempt its faces
// from collisions for as long.

// tightPairs appends to u.pairs the tight pairs that join a contour of
// its crossing pairs (see the file comment), face by face: from the faces
// of the crossing pairs, each tight pair found adds its other face to the
// search. It uses the grid of Find's query.
func (u *Untangler) tightPairs(x []geom.Vec3, tris [][3]int32) {
	u.tight = buf.Grow(u.tight, len(tris))
	clear(u.tight)
	u.queue = u.queue[:0]
	for _, p := range u.pairs {
		for _, f := range p {
			if !u.tight[f] {
				u.tight[f] = true
				u.queue = append(u.queue, f)
			}
		}
	}
	n := len(u.pairs)
	for i := 0; i < len(u.queue); i++ {
		f := u.queue[i]
		for o := range u.g.overlapping(u.g.lo[f], u.g.hi[f]) {
			if o == f || !tightCrossing(x, tris[f], tris[o]) {
				continue
			}
			u.pairs = append(u.pairs, [2]int32{min(f, o), max(f, o)})
			if !u.tight[o] {
				u.tight[o] = true
				u.queue = append(u.queue, o)
			}
		}
	}
	// Each pair was found from both its faces, once they were both on
	// the contour.
	tp := u.pairs[n:]
	slices.SortFunc(tp, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	u.pairs = append(u.pairs[:n], slices.Compact(tp)...)
}

// sharedCorner returns the one vertex faces t and u share and their
// edges opposite it, or ok false when they share none or more than one.
func sharedCorner(t, u [3]int32) (v int32, te, ue [2]int32, ok bool) {
	n := 0
	for i, a := range t {
		for j, b := range u {
			if a == b {
				n++
				v = a
				te = [2]int32{t[(i+1)%3], t[(i+2)%3]}
				ue = [2]int32{u[(j+1)%3], u[(j+2)%3]}
			}
		}
	}
	return v, te, ue, n == 1
}

// tightCrossing reports whether faces t and u share exactly one vertex
// and the edge of one opposite it crosses the other.
func tightCrossing(x []geom.Vec3, t, u [3]int32) bool {
	_, te, ue, ok := sharedCorner(t, u)
	if !ok {
		return false
	}
	return segmentCrosses(x[te[0]], x[te[1]], x[u[0]], x[u[1]], x[u[2]]) ||
		segmentCrosses(x[ue[0]], x[ue[1]], x[t[0]], x[t[1]], x[t[2]])
}

// tightEnds writes the end points Q of the tight pair t, u (the crossings
// of each face's edge opposite their common corner with the other face)
// into pts and returns the corner and their number.
func tightEnds(x []geom.Vec3, t, u [3]int32, pts *[6]endPoint) (int32, int) {
	v, te, ue, ok := sharedCorner(t, u)
	if !ok {
		return -1, 0
	}
	n := 0
	if edgeEnd(x, te[0], te[1], u, &pts[n]) {
		n++
	}
	if edgeEnd(x, ue[0], ue[1], t, &pts[n]) {
		n++
	}
	return v, n
}

// tightGradient adds −∂ℓ/∂x, ℓ = |Q − x_v| the length of a tight pair's
// segment from its common corner v to the end point Q of pts farthest
// from it, to grad, and returns ℓ.
func tightGradient(x []geom.Vec3, v int32, pts []endPoint, grad []geom.Vec3) float64 {
	if v < 0 {
		return 0
	}
	best, l := -1, 0.0
	for i := range pts {
		if d := pts[i].p.Sub(x[v]).Norm(); d > l {
			best, l = i, d
		}
	}
	if best < 0 || !(l > 0) || math.IsInf(l, 0) {
		return 0
	}
	dir := pts[best].p.Sub(x[v]).Scale(1 / l)
	grad[v] = grad[v].Add(dir)
	addEnd(&pts[best], dir.Scale(-1), grad)
	return l
}
