package contact

import (
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file handles round bodies: a sphere or a capsule, the points
// within a radius R of a core segment (a point for a sphere), analytically
// instead of through their tessellation. Bender & Deul §6 treat every
// object as a triangle mesh; for these two shapes the distance from a cloth vertex or
// face to the solid is the distance to the core minus R, so one test per
// cloth vertex and per cloth face replaces the tests against the few dozen
// mesh triangles a cloth face overlaps (on the sphere scene that was most
// of the collision time). The tessellation's vertices lie on the surface
// of these convex solids, so a cloth kept outside the solid is outside the
// mesh too (the exact oracle of the scene tests checks the mesh).
//
// Proximity at x^n: every cloth vertex within h of the surface is a
// pairPoint (its normal impulse is a resting Contact); every cloth face
// whose closest point to the core lies inside it or on an edge it owns,
// within h, is a pairFace at that point's barycentric weights (the interior
// of a large face lying on a curved body dips below its vertices by the
// sagitta, 4 mm for the curtain's 11 cm base faces on the 0.5 m sphere).
// CCD: every cloth vertex, and every cloth face wherever on it the contact
// falls, against the moving core, by conservative advancement on the
// distance (firstContact).

// prepareRound sets body b's per-call state: the core ends' velocities
// (st.vel, the points of bodyField), its box over the step, and its
// distances kept for the CCD passes (faceD0) sized to the cloth's faces.
func (s *Solver) prepareRound(b int) {
	bd, st := &s.bs[b], &s.bodies[b]
	st.built, st.tris = false, st.tris[:0]
	st.moving = bd.Core != bd.CoreTo
	st.vel = buf.Grow(st.vel, 2)
	for k := 0; k < 2; k++ {
		st.vel[k] = bd.CoreTo[k].Sub(bd.Core[k]).Scale(1 / s.dt)
	}
	r := geom.Vec3{X: bd.Radius, Y: bd.Radius, Z: bd.Radius}
	st.lo = vmin(vmin(bd.Core[0], bd.Core[1]), vmin(bd.CoreTo[0], bd.CoreTo[1])).Sub(r)
	st.hi = vmax(vmax(bd.Core[0], bd.Core[1]), vmax(bd.CoreTo[0], bd.CoreTo[1])).Add(r)
	if nf := len(s.c.Tris); len(st.faceD0) != nf {
		st.faceD0, st.faceD0Call = buf.Grow(st.faceD0, nf), buf.Grow(st.faceD0Call, nf)
		for f := range st.faceD0Call {
			st.faceD0Call[f] = -1
		}
	}
}

// coreAt returns the core's ends at τ ∈ [0, 1] of the step.
func (s *Solver) coreAt(b int, tau float64) (geom.Vec3, geom.Vec3) {
	bd := &s.bs[b]
	return lerp(bd.Core[0], bd.CoreTo[0].Sub(bd.Core[0]), tau), lerp(bd.Core[1], bd.CoreTo[1].Sub(bd.Core[1]), tau)
}

// surfaceVelocity returns the velocity of round body b's surface point
// r·n off the core point at parameter u (0: Core[0], 1: Core[1]) at τ: the
// core point's velocity plus the rotation of the axis, ω × r·n with
// ω = e × ė/|e|² (a sphere has no axis: its spin cannot be seen).
func (s *Solver) surfaceVelocity(b int, u float64, n geom.Vec3, tau float64) geom.Vec3 {
	st := &s.bodies[b]
	v := st.vel[0].Scale(1 - u).Add(st.vel[1].Scale(u))
	ca, cb := s.coreAt(b, tau)
	e := cb.Sub(ca)
	if l2 := e.Dot(e); l2 > 0 {
		om := e.Cross(st.vel[1].Sub(st.vel[0])).Scale(1 / l2)
		v = v.Add(om.Cross(n.Scale(s.bs[b].Radius)))
	}
	return v
}

// segmentPoint returns the point of segment (a, b) closest to p and its
// parameter u ∈ [0, 1].
func segmentPoint(p, a, b geom.Vec3) (geom.Vec3, float64) {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return a, 0
	}
	u := clamp01(p.Sub(a).Dot(ab) / l2)
	return lerp(a, ab, u), u
}

