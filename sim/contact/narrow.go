package contact

import (
	"math"

	"drape/sim/geom"
)

// This file is the narrow phase: the primitive tests of a candidate pair
// of triangles, cloth–body (narrowBody) and cloth–cloth (narrowSelf), and
// of each cloth vertex against a half-space. In the proximity mode a
// vertex–face or edge–edge pair within h at x^n becomes a proximity pair
// and each test returns a lower bound of its distances for the CCD
// passes; in the CCD mode each pair is tested on the step's linear
// trajectories (ccd.go) after the exact culls of its primitives (boxes
// apart, farOverStep), and a collision is recorded with its time and
// normal (addHit).

// detectPlaneChunk tests the cloth vertices i ∈ [lo, hi) against the
// half-space s.curBody analytically: the signed distance is
// d(t) = (x + t·dt·v − P)·n̂. Only vertices need testing: an edge or a face
// enters a half-space only through one of its vertices.
//
// In the CCD mode a vertex that starts the step deeper than h is left to
// the proximity stage, which found it and raises its normal velocity
// (repulse, escapeBody), as mesh bodies leave the vertices inside them
// out of CCD (deep.go): it is already inside, and stopping it from going
// deeper fights whatever holds it there. The monkey's ground seed 600:
// pins set on cloth 0.3–0.6 m under the ground, sent out when collisions
// came back on (cloth's pinsOutside), pulled the cloth round them down
// as they rose; CCD stopped every such vertex, the strain limit pulled
// them back, the passes and zones gave up, and every step of the pins'
// way out was taken again with them held (monkey's
// TestMonkeyPinsOutOfTheGround). The resting cloth, within h, is as
// before.
func (s *Solver) detectPlaneChunk(k, lo, hi int) {
	b := s.curBody
	bd := &s.bs[b]
	n := bd.Normal.Unit()
	h := s.p.Thickness
	out := s.chunk[k] // a local header, stored once (see patchTestChunk)
	for i := lo; i < hi; i++ {
		if s.vfStart[i] == s.vfStart[i+1] || s.useDirty && !s.dirty[i] {
			continue // dead slot, or unchanged since the last pass
		}
		if s.mode == modeCCD && s.heldBy(int32(i)) == int32(b) {
			continue
		}
		d0 := s.c.X[i].Sub(bd.Point).Dot(n)
		pr := pair{kind: pairPoint, body: int32(b), ids: [4]int32{int32(i), -1, -1, -1}, w: [4]float64{1}, n: n}
		if s.mode == modeProximity {
			if d0 >= h {
				continue
			}
			pr.d = d0
		} else {
			vn := s.c.V[i].Dot(n)
			d1 := d0 + s.dt*vn
			if d1 >= s.delta || vn >= 0 || d0 < -h {
				continue
			}
			pr.t = clamp01((d0 - s.delta) / (d0 - d1))
		}
		out = append(out, pr)
	}
	s.chunk[k] = out
}

