package contact

import (
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file is the seam between the self-collision query and the culling
// of cloth–cloth pairs: the culler, the one place that decides which pairs
// of cloth faces whose boxes meet are not tested, its switch (Params.Cull:
// off, it culls nothing and every such pair goes to the narrow phase, the
// reference), and the motion bounds of the CCD passes. The candidate
// generation (candidates.go) asks only the methods listed at the type; the
// certificates behind them are in patches.go, the star bounds in stars.go.

// culler is the cloth–cloth culling. It holds the partition of the
// cloth's faces into patches and the hierarchy of clusters above them,
// with their shape certificates (patches.go), the rims of the vertex
// stars and their bounds β (stars.go), and the patches' motions over the
// step. It culls in three ways, each argued where it is made:
//
//   - certificates: a pair of patches inside one certified cluster cannot
//     intersect over the step (patches.go). This one changes results: the
//     pairs within h inside the cluster (in-plane neighbours, a graph has
//     one layer) are not repelled, and which those are depends on the
//     partition. A pair the reference finds and the culler drops has both
//     faces in one certified cluster (TestCullOff).
//   - star bounds: in the proximity pass two faces that share a vertex
//     whose star keeps their other primitives at least β ≥ h apart are
//     not tested (stars.go); exact, nothing within h is lost.
//   - motion bounds: in the CCD passes a pair whose primitives are at
//     least d apart at x^n (the proximity pass's bound, cand.d) and whose
//     relative motion over the step is less than d − 2δ is not tested,
//     checked for a whole candidate group at once, then per pair by the
//     two patches' motions, then by the six vertices' (this file); exact,
//     no collision is lost.
//
// The star and motion bounds leave the results the same to the bit
// (TestShortcutsChangeNothing turns them off alone); the certificates
// leave every pair that does not lie in one certified cluster as it is
// (TestCullOff).
//
// What the candidate generation and the narrow phase ask of it, and
// nothing else:
//
//   - rebuild, when the faces change; setMode, per call;
//   - certifyAll in the proximity pass, recertify before each CCD pass,
//     motions before each CCD pass;
//   - culledPatches(p, q) and culled(f, g): the certificates;
//   - neighbourBound(v): the star bound of two faces that share v;
//   - groupFar, patchFar, pairFar: the motion bounds;
//   - numPatches, patchOf, patchFaces: the patches, which are also the
//     buckets of the self-collision query (it runs over pairs of patches
//     whose boxes meet, culling or not).
//
// Off (setMode(false, false)) every query answers "not culled" and no
// certificate, star bound or motion is computed; the partition (and the
// stars' rims) are still built when the faces change, the partition for
// the query's buckets. The mode is two flags read by
// each query, not an interface with a culling and a non-culling
// implementation: the queries are asked per candidate pair, tens of
// thousands of times a pass, and as methods of a concrete type they are
// inlined into the loops that ask them (an interface call each would not
// be); with the flags the seam costs nothing measurable (the benchmarks
// before and after it agree within noise).
type culler struct {
	// s is the solver whose cloth, topology (adj, vfStart, vfList, the
	// touched vertices of the last change) and call (dt, δ, calls,
	// cellLen) the culler reads; it writes none of the solver's fields.
	s *Solver
	// certs: the certificates cull; bounds: the star and motion bounds
	// cull (setMode).
	certs, bounds bool

	ps partition // patches and the clusters above them (patches.go)
	// the last build's partition, its certificates and traces, while
	// buildPatches makes the next one (keepClusters)
	prev       partition
	prevTraces [parallel.Chunks]traceArena
	traces     [parallel.Chunks]traceArena // certifyChunk's traces above level 0
	// keptFrom: per cluster of the level being built, the last build's
	// cluster it keeps or −1; keptAs: per cluster of the last build at
	// the level below, what it is now or −1
	keptFrom, keptAs []int32
	// build scratch
	loop0            loopScratch // finishLevel's at level 0
	growQueue        []int32     // buildPatches: the faces of the patch being grown
	groupQueue       []int32     // groupLevel: the clusters of the group being formed
	growing          []int32     // buildPatches: per vertex slot, the patch being grown that holds it
	faceOrder, psize []int32
	gsize            []int32 // groupLevel: per group, its clusters
	renum            []int32
	// certifyPatches' pass: every cluster or those marked redo, the level
	// certifyChunk works on, and each piece's scratch
	allCert   bool
	certLevel int
	scratch   [parallel.Chunks]certScratch

	// stars (stars.go): per vertex, its rim in fan order (aligned with
	// vfList) and last rim vertex, and starBound's record
	starRim, starLast []int32
	starMemo          []uint64

	// per patch, set before each CCD pass: the mean of its vertices'
	// displacements over the step and their largest distance from it
	// (patchMotionChunk, patchFar)
	pmove []geom.Vec3
	prad  []float64

	// the passes, bound once (a method value allocates)
	certifyFn, starRimFn, patchMotionFn func(k, lo, hi int)
}

// init binds the culler to solver s, with everything culled.
func (cl *culler) init(s *Solver) {
	cl.s = s
	cl.certs, cl.bounds = true, true
	cl.certifyFn = cl.certifyChunk
	cl.starRimFn = cl.starRimChunk
	cl.patchMotionFn = cl.patchMotionChunk
}

// setMode sets what the culler culls from this call on: the certificates
// when certs, the star and motion bounds when bounds. Certificates and
// stars kept from earlier calls stay valid across a change: each is a
// statement about shapes, not about the mode it was made in.
func (cl *culler) setMode(certs, bounds bool) { cl.certs, cl.bounds = certs, bounds }

// rebuild makes the patches, the clusters (keeping the certificates of
// those whose faces did not change) and the stars' rims again, after a
// change of the faces; the solver's topology (adjacency, vertex→face
// lists, ownership) must be current.
func (cl *culler) rebuild() {
	cl.starRims()
	cl.buildPatches()
}

// certifyAll certifies the clusters for the current trajectories, in the
// proximity pass (certifyPatches); nothing when the certificates are off.
func (cl *culler) certifyAll() {
	if cl.certs {
		cl.certifyPatches(true)
	}
}

// recertify runs before a CCD pass: it certifies again the clusters with a
// vertex whose velocity changed in the last pass (dirty, per vertex) and
// reports whether there were any, so that the caller turns the patch
// pairs the proximity pass culled and no certificate covers now into
// candidates (candidates.go, lostPairs). A pair whose faces kept their
// velocities needs no test even then: the old certificate covered exactly
// its trajectories.
func (cl *culler) recertify(dirty []bool) bool {
	if !cl.certs {
		return false
	}
	c, ps := cl.s.c, &cl.ps
	any := false
	for k := range ps.levels {
		clear(ps.levels[k].redo)
	}
	for f, t := range c.Tris {
		if t[0] >= 0 && (dirty[t[0]] || dirty[t[1]] || dirty[t[2]]) {
			for k := range ps.levels {
				L := &ps.levels[k]
				L.redo[L.label[f]] = true
			}
			any = true
		}
	}
	if any {
		cl.certifyPatches(false)
	}
	return any
}

// motions sets the patches' motions over the step for patchFar and
// groupFar, before each CCD pass; nothing when the bounds are off.
func (cl *culler) motions() {
	if !cl.bounds {
		return
	}
	np := cl.numPatches()
	cl.pmove, cl.prad = buf.Grow(cl.pmove, np), buf.Grow(cl.prad, np)
	parallel.ForChunks(np, cl.patchMotionFn)
}

// faceSlots returns the number of face slots the partition was built for.
func (cl *culler) faceSlots() int { return len(cl.ps.of) }

// numPatches returns the number of patches.
func (cl *culler) numPatches() int { return len(cl.ps.start) - 1 }

// patchOf returns the patch of live face f.
func (cl *culler) patchOf(f int32) int32 { return cl.ps.of[f] }

// patchFaces returns patch p's faces.
func (cl *culler) patchFaces(p int32) []int32 { return cl.ps.patchFaces(p) }

// culledPatches reports whether patches p and q (p == q: one patch) lie
// in one certified cluster at some level: none of their triangle pairs
// can intersect over the step. False when the certificates are off.
func (cl *culler) culledPatches(p, q int32) bool {
	if !cl.certs {
		return false
	}
	for k := range cl.ps.levels {
		L := &cl.ps.levels[k]
		if a := L.ofPatch[p]; a == L.ofPatch[q] && L.safe[a] {
			return true
		}
	}
	return false
}

// culled reports whether cloth faces f and g lie in one certified
// cluster (culledPatches).
func (cl *culler) culled(f, g int32) bool {
	return cl.culledPatches(cl.ps.of[f], cl.ps.of[g])
}

// neighbourBound returns a lower bound at x^n of the distances between the
// primitives of two faces that share vertex v and share no vertex with
// each other: its star's β (starBound), or 0 for none or with the bounds
// off. The proximity pass does not test a pair with a bound ≥ h.
func (cl *culler) neighbourBound(v int32) float64 {
	if !cl.bounds {
		return 0
	}
	return cl.starBound(v)
}

// groupFar reports whether every triangle pair between patches p and q
// whose primitives are at least d apart at x^n stays farther apart than δ
// over the step (patchesFar): a candidate group, ruled out by its least
// distance bound, which is true for a bound if for every larger one.
// False with the bounds off.
func (cl *culler) groupFar(p, q int32, d float64) bool {
	return cl.bounds && cl.patchesFar(p, q, d)
}

// patchFar is groupFar for cloth faces f and g: a bound of their points'
// relative motion from their patches' (pmove, prad), which reads two
// patches' records instead of six velocities, so the CCD passes ask it
// before the boxes: on the full-resolution sphere almost all of the
// ~46,000 candidate pairs of a CCD pass are neighbours that move
// together, and reading their boxes, certificates and velocities to rule
// them out took the first pass 2.5 ms of wall time a step.
func (cl *culler) patchFar(f, g int32, d float64) bool {
	return cl.bounds && cl.patchesFar(cl.ps.of[f], cl.ps.of[g], d)
}

// pairFar reports whether cloth faces f and g, whose primitives are at
// least d apart at x^n, stay farther apart than δ over the step by the
// bound of their six vertices' motion (selfPairLip, farOverStep): on a
// resting or slowly deforming sheet almost every candidate pair. False
// with the bounds off.
func (cl *culler) pairFar(f, g int32, d float64) bool {
	return cl.bounds && cl.s.farOverStep(d, cl.selfPairLip(f, g))
}

// patchMotionChunk sets, for the patches [lo, hi), the mean m_p of their
// vertices' displacements over the step and the largest distance ρ_p of
// one from it (pmove, prad) for patchFar.
func (cl *culler) patchMotionChunk(_, lo, hi int) {
	s := cl.s
	L := &cl.ps.levels[0]
	v := s.c.V
	for p := lo; p < hi; p++ {
		verts := L.verts[L.vstart[p]:L.vstart[p+1]]
		var m geom.Vec3
		for _, i := range verts {
			m = m.Add(v[i])
		}
		m = m.Scale(1 / float64(len(verts)))
		r2 := 0.0
		for _, i := range verts {
			d := v[i].Sub(m)
			r2 = max(r2, d.Dot(d))
		}
		cl.pmove[p] = m.Scale(s.dt)
		cl.prad[p] = s.dt * math.Sqrt(r2)
	}
}

// patchesFar reports whether any two points of patches p and q that are
// at least d apart at x^n stay farther apart than δ over the step:
// farOverStep with a bound of their relative displacement from the
// patches' motions (a point's displacement is m_p plus a convex
// combination of its vertices' d_i − m_p, so two points' relative
// displacement is at most ρ_p + ρ_q + |m_p − m_q|). It is mostly looser
// than selfPairLip.
func (cl *culler) patchesFar(p, q int32, d float64) bool {
	a := d - 2*cl.s.delta - cl.prad[p] - cl.prad[q]
	dm := cl.pmove[p].Sub(cl.pmove[q])
	return a > 0 && dm.Dot(dm) < a*a
}

// selfPairLip bounds the change over the step of the distance between any
// point of cloth face f and any point of cloth face g: with r the
// displacement of f's first vertex, every point's displacement is a convex
// combination of its face's vertex displacements, so two points' relative
// displacement is at most max_{i∈f}|d_i − r| + max_{j∈g}|d_j − r|.
func (cl *culler) selfPairLip(f, g int32) float64 {
	s := cl.s
	ft, gt := s.c.Tris[f], s.c.Tris[g]
	v := s.c.V
	r := v[ft[0]]
	mf := max(v[ft[1]].Sub(r).Dot(v[ft[1]].Sub(r)), v[ft[2]].Sub(r).Dot(v[ft[2]].Sub(r)))
	mg := max(v[gt[0]].Sub(r).Dot(v[gt[0]].Sub(r)), v[gt[1]].Sub(r).Dot(v[gt[1]].Sub(r)), v[gt[2]].Sub(r).Dot(v[gt[2]].Sub(r)))
	return s.dt * (math.Sqrt(mf) + math.Sqrt(mg))
}
