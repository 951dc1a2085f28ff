package cloth

import (
	"math"
	"sort"

	"drape/sim/buf"
	"drape/sim/fem"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// blockSystem is the block-sparse (3×3 blocks) matrix of one mesh topology,
// with the lists that let each step refill it in place by gathering
// precomputed element blocks row by row, so assembly runs in parallel over
// rows without locks and adds in a fixed order (deterministic).
//
// Rows and columns are the live vertices in the order numberRows gives
// them: row i is vertex slot slot[i], and row[v] is the row of slot v (−1
// for a free slot). An adaptive mesh that has coarsened keeps the slots
// its peak needed, so leaving the free ones out keeps every PCG pass to
// the live vertices.
// Row i's blocks are val[rowPtr[i]:rowPtr[i+1]] with block columns
// col[...] in increasing order; diag[i] is the index of its diagonal
// block. The pattern holds a 3×3 block (i, j) when i and j share a face.
// Two vertices that only share an interior edge's bending stencil (the
// vertices opposite the edge) couple through the bending Hessian alone,
// which is a scalar times I₃ there: those pairs are kept as scalars,
// oppVal[oppPtr[i]:oppPtr[i+1]] with columns oppCol[...], which almost
// halves the memory the matrix-vector product streams.
type blockSystem struct {
	n        int
	coupling pairCoupling // the repulsion springs off the block diagonal (repulsion.go)
	slot     []int32      // row → vertex slot
	row      []int32      // vertex slot → row, −1 for a free slot
	rowPtr   []int32
	col      []int32
	diag     []int32
	val      []geom.Mat3

	// qsum[k] is Σ of the bending Hessian entries Q_e,ij (without k_b) of
	// all edges whose stencil pair (i, j) falls on block k.
	qsum []float64

	// Bending-only couplings between the two vertices opposite an edge:
	// oppQ[k] is Σ Q_e,ij (without k_b), oppVal[k] the system's scalar.
	oppPtr []int32
	oppCol []int32
	oppQ   []float64
	oppVal []float64

	// val32 and oppVal32 are val and oppVal rounded to float32 for the
	// PCG products (see pcg.solve), written by Sim.assemble with them.
	val32    [][9]float32
	oppVal32 []float32

	// Block k gathers the element blocks elemK[c>>1] (transposed when
	// c&1 == 1) for c in contrib[contribPtr[k]:contribPtr[k+1]].
	contribPtr []int32
	contrib    []int32
	cellStart  []int32 // numberRows' scratch

	// packRows' scratch, per row: entries, where the contributions start,
	// the row it copies from src; per src row: its row here.
	rowLens    [][4]int32
	rowContrib []int32
	rowSrc     []int32
	rowOfSrc   []int32

	// Row i gathers the element nodal forces elemF[c] for c in
	// corners[cornerPtr[i]:cornerPtr[i+1]] (c = 3·face + corner).
	cornerPtr []int32
	corners   []int32
}

// numberRows sets slot and row for the live vertices of m and returns
// their count. Rows follow the material plane in bands: the rest
// rectangle of the live vertices is cut into square cells of about four
// vertices each, the cells are taken row by row (along X, bands along Y),
// and the vertices of a cell in slot order. Slot order itself carries no
// locality (refinement appends its vertices wherever a slot is free), and
// a PCG pass splits the rows into one contiguous run per core: in band
// order a row's mesh neighbours are a band or so away, in the same run
// and mostly in cache, rather than anywhere. Counting sort, O(vertices).
func (s *blockSystem) numberRows(m *geom.Mesh) int {
	alive := m.VertAlive
	lo := geom.Vec2{X: math.Inf(1), Y: math.Inf(1)}
	hi := geom.Vec2{X: math.Inf(-1), Y: math.Inf(-1)}
	n := 0
	for v, ok := range alive {
		if ok {
			r := m.Rest[v]
			lo = geom.Vec2{X: math.Min(lo.X, r.X), Y: math.Min(lo.Y, r.Y)}
			hi = geom.Vec2{X: math.Max(hi.X, r.X), Y: math.Max(hi.Y, r.Y)}
			n++
		}
	}
	s.row = buf.Keep(s.row, len(alive))
	s.slot = buf.Keep(s.slot, n)
	// s.row holds each live vertex's cell until the last pass.
	cell := math.Sqrt(4 * (hi.X - lo.X) * (hi.Y - lo.Y) / float64(max(n, 1)))
	nx, ny, inv := 1, 1, 0.0
	if cell > 0 && !math.IsInf(cell, 0) && !math.IsNaN(cell) {
		nx = min(int((hi.X-lo.X)/cell)+1, 1<<12)
		ny = min(int((hi.Y-lo.Y)/cell)+1, 1<<12)
		inv = 1 / cell
	}
	s.cellStart = buf.Keep(s.cellStart, nx*ny+1)
	clear(s.cellStart)
	for v, ok := range alive {
		if !ok {
			continue
		}
		r := m.Rest[v]
		cx := min(max(int((r.X-lo.X)*inv), 0), nx-1)
		cy := min(max(int((r.Y-lo.Y)*inv), 0), ny-1)
		c := int32(cy*nx + cx)
		s.row[v] = c
		s.cellStart[c+1]++
	}
	for c := 1; c < len(s.cellStart); c++ {
		s.cellStart[c] += s.cellStart[c-1]
	}
	for v, ok := range alive {
		if !ok {
			s.row[v] = -1
			continue
		}
		c := s.row[v]
		i := s.cellStart[c]
		s.cellStart[c]++
		s.slot[i] = int32(v)
		s.row[v] = i
	}
	return n
}

// newBlockSystem builds the pattern and gather lists for the live faces of m
// and the given interior edges (the bending stencils).
func newBlockSystem(m *geom.Mesh, edges []geom.Edge) *blockSystem {
	s := &blockSystem{}
	n := s.numberRows(m)
	s.n = n
	nbr := make([][]int32, n)
	for i := range nbr {
		nbr[i] = append(nbr[i], int32(i))
	}
	link := func(a, b int32) {
		a, b = s.row[a], s.row[b]
		nbr[a] = append(nbr[a], b)
		nbr[b] = append(nbr[b], a)
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		link(t[0], t[1])
		link(t[1], t[2])
		link(t[2], t[0])
	}
	s.rowPtr, s.diag, s.oppPtr = make([]int32, n+1), make([]int32, n), make([]int32, n+1)
	for i, row := range nbr {
		nbr[i] = sortedUnique(row)
		s.rowPtr[i+1] = s.rowPtr[i] + int32(len(nbr[i]))
	}
	// Opposite-vertex pairs that do not already share a face.
	opp := make([][]int32, n)
	for _, e := range edges {
		a, b := s.row[e.V2], s.row[e.V3]
		if !contains(nbr[a], b) {
			opp[a] = append(opp[a], b)
			opp[b] = append(opp[b], a)
		}
	}
	for i, row := range opp {
		opp[i] = sortedUnique(row)
		s.oppPtr[i+1] = s.oppPtr[i] + int32(len(opp[i]))
	}
	s.oppCol = make([]int32, s.oppPtr[n])
	for i, row := range opp {
		copy(s.oppCol[s.oppPtr[i]:], row)
	}
	s.oppQ = make([]float64, len(s.oppCol))
	s.oppVal = make([]float64, len(s.oppCol))
	s.oppVal32 = make([]float32, len(s.oppCol))
	s.col = make([]int32, s.rowPtr[n])
	for i, row := range nbr {
		copy(s.col[s.rowPtr[i]:], row)
		s.diag[i] = s.find(int32(i), int32(i))
	}
	nb := len(s.col)
	s.val = make([]geom.Mat3, nb)
	s.val32 = make([][9]float32, nb)
	s.qsum = make([]float64, nb)

	// Element block contributions, counted then filled (CSR).
	s.contribPtr = make([]int32, nb+1)
	s.cornerPtr = make([]int32, n+1)
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		r := [3]int32{s.row[t[0]], s.row[t[1]], s.row[t[2]]}
		for i := 0; i < 3; i++ {
			s.cornerPtr[r[i]+1]++
			for j := 0; j < 3; j++ {
				s.contribPtr[s.find(r[i], r[j])+1]++
			}
		}
	}
	for k := 0; k < nb; k++ {
		s.contribPtr[k+1] += s.contribPtr[k]
	}
	for i := 0; i < n; i++ {
		s.cornerPtr[i+1] += s.cornerPtr[i]
	}
	s.contrib = make([]int32, s.contribPtr[nb])
	s.corners = make([]int32, s.cornerPtr[n])
	fillC := append([]int32(nil), s.contribPtr[:nb]...)
	fillV := append([]int32(nil), s.cornerPtr[:n]...)
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		r := [3]int32{s.row[t[0]], s.row[t[1]], s.row[t[2]]}
		for i := 0; i < 3; i++ {
			s.corners[fillV[r[i]]] = int32(3*f + i)
			fillV[r[i]]++
			for j := 0; j < 3; j++ {
				k := s.find(r[i], r[j])
				c := int32(6*f+fem.UpperIndex[i][j]) << 1
				if i > j {
					c |= 1
				}
				s.contrib[fillC[k]] = c
				fillC[k]++
			}
		}
	}
	for _, e := range edges {
		s.addEdge(m, e)
	}
	return s
}