// narrowBody runs the primitive tests of cloth face f against body face t:
// the cloth vertices f owns against t, the body vertices t owns against f,
// and the edges each owns against each other. It returns a lower bound of
// the distance at x^n of the primitive pairs it tests in the proximity mode
// (+Inf when it tests none), meaningless in the CCD mode.
func (s *Solver) narrowBody(out *[]pair, b int, f, t int32) float64 {
	dmin := math.Inf(1)
	ct, bt := s.c.Tris[f], s.bs[b].Tris[t]
	co, bo := s.owner[f], s.bodies[b].owner[t]
	var cx, cd, bx, bdd [3]geom.Vec3
	for k := 0; k < 3; k++ {
		cx[k], cd[k] = s.clothPoint(ct[k])
		bx[k], bdd[k] = s.bodyPoint(b, bt[k])
	}
	bn := s.bodies[b].normal[t]
	// Box culls before the primitive tests, as in narrowSelf: the cloth's
	// point boxes (s.plo, s.phi) carry ext = pad/2, its face boxes sp, the
	// body's boxes (face: st.g, vertex: st.vlo, st.vhi; From ∪ To) none.
	st := &s.bodies[b]
	pad := s.pad()
	ext, sp := 0.5*pad, s.delta
	if s.mode == modeProximity {
		sp = 0.5 * pad
	}
	tlo, thi := st.g.lo[t], st.g.hi[t]
	flo, fhi := s.self.lo[f], s.self.hi[f]
	// A cloth vertex inside the body, or of a face across it, has its own
	// pair (deep.go), and its primitives pass the surface outwards.
	deep := [3]bool{s.isDeep(ct[0], b), s.isDeep(ct[1], b), s.isDeep(ct[2], b)}
	anyDeep := deep[0] || deep[1] || deep[2]
	for k := 0; k < 3; k++ {
		if co&(1<<k) == 0 || deep[k] {
			continue
		}
		if gp := boxGap(s.plo[ct[k]], s.phi[ct[k]], tlo, thi); gp > ext {
			dmin = min(dmin, gp+ext)
			continue
		}
		if s.mode == modeProximity || s.heldBy(ct[k]) != int32(b) {
			dmin = min(dmin, s.testVF(out, int32(b), 0b1110, [4]int32{ct[k], bt[0], bt[1], bt[2]},
				&[4]geom.Vec3{cx[k], bx[0], bx[1], bx[2]}, &[4]geom.Vec3{cd[k], bdd[0], bdd[1], bdd[2]}, bn, 1))
		}
	}
	for k := 0; k < 3; k++ {
		if bo&(1<<k) == 0 || anyDeep {
			continue
		}
		if gp := boxGap(st.vlo[bt[k]], st.vhi[bt[k]], flo, fhi); gp > pad-sp {
			dmin = min(dmin, gp+sp)
			continue
		}
		if s.mode == modeProximity || s.heldBy(ct[0]) != int32(b) || s.heldBy(ct[1]) != int32(b) || s.heldBy(ct[2]) != int32(b) {
			dmin = min(dmin, s.testVF(out, int32(b), 0b0001, [4]int32{bt[k], ct[0], ct[1], ct[2]},
				&[4]geom.Vec3{bx[k], cx[0], cx[1], cx[2]}, &[4]geom.Vec3{bdd[k], cd[0], cd[1], cd[2]}, bn, -1))
		}
	}
	for i := 0; i < 3; i++ {
		if co&(1<<(3+i)) == 0 {
			continue
		}
		i1 := (i + 1) % 3
		if s.mode == modeCCD && s.heldBy(ct[i]) == int32(b) && s.heldBy(ct[i1]) == int32(b) || deep[i] || deep[i1] {
			continue
		}
		elo, ehi := vmin(s.plo[ct[i]], s.plo[ct[i1]]), vmax(s.phi[ct[i]], s.phi[ct[i1]])
		for j := 0; j < 3; j++ {
			if bo&(1<<(3+j)) == 0 {
				continue
			}
			j1 := (j + 1) % 3
			if gp := boxGap(elo, ehi, vmin(st.vlo[bt[j]], st.vlo[bt[j1]]), vmax(st.vhi[bt[j]], st.vhi[bt[j1]])); gp > ext {
				dmin = min(dmin, gp+ext)
				continue
			}
			dmin = min(dmin, s.testEE(out, int32(b), 0b1100, [4]int32{ct[i], ct[i1], bt[j], bt[j1]},
				&[4]geom.Vec3{cx[i], cx[i1], bx[j], bx[j1]}, &[4]geom.Vec3{cd[i], cd[i1], bdd[j], bdd[j1]}, bn.Scale(-1)))
		}
	}
	return dmin
}