// segmentTriangle returns the distance between segment (p, q) and
// triangle (a, b, c), the parameter u of the segment's closest point and
// the barycentric weights of the triangle's. When the segment pierces the
// triangle the distance is 0 at the crossing.
func segmentTriangle(p, q, a, b, c geom.Vec3) (d, u float64, w [3]float64) {
	if p == q {
		w0, w1, w2 := pointTriangle(p, a, b, c)
		x := a.Scale(w0).Add(b.Scale(w1)).Add(c.Scale(w2))
		return x.Sub(p).Norm(), 0, [3]float64{w0, w1, w2}
	}
	n := b.Sub(a).Cross(c.Sub(a))
	sp, sq := p.Sub(a).Dot(n), q.Sub(a).Dot(n)
	if sp*sq < 0 {
		// The segment crosses the plane: inside the triangle it pierces it.
		t := sp / (sp - sq)
		x := lerp(p, q.Sub(p), t)
		if w0, w1, w2 := pointTriangle(x, a, b, c); x.Sub(a.Scale(w0).Add(b.Scale(w1)).Add(c.Scale(w2))).Norm() <= 1e-12*(1+x.Norm()) {
			return 0, t, [3]float64{w0, w1, w2}
		}
	}
	d = math.Inf(1)
	for k, e := range [2]geom.Vec3{p, q} {
		w0, w1, w2 := pointTriangle(e, a, b, c)
		x := a.Scale(w0).Add(b.Scale(w1)).Add(c.Scale(w2))
		if dd := x.Sub(e).Norm(); dd < d {
			d, u, w = dd, float64(k), [3]float64{w0, w1, w2}
		}
	}
	tri := [3]geom.Vec3{a, b, c}
	for k := 0; k < 3; k++ {
		dd, su, sv := segmentDistance(p, q, tri[k], tri[(k+1)%3])
		if dd < d {
			d, u = dd, su
			w = [3]float64{}
			w[k], w[(k+1)%3] = 1-sv, sv
		}
	}
	return d, u, w
}

// detectRoundVertexChunk runs the vertex tests of cloth vertices [lo, hi)
// against round body s.curBody: proximity at x^n (a resting Contact each),
// or CCD on the step's trajectories of the vertices that changed, by
// conservative advancement (firstContact) on |x(τ) − core(τ)| − R, whose
// rate of change is at most |d_x − d_A| + |d_B − d_A| (the core's ends
// moving by d_A, d_B). The face tests find the same contacts and those
// inside faces; the vertex tests stop every vertex that would enter in the
// first pass, where a face test stops one point of the face per pass.
func (s *Solver) detectRoundVertexChunk(k, lo, hi int) {
	b := s.curBody
	bd, st := &s.bs[b], &s.bodies[b]
	h := s.p.Thickness
	ccd := s.mode == modeCCD
	dt := s.dt
	dA, dB := bd.CoreTo[0].Sub(bd.Core[0]), bd.CoreTo[1].Sub(bd.Core[1])
	out := s.chunk[k] // a local header, stored once (see patchTestChunk)
	for i := lo; i < hi; i++ {
		if s.vfStart[i] == s.vfStart[i+1] || s.useDirty && !s.dirty[i] {
			continue // dead slot, or unchanged since the last pass
		}
		// s.plo, s.phi: the vertex's box, swept in the CCD mode, grown by
		// half the pad.
		if boxGap(s.plo[i], s.phi[i], st.lo, st.hi) > h {
			continue
		}
		x := s.c.X[i]
		q, u := segmentPoint(x, bd.Core[0], bd.Core[1])
		l := x.Sub(q).Norm()
		d0 := l - bd.Radius
		tau := 0.0
		if !ccd {
			if d0 >= h {
				continue
			}
		} else {
			if s.heldBy(int32(i)) == int32(b) {
				continue
			}
			dx := s.c.V[i].Scale(dt)
			lip := dx.Sub(dA).Norm() + dB.Sub(dA).Norm()
			if s.farOverStep(d0, lip) {
				continue
			}
			dist := func(tau float64) float64 {
				ca, cb := s.coreAt(b, tau)
				p := lerp(x, dx, tau)
				q, _ := segmentPoint(p, ca, cb)
				return p.Sub(q).Norm() - bd.Radius
			}
			var hit bool
			if tau, hit = s.roundContact(dist, lip, d0); !hit {
				continue
			}
			ca, cb := s.coreAt(b, tau)
			x = lerp(x, dx, tau)
			q, u = segmentPoint(x, ca, cb)
			l = x.Sub(q).Norm()
		}
		n := geom.Vec3{Y: 1}
		if l > 0 {
			n = x.Sub(q).Scale(1 / l)
		}
		pr := pair{kind: pairPoint, body: int32(b), ids: [4]int32{int32(i), -1, -1, -1},
			w: [4]float64{1}, n: n, bv: s.surfaceVelocity(b, u, n, tau)}
		if ccd {
			pr.t = tau
		} else {
			pr.d = d0
		}
		out = append(out, pr)
	}
	s.chunk[k] = out
}