// sortedUnique sorts row and drops repeats, in place.
func sortedUnique(row []int32) []int32 {
	sort.Slice(row, func(a, b int) bool { return row[a] < row[b] })
	w := 0
	for r := range row {
		if r == 0 || row[r] != row[w-1] {
			row[w] = row[r]
			w++
		}
	}
	return row[:w]
}

// contains reports whether sorted row holds j.
func contains(row []int32, j int32) bool {
	k := sort.Search(len(row), func(k int) bool { return row[k] >= j })
	return k < len(row) && row[k] == j
}

// findOpp returns the index of the scalar opposite-vertex entry (i, j), or
// −1 when (i, j) is a face pair.
func (s *blockSystem) findOpp(i, j int32) int32 {
	lo, hi := s.oppPtr[i], s.oppPtr[i+1]
	cols := s.oppCol[lo:hi]
	k := sort.Search(len(cols), func(k int) bool { return cols[k] >= j })
	if k == len(cols) || cols[k] != j {
		return -1
	}
	return lo + int32(k)
}

// find returns the index of block (i, j); it panics if the pattern has no
// such block (a programming error).
func (s *blockSystem) find(i, j int32) int32 {
	lo, hi := s.rowPtr[i], s.rowPtr[i+1]
	cols := s.col[lo:hi]
	k := sort.Search(len(cols), func(k int) bool { return cols[k] >= j })
	if k == len(cols) || cols[k] != j {
		panic("sim: block not in pattern")
	}
	return lo + int32(k)
}

