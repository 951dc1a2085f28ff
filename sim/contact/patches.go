package contact

import (
	"math"
	"slices"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file holds the culler's certificates (cull.go): it partitions the
// cloth's faces into patches and clusters of patches and certifies those
// that cannot intersect themselves over the step, so that their pairs of
// faces go untested. The criterion is that of normal cones
// (Volino & Magnenat-Thalmann 1994, "Efficient self-collision
// detection on smoothly discretized surface animations using geometrical
// shape regularity"; Provot 1997 §3 uses the same regularity criterion):
// a surface that is a topological disk, whose normals all lie within 90°
// of one direction n and whose boundary, projected along n, is a simple
// closed curve, is the graph of a function over the plane ⊥ n and cannot
// intersect itself.
//
// Why it holds. Project the disk D onto the plane ⊥ n. Every face maps
// affinely with a positive determinant (its normal has n·N > 0), so for a
// point y of the plane off the image of ∂D the degree of the projection
// at y is the number of faces covering y; the degree equals the winding
// number of the projected boundary around y, which is 0 or 1 for a simple
// curve. So no point of the plane is covered twice, and two faces of D
// that intersected in space would cover the projection of their
// intersection twice.
//
// A certificate with a slack. certifyShape certifies a cluster at the
// positions x^n together with the largest ε for which every shape whose
// vertices lie within ε of those positions, after a common translation,
// is still a graph: the cone condition with the normals' largest change
// taken off, and a boundary that stays simple (star-shaped about its
// centroid with margin, or, by a sweep over its segments, non-adjacent
// segments more than 2ε apart and adjacent ones unable to fold onto each
// other). A step's trajectories x^n → x^n + Δt·v are covered when both
// ends of every vertex's path lie within ε of the reference (withinSlack:
// the deviation along a straight path is a convex combination of the
// ends'). A cluster keeps its certificate from pass to pass and from step
// to step while the cloth deforms by less than ε relative to it, so a
// resting or slowly moving cloth certifies almost nothing again.
//
// The hierarchy. Level 0 are the patches; each level above groups up to
// four adjacent clusters of the one below, up to eight levels. A pair of
// patches that lies in one certified cluster at any level contributes no
// cloth–cloth primitive pair to any stage: no intersection can arise in
// it over the step, and its proximity pairs within h are in-plane
// neighbours, not layers (a graph has one layer). The same neighbours
// across a cluster's border are tested, so which of them are repelled
// depends on the partition; dropping them everywhere was tried and
// reverted (it took the full-resolution gathering curtain from 70.8 to
// 103.9 PCG iterations a step; docs/notes/contact.md). What is left are the
// pairs of patches whose boxes overlap and share no certified cluster
// (layers, folds, the neighbours of uncertified clusters), tested triangle
// by triangle. Every CCD pass checks again the clusters whose vertices'
// velocities changed (culler.recertify), and the patch pairs the
// proximity pass culled under a certificate that no longer holds become
// candidate pairs (lostPairs, candidates.go).
//
// Decisions, measured on frames of the sphere scene (the 22140-face
// full-resolution drape, the 2702-face adaptive one; CPU ms per Resolve,
// medians): unions of two adjacent patches certified by an O(b²)
// boundary test cost what the pairs they saved did (32.8 against 30.0),
// and so did certifying the star of every boundary vertex (27.2 against
// 27.7); the hierarchy of clusters brought 29.3 down to 24.2, and
// certificates with a slack, instead of certificates of each step's
// trajectories (the normal's quadratic in τ, the boundary's motion
// bounded) recomputed every pass, 24.9 down to 20.2.
//
// Unions of two adjacent patches, tried again (2026-11-26) with slack
// certificates and the union's loop joined from the two patches' loops in
// O(b), certified where no cluster of the hierarchy holds both: in the
// proximity pass they also cull the pairs within h across the
// hierarchy's borders (near neighbours: inside a certified cluster every
// such pair found on the benches' scenes joins primitives one ring apart),
// and with them the repulsion springs those pairs become, which changed
// the dynamics and cost more than they saved: on `drape bench` the
// full-resolution gathering curtain took 89.6
// PCG iterations per step instead of 70.8 (45.1 against 38.8 ms per step,
// though collisions fell from 22.5 % to 18.6 % of it), and the adaptive
// sphere refined 5 % more triangles (8.0 against 6.9 ms per step). Used
// in the CCD passes only, which keeps the dynamics, they cost more than
// they saved where the mesh adapts: 2.8 against 2.2 ms per step of
// proximity on the adaptive sphere, the pairs' loops, vertex lists and
// certificates being made again after every adaptation. An upper bound
// (2026-11-27): skipping every adjacent patch pair whose union passes
// the cone test, unsoundly and without any certificate, left the
// adaptive sphere's collision share at 21–24 % over four starts (25 %
// without), with more refinement in three of them. On the recorded
// frames the pairs within h in those patch pairs were all one ring apart,
// and mostly in face pairs that share no vertex (docs/notes/contact.md,
// "The 20 % on the adaptive sphere, bounded").
//
// The patches are grown by breadth-first search over the faces' edge
// adjacency, patchSize faces each, adding only faces that keep the patch a
// disk, so they are topological neighbourhoods whatever the face
// numbering. When the faces change (the mesh adapts) a rebuild keeps the
// patches and clusters none of whose faces changed, with their
// certificates (keepClusters), and grows and groups the rest afresh.

// patchSize is the number of faces a patch grows to. On frames of the
// sphere scene (a 22140-face full-resolution drape and a 2702-face
// adaptive one) 16, 24, 40 and 64 cost the same within the machine's
// noise (32–45 and 4.3–7.2 CPU ms per Resolve): smaller patches leave more
// pairs across their boundaries, larger ones fail their certificates more
// often.
const patchSize = 24

// coneMargin is the least n·N/|N| a face must keep (N its normal, twice
// its area): cos 84°. Positive is all the argument needs; the margin keeps
// nearly edge-on faces, whose projections are slivers decided by
// round-off, out of the certificates.
const coneMargin = 0.1

// partition is the patches and the hierarchy of clusters above them.
type partition struct {
	of           []int32 // per face slot: its patch; −1 for a free slot
	start, faces []int32 // patch p's faces: faces[start[p]:start[p+1]]
	// levels[0] are the patches themselves; levels[k] groups up to
	// groupSize adjacent clusters of levels[k−1] into one.
	levels []clusterLevel
}

// clusterLevel is one level of the hierarchy: clusters of faces, each
// with its boundary loop (empty: not a disk, never certified) and its
// certificate for the current velocities.
type clusterLevel struct {
	label          []int32 // per face slot: its cluster; −1 for a free slot
	ofPatch        []int32 // per patch: its cluster
	kidStart, kids []int32 // cluster c's clusters of the level below: kids[kidStart[c]:kidStart[c+1]] (levels above 0)
	start, faces   []int32 // cluster c's faces: faces[start[c]:start[c+1]]
	// Level 0: cluster c's boundary loop, vertex slots in face order, and
	// its vertex slots (finishLevel). Above it they are traced when
	// certifyChunk first needs them (at; shape reads either).
	loopStart, loop []int32 // loop[loopStart[c]:loopStart[c+1]]
	vstart, verts   []int32 // verts[vstart[c]:vstart[c+1]]
	at              []traceRef
	// The shape certificate (certifyShape): the reference positions of the
	// vertices (aligned with verts), the slack ε (0: none) and the call
	// that set it.
	ref     []geom.Vec3 // level 0; above it in the trace's arena
	eps     []float64
	refCall []int64
	safe    []bool // certified for the current trajectories
	redo    []bool // a vertex changed since (recertify)
}

// groupSize is how many clusters of one level make one of the next, and
// maxLevels caps the levels (24 × 4⁷ faces at the top: any cloth of this
// project fits in one). Four levels (about 1500 faces at the top) left the
// pairs across the top clusters' boundaries: on the hanging 22140-face
// curtain, 7.4 ms of collisions per step against 3.6 ms with eight.
const (
	groupSize = 4
	maxLevels = 8
)

// certScratch is one piece's work lists for certifyShape: the projected
// boundary loop and its segments in sweep order.
type certScratch struct {
	proj  [][2]float64
	order []sortKey
}

// sortKey orders certify's boundary segments by the lower x of their
// boxes.
type sortKey struct {
	x float64
	i int32
}

// buildPatches partitions the live faces into patches (breadth-first over
// s.adj, patchSize faces each, each a disk), the last build's patches
// whose faces did not change kept whole, and builds the hierarchy of
// clusters above them, each with its boundary loop.
func (cl *culler) buildPatches() {
	// The last build's partition becomes cl.prev, and the next is made in
	// the arrays of the one before.
	cl.ps, cl.prev = cl.prev, cl.ps
	cl.traces, cl.prevTraces = cl.prevTraces, cl.traces
	kept := cl.keepPatches()
	order := cl.orderFaces()
	// cl.growing marks the vertices of the patch being grown with its id,
	// so that keepsDisk need not scan the third vertex's faces (a fifth of
	// a rebuild did); the ids only increase, so it is cleared once.
	cl.growing = buf.Grow(cl.growing, len(cl.s.c.X))
	for i := range cl.growing {
		cl.growing[i] = -1
	}
	cl.growPatches(order)
	cl.dissolveFragments(order, kept)
	cl.growPatches(order)
	np := cl.listPatches(order)
	cl.buildLevels(np)
}

// keepPatches labels (ps.of) every face slot −1 but the faces of the last
// build's patches whose faces are all as they were, which come first,
// whole, numbered in order (keptFrom: their old numbers; psize: their
// sizes; keepClusters carries their certificates over), and returns how
// many patches it kept.
func (cl *culler) keepPatches() int32 {
	ps := &cl.ps
	ps.of = buf.Grow(ps.of, len(cl.s.c.Tris))
	for f := range ps.of {
		ps.of[f] = -1
	}
	cl.psize = cl.psize[:0]
	cl.keptFrom = cl.keptFrom[:0]
	if len(cl.prev.levels) > 0 {
		for p := range len(cl.prev.start) - 1 {
			fs := cl.prev.faces[cl.prev.start[p]:cl.prev.start[p+1]]
			if len(fs) < patchSize/2 || !cl.allSame(fs) {
				continue
			}
			for _, f := range fs {
				ps.of[f] = int32(len(cl.psize))
			}
			cl.psize = append(cl.psize, int32(len(fs)))
			cl.keptFrom = append(cl.keptFrom, int32(p))
		}
	}
	return int32(len(cl.psize))
}

// orderFaces returns the live faces not in a kept patch in breadth-first
// order over the mesh (cl.faceOrder), so that the seeds of the patches
// sweep across it and leave few fragments.
func (cl *culler) orderFaces() []int32 {
	s, ps := cl.s, &cl.ps
	order := cl.faceOrder[:0]
	for f, t := range s.c.Tris {
		if t[0] < 0 || ps.of[f] != -1 {
			continue
		}
		ps.of[f] = -3 // queued
		first := len(order)
		order = append(order, int32(f))
		for i := first; i < len(order); i++ {
			for _, g := range s.adj[order[i]] {
				if g >= 0 && ps.of[g] == -1 {
					ps.of[g] = -3
					order = append(order, g)
				}
			}
		}
	}
	for _, f := range order {
		ps.of[f] = -1
	}
	cl.faceOrder = order
	return order
}

// growPatches grows a patch (growPatch) from each face of order that no
// patch holds yet, in that order.
func (cl *culler) growPatches(order []int32) {
	for _, f := range order {
		if cl.ps.of[f] == -1 {
			cl.growPatch(f, int32(len(cl.psize)))
		}
	}
}

// growPatch grows patch id from face f, breadth-first over the faces'
// edges, adding the faces no patch holds that keep it a disk (keepsDisk),
// up to patchSize faces, and records its size.
func (cl *culler) growPatch(f, id int32) {
	s, ps := cl.s, &cl.ps
	queue := append(cl.growQueue[:0], f)
	cl.join(f, id)
	n := 1
	for i := 0; i < len(queue) && n < patchSize; i++ {
		for _, g := range s.adj[queue[i]] {
			if g >= 0 && ps.of[g] == -1 && n < patchSize && cl.keepsDisk(g, id, true) {
				cl.join(g, id)
				queue = append(queue, g)
				n++
			}
		}
	}
	cl.psize = append(cl.psize, int32(n))
	cl.growQueue = queue
}

// join puts face f into patch id, the patch being grown.
func (cl *culler) join(f, id int32) {
	cl.ps.of[f] = id
	t := cl.s.c.Tris[f]
	cl.growing[t[0]], cl.growing[t[1]], cl.growing[t[2]] = id, id, id
}

// dissolveFragments frees the faces of the fragments the greedy growth
// left between full patches (fewer than patchSize/3 faces; not the kept
// patches, numbered below kept) and hands each to a neighbouring patch
// where that keeps the neighbour a disk and under twice patchSize; what
// cannot be placed is left free, to grow into patches again. A kept
// patch that takes faces is kept no longer (listPatches). (Left out of
// the kept patches, fragments piled up: 15 % of the adaptive sphere's
// patches had fewer than half patchSize faces, against 1.5 % when every
// build started afresh.)
func (cl *culler) dissolveFragments(order []int32, kept int32) {
	s, ps := cl.s, &cl.ps
	for _, f := range order {
		if p := ps.of[f]; p >= kept && cl.psize[p] < patchSize/3 {
			cl.psize[p]--
			ps.of[f] = -1
		}
	}
	for changed := true; changed; {
		changed = false
		for _, f := range order {
			if ps.of[f] != -1 {
				continue
			}
			for _, g := range s.adj[f] {
				if g < 0 {
					continue
				}
				if q := ps.of[g]; q >= 0 && cl.psize[q] < 2*patchSize && cl.keepsDisk(f, q, false) {
					ps.of[f] = q
					cl.psize[q]++
					changed = true
					break
				}
			}
		}
	}
}

// listPatches renumbers the non-empty patches (the kept ones keep their
// numbers) and lists their faces (CSR: ps.start, ps.faces), a kept
// patch's in its old order, and returns the number of patches. A kept
// patch that took fragments is kept no longer (keptFrom −1).
func (cl *culler) listPatches(order []int32) int {
	ps := &cl.ps
	cl.renum = buf.Grow(cl.renum, len(cl.psize))
	np := 0
	for p, n := range cl.psize {
		cl.renum[p] = -1
		if n > 0 {
			cl.renum[p] = int32(np)
			np++
		}
	}
	ps.start = buf.Grow(ps.start, np+1)
	clear(ps.start)
	for p, old := range cl.keptFrom {
		ps.start[p+1] = cl.prev.start[old+1] - cl.prev.start[old]
	}
	for _, f := range order {
		ps.of[f] = cl.renum[ps.of[f]]
		ps.start[ps.of[f]+1]++
	}
	for p := 1; p <= np; p++ {
		ps.start[p] += ps.start[p-1]
	}
	ps.faces = buf.Grow(ps.faces, int(ps.start[np]))
	for p, old := range cl.keptFrom {
		fs := cl.prev.faces[cl.prev.start[old]:cl.prev.start[old+1]]
		copy(ps.faces[ps.start[p]:], fs)
		ps.start[p] += int32(len(fs))
		if cl.psize[p] != int32(len(fs)) {
			cl.keptFrom[p] = -1 // it took fragments
		}
	}
	for _, f := range order {
		p := ps.of[f]
		ps.faces[ps.start[p]] = f
		ps.start[p]++
	}
	for p := np; p > 0; p-- {
		ps.start[p] = ps.start[p-1]
	}
	ps.start[0] = 0
	return np
}

// buildLevels makes the np patches level 0 of the hierarchy, with their
// boundary loops and the certificates kept from the last build, and
// groups the levels above, until a level merges nothing or maxLevels.
func (cl *culler) buildLevels(np int) {
	ps := &cl.ps
	cl.loop0.size(len(cl.s.c.X))
	for k := range cl.traces {
		a := &cl.traces[k]
		a.loop, a.verts, a.ref = a.loop[:0], a.verts[:0], a.ref[:0]
	}
	for len(ps.levels) < 1 {
		ps.levels = append(ps.levels, clusterLevel{})
	}
	L := &ps.levels[0]
	L.label = append(L.label[:0], ps.of...)
	L.start = append(L.start[:0], ps.start...)
	L.faces = append(L.faces[:0], ps.faces...)
	L.ofPatch = buf.Grow(L.ofPatch, np)
	for p := range L.ofPatch {
		L.ofPatch[p] = int32(p)
	}
	cl.finishLevel(0)
	cl.keepClusters(0)
	nl := 1
	for ; nl < maxLevels; nl++ {
		if !cl.groupLevel(nl) {
			break
		}
	}
	ps.levels = ps.levels[:nl]
}

// finishLevel finds the boundary loops of level k's clusters and sizes its
// per-call flags. Above level 0 the loops are left to trace: a cluster
// needs its loop and vertex list only to be certified, which it is only
// while every cluster below it is, and on the gathering curtain that is
// 32 % of the faces at level 1 and none above (recorded frames). Tracing
// every level was half of a rebuild after a remesh.
func (cl *culler) finishLevel(k int) {
	L := &cl.ps.levels[k]
	nc := len(L.start) - 1
	L.loopStart, L.loop = L.loopStart[:0], L.loop[:0]
	L.vstart, L.verts = L.vstart[:0], L.verts[:0]
	if k == 0 {
		L.vstart = buf.Grow(L.vstart, nc+1)
		for id := 0; id < nc; id++ {
			L.loopStart = append(L.loopStart, int32(len(L.loop)))
			L.vstart[id] = int32(len(L.verts))
			if id < len(cl.keptFrom) && cl.keptFrom[id] >= 0 {
				// A kept patch none of whose vertices is touched has the
				// adjacency it had, so the same loop.
				if oloop, overts, _ := cl.prev.shape(&cl.prevTraces, 0, cl.keptFrom[id]); cl.untouched(overts) {
					L.loop = append(L.loop, oloop...)
					L.verts = append(L.verts, overts...)
					continue
				}
			}
			L.loop = cl.boundaryLoop(&cl.loop0, L.loop, k, int32(id))
			// Each cluster's vertex slots, in the order its faces name
			// them first: boundaryLoop's list of those it saw.
			L.verts = append(L.verts, cl.loop0.seen...)
		}
		L.loopStart = append(L.loopStart, int32(len(L.loop)))
		L.vstart[nc] = int32(len(L.verts))
		L.ref = buf.Grow(L.ref, len(L.verts))
	} else {
		L.at = buf.Grow(L.at, nc)
		for id := range L.at {
			L.at[id] = traceRef{piece: -1}
		}
	}
	L.eps, L.refCall = buf.Grow(L.eps, nc), buf.Grow(L.refCall, nc)
	clear(L.eps)
	for i := range L.refCall {
		L.refCall[i] = -1
	}
	L.safe, L.redo = buf.Grow(L.safe, nc), buf.Grow(L.redo, nc)
}

// traceRef is where the trace of a cluster above level 0 lies: in piece's
// arena (cl.traces), its loop at loop[loop0:loop1] and its vertex slots and
// their references at verts, ref[v0:v1]; piece −1 when not traced yet.
type traceRef struct{ piece, loop0, loop1, v0, v1 int32 }

// traceArena holds the traces made by one piece of certifyChunk since the
// last rebuild, and its boundaryLoop scratch. A cluster's piece is fixed
// while the hierarchy is (its index's share of the level), so each arena
// is written by one goroutine at a time and read back by the same piece.
type traceArena struct {
	loop, verts []int32
	ref         []geom.Vec3
	sc          loopScratch
}

// trace traces cluster id of level lv (above 0) into piece k's arena.
func (cl *culler) trace(k, lv int, id int32) {
	s := cl.s
	a := &cl.traces[k]
	a.sc.size(len(s.c.X))
	l0, v0 := len(a.loop), len(a.verts)
	a.loop = cl.boundaryLoop(&a.sc, a.loop, lv, id)
	a.verts = append(a.verts, a.sc.seen...)
	cl.ps.levels[lv].at[id] = a.seal(k, l0, v0)
}

// seal makes room for the references of the vertex slots appended to
// piece k's arena a since len(a.verts) was v0 (and len(a.loop) l0), and
// returns where that trace lies.
func (a *traceArena) seal(k, l0, v0 int) traceRef {
	a.ref = slices.Grow(a.ref, len(a.verts)-len(a.ref))[:len(a.verts)]
	return traceRef{int32(k), int32(l0), int32(len(a.loop)), int32(v0), int32(len(a.verts))}
}

// shape returns cluster id of level lv's boundary loop, vertex slots and
// their reference positions: level 0's from finishLevel, the others' from
// their trace (nil when not traced).
func (cl *culler) shape(lv int, id int32) (loop, verts []int32, ref []geom.Vec3) {
	return cl.ps.shape(&cl.traces, lv, id)
}

// shape is Solver.shape for partition p, whose traces are in arenas.
func (p *partition) shape(arenas *[parallel.Chunks]traceArena, lv int, id int32) (loop, verts []int32, ref []geom.Vec3) {
	L := &p.levels[lv]
	if lv == 0 {
		return L.loop[L.loopStart[id]:L.loopStart[id+1]], L.verts[L.vstart[id]:L.vstart[id+1]], L.ref[L.vstart[id]:L.vstart[id+1]]
	}
	t := L.at[id]
	if t.piece < 0 {
		return nil, nil, nil
	}
	a := &arenas[t.piece]
	return a.loop[t.loop0:t.loop1], a.verts[t.v0:t.v1], a.ref[t.v0:t.v1]
}

// loopScratch is boundaryLoop's scratch, per vertex slot (nextV all −1
// and vmark all false between calls), and the lists it fills.
type loopScratch struct {
	nextV         []int32
	vmark         []bool
	touched, seen []int32
}

// size makes room for nv vertex slots, keeping the scratch clean.
func (sc *loopScratch) size(nv int) {
	if cap(sc.nextV) < nv {
		sc.nextV = slices.Repeat([]int32{-1}, nv+nv/4)
		sc.vmark = make([]bool, nv+nv/4)
	}
	sc.nextV, sc.vmark = sc.nextV[:nv], sc.vmark[:nv]
}

// groupLevel builds level k by grouping up to groupSize clusters of level
// k−1 that are adjacent (share an edge), breadth-first in cluster order,
// and reports whether it merged any.
func (cl *culler) groupLevel(k int) bool {
	s := cl.s
	c, ps := s.c, &cl.ps
	if len(ps.levels) <= k {
		ps.levels = append(ps.levels, clusterLevel{})
	}
	below, L := &ps.levels[k-1], &ps.levels[k]
	nb := len(below.start) - 1
	group := buf.Grow(cl.renum, nb)
	for i := range group {
		group[i] = -1
	}
	// The last build's clusters of this level whose children are all
	// kept are kept, whole and first (keepClusters).
	ng := int32(0)
	keeping := len(cl.keptFrom) > 0
	size := cl.gsize[:0] // per group: its clusters
	if keeping && k < len(cl.prev.levels) {
		cl.keptAs = buf.Grow(cl.keptAs, len(cl.prev.levels[k-1].start)-1)
		for i := range cl.keptAs {
			cl.keptAs[i] = -1
		}
		for x, old := range cl.keptFrom {
			if old >= 0 {
				cl.keptAs[old] = int32(x)
			}
		}
		cl.keptFrom = cl.keptFrom[:0]
		P := &cl.prev.levels[k]
		for old := range len(P.start) - 1 {
			kids := P.kids[P.kidStart[old]:P.kidStart[old+1]]
			all := len(kids) >= groupSize/2
			for _, x := range kids {
				all = all && cl.keptAs[x] >= 0
			}
			if !all {
				continue
			}
			for _, x := range kids {
				group[cl.keptAs[x]] = ng
			}
			cl.keptFrom = append(cl.keptFrom, int32(old))
			size = append(size, int32(len(kids)))
			ng++
		}
	} else {
		cl.keptFrom = cl.keptFrom[:0]
	}
	// Breadth-first over the other clusters below, their neighbours found
	// through their faces' edges.
	queue := cl.groupQueue[:0]
	for x := int32(0); x < int32(nb); x++ {
		if group[x] >= 0 {
			continue
		}
		group[x] = ng
		queue = append(queue[:0], x)
		for i := 0; i < len(queue) && len(queue) < groupSize; i++ {
			for _, f := range below.faces[below.start[queue[i]]:below.start[queue[i]+1]] {
				for _, g := range s.adj[f] {
					if g < 0 || len(queue) == groupSize {
						continue
					}
					if y := below.label[g]; group[y] < 0 {
						group[y] = ng
						queue = append(queue, y)
					}
				}
			}
		}
		// Beside kept groups, a group that is not full joins a
		// neighbour with room, which is kept no longer. (Left alone,
		// such groups piled up where the mesh changed: 0.39 clusters of
		// level 1 per patch on the adaptive sphere, against 0.27 when
		// every build started afresh.)
		if keeping && len(queue) < groupSize {
			if h := cl.roomyNeighbour(below, group, size, queue, ng); h >= 0 {
				for _, y := range queue {
					group[y] = h
				}
				size[h] += int32(len(queue))
				if int(h) < len(cl.keptFrom) {
					cl.keptFrom[h] = -1
				}
				continue
			}
		}
		size = append(size, int32(len(queue)))
		ng++
	}
	cl.groupQueue, cl.renum, cl.gsize = queue, group, size
	if int(ng) == nb {
		return false
	}
	L.label = buf.Grow(L.label, len(c.Tris))
	for f := range c.Tris {
		L.label[f] = -1
		if b := below.label[f]; b >= 0 {
			L.label[f] = group[b]
		}
	}
	L.start, L.faces = groupBy(L.label, int(ng), L.start, L.faces)
	L.ofPatch = buf.Grow(L.ofPatch, len(ps.start)-1)
	for p := range L.ofPatch {
		L.ofPatch[p] = group[below.ofPatch[p]]
	}
	// Each cluster's children, in order (childrenSafe).
	L.kidStart, L.kids = groupBy(group, int(ng), L.kidStart, L.kids)
	cl.finishLevel(k)
	cl.keepClusters(k)
	return true
}

// roomyNeighbour returns a group other than ng (the group of the
// clusters in queue) beside them whose clusters and theirs make at most
// groupSize, or −1.
func (cl *culler) roomyNeighbour(below *clusterLevel, group, size, queue []int32, ng int32) int32 {
	s := cl.s
	for _, x := range queue {
		for _, f := range below.faces[below.start[x]:below.start[x+1]] {
			for _, g := range s.adj[f] {
				if g < 0 {
					continue
				}
				if h := group[below.label[g]]; h >= 0 && h != ng && int(size[h])+len(queue) <= groupSize {
					return h
				}
			}
		}
	}
	return -1
}

// allSame reports whether every face of fs is as it was at the last
// build (s.fsame).
func (cl *culler) allSame(fs []int32) bool {
	s := cl.s
	for _, f := range fs {
		if int(f) >= len(s.fsame) || !s.fsame[f] {
			return false
		}
	}
	return true
}

// keepClusters carries the certificates of the clusters of level lv that
// the rebuild kept (cl.keptFrom: the same faces as a cluster of the last
// build, whose children were kept too) over from the last build: the
// reference, slack and call of each one that had a certificate, once its
// boundary loop and vertex slots, found again (traced, above level 0),
// are the same as those the reference was taken for. A certificate
// depends on nothing else: it is a statement about the shapes near the
// reference of these faces (certifyShape), so it holds until the cloth
// leaves its slack as if no remesh had come between.
//
// Why keep them. After a remesh of the gathering curtain about 2 % of the
// faces change, yet every patch and cluster used to be grown, traced and
// certified again: on the recorded frames of the sphere scene 43.5
// certificates were made a call, 36.8 with the clusters kept (the
// curtain's 93.8 and 74.1), and a rebuild took 0.68–0.84 ms against
// 0.52–0.58 (docs/notes/contact.md, "Clusters kept across remeshes"). The
// partition now depends on the remeshes' history, not only on the
// current faces; which near neighbours are tested depends on it, as it
// did on the face numbering.
func (cl *culler) keepClusters(lv int) {
	if len(cl.keptFrom) == 0 {
		return
	}
	L, P := &cl.ps.levels[lv], &cl.prev.levels[lv]
	nc := len(L.start) - 1
	for id, old := range cl.keptFrom {
		if old < 0 || !(P.eps[old] > 0) || lv > 0 && P.at[old].piece < 0 {
			continue
		}
		oloop, overts, oref := cl.prev.shape(&cl.prevTraces, lv, old)
		if lv > 0 {
			// Traced in the arena of the piece that certifies it: copied
			// where no vertex is touched (the adjacency is as it was),
			// traced again where one is.
			k := parallel.PieceOf(id, nc)
			if cl.untouched(overts) {
				a := &cl.traces[k]
				l0, v0 := len(a.loop), len(a.verts)
				a.loop, a.verts = append(a.loop, oloop...), append(a.verts, overts...)
				L.at[id] = a.seal(k, l0, v0)
			} else {
				cl.trace(k, lv, int32(id))
			}
		}
		loop, verts, ref := cl.shape(lv, int32(id))
		if !slices.Equal(loop, oloop) || !slices.Equal(verts, overts) {
			if lv > 0 {
				a := &cl.traces[L.at[id].piece]
				t := L.at[id]
				a.loop, a.verts, a.ref = a.loop[:t.loop0], a.verts[:t.v0], a.ref[:t.v0]
				L.at[id] = traceRef{piece: -1}
			}
			continue
		}
		copy(ref, oref)
		L.eps[id], L.refCall[id] = P.eps[old], P.refCall[old]
	}
}

// untouched reports whether no vertex of verts is touched by the changes
// since the last build (touchedVertices; false when every face's
// adjacency was found again).
func (cl *culler) untouched(verts []int32) bool {
	s := cl.s
	if s.topoAll {
		return false
	}
	for _, v := range verts {
		if int(v) >= len(s.vtouch) || s.vtouch[v] {
			return false
		}
	}
	return true
}

// groupBy lists, for each key k ∈ [0, n), the indices i with key[i] = k
// in increasing order, as items[start[k]:start[k+1]] (a counting sort into
// start and items, grown as needed); negative keys are left out.
func groupBy(key []int32, n int, start, items []int32) ([]int32, []int32) {
	start = buf.Grow(start, n+1)
	clear(start)
	for _, k := range key {
		if k >= 0 {
			start[k+1]++
		}
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	items = buf.Grow(items, int(start[n]))
	for i, k := range key {
		if k >= 0 {
			items[start[k]] = int32(i)
			start[k]++
		}
	}
	for i := n; i > 0; i-- {
		start[i] = start[i-1]
	}
	start[0] = 0
	return start, items
}

// keepsDisk reports whether adding face g to patch id (a disk) leaves it
// a disk: g shares two or three edges with it, or one edge and its third
// vertex is not in the patch yet (one edge and a vertex already in it
// would pinch the patch or enclose a hole). growing: id is the patch
// being grown, whose vertices cl.growing marks.
func (cl *culler) keepsDisk(g, id int32, growing bool) bool {
	s := cl.s
	ps := &cl.ps
	t := s.c.Tris[g]
	shared, opp := 0, int32(-1)
	for k := 0; k < 3; k++ {
		if n := s.adj[g][k]; n >= 0 && ps.of[n] == id {
			shared++
			opp = t[(k+2)%3]
		}
	}
	if shared != 1 {
		return shared >= 2
	}
	if growing {
		return cl.growing[opp] != id
	}
	for _, f := range s.vfList[s.vfStart[opp]:s.vfStart[opp+1]] {
		if ps.of[f] == id {
			return false
		}
	}
	return true
}

// patchFaces returns patch p's faces.
func (ps *partition) patchFaces(p int32) []int32 { return ps.faces[ps.start[p]:ps.start[p+1]] }

// boundaryLoop appends to dst the boundary loop of cluster id of level k,
// the vertex slots in the faces' orientation, when it is a topological
// disk: no non-manifold edge, V − E + F = 1 and one boundary loop through
// every boundary edge, each boundary vertex once. Otherwise it returns dst
// unchanged. Either way it leaves in sc.seen the cluster's vertex slots,
// in the order its faces name them first. It uses sc.nextV (all −1) and
// sc.vmark (all false) and leaves them so.
func (cl *culler) boundaryLoop(sc *loopScratch, dst []int32, k int, id int32) []int32 {
	s := cl.s
	c, L := s.c, &cl.ps.levels[k]
	touched, seen := sc.touched[:0], sc.seen[:0]
	nb, ok := 0, true
	start := int32(-1)
	fs := L.faces[L.start[id]:L.start[id+1]]
	for _, f := range fs {
		t := c.Tris[f]
		for j := 0; j < 3; j++ {
			if v := t[j]; !sc.vmark[v] {
				sc.vmark[v] = true
				seen = append(seen, v)
			}
			g := s.adj[f][j]
			if g == -2 {
				ok = false
			}
			if g >= 0 && L.label[g] == id {
				continue
			}
			u, v := t[j], t[(j+1)%3]
			if sc.nextV[u] >= 0 {
				ok = false // two boundary edges leave u: a pinch
				continue
			}
			sc.nextV[u] = v
			touched = append(touched, u)
			start = u
			nb++
		}
	}
	nf := len(fs)
	if ok && nb > 0 && (3*nf+nb)%2 == 0 && len(seen)-(3*nf+nb)/2+nf == 1 {
		n := len(dst)
		dst = append(dst, start)
		for v := sc.nextV[start]; v != start; v = sc.nextV[v] {
			if v < 0 || len(dst)-n >= nb {
				ok = false
				break
			}
			dst = append(dst, v)
		}
		if !ok || len(dst)-n != nb {
			dst = dst[:n]
		}
	}
	for _, u := range touched {
		sc.nextV[u] = -1
	}
	for _, v := range seen {
		sc.vmark[v] = false
	}
	sc.touched, sc.seen = touched, seen
	return dst
}

// certifyShape certifies cluster id of level lv at the current positions
// x^n as a shape with a slack: it records the cluster's reference (its
// vertices' positions) and returns the largest ε (at most a cap, a quarter
// of the cloth's mean edge) such that every shape whose vertices lie within
// ε of the reference after a common translation is certified; 0 when there
// is none (see the top of this file). k is the piece whose scratch it may
// use. The bounds, for vertices moved by at most ε (so edges and
// projected distances by at most 2ε):
//
//   - a face's normal N = e₁ × e₂ changes by at most
//     g(ε) = 2ε(|e₁| + |e₂|) + 4ε², so n·N > κ|N| holds while
//     g(ε) < (n·N − κ|N|)/(1 + κ) (κ = coneMargin);
//   - the boundary stays star-shaped about its centroid (which moves by
//     at most ε too) while each edge's cross(p_i − c, p_{i+1} − c) exceeds
//     2ε(|p_i − c| + |p_{i+1} − c|) + 4ε², with the winding about c 1;
//   - otherwise it stays simple while non-adjacent segments, s apart, keep
//     s > 2ε, and two adjacent ones, with the interior angle θ between
//     them, keep θ + asin(2ε/l_in) + asin(2ε/l_out) < 2π (asin x ≤ πx/2),
//     with the turning of the boundary 2π (Gauss–Bonnet: no fan wrapped
//     past itself, no branch point).
//
// The integer invariants (winding, turning) cannot change along a path of
// shapes inside the slack, since every face stays positive and no two
// boundary segments fold onto each other on the way.
func (cl *culler) certifyShape(k, lv int, id int32) float64 {
	s := cl.s
	c, ps := s.c, &cl.ps
	L := &ps.levels[lv]
	loop, verts, ref := cl.shape(lv, id)
	nb := len(loop)
	if nb < 3 {
		return 0
	}
	fs := L.faces[L.start[id]:L.start[id+1]]
	for i, v := range verts {
		ref[i] = c.X[v]
	}
	eps := 0.25 * s.cellLen
	// The cone axis: the area-weighted mean normal.
	var n geom.Vec3
	for _, f := range fs {
		t := c.Tris[f]
		n = n.Add(c.X[t[1]].Sub(c.X[t[0]]).Cross(c.X[t[2]].Sub(c.X[t[0]])))
	}
	ln := n.Norm()
	if !(ln > 0) {
		return 0
	}
	n = n.Scale(1 / ln)
	for _, f := range fs {
		t := c.Tris[f]
		e1, e2 := c.X[t[1]].Sub(c.X[t[0]]), c.X[t[2]].Sub(c.X[t[0]])
		N := e1.Cross(e2)
		G := (n.Dot(N) - coneMargin*N.Norm()) / (1 + coneMargin)
		if !(G > 0) {
			return 0
		}
		l := e1.Norm() + e2.Norm()
		eps = min(eps, (math.Sqrt(l*l+4*G)-l)/4)
	}
	// The projected boundary, counter-clockwise seen from +n.
	u := geom.Vec3{X: 1}
	if math.Abs(n.X) > 0.6 {
		u = geom.Vec3{Y: 1}
	}
	u = u.Sub(n.Scale(n.Dot(u))).Unit()
	w := n.Cross(u)
	sc := &cl.scratch[k]
	sc.proj = buf.Grow(sc.proj, nb)
	P := sc.proj
	var cen [2]float64
	for i, v := range loop {
		x := c.X[v]
		P[i] = [2]float64{x.Dot(u), x.Dot(w)}
		cen[0] += P[i][0]
		cen[1] += P[i][1]
	}
	cen[0] /= float64(nb)
	cen[1] /= float64(nb)
	if e := starSlack(P, cen); e >= eps {
		return eps
	} else if general := simpleSlack(sc, P, eps); general > 0 || e > 0 {
		return max(e, general)
	}
	return 0
}

// starSlack returns the slack of the star shape of the closed polygon P
// about c (certifyShape), or 0 when it does not wind once about c with
// every edge turning counter-clockwise.
func starSlack(P [][2]float64, c [2]float64) float64 {
	nb := len(P)
	eps := math.Inf(1)
	cross := 0
	for i := 0; i < nb; i++ {
		j := i + 1
		if j == nb {
			j = 0
		}
		ax, ay := P[i][0]-c[0], P[i][1]-c[1]
		bx, by := P[j][0]-c[0], P[j][1]-c[1]
		q := ax*by - ay*bx
		if !(q > 0) {
			return 0
		}
		l := math.Sqrt(ax*ax+ay*ay) + math.Sqrt(bx*bx+by*by)
		eps = min(eps, (math.Sqrt(l*l+4*q)-l)/4)
		if ay < 0 && by >= 0 {
			cross++
		}
	}
	if cross != 1 {
		return 0
	}
	return eps
}

// simpleSlack returns the slack, at most cap, of the simple closed polygon
// P by the general bounds of certifyShape (non-adjacent segments apart,
// adjacent ones not folding, turning 2π), or 0.
func simpleSlack(sc *certScratch, P [][2]float64, cap float64) float64 {
	nb := len(P)
	eps := cap
	// Adjacent segments: γ = 2π − θ = π + φ, with φ the turning angle.
	turn := 0.0
	for i := 0; i < nb; i++ {
		h := i - 1
		if h < 0 {
			h = nb - 1
		}
		j := i + 1
		if j == nb {
			j = 0
		}
		ax, ay := P[i][0]-P[h][0], P[i][1]-P[h][1]
		bx, by := P[j][0]-P[i][0], P[j][1]-P[i][1]
		phi := math.Atan2(ax*by-ay*bx, ax*bx+ay*by)
		turn += phi
		la, lb := math.Sqrt(ax*ax+ay*ay), math.Sqrt(bx*bx+by*by)
		if !(la > 0 && lb > 0) {
			return 0
		}
		eps = min(eps, (math.Pi+phi)/(math.Pi*(1/la+1/lb)), 0.5*lb)
	}
	// Turning 2π: implied by the two bounds (a boundary simple at the
	// reference bounds an embedded disk); checked against round-off.
	if math.Abs(turn-2*math.Pi) > 1 || !(eps > 0) {
		return 0
	}
	// Non-adjacent segments, those within 2ε of each other found by a
	// sweep along x over their boxes (O(b log b): a loop crosses a
	// vertical line only a few times).
	sc.order = buf.Grow(sc.order, nb)
	for i := range sc.order {
		j := next(int32(i), nb)
		sc.order[i] = sortKey{min(P[i][0], P[j][0]), int32(i)}
	}
	slices.SortFunc(sc.order, func(a, b sortKey) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return int(a.i - b.i)
	})
	for oi, ki := range sc.order {
		i := ki.i
		p0, p1 := P[i], P[next(i, nb)]
		ahi0 := max(p0[0], p1[0]) + 2*eps
		for _, kj := range sc.order[oi+1:] {
			if kj.x > ahi0 {
				break
			}
			j := kj.i
			if d := i - j; d == 1 || d == -1 || d == int32(nb-1) || d == 1-int32(nb) {
				continue // adjacent: the angle bound above
			}
			q0, q1 := P[j], P[next(j, nb)]
			if max(q0[1], q1[1]) < min(p0[1], p1[1])-2*eps || min(q0[1], q1[1]) > max(p0[1], p1[1])+2*eps {
				continue
			}
			eps = min(eps, 0.5*segmentDistance2(p0, p1, q0, q1))
			ahi0 = max(p0[0], p1[0]) + 2*eps
		}
	}
	if !(eps > 0) {
		return 0
	}
	return eps
}

// retryDist is how far x^n must move from cluster id's last reference
// before certifyChunk tries again: half its slack when it had one (the
// step's motion left it: a reference this close does no better), a
// quarter of the mean edge when it failed. Without it the top levels of
// a folded or fast-moving cloth, which fail, are tried again at every
// call, each try visiting all their faces. (Its effect on the gathering
// curtain was within the machine's noise: 22.4, 22.7 and 25.0 ms of
// collisions per step with four levels, eight, and eight with it.)
func (cl *culler) retryDist(lv int, id int32) float64 {
	s := cl.s
	if e := cl.ps.levels[lv].eps[id]; e > 0 {
		return 0.5 * e
	}
	return 0.25 * s.cellLen
}

// nearRef reports whether every vertex of cluster id of level lv lies
// within tol of its reference at x^n, after the mean translation.
func (cl *culler) nearRef(lv int, id int32, tol float64) bool {
	s := cl.s
	c := s.c
	_, verts, ref := cl.shape(lv, id)
	var t geom.Vec3
	for i, v := range verts {
		t = t.Add(c.X[v].Sub(ref[i]))
	}
	t = t.Scale(1 / float64(len(verts)))
	for i, v := range verts {
		if d := c.X[v].Sub(ref[i]).Sub(t); d.Dot(d) > tol*tol {
			return false
		}
	}
	return true
}

// withinSlack reports whether cluster id of level lv is certified for the
// step's trajectories x^n → x^n + Δt·v by its shape certificate: whether
// every vertex, at both ends of the step, lies within the slack of the
// reference after the mean translation of the cluster's vertices is taken
// away. Between the ends the deviation from the reference (less the
// translation interpolated linearly) is a convex combination of the ends',
// so no larger.
func (cl *culler) withinSlack(lv int, id int32) bool {
	s := cl.s
	c, L := s.c, &cl.ps.levels[lv]
	eps := L.eps[id]
	if !(eps > 0) {
		return false
	}
	_, verts, ref := cl.shape(lv, id)
	dt := s.dt
	var t0, t1 geom.Vec3
	for i, v := range verts {
		x := c.X[v]
		t0 = t0.Add(x.Sub(ref[i]))
		t1 = t1.Add(lerp(x, c.V[v], dt).Sub(ref[i]))
	}
	inv := 1 / float64(len(verts))
	t0, t1 = t0.Scale(inv), t1.Scale(inv)
	e2 := eps * eps
	for i, v := range verts {
		x := c.X[v]
		d0 := x.Sub(ref[i]).Sub(t0)
		d1 := lerp(x, c.V[v], dt).Sub(ref[i]).Sub(t1)
		if d0.Dot(d0) > e2 || d1.Dot(d1) > e2 {
			return false
		}
	}
	return true
}

// segmentDistance2 returns the distance between 2D segments (p0, p1) and
// (q0, q1).
func segmentDistance2(p0, p1, q0, q1 [2]float64) float64 {
	v := func(p [2]float64) geom.Vec3 { return geom.Vec3{X: p[0], Y: p[1]} }
	d, _, _ := segmentDistance(v(p0), v(p1), v(q0), v(q1))
	return d
}

// certifyPatches certifies every cluster of every level (all) or those
// marked redo, level by level (a cluster is certified only if the
// clusters it groups are), in parallel: a cluster whose trajectories keep
// within the slack of its shape certificate stays certified
// (withinSlack); the others are certified again at x^n (certifyShape).
// A resting or slowly deforming cloth so keeps its certificates from step
// to step.
func (cl *culler) certifyPatches(all bool) {
	cl.allCert = all
	for cl.certLevel = range cl.ps.levels {
		parallel.ForChunksBalanced(len(cl.ps.levels[cl.certLevel].start)-1, cl.certifyFn)
	}
}

// certifyChunk is certifyPatches for clusters [lo, hi) of level
// certLevel, in piece k (whose trace arena and scratch it uses).
func (cl *culler) certifyChunk(k, lo, hi int) {
	s := cl.s
	lv := cl.certLevel
	L := &cl.ps.levels[lv]
	for id := lo; id < hi; id++ {
		if !cl.allCert && !L.redo[id] {
			continue
		}
		if !cl.childrenSafe(lv, int32(id)) {
			L.safe[id] = false
			continue
		}
		if lv > 0 && L.at[id].piece < 0 {
			cl.trace(k, lv, int32(id))
		}
		switch {
		case cl.withinSlack(lv, int32(id)):
			L.safe[id] = true
		case L.refCall[id] == s.calls:
			L.safe[id] = false // certified at x^n already: the motion leaves the slack
		case L.refCall[id] >= 0 && cl.nearRef(lv, int32(id), cl.retryDist(lv, int32(id))):
			// x^n has hardly moved from the last reference: a certificate
			// made here would fail, or not hold this motion, as that one.
			L.safe[id] = false
		default:
			L.eps[id] = cl.certifyShape(k, lv, int32(id))
			L.refCall[id] = s.calls
			L.safe[id] = cl.withinSlack(lv, int32(id))
		}
	}
}

// childrenSafe reports whether every cluster of level lv−1 inside cluster
// id of level lv is certified (true at level 0): a cluster that holds an
// uncertified one would fail its own test.
func (cl *culler) childrenSafe(lv int, id int32) bool {
	if lv == 0 {
		return true
	}
	L, below := &cl.ps.levels[lv], &cl.ps.levels[lv-1]
	for _, x := range L.kids[L.kidStart[id]:L.kidStart[id+1]] {
		if !below.safe[x] {
			return false
		}
	}
	return true
}

// next returns i + 1 modulo n.
func next(i int32, n int) int32 {
	if int(i)+1 == n {
		return 0
	}
	return i + 1
}
