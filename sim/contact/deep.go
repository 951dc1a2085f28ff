package contact

import (
	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// Cloth inside or across a mesh body.
//
// The proximity stage sees a cloth vertex in a mesh body only within h of
// one of its faces, and the CCD passes take a face crossed from inside
// for a collision like one from outside. So cloth that got into a box, a
// table or the bunny (collisions switched off while it fell, a drag
// through a wall) stayed there: nothing pushed it out, and CCD stopped it
// at the surface on its way out. Found by the monkey, drape-box seed 402
// over 60 s: 85 vertices up to 18 cm inside the box, and a corner
// squeezed between the box and the ground, for the last 50 s of the run;
// seed 404 kept 4 vertices inside for 19 s. A half-space and a round
// body have no such gap: their tests use the signed distance at any
// depth.
//
// Where the caller asks (Body.Inside: the cloth asks after collisions
// come back on, after a failsafe, and while some is found; insideDue),
// detectDeep finds
//
//   - every cloth vertex inside the body: a pairPoint as against a
//     half-space, with the surface's velocity, so that the repulsion and,
//     beyond 10 cm, the escape (response.go) move it out. One connected
//     piece of the cloth inside leaves along one direction (insidePairs);
//   - every cloth face across the body with no vertex inside (a face over
//     the body's edge): a pairFace at its deepest point (acrossPairs).
//
// Their vertices are left out of the body's triangle tests in both stages
// (narrowBody), so that they pass its surface outwards. Letting them pass
// other layers of the cloth as well (out of the cloth–cloth CCD) tangled
// the cloth: seed 402's 60 s kept 7–125 crossing pairs past the grace
// once or twice (at most 600–970 pairs) against none (at most 112).
//
// A way out, x + (h − d)·n, that leads into another body (the floor of a
// box that stands on the ground) is replaced by that body's outward
// normal there, through the first body towards another of its faces
// (solidAt): otherwise the two bodies' pairs cancel and hold the vertex.
//
// Measured on TestCollisionsBackOnInsideBox (drape-box's sheet fallen into
// the box with collisions off, 47 vertices inside and 129 vertices or
// faces across by the exact oracle): free of the box 0.03 s after
// collisions come back on; 0.13 s with each vertex pushed along its own
// way out; with the ways out into the ground kept, 38 vertices stayed
// 3 mm inside, between the box's floor and the ground, for good; 0.08 s
// with a deep vertex kept as a resting contact (Proximity). Before, all
// 47 stayed.

// detectDeep finds, for every mesh body with Inside, the cloth vertices
// inside it (detectDeepChunk), the marks of the last proximity stage
// cleared, and turns them into pairs (insidePairs).
func (s *Solver) detectDeep() {
	nv := len(s.c.X)
	s.deep = false
	cleared := false
	for b := range s.bs {
		bd := &s.bs[b]
		if len(bd.Tris) == 0 || bd.Inside == nil {
			continue
		}
		if !cleared {
			s.deepIn = buf.Zeroed(s.deepIn, nv)
			cleared = true
		}
		s.curBody = b
		for k := range s.hits {
			s.hits[k] = s.hits[k][:0]
		}
		parallel.ForChunks(nv, s.detectD)
		s.insidePairs(b)
		for k := range s.across {
			s.across[k] = s.across[k][:0]
		}
		parallel.ForChunksBalanced(len(s.c.Tris), s.detectA)
		s.acrossPairs(b)
	}
}

// insideHit is a cloth vertex inside a mesh body: its slot, signed
// distance d < 0, the outward normal n at the closest point of the
// surface and that point's velocity bv.
type insideHit struct {
	v     int32
	d     float64
	n, bv geom.Vec3
}

// detectDeepChunk lists in s.hits[k] every cloth vertex of [lo, hi)
// inside body s.curBody, and marks it in deepIn.
func (s *Solver) detectDeepChunk(k, lo, hi int) {
	b := s.curBody
	bd, st := &s.bs[b], &s.bodies[b]
	hits := s.hits[k] // a local header, stored once (see patchTestChunk)
	for i := lo; i < hi; i++ {
		if s.vfStart[i] == s.vfStart[i+1] || s.deepIn[i] != 0 || s.c.InvMass[i] == 0 {
			continue // dead slot, inside a body before this one, or held (a pin wins)
		}
		x := s.c.X[i]
		if !boxesMeet(x, x, st.lo, st.hi) {
			continue
		}
		if d, n, v := bd.Inside(x); d < 0 {
			hits = append(hits, insideHit{v: int32(i), d: d, n: n, bv: v})
			s.deepIn[i] = int32(b) + 1
		}
	}
	s.hits[k] = hits
}

// insidePairs makes a pairPoint of every vertex detectDeepChunk found
// inside body b, one connected piece of the cloth inside at a time: the
// piece leaves along one direction u, the mean of its vertices' ways out
// (each the outward normal at the closest point of the surface, or where
// that leads into another body, that body's normal there: solidAt), each
// vertex by its distance to the surface along u (surfaceAlong). With each
// vertex's own way out, a piece across the middle of a body splits along
// its medial surface, its parts leaving by opposite faces and pulling
// against each other through the membrane: TestCollisionsBackOnInsideBox
// took 0.13 s instead of 0.03. A vertex whose exit along u leads into
// another body, or a piece whose ways out cancel (|mean| under 0.3 of
// their count), takes its own way out.
func (s *Solver) insidePairs(b int) {
	h := s.p.Thickness
	all := s.hitAll[:0]
	for k := range s.hits {
		all = append(all, s.hits[k]...)
	}
	s.hitAll = all
	if len(all) == 0 {
		return
	}
	s.deep = true
	s.stats.Deep += len(all)
	for i := range all {
		if ok, m := s.solidAt(s.c.X[all[i].v].Add(all[i].n.Scale(h-all[i].d)), b); ok {
			all[i].n = m
		}
	}
	// The pieces: breadth-first over the cloth's faces, within the hits.
	// hitOf[v] of a hit is −2 − its index until it joins a piece, then
	// its index.
	nv := len(s.c.X)
	s.hitOf = buf.Grow(s.hitOf, nv)
	for i, hi := range all {
		s.hitOf[hi.v] = -2 - int32(i)
	}
	out := s.chunk[0]
	for seed := range all {
		if s.hitOf[all[seed].v] >= 0 {
			continue
		}
		piece := append(s.piece[:0], int32(seed))
		s.hitOf[all[seed].v] = int32(seed)
		for q := 0; q < len(piece); q++ {
			v := all[piece[q]].v
			for _, f := range s.vfList[s.vfStart[v]:s.vfStart[v+1]] {
				for _, w := range s.c.Tris[f] {
					if s.deepIn[w] == int32(b)+1 && s.hitOf[w] < 0 {
						j := -2 - s.hitOf[w]
						s.hitOf[w] = j
						piece = append(piece, j)
					}
				}
			}
		}
		s.piece = piece
		var sum geom.Vec3
		for _, j := range piece {
			sum = sum.Add(all[j].n)
		}
		u := geom.Vec3{}
		if l := sum.Norm(); l >= 0.3*float64(len(piece)) {
			u = sum.Scale(1 / l)
		}
		for _, j := range piece {
			hi := all[j]
			n, d := hi.n, hi.d
			if u != (geom.Vec3{}) {
				x := s.c.X[hi.v]
				if t := s.surfaceAlong(b, x, u); t >= 0 {
					if ok, _ := s.solidAt(x.Add(u.Scale(t+h)), b); !ok {
						n, d = u, -t
					}
				}
			}
			out = append(out, pair{kind: pairPoint, body: int32(b), ids: [4]int32{hi.v, -1, -1, -1}, w: [4]float64{1}, n: n, bv: hi.bv, d: d})
		}
	}
	s.chunk[0] = out
}

// surfaceAlong returns the distance t ≥ 0 from x, inside body b, to its
// surface along unit direction u, by steps of the distance to the
// surface (which never cross it), or −1 when 64 steps do not reach it.
func (s *Solver) surfaceAlong(b int, x, u geom.Vec3) float64 {
	in := s.bs[b].Inside
	t := 0.0
	for range 64 {
		d, _, _ := in(x.Add(u.Scale(t)))
		if d >= 0 {
			return t
		}
		t += max(-d, 1e-5)
	}
	return -1
}

// solidAt reports whether point q lies inside a body other than skip, and
// that body's outward unit normal at the point of its surface closest to
// q.
func (s *Solver) solidAt(q geom.Vec3, skip int) (bool, geom.Vec3) {
	for b := range s.bs {
		bd := &s.bs[b]
		switch {
		case b == skip:
		case bd.round():
			c, _ := segmentPoint(q, bd.Core[0], bd.Core[1])
			if r := q.Sub(c); r.Dot(r) < bd.Radius*bd.Radius {
				if l := r.Norm(); l > 0 {
					return true, r.Scale(1 / l)
				}
				return true, geom.Vec3{Y: 1}
			}
		case len(bd.Tris) == 0:
			n := bd.Normal.Unit()
			if q.Sub(bd.Point).Dot(n) < 0 {
				return true, n
			}
		case bd.Inside != nil:
			if st := &s.bodies[b]; !boxesMeet(q, q, st.lo, st.hi) {
				continue
			}
			if d, n, _ := bd.Inside(q); d < 0 {
				return true, n
			}
		}
	}
	return false, geom.Vec3{}
}

// isDeep reports whether the last proximity stage found cloth vertex v
// inside body b, or a face of it across b: narrowBody leaves it out.
func (s *Solver) isDeep(v int32, b int) bool { return s.deep && s.deepIn[v] == int32(b)+1 }

// acrossHit is a cloth face across a mesh body with no vertex inside it:
// the face, its point deepest in the body among those sampled (at
// barycentric weights w), that point's signed distance d < 0, the
// outward normal n and the surface's velocity bv there.
type acrossHit struct {
	f     int32
	w     [3]float64
	d     float64
	n, bv geom.Vec3
}

// acrossSamples are the points of a face that detectAcrossChunk asks the
// body about, in barycentric weights: the centroid and the edges'
// midpoints.
var acrossSamples = [4][3]float64{{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}}

// detectAcrossChunk lists in s.across[k] the cloth faces of [lo, hi)
// with no vertex inside body s.curBody (deepIn) that cross it: the body
// holds one of acrossSamples, or an edge of one pierces the other
// (bodyCrossing).
func (s *Solver) detectAcrossChunk(k, lo, hi int) {
	b := s.curBody
	bd, st := &s.bs[b], &s.bodies[b]
	out := s.across[k] // a local header, stored once (see patchTestChunk)
	for f := lo; f < hi; f++ {
		t := s.c.Tris[f]
		if t[0] < 0 || s.deepIn[t[0]] != 0 || s.deepIn[t[1]] != 0 || s.deepIn[t[2]] != 0 ||
			s.c.InvMass[t[0]] == 0 && s.c.InvMass[t[1]] == 0 && s.c.InvMass[t[2]] == 0 {
			continue
		}
		x0, x1, x2 := s.c.X[t[0]], s.c.X[t[1]], s.c.X[t[2]]
		if !boxesMeet(vmin(x0, vmin(x1, x2)), vmax(x0, vmax(x1, x2)), st.lo, st.hi) {
			continue
		}
		best := acrossHit{f: int32(f)}
		for _, w := range acrossSamples {
			p := x0.Scale(w[0]).Add(x1.Scale(w[1])).Add(x2.Scale(w[2]))
			if d, n, v := bd.Inside(p); d < best.d {
				best.w, best.d, best.n, best.bv = w, d, n, v
			}
		}
		if best.d >= 0 {
			// No sample inside: an edge of the body may still pierce the
			// face, or an edge of the face the body (a sliver over one
			// of the body's edges). The crossing point is the push's.
			w, ok := s.bodyCrossing(b, x0, x1, x2)
			if !ok {
				continue
			}
			p := x0.Scale(w[0]).Add(x1.Scale(w[1])).Add(x2.Scale(w[2]))
			d, n, v := bd.Inside(p)
			best.w, best.d, best.n, best.bv = w, min(d, 0), n, v
		}
		out = append(out, best)
	}
	s.across[k] = out
}

// bodyCrossing reports whether cloth face (x0, x1, x2) crosses a
// triangle of body b at t^n, and the barycentric weights in the face of
// the first crossing point found: where an edge of the body pierces the
// face, or an edge of the face pierces the body's triangle.
func (s *Solver) bodyCrossing(b int, x0, x1, x2 geom.Vec3) ([3]float64, bool) {
	bd, st := &s.bs[b], &s.bodies[b]
	lo, hi := vmin(x0, vmin(x1, x2)), vmax(x0, vmax(x1, x2))
	xs := [3]geom.Vec3{x0, x1, x2}
	for t := range st.g.overlapping(lo, hi) {
		tr := bd.Tris[t]
		p := [3]geom.Vec3{bd.From[tr[0]], bd.From[tr[1]], bd.From[tr[2]]}
		for i := 0; i < 3; i++ {
			a, c := p[i], p[(i+1)%3]
			if segmentCrosses(a, c, x0, x1, x2) {
				return baryOfLine(a, c, x0, x1, x2), true
			}
			e0, e1 := xs[i], xs[(i+1)%3]
			if segmentCrosses(e0, e1, p[0], p[1], p[2]) {
				// The crossing point on the face's edge i.
				n := p[1].Sub(p[0]).Cross(p[2].Sub(p[0]))
				tt := 0.5
				if den := n.Dot(e1.Sub(e0)); den != 0 {
					tt = min(max(n.Dot(p[0].Sub(e0))/den, 0), 1)
				}
				var w [3]float64
				w[i], w[(i+1)%3] = 1-tt, tt
				return w, true
			}
		}
	}
	return [3]float64{}, false
}

// baryOfLine returns the barycentric weights in triangle (x0, x1, x2) of
// the point where the line through a and c meets its plane (clamped to
// the triangle).
func baryOfLine(a, c, x0, x1, x2 geom.Vec3) [3]float64 {
	n := x1.Sub(x0).Cross(x2.Sub(x0))
	nn := n.Dot(n)
	e := c.Sub(a)
	den := n.Dot(e)
	if den == 0 || nn == 0 {
		return [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	}
	q := a.Add(e.Scale(n.Dot(x0.Sub(a)) / den))
	w1 := q.Sub(x0).Cross(x2.Sub(x0)).Dot(n) / nn
	w2 := x1.Sub(x0).Cross(q.Sub(x0)).Dot(n) / nn
	w := [3]float64{max(1-w1-w2, 0), max(w1, 0), max(w2, 0)}
	sum := w[0] + w[1] + w[2]
	return [3]float64{w[0] / sum, w[1] / sum, w[2] / sum}
}

// acrossPairs makes a pairFace of every face detectAcrossChunk found
// across body b, at its deepest point found, pushed out along the body's
// normal there (or another body's, where that way is blocked: solidAt),
// and marks the face's vertices in deepIn, so that its edges and its face
// leave the body without CCD holding them (narrowBody). Found on
// TestCollisionsBackOnInsideBox (drape-box's sheet sunk 15 cm into the
// box with collisions off): its vertices came out within 0.05 s, but 174
// faces stayed across the box's top edges, their vertices on the top and
// on the walls, held there by CCD for good. With the centroid and the
// edges' midpoints alone, 16 faces stayed, over the box's edges.
func (s *Solver) acrossPairs(b int) {
	h := s.p.Thickness
	out := s.chunk[0]
	for k := range s.across {
		for _, a := range s.across[k] {
			t := s.c.Tris[a.f]
			p := s.c.X[t[0]].Scale(a.w[0]).Add(s.c.X[t[1]].Scale(a.w[1])).Add(s.c.X[t[2]].Scale(a.w[2]))
			n := a.n
			if ok, m := s.solidAt(p.Add(n.Scale(h-a.d)), b); ok {
				n = m
			}
			out = append(out, pair{kind: pairFace, body: int32(b), ids: [4]int32{t[0], t[1], t[2], -1},
				w: [4]float64{a.w[0], a.w[1], a.w[2]}, n: n, bv: a.bv, d: a.d})
			for _, v := range t {
				if s.deepIn[v] == 0 {
					s.deepIn[v] = int32(b) + 1
				}
			}
			s.deep = true
			s.stats.Across++
		}
	}
	s.chunk[0] = out
}
