package detail

import (
	"fmt"
	"math"
	"slices"

	"drape/sim/buf"
	"drape/sim/geom"
)

// topo is everything about the fine mesh that depends only on the coarse
// faces, their material coordinates and the level: rebuilt when those
// change (after an adaptation step of the cloth), kept otherwise.
type topo struct {
	level  int
	kind   EnergyKind
	nc     int          // coarse vertices
	tris   [][3]int32   // coarse faces (copy)
	rest   []geom.Vec2  // coarse material coordinates (copy)
	levels []loopLevel  // one per subdivision step
	nf     int          // fine vertices
	fine   [][3]int32   // fine faces
	faceOf []int32      // coarse face of each fine face
	fRest  []geom.Vec2  // material coordinates of the fine vertices
	mFace  []int32      // coarse face each fine vertex maps to (mapping)
	mBary  [][3]float64 // its barycentric coordinates in that face (mapping)
	mapped bool         // mFace and mBary are set

	// Membrane rows (EdgeEnergy: one per coarse edge, the ordered fine
	// points along it; FaceEnergy: one per fine edge, its two endpoints).
	rowPtr  []int32
	rowIdx  []int32
	rowA    []int32    // EdgeEnergy: coarse endpoints a, b
	rowB    []int32    //
	rowFace [][2]int32 // FaceEnergy: coarse faces beside the fine edge (−1: none)
	rowRest []float64  // rest length: L_c of the coarse edge, or of the fine edge, m
	rowDir  []geom.Vec2

	// Bending rows: the discrete Laplacian of fine vertex i is
	// Lap_i d = lapC[i]·d_i + lapN[i]·Σ_j d_j over the stencil j in
	// lapIdx[lapPtr[i]:lapPtr[i+1]] (all neighbours get the same weight),
	// already divided by h_i² so that Lap_i d ≈ ∇²d, 1/m². A vertex with no
	// stencil (a corner) has lapC = lapN = 0.
	lapPtr     []int32
	lapIdx     []int32
	lapC, lapN []float64
	area       []float64 // a_i = ⅓ Σ rest areas of the fine faces at i, m²
	ntri       []float64 // number of fine faces at i
	hMean      float64   // mean fine rest edge length, m
	cMean      float64   // mean coarse rest edge length, m
	phi        []float64 // seed pattern φ(material coordinates) ∈ [−1, 1], NaN until seedPhi
	phiK       float64   // its wave number 2π/λ, 1/m

	// Scratch of buildTopo, reused by the next build of this topo.
	corner    []bool
	cornerScr []int32
	baryB     [2][]baryCorners // mapping's per-level corners (ping-pong)
	restB     [2][]geom.Vec2
	fe        edgeTable // fine edges
	efaces    [][2]int32
	deg, bdeg []int32
	hsq       []float64
	nbPtr, nb []int32
	isB       []bool
	chain     [4][]int32
}

// baryCorners are the barycentric coordinates of a fine face's corners in
// its coarse face.
type baryCorners [3][3]float64

// sameInput reports whether f has the faces, level and material
// coordinates t was built from.
func (t *topo) sameInput(f *Frame, level int, kind EnergyKind) bool {
	return t.nf > 0 && t.level == level && t.kind == kind && t.nc == len(f.Pos) &&
		slices.Equal(t.tris, f.Tris) && slices.Equal(t.rest, f.Rest)
}

// buildTopo subdivides f's faces level times and sets up the mapping back
// to the coarse mesh, the membrane rows of the chosen energy and the
// bending rows. It reuses t's storage.
func buildTopo(t *topo, f *Frame, level int, kind EnergyKind, wavelength float64) error {
	t.level = level
	t.kind = kind
	t.nc = len(f.Pos)
	t.tris = append(t.tris[:0], f.Tris...)
	t.rest = append(t.rest[:0], f.Rest...)
	if err := t.subdivide(level); err != nil {
		return err
	}
	t.fineEdgeFaces()
	t.neighbours()
	t.laplacian()
	t.membraneRows()
	// The seed pattern is evaluated where the seed needs it (seedPhi).
	t.phiK = 2 * math.Pi / (wavelength * t.hMean)
	t.phi = buf.Grow(t.phi, t.nf)
	for i := range t.phi {
		t.phi[i] = math.NaN()
	}
	return nil
}