// detectRoundFaceChunk runs the face tests of cloth faces [lo, hi)
// against round body s.curBody: proximity at x^n, or CCD on the step's
// trajectories for the faces with a changed vertex (see the top of this
// file).
func (s *Solver) detectRoundFaceChunk(k, lo, hi int) {
	b := s.curBody
	bd, st := &s.bs[b], &s.bodies[b]
	c := s.c
	h := s.p.Thickness
	ccd := s.mode == modeCCD
	e := geom.Vec3{X: h, Y: h, Z: h}
	blo, bhi := st.lo.Sub(e), st.hi.Add(e)
	out := s.chunk[k] // a local header, stored once (see patchTestChunk)
	for f := lo; f < hi; f++ {
		t := c.Tris[f]
		if t[0] < 0 || !s.fdirty[f] || !boxesMeet(s.self.lo[f], s.self.hi[f], blo, bhi) {
			continue
		}
		if ccd && s.heldBy(t[0]) == int32(b) && s.heldBy(t[1]) == int32(b) && s.heldBy(t[2]) == int32(b) {
			continue
		}
		x0, x1, x2 := c.X[t[0]], c.X[t[1]], c.X[t[2]]
		var d0, u float64
		var w [3]float64
		if !ccd || st.faceD0Call[f] != s.calls || s.testNoBounds {
			d0, u, w = segmentTriangle(bd.Core[0], bd.Core[1], x0, x1, x2)
			d0 -= bd.Radius
			st.faceD0[f], st.faceD0Call[f] = d0, s.calls
		} else {
			d0 = st.faceD0[f] // the CCD passes need only the distance at x^n
		}
		tau := 0.0
		if !ccd {
			if d0 >= h || !s.ownsFeature(f, w) {
				continue
			}
		} else {
			dt := s.dt
			dA, dB := bd.CoreTo[0].Sub(bd.Core[0]), bd.CoreTo[1].Sub(bd.Core[1])
			lip := dB.Sub(dA).Norm()
			var mv float64
			for _, v := range t {
				mv = max(mv, c.V[v].Scale(dt).Sub(dA).Norm())
			}
			lip += mv
			// A face inside the body already is left to its vertices'
			// tests (roundContact) and the proximity stage's escape: one
			// that spans the body cannot leave it by moving its vertices
			// out, and counted as going deeper it held the cloth in the
			// sphere's impact zones. Measured on the monkey's
			// sphere-adaptive seed 103 after collisions came back on:
			// 1100–1400 such contacts a step in the zone passes, and 1075
			// vertices inside for 2 s; without them, 1947 → 5 vertices
			// inside in 10 steps.
			if d0 <= 0 || s.farOverStep(d0, lip) {
				continue
			}
			dist := func(tau float64) float64 {
				ca, cb := s.coreAt(b, tau)
				d, _, _ := segmentTriangle(ca, cb, lerp(x0, c.V[t[0]], tau*dt), lerp(x1, c.V[t[1]], tau*dt), lerp(x2, c.V[t[2]], tau*dt))
				return d - bd.Radius
			}
			var hit bool
			if tau, hit = s.roundContact(dist, lip, d0); !hit {
				continue
			}
			ca, cb := s.coreAt(b, tau)
			_, u, w = segmentTriangle(ca, cb, lerp(x0, c.V[t[0]], tau*dt), lerp(x1, c.V[t[1]], tau*dt), lerp(x2, c.V[t[2]], tau*dt))
		}
		// The normal: from the core to the face's closest point, at τ.
		ca, cb := s.coreAt(b, tau)
		xt := [3]geom.Vec3{lerp(x0, c.V[t[0]], tau*s.dt), lerp(x1, c.V[t[1]], tau*s.dt), lerp(x2, c.V[t[2]], tau*s.dt)}
		p := xt[0].Scale(w[0]).Add(xt[1].Scale(w[1])).Add(xt[2].Scale(w[2]))
		r := p.Sub(lerp(ca, cb.Sub(ca), u))
		n := r.Unit()
		if n == (geom.Vec3{}) {
			// The core pierces the face: push along the face normal,
			// to the side its vertices are on at x^n.
			n = xt[1].Sub(xt[0]).Cross(xt[2].Sub(xt[0])).Unit()
			if x0.Sub(bd.Core[0]).Dot(n) < 0 {
				n = n.Scale(-1)
			}
		}
		pr := pair{kind: pairFace, body: int32(b), ids: [4]int32{t[0], t[1], t[2], -1},
			w: [4]float64{w[0], w[1], w[2]}, n: n, bv: s.surfaceVelocity(b, u, n, tau)}
		if ccd {
			pr.t = tau
		} else {
			pr.d = d0
		}
		out = append(out, pr)
	}
	s.chunk[k] = out
}