// addEdge adds the bending Hessian of one interior edge to qsum and oppQ.
func (s *blockSystem) addEdge(m *geom.Mesh, e geom.Edge) {
	st := e.Stencil()
	q := fem.EdgeBendingQ(m.Rest[st[0]], m.Rest[st[1]], m.Rest[st[2]], m.Rest[st[3]])
	var r [4]int32
	for i, v := range st {
		r[i] = s.row[v]
	}
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			v := q[fem.QIndex[i][j]]
			if (i+j == 5) && i != j { // (2,3) or (3,2): the opposite vertices
				if k := s.findOpp(r[i], r[j]); k >= 0 {
					s.oppQ[k] += v
					continue
				}
			}
			s.qsum[s.find(r[i], r[j])] += v
		}
	}
}

// mulVec sets y = A·x, both indexed by row.
func (s *blockSystem) mulVec(y, x []geom.Vec3) {
	parallel.ForChunks(s.n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = s.mulRow(i, x)
		}
	})
	if pc := &s.coupling; pc.active() {
		pc.sigmas(x, nil)
		parallel.ForChunks(s.n, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				if pc.hasRow(i) {
					y[i] = y[i].Add(pc.row(i, x[i]))
				}
			}
		})
	}
}

// mulRow returns row i of A·x.
func (s *blockSystem) mulRow(i int, x []geom.Vec3) geom.Vec3 {
	var acc geom.Vec3
	for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
		b := &s.val[k]
		v := x[s.col[k]]
		acc.X += b[0]*v.X + b[1]*v.Y + b[2]*v.Z
		acc.Y += b[3]*v.X + b[4]*v.Y + b[5]*v.Z
		acc.Z += b[6]*v.X + b[7]*v.Y + b[8]*v.Z
	}
	for k := s.oppPtr[i]; k < s.oppPtr[i+1]; k++ {
		acc = acc.Add(x[s.oppCol[k]].Scale(s.oppVal[k]))
	}
	return acc
}