// subdivide applies level steps of Loop subdivision to the coarse faces
// t.tris (the material coordinates of each new vertex the midpoint of its
// edge's) and sets the fine mesh (nf, fine, fRest) and the coarse face of
// every fine face (faceOf). level must be ≥ 1.
func (t *topo) subdivide(level int) error {
	if cap(t.levels) < level {
		t.levels = append(t.levels[:cap(t.levels)], make([]loopLevel, level-cap(t.levels))...)
	}
	t.levels = t.levels[:level]

	rest := append(t.restB[0][:0], t.rest...)
	t.restB[0] = rest
	tris := t.tris
	nv := t.nc
	t.levels[0].et.build(nv, tris)
	t.corner, t.cornerScr = restCorners(t.rest, &t.levels[0].et, t.corner, t.cornerScr)
	for l := 0; l < level; l++ {
		L := &t.levels[l]
		if l > 0 {
			t.levels[l-1].fineEdges(&L.et)
		}
		if err := subdivideLevel(L, nv, tris, t.corner); err != nil {
			return fmt.Errorf("detail: subdividing (level %d): %w", l+1, err)
		}
		o := (l + 1) % 2 // the ping-pong buffer this level writes
		r := buf.Grow(t.restB[o], nv+L.ne)
		copy(r, rest)
		for e, ab := range L.restMid {
			r[nv+e] = rest[ab[0]].Add(rest[ab[1]]).Scale(0.5)
		}
		t.restB[o] = r
		rest, tris = r, L.tris
		nv += L.ne
	}
	t.nf = nv
	t.fine = tris
	t.fRest = rest
	// Fine face c lies in coarse face c/4^level: each step makes faces
	// 4f … 4f+3 of face f.
	t.faceOf = buf.Grow(t.faceOf, len(tris))
	for c := range t.faceOf {
		t.faceOf[c] = int32(c >> (2 * level))
	}
	t.mapped = false
	return nil
}

// fineEdgeFaces fills the fine edge table fe, the coarse faces beside
// each fine edge (efaces; −1: none, a boundary edge), and per fine vertex
// its area and face count.
func (t *topo) fineEdgeFaces() {
	nv, rest := t.nf, t.fRest
	t.levels[t.level-1].fineEdges(&t.fe)
	efaces := buf.Grow(t.efaces, len(t.fe.keys))
	for i := range efaces {
		efaces[i] = [2]int32{-1, -1}
	}
	t.area = buf.Grow(t.area, nv)
	t.ntri = buf.Grow(t.ntri, nv)
	clear(t.area)
	clear(t.ntri)
	for c, tr := range t.fine {
		a := geom.RestArea(rest[tr[0]], rest[tr[1]], rest[tr[2]])
		for i, v := range tr {
			t.area[v] += math.Abs(a) / 3
			t.ntri[v]++
			e := t.fe.of[c][i]
			if efaces[e][0] < 0 {
				efaces[e][0] = t.faceOf[c]
			} else {
				efaces[e][1] = t.faceOf[c]
			}
		}
	}
	t.efaces = efaces
}

// neighbours fills, per fine vertex, its degree, boundary degree and sum
// of squared rest edge lengths (deg, bdeg, hsq), its neighbours
// nb[nbPtr[v]:nbPtr[v+1]] with isB marking those across a boundary edge,
// and the mean fine rest edge length hMean.
func (t *topo) neighbours() {
	nv, rest, keys, efaces := t.nf, t.fRest, t.fe.keys, t.efaces
	deg := buf.Grow(t.deg, nv)
	bdeg := buf.Grow(t.bdeg, nv)
	hsq := buf.Grow(t.hsq, nv)
	clear(deg)
	clear(bdeg)
	clear(hsq)
	hsum := 0.0
	for e, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		l2 := rest[a].Sub(rest[b]).Norm2()
		hsum += math.Sqrt(l2)
		deg[a]++
		deg[b]++
		hsq[a] += l2
		hsq[b] += l2
		if efaces[e][1] < 0 {
			bdeg[a]++
			bdeg[b]++
		}
	}
	t.hMean = hsum / float64(max(len(keys), 1))
	nbPtr := buf.Grow(t.nbPtr, nv+1)
	nbPtr[0] = 0
	for v := 0; v < nv; v++ {
		nbPtr[v+1] = nbPtr[v] + deg[v]
	}
	nb := buf.Grow(t.nb, int(nbPtr[nv]))
	isB := buf.Grow(t.isB, len(nb))
	fill := buf.Grow(t.fe.ptr, nv) // the edge table's scratch, done with
	copy(fill, nbPtr[:nv])
	for e, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		bd := efaces[e][1] < 0
		nb[fill[a]], isB[fill[a]] = b, bd
		fill[a]++
		nb[fill[b]], isB[fill[b]] = a, bd
		fill[b]++
	}
	t.deg, t.bdeg, t.hsq, t.nbPtr, t.nb, t.isB = deg, bdeg, hsq, nbPtr, nb, isB
}