// narrowSelf runs the primitive tests of cloth faces f and g against each
// other, skipping primitives that share a vertex (adjacent ones), and in
// the zone passes the primitives inside one impact zone (its projection
// keeps them apart), and nothing between two tangled faces of one
// contour but two Rim faces (Cloth.Tangled, Cloth.Contour). Each primitive pair is first
// culled by the per-point boxes of detect (s.plo, s.phi: x^n, and x^n + d for CCD, grown by half
// the pad, h/2 or δ/2; the triangles' grid boxes s.self carry h/2 or δ):
// most triangle pairs of a smooth sheet are neighbours whose primitives
// are far apart, and the positions are loaded only for the pairs that
// pass. It returns what narrowBody returns.
func (s *Solver) narrowSelf(out *[]pair, f, g int32) float64 {
	if tg, ct := s.c.Tangled, s.c.Contour; tg != nil && tg[f] != 0 && tg[g] != 0 && (ct == nil || ct[f] == ct[g]) && (tg[f] != Rim || tg[g] != Rim) {
		return math.Inf(1) // tangled, one contour: they pass through (untangle.go)
	}
	dmin := math.Inf(1)
	h := s.p.Thickness // point and face boxes carry h/2 each in the proximity mode
	ft, gt := s.c.Tris[f], s.c.Tris[g]
	fo, gO := s.owner[f], s.owner[g]
	plo, phi := s.plo, s.phi
	fl, fh, gl, gh := s.self.lo[f], s.self.hi[f], s.self.lo[g], s.self.hi[g]
	for k := 0; k < 3; k++ {
		if a := ft[k]; fo&(1<<k) != 0 && !has(gt, a) {
			if gp := boxGap(plo[a], phi[a], gl, gh); gp > 0 {
				dmin = min(dmin, gp+h)
			} else if !s.sameZone4(a, gt[0], gt[1], gt[2]) {
				dmin = min(dmin, s.selfVF(out, a, gt))
			}
		}
		if a := gt[k]; gO&(1<<k) != 0 && !has(ft, a) {
			if gp := boxGap(plo[a], phi[a], fl, fh); gp > 0 {
				dmin = min(dmin, gp+h)
			} else if !s.sameZone4(a, ft[0], ft[1], ft[2]) {
				dmin = min(dmin, s.selfVF(out, a, ft))
			}
		}
	}
	if fo&0b111000 == 0 || gO&0b111000 == 0 {
		return dmin
	}
	// g's edge boxes, once for the three edges of f.
	var glo, ghi [3]geom.Vec3
	for j := 0; j < 3; j++ {
		if gO&(1<<(3+j)) != 0 {
			c, d := gt[j], gt[(j+1)%3]
			glo[j], ghi[j] = vmin(plo[c], plo[d]), vmax(phi[c], phi[d])
		}
	}
	for i := 0; i < 3; i++ {
		if fo&(1<<(3+i)) == 0 {
			continue
		}
		a, b := ft[i], ft[(i+1)%3]
		elo, ehi := vmin(plo[a], plo[b]), vmax(phi[a], phi[b])
		for j := 0; j < 3; j++ {
			if gO&(1<<(3+j)) == 0 {
				continue
			}
			c, d := gt[j], gt[(j+1)%3]
			if a == c || a == d || b == c || b == d {
				continue
			}
			// The two edge boxes each carry the extra pad: together the
			// full pad, h or δ.
			if gp := boxGap(elo, ehi, glo[j], ghi[j]); gp > 0 {
				dmin = min(dmin, gp+h)
				continue
			}
			if s.sameZone4(a, b, c, d) {
				continue
			}
			ids := [4]int32{a, b, c, d}
			var x, dx [4]geom.Vec3
			for k, v := range ids {
				x[k], dx[k] = s.clothPoint(v)
			}
			dmin = min(dmin, s.testEE(out, -1, 0, ids, &x, &dx, geom.Vec3{}))
		}
	}
	return dmin
}

// selfVF tests cloth vertex a against cloth face t.
func (s *Solver) selfVF(out *[]pair, a int32, t [3]int32) float64 {
	ids := [4]int32{a, t[0], t[1], t[2]}
	var x, dx [4]geom.Vec3
	for k, v := range ids {
		x[k], dx[k] = s.clothPoint(v)
	}
	return s.testVF(out, -1, 0, ids, &x, &dx, geom.Vec3{}, 0)
}

func has(t [3]int32, v int32) bool { return t[0] == v || t[1] == v || t[2] == v }

// heldBy returns the body that holds vertex i's impact zone, or −1 (also
// outside the zone passes, and for a zone with pins, whose pins need not
// follow the body).
func (s *Solver) heldBy(i int32) int32 {
	z := &s.zones
	if !z.active || z.parent[i] < 0 {
		return -1
	}
	r := z.root(i)
	if z.pinned[r] {
		return -1
	}
	return z.held[r]
}

