package contact

import (
	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file generates the candidate pairs of every stage: per pass the
// boxes of the cloth's vertices and faces, then the pairs whose boxes
// meet — against each body through its grid, and cloth–cloth through the
// culler's patches (a grid of patch boxes, then a sweep over the faces of
// each patch pair) — each handed at once to the narrow phase (narrow.go).
// The proximity pass keeps its triangle pairs with a lower bound of their
// distances as the candidates of the step's CCD passes, grouped by patch
// pair; a CCD pass extends them where a face outgrew its box or a
// certificate was lost, and runs the narrow phase on those with a changed
// vertex. Every decision to leave out a cloth–cloth pair whose boxes meet
// is the culler's (cull.go); this file only asks it.

// detect runs one pass: it fills the chunk lists s.chunk (read in chunk
// order) with the proximity pairs (modeProximity: at x^n within h) or the
// CCD collisions (modeCCD: on x^n → x^n + dt·V) of the cloth against
// every body and, with self-collision on, against itself. The boxes of
// the cloth's vertices and faces come first; the grid of the patch boxes
// is built only when self-collision needs it. After the first CCD pass
// (useDirty) only triangles with a vertex whose velocity changed in the
// last pass (dirty) are queried, and a cloth–cloth triangle pair is
// tested when either is dirty: a pair of unchanged primitives had no
// collision in the last pass and still has none (Bender & Deul §6: a grid
// is updated only when its object is queried against), while the bodies'
// grids were built by prepareBodies. The queries run in parallel over
// triangle ranges, each range writing its own list; the lists are read in
// range order, so the result does not depend on the number of cores. It
// returns the number of pairs found.
func (s *Solver) detect() int {
	c := s.c
	nf := len(c.Tris)
	// The velocities changed since the last detect are this pass's dirty
	// set; those changed from here on, the next one's.
	s.dirty, s.dirtyNext = s.dirtyNext, s.dirty
	clear(s.dirtyNext)
	s.self.lo = buf.Grow(s.self.lo, nf)
	s.self.hi = buf.Grow(s.self.hi, nf)
	pad := s.delta
	if s.mode == modeProximity {
		pad = 0.5 * s.p.Thickness
	}
	s.boxPad = geom.Vec3{X: pad, Y: pad, Z: pad}
	s.fdirty = buf.Grow(s.fdirty, nf)
	// Per vertex: the swept box x^n ∪ x^n + Δt·v (swLo, swHi), and the
	// point box of narrowSelf (plo, phi: x^n for proximity, the swept box
	// for CCD, grown by half the pad), computed once per pass rather than
	// per triangle pair; then each face's box. In a pass over the changed
	// velocities (useDirty) only the changed vertices and their faces are
	// redone: the others' velocities, the mode and the pad are those of the
	// pass before, a CCD pass.
	nv := len(c.X)
	s.swLo, s.swHi = buf.Grow(s.swLo, nv), buf.Grow(s.swHi, nv)
	s.plo, s.phi = buf.Grow(s.plo, nv), buf.Grow(s.phi, nv)
	ext := 0.5 * pad
	if s.mode == modeProximity {
		ext = 0.5 * s.p.Thickness
	}
	s.boxExt = geom.Vec3{X: ext, Y: ext, Z: ext}
	parallel.ForChunks(nv, s.vertexBoxFn)
	parallel.ForChunks(nf, s.faceBoxFn)
	for k := range s.chunk {
		s.chunk[k] = s.chunk[k][:0]
	}
	if s.mode == modeProximity {
		// Keep the triangle pairs and boxes for the CCD passes.
		s.collect = true
		for k := range s.cand {
			s.cand[k] = s.cand[k][:0]
			s.candGroups[k] = s.candGroups[k][:0]
		}
		s.candLo = buf.Grow(s.candLo, nf)
		s.candHi = buf.Grow(s.candHi, nf)
		copy(s.candLo, s.self.lo)
		copy(s.candHi, s.self.hi)
		s.patchCell = s.patchBoxes()
	} else if s.collect = false; len(s.candLo) == nf {
		// CCD pass: the candidate pairs serve, extended for the faces
		// whose boxes outgrew theirs (extendCand).
		if s.p.SelfCollision {
			if s.cull.recertify(s.dirty) {
				s.lostPairs()
			}
			s.cull.motions()
		}
		if s.outgrown() {
			s.extendCand()
		}
		parallel.ForPieces(s.candWork(), s.detectC)
		s.detectPlanes()
		return s.count()
	} else {
		// A CCD pass without a proximity pass before it (the kernel
		// benchmarks): every face queries.
		s.patchCell = s.patchBoxes()
	}
	s.detectPlanes()
	if s.mode == modeProximity {
		s.detectDeep()
	}
	for b := range s.bs {
		s.curBody = b
		if len(s.bs[b].Tris) > 0 {
			if s.mode == modeProximity {
				np := s.cull.numPatches()
				s.pnear = buf.Grow(s.pnear, np)
				parallel.ForChunksBalanced(np, s.patchNearFn)
			}
			parallel.ForChunksBalanced(nf, s.detectB)
		}
	}
	if s.p.SelfCollision {
		s.selfPatches()
	}
	return s.count()
}

// vertexBoxChunk sets the boxes of vertices [lo, hi) for detect.
func (s *Solver) vertexBoxChunk(_, lo, hi int) {
	c, dt, ext := s.c, s.dt, s.boxExt
	prox := s.mode == modeProximity
	for i := lo; i < hi; i++ {
		if s.useDirty && !s.dirty[i] {
			continue
		}
		x := c.X[i]
		y := lerp(x, c.V[i], dt)
		blo, bhi := vmin(x, y), vmax(x, y)
		s.swLo[i], s.swHi[i] = blo, bhi
		if prox {
			blo, bhi = x, x
		}
		s.plo[i], s.phi[i] = blo.Sub(ext), bhi.Add(ext)
	}
}

// faceBoxChunk sets fdirty and the swept box (grown by the pad) of faces
// [lo, hi) for detect, from their vertices' boxes.
func (s *Solver) faceBoxChunk(_, lo, hi int) {
	for f, t := range s.c.Tris[lo:hi] {
		f += lo
		if t[0] < 0 {
			s.self.lo[f], s.self.hi[f] = geom.Vec3{X: 1}, geom.Vec3{}
			continue
		}
		s.fdirty[f] = !s.useDirty || s.dirty[t[0]] || s.dirty[t[1]] || s.dirty[t[2]]
		if !s.fdirty[f] {
			continue
		}
		blo := vmin(s.swLo[t[0]], vmin(s.swLo[t[1]], s.swLo[t[2]]))
		bhi := vmax(s.swHi[t[0]], vmax(s.swHi[t[1]], s.swHi[t[2]]))
		s.self.lo[f], s.self.hi[f] = blo.Sub(s.boxPad), bhi.Add(s.boxPad)
	}
}

// detectPlanes runs the vertex tests against every half-space body and the
// vertex and face tests against every round body (round.go).
func (s *Solver) detectPlanes() {
	for b := range s.bs {
		s.curBody = b
		switch bd := &s.bs[b]; {
		case bd.round():
			parallel.ForChunksBalanced(len(s.c.X), s.detectRV)
			parallel.ForChunksBalanced(len(s.c.Tris), s.detectRF)
		case bd.Tris == nil:
			parallel.ForChunks(len(s.c.X), s.detectP)
		}
	}
}

func (s *Solver) count() int {
	n := 0
	for k := range s.chunk {
		n += len(s.chunk[k])
	}
	return n
}

// patchNearChunk sets s.pnear[p] for the patches p ∈ [lo, hi): whether
// the patch's box, grown by the proximity pad h/2 that the body's boxes
// lack, meets the box of a face of body s.curBody. detectBodyChunk skips
// the faces of the other patches in the proximity pass: most of a sheet
// is away from any body.
func (s *Solver) patchNearChunk(_, lo, hi int) {
	st := &s.bodies[s.curBody]
	g := &st.g
	e := 0.5 * s.p.Thickness
	ev := geom.Vec3{X: e, Y: e, Z: e}
	for p := lo; p < hi; p++ {
		qlo, qhi := s.pq.g.lo[p].Sub(ev), s.pq.g.hi[p].Add(ev)
		s.pnear[p] = false
		if !boxesMeet(qlo, qhi, st.lo, st.hi) {
			continue
		}
		for range g.overlapping(qlo, qhi) {
			s.pnear[p] = true
			break
		}
	}
}

// detectBodyChunk queries the cloth triangles f ∈ [lo, hi) against body
// s.curBody's grid and runs the narrow phase on each triangle pair once.
func (s *Solver) detectBodyChunk(k, lo, hi int) {
	b := s.curBody
	st := &s.bodies[b]
	g := &st.g
	extra := 0.0
	if s.mode == modeProximity {
		extra = 0.5 * s.p.Thickness // the body's boxes carry no pad
	}
	e := geom.Vec3{X: extra, Y: extra, Z: extra}
	// Local list headers, stored once (see patchTestChunk).
	out, cands := s.chunk[k], s.cand[k]
	prox := s.mode == modeProximity
	for f := lo; f < hi; f++ {
		if s.c.Tris[f][0] < 0 || !s.fdirty[f] || prox && !s.pnear[s.cull.patchOf(int32(f))] {
			continue
		}
		for t := range g.overlapping(s.self.lo[f].Sub(e), s.self.hi[f].Add(e)) {
			d := s.narrowBody(&out, b, int32(f), t)
			if s.collect {
				cands = append(cands, cand{int32(f), t, int32(b), d})
			}
		}
	}
	s.chunk[k], s.cand[k] = out, cands
}

// patchQuery is the self-collision query's state over the culler's
// patches, per call: the grid of the patch boxes, the patch pairs whose
// boxes meet, to test (pp) or culled by a certificate (culled), and the
// pieces' work lists.
type patchQuery struct {
	g    grid   // over the patch boxes (g.lo, g.hi: the union of their faces' boxes)
	pout []bool // per patch: it has a face outgrown in this pass (outgrown)
	pp   [parallel.Chunks][]patchPair
	// culled: the patch pairs whose boxes overlapped in the proximity pass
	// but whose triangle pairs a certificate culled; lostPairs turns those
	// no longer covered into candidate pairs.
	culled [parallel.Chunks][]patchPair
	// per piece: the faces of a patch pair that meet the other's box
	fa, fb [parallel.Chunks][]int32
}

// patchPair is a pair of patches whose boxes overlap (a == b: one patch).
type patchPair struct{ a, b int32 }

// patchBoxes sets each patch's box (pq.g.lo, hi) to the union of its
// faces' boxes s.self.lo, hi and returns the mean of the boxes' largest
// extents (the patch grid's cell side).
func (s *Solver) patchBoxes() float64 {
	cl, pq := &s.cull, &s.pq
	np := cl.numPatches()
	pq.g.lo, pq.g.hi = buf.Grow(pq.g.lo, np), buf.Grow(pq.g.hi, np)
	sum := 0.0
	for p := 0; p < np; p++ {
		fs := cl.patchFaces(int32(p))
		lo, hi := s.self.lo[fs[0]], s.self.hi[fs[0]]
		for _, f := range fs[1:] {
			lo, hi = vmin(lo, s.self.lo[f]), vmax(hi, s.self.hi[f])
		}
		pq.g.lo[p], pq.g.hi[p] = lo, hi
		d := hi.Sub(lo)
		sum += max(d.X, d.Y, d.Z)
	}
	if np == 0 || !(sum > 0) {
		return 1
	}
	return sum / float64(np)
}

// selfPatches is the cloth–cloth query of the proximity pass: have the
// culler certify its clusters for the velocities v^{n+½}, list the pairs
// of patches whose boxes overlap (patchPairsChunk), and test their
// triangle pairs (patchTestChunk), which become the call's candidate
// pairs.
func (s *Solver) selfPatches() {
	s.cull.certifyAll()
	s.pq.g.build(s.patchCell)
	parallel.ForChunksBalanced(s.cull.numPatches(), s.patchPairsFn)
	np := 0
	for k := range s.pq.pp {
		np += len(s.pq.pp[k])
	}
	parallel.ForPieces(np*patchPairWork, s.patchTestFn)
}

// The weights of the collision passes' entries in parallel.ForPieces'
// units (ForChunks indices, 10–20 ns each), measured with the scenes'
// bench on one core (drape-box, hanging, sphere-adaptive, bunny,
// two-sheets; 2026-11-29): a patch pair's triangle tests took 1.7–2.4 µs
// (patchPairWork), a candidate pair of a CCD pass 1–13 ns, most of them
// ruled out a group at a time (candPerWork candidates to a unit).
const (
	patchPairWork = 128
	candPerWork   = 4
)

// candWork returns the work of a CCD pass over the candidate lists, in
// parallel.ForPieces' units.
func (s *Solver) candWork() int {
	n := 0
	for k := range s.cand {
		n += len(s.cand[k])
	}
	return n / candPerWork
}

// patchPairsChunk lists, for the patches p ∈ [lo, hi), the patch pairs
// (p, p) and (p, q), q > p, whose boxes overlap: to test (pq.pp) or, when
// the culler culls them (a certified cluster holds both), culled
// (pq.culled).
func (s *Solver) patchPairsChunk(k, lo, hi int) {
	cl, pq := &s.cull, &s.pq
	g := &pq.g
	out, cul := pq.pp[k][:0], pq.culled[k][:0]
	for p := lo; p < hi; p++ {
		if pr := (patchPair{int32(p), int32(p)}); cl.culledPatches(pr.a, pr.b) {
			cul = append(cul, pr)
		} else {
			out = append(out, pr)
		}
		for q := range g.overlapping(g.lo[p], g.hi[p]) {
			if q <= int32(p) {
				continue
			}
			if pr := (patchPair{int32(p), q}); cl.culledPatches(pr.a, pr.b) {
				cul = append(cul, pr)
			} else {
				out = append(out, pr)
			}
		}
	}
	pq.pp[k], pq.culled[k] = out, cul
}

// patchTestChunk runs narrowSelf on the triangle pairs of the patch pairs
// of pieces [lo, hi) whose boxes (s.self) overlap: inside a patch every
// pair once; across two patches the faces of each that meet the other's
// box, paired. Each list is sorted by the boxes' lower x, so that a face's
// partners are scanned only up to the first beyond its box (a sweep along
// x). Each pair is kept as a candidate of the call (s.cand).
func (s *Solver) patchTestChunk(_, lo, hi int) {
	cl, pq := &s.cull, &s.pq
	for l := lo; l < hi; l++ {
		// The piece's lists are appended to through local headers and
		// stored once: the pieces' headers share cache lines, and the
		// cores writing them at every pair made each append a cache miss
		// (it halved the folded sheet's proximity query, BenchmarkKernels).
		out, cands, groups := s.chunk[l], s.cand[l], s.candGroups[l]
		fa, fb := pq.fa[l], pq.fb[l]
		for _, pr := range pq.pp[l] {
			start := len(cands)
			if pr.a == pr.b {
				fa = s.sortByLoX(append(fa[:0], cl.patchFaces(pr.a)...))
				for i, f := range fa {
					s.sweepPairs(&out, &cands, f, fa[i+1:])
				}
			} else {
				fa = s.facesMeeting(fa[:0], pr.a, pr.b)
				fb = s.sortByLoX(s.facesMeeting(fb[:0], pr.b, pr.a))
				for _, f := range fa {
					s.sweepPairs(&out, &cands, f, fb)
				}
			}
			if len(cands) > start {
				d := cands[start].d
				for _, cd := range cands[start+1:] {
					d = min(d, cd.d)
				}
				groups = append(groups, candGroup{int32(start), int32(len(cands)), pr.a, pr.b, d})
			}
		}
		s.chunk[l], s.cand[l], s.candGroups[l] = out, cands, groups
		pq.fa[l], pq.fb[l] = fa, fb
	}
}

// sortByLoX sorts faces by the lower x of their boxes (s.self), by
// insertion: the lists are a patch or less.
func (s *Solver) sortByLoX(fs []int32) []int32 {
	lo := s.self.lo
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && lo[fs[j]].X < lo[fs[j-1]].X; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
	return fs
}

// sweepPairs runs narrowSelf on face f and each of the faces gs (sorted by
// sortByLoX) whose box (s.self) meets f's, up to the first whose box starts
// beyond f's along x, writing to out, and keeps each such pair as a
// candidate of the call (cands). A partner that shares a vertex with f
// whose bound (culler.neighbourBound: the star keeps the two faces'
// primitives at least h apart) is h or more is kept with that bound and
// not tested: nothing in it is within h.
func (s *Solver) sweepPairs(out *[]pair, cands *[]cand, f int32, gs []int32) {
	lo, hi := s.self.lo, s.self.hi
	flo, fhi := lo[f], hi[f]
	ft, tris, th := s.c.Tris[f], s.c.Tris, s.p.Thickness
	// The bounds hold at x^n: in the proximity pass only (a CCD pass
	// without one before it, the kernel benchmarks', tests every pair).
	stars := s.mode == modeProximity
	lastV, lastB := int32(-1), 0.0 // consecutive partners often share the same vertex
	for _, g := range gs {
		glo := lo[g]
		if glo.X > fhi.X {
			return
		}
		if !boxesMeet(flo, fhi, glo, hi[g]) {
			continue
		}
		d := 0.0
		if v := sharedVertex(ft, tris[g]); v == lastV {
			d = lastB
		} else if v >= 0 && stars {
			d = s.cull.neighbourBound(v)
			lastV, lastB = v, d
		}
		if !(d >= th) {
			d = s.narrowSelf(out, f, g)
		}
		*cands = append(*cands, cand{f, g, -1, d})
	}
}

// facesMeeting appends to dst the faces of patch a whose boxes (s.self)
// overlap patch b's box.
func (s *Solver) facesMeeting(dst []int32, a, b int32) []int32 {
	blo, bhi := s.pq.g.lo[b], s.pq.g.hi[b]
	for _, f := range s.cull.patchFaces(a) {
		if boxesMeet(s.self.lo[f], s.self.hi[f], blo, bhi) {
			dst = append(dst, f)
		}
	}
	return dst
}

// cand is a pair of triangle boxes that overlapped in the proximity query:
// cloth face f against face t of body `body`, or of the cloth (body −1),
// and d, a lower bound of the distance at x^n of the primitive pairs the
// narrow phase tests between them (narrowSelf, narrowBody).
type cand struct {
	f, t, body int32
	d          float64
}

// candGroup is the run cand[start:end) of a piece's candidate pairs that
// the proximity pass found in patch pair (p, q), and the least of their
// distance bounds d, so that a CCD pass rules the run out with one
// question to the culler (groupFar): on the full-resolution sphere most
// candidate pairs are neighbours ruled out this way, each read on its own
// before.
type candGroup struct {
	start, end, p, q int32
	d                float64
}

// outgrown sets fout[f] for every live cloth triangle whose swept box
// (now, with the velocities after the proximity impulses and the passes
// since) is not inside its candidate box (candLo, candHi: at first its box
// of the proximity query, (x^n ∪ x^n + Δt·v^{n+½}) ± h/2), keeps its old
// candidate box (oldLo, oldHi), grows the candidate box to hold the
// current one with the same margin again, and reports whether there is
// one. A pair of boxes inside their candidate boxes that overlaps now
// overlapped then, so the candidate pairs serve every CCD pass (Bridson et
// al. §6 likewise use one candidate set for proximity and collisions);
// extendCand adds the pairs an outgrown box brings. The repulsion alone
// moves a vertex by 0.1·h over the step, but the inelastic part of the
// proximity response stacked over a vertex's pairs, and impact zones, can
// move it further.
func (s *Solver) outgrown() bool {
	any := false
	nf := len(s.c.Tris)
	s.fout = buf.Grow(s.fout, nf)
	s.oldLo, s.oldHi = buf.Grow(s.oldLo, nf), buf.Grow(s.oldHi, nf)
	m := 0.5 * s.p.Thickness
	mv := geom.Vec3{X: m, Y: m, Z: m}
	for f, t := range s.c.Tris {
		s.fout[f] = false
		if t[0] < 0 {
			continue
		}
		lo, hi, olo, ohi := s.self.lo[f], s.self.hi[f], s.candLo[f], s.candHi[f]
		if lo.X < olo.X || lo.Y < olo.Y || lo.Z < olo.Z || hi.X > ohi.X || hi.Y > ohi.Y || hi.Z > ohi.Z {
			s.fout[f], any = true, true
			s.oldLo[f], s.oldHi[f] = olo, ohi
			s.candLo[f], s.candHi[f] = vmin(olo, lo.Sub(mv)), vmax(ohi, hi.Add(mv))
		}
	}
	return any
}

// extendCand adds to the candidate pairs those of the outgrown faces
// (outgrown) whose grown candidate boxes meet a cloth face's or a body
// face's and did not before (the others are candidates already, or lie in
// a patch pair the proximity pass culled, which lostPairs tends): against
// the cloth through the patch grid, its boxes grown with their faces',
// against each mesh body through its grid. They are tested in this pass
// and the next ones like the others (distance bound 0: not measured).
func (s *Solver) extendCand() {
	c, pq := s.c, &s.pq
	np := s.cull.numPatches()
	if s.p.SelfCollision {
		pq.pout = buf.Grow(pq.pout, np)
		clear(pq.pout)
		for f, t := range c.Tris {
			if t[0] < 0 || !s.fout[f] {
				continue
			}
			p := s.cull.patchOf(int32(f))
			pq.pout[p] = true
			pq.g.lo[p], pq.g.hi[p] = vmin(pq.g.lo[p], s.candLo[f]), vmax(pq.g.hi[p], s.candHi[f])
		}
		pq.g.build(s.patchCell)
		parallel.ForChunksBalanced(np, s.extendSelfFn)
	}
	for b := range s.bs {
		if len(s.bs[b].Tris) > 0 {
			s.curBody = b
			parallel.ForChunksBalanced(len(c.Tris), s.extendBodyFn)
		}
	}
}

// extendSelfChunk is extendCand's cloth–cloth query for the patches
// p ∈ [lo, hi) with an outgrown face: each such face f against the faces t
// of every patch whose box meets p's, a new pair when their candidate
// boxes meet now and did not (old boxes: oldLo/oldHi for outgrown faces),
// once (t not outgrown, or after f).
func (s *Solver) extendSelfChunk(k, lo, hi int) {
	cl, pq := &s.cull, &s.pq
	g := &pq.g
	for p := lo; p < hi; p++ {
		if !pq.pout[p] {
			continue
		}
		for q := range g.overlapping(g.lo[p], g.hi[p]) {
			for _, f := range cl.patchFaces(int32(p)) {
				if !s.fout[f] || !boxesMeet(s.candLo[f], s.candHi[f], g.lo[q], g.hi[q]) {
					continue
				}
				for _, t := range cl.patchFaces(q) {
					if t == f || s.fout[t] && t < f {
						continue
					}
					if !boxesMeet(s.candLo[f], s.candHi[f], s.candLo[t], s.candHi[t]) {
						continue
					}
					tlo, thi := s.candLo[t], s.candHi[t]
					if s.fout[t] {
						tlo, thi = s.oldLo[t], s.oldHi[t]
					}
					if boxesMeet(s.oldLo[f], s.oldHi[f], tlo, thi) {
						continue // a candidate already, or culled with its patch pair
					}
					s.cand[k] = append(s.cand[k], cand{f, t, -1, 0})
				}
			}
		}
	}
}

// extendBodyChunk is extendCand's query of the outgrown faces f ∈ [lo, hi)
// against mesh body s.curBody's grid.
func (s *Solver) extendBodyChunk(k, lo, hi int) {
	b := s.curBody
	g := &s.bodies[b].g
	for f := lo; f < hi; f++ {
		if s.c.Tris[f][0] < 0 || !s.fout[f] {
			continue
		}
		olo, ohi := s.oldLo[f], s.oldHi[f]
		for t := range g.overlapping(s.candLo[f], s.candHi[f]) {
			if !boxesMeet(olo, ohi, g.lo[t], g.hi[t]) {
				s.cand[k] = append(s.cand[k], cand{int32(f), t, int32(b), 0})
			}
		}
	}
}

// lostPairs runs before a CCD pass in which the culler certified
// clusters again (culler.recertify): it turns every patch pair the
// proximity pass culled that no certificate covers now into candidate
// pairs (the triangle pairs whose boxes of that pass overlapped; distance
// bound 0, since the pass did not measure it), once.
func (s *Solver) lostPairs() {
	cl, pq := &s.cull, &s.pq
	for l := range pq.culled {
		kept := pq.culled[l][:0]
		for _, pr := range pq.culled[l] {
			if cl.culledPatches(pr.a, pr.b) {
				kept = append(kept, pr)
				continue
			}
			if pr.a == pr.b {
				fs := cl.patchFaces(pr.a)
				for i, f := range fs {
					for _, g := range fs[i+1:] {
						s.addLost(l, f, g)
					}
				}
				continue
			}
			for _, f := range cl.patchFaces(pr.a) {
				for _, g := range cl.patchFaces(pr.b) {
					s.addLost(l, f, g)
				}
			}
		}
		pq.culled[l] = kept
	}
}

// addLost keeps faces f and g as a candidate pair of piece l when their
// proximity boxes (s.candLo, candHi) overlapped.
func (s *Solver) addLost(l int, f, g int32) {
	if boxesMeet(s.candLo[f], s.candHi[f], s.candLo[g], s.candHi[g]) {
		s.cand[l] = append(s.cand[l], cand{f, g, -1, 0})
	}
}

// detectCandChunk runs the CCD narrow phase on the triangle pairs of
// candidate lists [lo, hi) (one list per piece), writing to the same
// piece's output: the pairs with a triangle dirty (a cloth–body pair: the
// cloth triangle; a pair of unchanged primitives had no collision in the
// last pass and still has none) whose current boxes overlap and, for a
// cloth–cloth pair, that the culler does not cull (a candidate group at
// once, then the pair by its patches' motion before its boxes are read,
// then by its certificate and its vertices' motion). A cloth–body pair
// whose distance bound its motion cannot close is skipped likewise
// (farOverStep).
func (s *Solver) detectCandChunk(k, lo, hi int) {
	cl := &s.cull
	fdirty := s.fdirty
	for l := lo; l < hi; l++ {
		out := &s.chunk[l]
		cands, groups := s.cand[l], s.candGroups[l]
		for i := 0; i < len(cands); i++ {
			if len(groups) > 0 && int(groups[0].start) == i {
				// A patch pair's triangle pairs, ruled out together by
				// the least distance bound among them.
				gr := groups[0]
				groups = groups[1:]
				if cl.groupFar(gr.p, gr.q, gr.d) {
					i = int(gr.end) - 1
					continue
				}
			}
			cd := cands[i]
			alo, ahi := s.self.lo[cd.f], s.self.hi[cd.f]
			var blo, bhi geom.Vec3
			if cd.body < 0 {
				if !fdirty[cd.f] && !fdirty[cd.t] || cl.patchFar(cd.f, cd.t, cd.d) {
					continue
				}
				blo, bhi = s.self.lo[cd.t], s.self.hi[cd.t]
			} else {
				if !fdirty[cd.f] {
					continue
				}
				g := &s.bodies[cd.body].g
				blo, bhi = g.lo[cd.t], g.hi[cd.t]
			}
			if !boxesMeet(alo, ahi, blo, bhi) {
				continue
			}
			if cd.body < 0 {
				if !cl.culled(cd.f, cd.t) && !cl.pairFar(cd.f, cd.t, cd.d) {
					s.narrowSelf(out, cd.f, cd.t)
				}
			} else if !s.farOverStep(cd.d, s.bodyPairLip(int(cd.body), cd.f, cd.t)) {
				s.narrowBody(out, int(cd.body), cd.f, cd.t)
			}
		}
	}
}