// laplacian fills the bending rows lapPtr, lapIdx, lapC and lapN.
// Interior: Lap_i d = 4(Σ_j d_j/m − d_i)/h_i² (the regular-lattice
// estimate of ∇²d, h_i² the mean squared rest length of i's edges); this
// is eq. 3.2's (Σ_j d_j − m·d_i) scaled by 4/(m·h_i²) so that the bending
// energy does not depend on the level. On the boundary (exactly two
// boundary edges): the 1D second difference along the boundary
// (d_a + d_b − 2d_i)/h_i², as a one-sided ring would count a tilt as
// bending. Elsewhere (corners): none.
func (t *topo) laplacian() {
	nv, rest, nb, nbPtr, isB := t.nf, t.fRest, t.nb, t.nbPtr, t.isB
	t.lapPtr = append(slices.Grow(t.lapPtr[:0], nv+1), 0)
	t.lapIdx = slices.Grow(t.lapIdx[:0], len(nb))
	t.lapC = buf.Grow(t.lapC, nv)
	t.lapN = buf.Grow(t.lapN, nv)
	for v := 0; v < nv; v++ {
		m := t.deg[v]
		h2 := t.hsq[v] / float64(max(m, 1))
		t.lapC[v], t.lapN[v] = 0, 0
		switch {
		case t.bdeg[v] == 0 && m >= 3:
			t.lapC[v], t.lapN[v] = -4/h2, 4/(float64(m)*h2)
			t.lapIdx = append(t.lapIdx, nb[nbPtr[v]:nbPtr[v+1]]...)
		case t.bdeg[v] == 2:
			var h2b float64
			for k := nbPtr[v]; k < nbPtr[v+1]; k++ {
				if isB[k] {
					h2b += rest[nb[k]].Sub(rest[v]).Norm2() / 2
				}
			}
			t.lapC[v], t.lapN[v] = -2/h2b, 1/h2b
			for k := nbPtr[v]; k < nbPtr[v+1]; k++ {
				if isB[k] {
					t.lapIdx = append(t.lapIdx, nb[k])
				}
			}
		}
		t.lapPtr = append(t.lapPtr, int32(len(t.lapIdx)))
	}
}

// membraneRows fills the membrane rows of t.kind (edgeRows or faceRows)
// and cMean, the root mean square coarse rest edge length.
func (t *topo) membraneRows() {
	nrow, nidx := len(t.fe.keys), 2*len(t.fe.keys)
	if t.kind == EdgeEnergy {
		nrow = len(t.levels[0].edges)
		nidx = nrow * (1<<t.level + 1)
	}
	t.rowPtr = append(slices.Grow(t.rowPtr[:0], nrow+1), 0)
	t.rowIdx = slices.Grow(t.rowIdx[:0], nidx)
	t.rowA, t.rowB = slices.Grow(t.rowA[:0], nrow), slices.Grow(t.rowB[:0], nrow)
	t.rowFace = slices.Grow(t.rowFace[:0], nrow)
	t.rowRest = slices.Grow(t.rowRest[:0], nrow)
	t.rowDir = slices.Grow(t.rowDir[:0], nrow)
	csum := 0.0
	L0 := &t.levels[0]
	for _, k := range L0.edges {
		a, b := int32(k>>32), int32(uint32(k))
		csum += t.rest[a].Sub(t.rest[b]).Norm2()
	}
	t.cMean = math.Sqrt(csum / float64(max(len(L0.edges), 1)))
	switch t.kind {
	case EdgeEnergy:
		t.edgeRows()
	case FaceEnergy:
		t.faceRows()
	}
}

// edgeRows appends one membrane row per coarse edge: the fine points
// along it in order, its endpoints and its rest length. Each coarse edge
// is walked down the levels: segment x–y of its chain, edge e of level l,
// gets the odd vertex nv_l + e, and its halves are edges of level l + 1
// (fineEdges' numbering).
func (t *topo) edgeRows() {
	chain, next := t.chain[0][:0], t.chain[1][:0] // points
	seg, nseg := t.chain[2][:0], t.chain[3][:0]   // edge of each segment
	for e0, k := range t.levels[0].edges {
		a, b := int32(k>>32), int32(uint32(k))
		chain = append(chain[:0], a, b)
		seg = append(seg[:0], int32(e0))
		for l := 0; l < t.level; l++ {
			L := &t.levels[l]
			next = append(next[:0], chain[0])
			nseg = nseg[:0]
			for j, e := range seg {
				x := chain[j]
				lo := 2 * e // the half at x
				if int32(L.et.keys[e]>>32) != x {
					lo++
				}
				next = append(next, int32(L.nv)+e, chain[j+1])
				nseg = append(nseg, lo, lo^1)
			}
			chain, next = next, chain
			seg, nseg = nseg, seg
		}
		t.rowIdx = append(t.rowIdx, chain...)
		t.chain = [4][]int32{chain, next, seg, nseg}
		t.rowPtr = append(t.rowPtr, int32(len(t.rowIdx)))
		t.rowA = append(t.rowA, a)
		t.rowB = append(t.rowB, b)
		t.rowRest = append(t.rowRest, t.rest[a].Sub(t.rest[b]).Norm2())
	}
	for i, l2 := range t.rowRest {
		t.rowRest[i] = math.Sqrt(l2)
	}
}