// sameZone4 reports whether, in the zone passes, the four cloth vertices
// lie in one impact zone without kinematic vertices: its projected velocity
// is an invertible affine map of the zone over the step (rigid, rigid plus
// shear with a positive Jacobian, or a body's motion), which keeps
// primitives that are disjoint at x^n disjoint, so a CCD report among them
// can only be the tolerance δ. A zone with pins is not skipped: the pins
// keep their own velocities, which need not fit one motion.
func (s *Solver) sameZone4(a, b, c, d int32) bool {
	z := &s.zones
	if !z.active || z.parent[a] < 0 || z.parent[b] < 0 || z.parent[c] < 0 || z.parent[d] < 0 {
		return false
	}
	r := z.root(a)
	return z.root(b) == r && z.root(c) == r && z.root(d) == r && !z.pinned[r]
}

// testVF tests point 0 against triangle (1, 2, 3). bn is the outward normal
// of the body face involved (zero for cloth–cloth); side is +1 when the
// triangle is the body's face, −1 when the point is the body's vertex. In
// the proximity mode it returns a lower bound of their distance at x^n (the
// distance, or h when the boxes are farther apart than h); in the CCD mode
// 0.
func (s *Solver) testVF(out *[]pair, body int32, bodyPts uint8, ids [4]int32, x, d *[4]geom.Vec3, bn geom.Vec3, side int) float64 {
	if g := s.apart(x, d, 1); g > s.pad() {
		return g
	}
	h := s.p.Thickness
	if s.mode == modeProximity {
		w0, w1, w2 := pointTriangle(x[0], x[1], x[2], x[3])
		q := x[1].Scale(w0).Add(x[2].Scale(w1)).Add(x[3].Scale(w2))
		r := x[0].Sub(q)
		dist := r.Norm()
		if dist >= h {
			return dist
		}
		pr := pair{kind: pairVF, bodyPts: bodyPts, body: body, ids: ids, w: [4]float64{1, -w0, -w1, -w2}, d: dist}
		fn := x[2].Sub(x[1]).Cross(x[3].Sub(x[1])).Unit()
		switch {
		case side == 1 && r.Dot(bn) < 0 && w0 > 0 && w1 > 0 && w2 > 0:
			// The cloth vertex is behind the body face, over its interior:
			// push it out along the face normal.
			pr.n, pr.d = bn, -dist
		case dist > 1e-12*h:
			pr.n = r.Scale(1 / dist)
		case side == 1:
			pr.n = bn
		case side == -1:
			pr.n = fn
			if fn.Dot(bn) > 0 {
				pr.n = fn.Scale(-1)
			}
		default:
			pr.n = fn
		}
		*out = append(*out, pr)
		return dist
	}
	if s.farOverStep(geom.PointTriangleDistance(x[0], x[1], x[2], x[3]), vfLipschitz(d[0], d[1], d[2], d[3])) {
		return 0
	}
	// A time rejected by addHit (touching at x^n, not approaching) is not
	// the end: the pair can still pass through each other later in the
	// step, so the search goes on from it (at most the 8 candidate times).
	for after := -1.0; ; {
		t, hit := vertexFaceCCD(x[0], d[0], x[1], d[1], x[2], d[2], x[3], d[3], s.delta, after)
		if !hit {
			return 0
		}
		var xt [4]geom.Vec3
		for k := range xt {
			xt[k] = lerp(x[k], d[k], t)
		}
		w0, w1, w2 := pointTriangle(xt[0], xt[1], xt[2], xt[3])
		w := [4]float64{1, -w0, -w1, -w2}
		n := xt[2].Sub(xt[1]).Cross(xt[3].Sub(xt[1])).Unit()
		if n == (geom.Vec3{}) {
			n = xt[0].Sub(xt[1].Scale(w0).Add(xt[2].Scale(w1)).Add(xt[3].Scale(w2))).Unit()
		}
		if s.addHit(out, pairVF, body, bodyPts, ids, w, x, d, n, t) || t >= 1 {
			return 0
		}
		after = t
	}
}