// ownsFeature reports whether face f takes the proximity pair at
// barycentric weights w: its interior, or an edge it owns; a vertex is
// left to the vertex test, an edge to the face that owns it.
func (s *Solver) ownsFeature(f int, w [3]float64) bool {
	zeros := 0
	edge := -1
	for k := 0; k < 3; k++ {
		if w[k] <= 0 {
			zeros++
			edge = (k + 1) % 3 // the edge opposite corner k: (k+1, k+2)
		}
	}
	switch zeros {
	case 0:
		return true
	case 1:
		return s.owner[f]&(1<<(3+edge)) != 0
	}
	return false
}

// roundContact returns the first time τ ∈ [0, 1] at which dist, a
// primitive's distance to a round body's surface (d0 at τ = 0, lip its
// Lipschitz bound), comes within s.delta. A primitive within δ already at
// x^n (the repulsion keeps resting cloth near h, so this is rare) is a
// contact only if it comes closer still, to half that distance; one
// inside the body already (d0 ≤ 0: collisions were off, or a drag forced
// it) only if it goes deeper, by δ/2, as a plane's vertex is only if it
// moves in (detectPlaneChunk). Decision, measured on the monkey's
// sphere-adaptive seed 103: collisions switched back on after 0.65 s off
// found 1950 vertices inside the sphere, each a contact at τ = 0 however
// it moved; the impact zones cannot move them out, so every step ended
// in the collision failsafe, which held the cloth still, at the same
// positions, for the rest of the run (1649 crossing pairs, frozen). Let
// go, the proximity stage's escape (escapeBody) takes them out.
func (s *Solver) roundContact(dist func(float64) float64, lip, d0 float64) (float64, bool) {
	tau, hit := firstContact(dist, lip, s.delta)
	if !hit || tau > 0 {
		return tau, hit
	}
	if d0 > 0 {
		return firstContact(dist, lip, 0.5*d0)
	}
	// dist ≤ d0 − δ/2, as firstContact's δ/2 on a distance that starts at δ.
	deeper := func(tau float64) float64 { return dist(tau) - d0 + s.delta }
	return firstContact(deeper, lip, 0.5*s.delta)
}