// faceRows appends one membrane row per fine edge: its two endpoints,
// rest length and unit rest direction, and the coarse faces beside it.
func (t *topo) faceRows() {
	rest := t.fRest
	for e, k := range t.fe.keys {
		a, b := int32(k>>32), int32(uint32(k))
		t.rowIdx = append(t.rowIdx, a, b)
		t.rowPtr = append(t.rowPtr, int32(len(t.rowIdx)))
		d := rest[b].Sub(rest[a])
		l := math.Sqrt(d.Norm2())
		t.rowRest = append(t.rowRest, l)
		t.rowDir = append(t.rowDir, d.Scale(1/l))
		t.rowFace = append(t.rowFace, t.efaces[e])
	}
}

// seedPhi returns the seed pattern φ at fine point i: three plane waves of
// wavelength λ in material space, so that it is the same material pattern
// in every frame (no popping when the mesh adapts) and has a component
// along every fold direction. It is computed on first use and kept with
// the topology: only compressed points need it, and on the adapting
// curtain, rebuilt every frame, the sines for all 20,000 fine points took
// 4 % of a level-1 update (pprof).
func (t *topo) seedPhi(i int) float64 {
	if v := t.phi[i]; v == v {
		return v
	}
	r, kk := t.fRest[i], t.phiK
	v := (math.Sin(kk*r.X+0.3) + math.Sin(kk*r.Y+1.1) +
		math.Sin(kk*(0.5*r.X+0.866*r.Y)+2.3)) / 3
	t.phi[i] = v
	return v
}

// mapping sets mFace and mBary, the coarse face of every fine point and
// its barycentric coordinates there, once per topology: only Mapping
// needs them, and the barycentric coordinates of every fine face's
// corners took a fifth of a level-1 rebuild (pprof, 10,000-triangle
// curtain).
func (t *topo) mapping() {
	if t.mapped {
		return
	}
	// Barycentric coordinates of each fine face's corners in its coarse
	// face, level by level.
	bary := buf.Grow(t.baryB[0], len(t.tris))
	for i := range bary {
		bary[i] = baryCorners{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	t.baryB[0] = bary
	for l := range t.levels {
		L := &t.levels[l]
		o := (l + 1) % 2
		nBary := buf.Grow(t.baryB[o], len(L.tris))
		for c, p := range L.parent {
			b := bary[p]
			mid := func(i, j int) [3]float64 {
				return [3]float64{(b[i][0] + b[j][0]) / 2, (b[i][1] + b[j][1]) / 2, (b[i][2] + b[j][2]) / 2}
			}
			m0, m1, m2 := mid(0, 1), mid(1, 2), mid(2, 0)
			switch c % 4 {
			case 0:
				nBary[c] = baryCorners{b[0], m0, m2}
			case 1:
				nBary[c] = baryCorners{b[1], m1, m0}
			case 2:
				nBary[c] = baryCorners{b[2], m2, m1}
			case 3:
				nBary[c] = baryCorners{m0, m1, m2}
			}
		}
		t.baryB[o] = nBary
		bary = nBary
	}
	t.mFace = buf.Grow(t.mFace, t.nf)
	t.mBary = buf.Grow(t.mBary, t.nf)
	for i := range t.mFace {
		t.mFace[i] = -1
	}
	for c, tr := range t.fine {
		for k, v := range tr {
			if t.mFace[v] < 0 {
				t.mFace[v] = t.faceOf[c]
				t.mBary[v] = bary[c][k]
			}
		}
	}
	t.mapped = true
}

// restKey is the exact bit pattern of a fine point's material coordinates.
// Odd vertices get (R_a + R_b)/2 from their parents at every level, which
// rounds the same way whatever the order of a and b, so a fine point that
// exists in two frames has the same key in both (used for the warm start).
func restKey(r geom.Vec2) [2]uint64 {
	return [2]uint64{math.Float64bits(r.X + 0), math.Float64bits(r.Y + 0)}
}