// testEE tests segment (0, 1) against segment (2, 3). fallback orients the
// normal when the edges touch at x^n (the body's outward normal negated for
// a cloth–body pair). It returns what testVF returns.
func (s *Solver) testEE(out *[]pair, body int32, bodyPts uint8, ids [4]int32, x, d *[4]geom.Vec3, fallback geom.Vec3) float64 {
	if g := s.apart(x, d, 2); g > s.pad() {
		return g
	}
	h := s.p.Thickness
	if s.mode == modeProximity {
		dist, a, b := segmentDistance(x[0], x[1], x[2], x[3])
		if dist >= h {
			return dist
		}
		pa := lerp(x[0], x[1].Sub(x[0]), a)
		pb := lerp(x[2], x[3].Sub(x[2]), b)
		n := pb.Sub(pa)
		if dist > 1e-12*h {
			n = n.Scale(1 / dist)
		} else if n = x[1].Sub(x[0]).Cross(x[3].Sub(x[2])).Unit(); fallback != (geom.Vec3{}) && n.Dot(fallback) < 0 {
			n = n.Scale(-1)
		}
		*out = append(*out, pair{kind: pairEE, bodyPts: bodyPts, body: body, ids: ids, w: [4]float64{-(1 - a), -a, 1 - b, b}, n: n, d: dist})
		return dist
	}
	if d0, _, _ := segmentDistance(x[0], x[1], x[2], x[3]); s.farOverStep(d0, eeLipschitz(d[0], d[1], d[2], d[3])) {
		return 0
	}
	for after := -1.0; ; { // as in testVF
		t, hit := edgeEdgeCCD(x[0], d[0], x[1], d[1], x[2], d[2], x[3], d[3], s.delta, after)
		if !hit {
			return 0
		}
		var xt [4]geom.Vec3
		for k := range xt {
			xt[k] = lerp(x[k], d[k], t)
		}
		_, a, b := segmentDistance(xt[0], xt[1], xt[2], xt[3])
		w := [4]float64{-(1 - a), -a, 1 - b, b}
		e1, e2 := xt[1].Sub(xt[0]), xt[3].Sub(xt[2])
		n := e1.Cross(e2)
		if n.Norm() <= 1e-6*e1.Norm()*e2.Norm() {
			// Parallel edges: the direction between them, at x^n if they meet at t.
			pa, pb := lerp(xt[0], e1, a), lerp(xt[2], e2, b)
			n = pb.Sub(pa)
			if n.Norm() <= 1e-3*s.delta {
				n = lerp(x[2], x[3].Sub(x[2]), b).Sub(lerp(x[0], x[1].Sub(x[0]), a))
			}
		}
		if s.addHit(out, pairEE, body, bodyPts, ids, w, x, d, n.Unit(), t) || t >= 1 {
			return 0
		}
		after = t
	}
}

// apart returns the gap (boxGap) between the boxes of the two primitives,
// points [0, split) and [split, 4): at x^n for proximity, over the swept
// positions {x, x + d} for CCD. A gap above the pad (h, δ) culls most of
// the primitive pairs that a pair of overlapping triangle boxes brings.
func (s *Solver) apart(x, d *[4]geom.Vec3, split int) float64 {
	var lo, hi [2]geom.Vec3
	ccd := s.mode == modeCCD
	for k := 0; k < 4; k++ {
		side := 0
		if k >= split {
			side = 1
		}
		p := x[k]
		a, b := p, p
		if ccd {
			q := p.Add(d[k])
			a, b = vmin(p, q), vmax(p, q)
		}
		if k == 0 || k == split {
			lo[side], hi[side] = a, b
		} else {
			lo[side], hi[side] = vmin(lo[side], a), vmax(hi[side], b)
		}
	}
	return boxGap(lo[0], hi[0], lo[1], hi[1])
}

// boxGap returns the largest gap along an axis between boxes (alo, ahi)
// and (blo, bhi), a lower bound of the distance between any two of their
// points; ≤ 0 when they overlap.
func boxGap(alo, ahi, blo, bhi geom.Vec3) float64 {
	return max(alo.X-bhi.X, blo.X-ahi.X, alo.Y-bhi.Y, blo.Y-ahi.Y, alo.Z-bhi.Z, blo.Z-ahi.Z)
}

// boxesMeet reports whether two boxes overlap or touch: boxGap ≤ 0 for
// finite boxes, by comparisons alone (the triangle-pair tests of the
// self-collision query make tens of thousands of these per call).
func boxesMeet(alo, ahi, blo, bhi geom.Vec3) bool {
	return alo.X <= bhi.X && blo.X <= ahi.X && alo.Y <= bhi.Y && blo.Y <= ahi.Y && alo.Z <= bhi.Z && blo.Z <= ahi.Z
}

// pad returns the distance within which a primitive pair counts: h for
// proximity, δ for CCD.
func (s *Solver) pad() float64 {
	if s.mode == modeCCD {
		return s.delta
	}
	return s.p.Thickness
}

// farOverStep reports whether two primitives at distance d0 at x^n, whose
// distance can change by at most lip over the step (vfLipschitz,
// eeLipschitz: the largest relative displacement of two of their points),
// stay farther than the CCD tolerance δ apart for the whole step:
// d(t) ≥ d0 − t·lip > δ. It is the cull the brief of issue 12 asked for
// before any cubic: on a resting or slowly moving sheet almost every pair
// of neighbouring primitives whose swept boxes meet (a flat sheet's boxes
// meet across a whole quad) is ruled out here, where the coplanarity cubic
// of a flat configuration has roots everywhere and would send each pair to
// the distance tests or conservative advancement. The margin is a second
// δ (round-off of d0 and lip is ~10⁻¹⁶ m against δ = 3 µm), so the cull
// never drops a pair the exact tests report.
func (s *Solver) farOverStep(d0, lip float64) bool {
	return d0-lip > 2*s.delta
}

// bodyPairLip is selfPairLip for cloth face f and face t of body b, with r
// the displacement of the body face's first vertex (zero for a static
// body).
func (s *Solver) bodyPairLip(b int, f, t int32) float64 {
	ft, bt := s.c.Tris[f], s.bs[b].Tris[t]
	_, r := s.bodyPoint(b, bt[0])
	var mf, mb float64
	for k := 0; k < 3; k++ {
		_, d := s.clothPoint(ft[k])
		mf = max(mf, d.Sub(r).Dot(d.Sub(r)))
	}
	if s.bodies[b].moving {
		for k := 1; k < 3; k++ {
			_, d := s.bodyPoint(b, bt[k])
			mb = max(mb, d.Sub(r).Dot(d.Sub(r)))
		}
	}
	return math.Sqrt(mf) + math.Sqrt(mb)
}

// clothPoint returns cloth vertex i's position and displacement over the step.
func (s *Solver) clothPoint(i int32) (geom.Vec3, geom.Vec3) {
	return s.c.X[i], s.c.V[i].Scale(s.dt)
}

// bodyPoint returns vertex i of body b and its displacement over the step.
func (s *Solver) bodyPoint(b int, i int32) (geom.Vec3, geom.Vec3) {
	bd := &s.bs[b]
	if s.bodies[b].moving {
		return bd.From[i], bd.To[i].Sub(bd.From[i])
	}
	return bd.From[i], geom.Vec3{}
}

// addHit orients the CCD normal n (unit, or zero when undefined) so that it
// points to the side that point set B (positive weights) was on at x^n —
// or, when the two were within the tolerance there, against their relative
// velocity — and records the collision unless the primitives were touching
// at x^n and are not approaching. It reports whether it recorded one.
func (s *Solver) addHit(out *[]pair, kind uint8, body int32, bodyPts uint8, ids [4]int32, w [4]float64, x, d *[4]geom.Vec3, n geom.Vec3, t float64) bool {
	if n == (geom.Vec3{}) {
		return false
	}
	var sep, rel geom.Vec3
	for k := 0; k < 4; k++ {
		sep = sep.Add(x[k].Scale(w[k]))
		rel = rel.Add(d[k].Scale(w[k]))
	}
	s0 := sep.Dot(n)
	touching := math.Abs(s0) <= 0.1*s.delta
	if touching {
		if rel.Dot(n) > 0 {
			n = n.Scale(-1)
		}
	} else if s0 < 0 {
		n = n.Scale(-1)
	}
	if math.Abs(s0) <= s.delta && rel.Dot(n) >= 0 {
		return false // touching at x^n, not approaching
	}
	*out = append(*out, pair{kind: kind, bodyPts: bodyPts, body: body, ids: ids, w: w, n: n, t: t})
	return true
}
