package cloth

import (
	"slices"

	"drape/sim/buf"
	"drape/sim/fem"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// Incremental block system for the adaptive mesh (Bender & Deul §5: "only
// the parts of the system that changed are updated").
//
// newBlockSystem builds the pattern, the gather lists and the bending
// Hessian sums of every row from scratch: at 8000 triangles that costs
// tens of milliseconds, many times a simulation step. An adaptation
// changes a few hundred rows at most, so the adaptive simulation keeps one
// rowData per vertex slot, recomputes only the rows of vertices whose
// faces or bending stencils changed (rowData.compute walks the vertex's
// fan), and packs the system again (packRows): the recomputed rows from
// their rowData, the others from the system before the adaptation with
// their columns renumbered. The packed system equals newBlockSystem's
// exactly, entry for entry and in the same summation order
// (TestIncrementalSystemMatches): contributions are sorted by face slot
// and edges by their owner face, as the full build visits them.

// rowData is the cached part of one row of the block system.
type rowData struct {
	cols    []int32   // block columns, increasing: i and its face neighbours
	cptr    []int32   // contrib[cptr[k]:cptr[k+1]] gather into block cols[k]
	contrib []int32   // element block codes, as blockSystem.contrib
	qsum    []float64 // Σ Q_e,ij per block column
	oppCol  []int32   // bending-only neighbours, increasing
	oppQ    []float64
	corners []int32 // 3·face + corner, increasing

	tmp   []rowContrib
	edges []int32 // 3·owner face + edge index, increasing
}

type rowContrib struct{ col, code int32 }

// compute fills the row of vertex i from its fan, starting at face f0 of
// i; a dead slot (f0 < 0) gets only a diagonal block (packRows leaves
// dead slots out).
func (r *rowData) compute(m *geom.Mesh, i, f0 int32) {
	r.cols = append(r.cols[:0], i)
	r.tmp = r.tmp[:0]
	r.corners = r.corners[:0]
	r.edges = r.edges[:0]
	r.oppCol, r.oppQ = r.oppCol[:0], r.oppQ[:0]
	if f0 < 0 {
		r.cptr = append(r.cptr[:0], 0, 0)
		r.contrib = r.contrib[:0]
		r.qsum = append(r.qsum[:0], 0)
		return
	}
	it := geom.NewFan(m, i, f0)
	for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
		t := m.Tris[f]
		r.cols = append(r.cols, t[(c+1)%3], t[(c+2)%3])
		r.corners = append(r.corners, 3*f+int32(c))
		for j := 0; j < 3; j++ {
			code := int32(6*int(f)+fem.UpperIndex[c][j]) << 1
			if c > j {
				code |= 1
			}
			r.tmp = append(r.tmp, rowContrib{t[j], code})
		}
		// The interior edge leaving i and the one opposite i: together
		// over the fan every interior edge whose stencil holds i, once.
		for _, e := range [2]int{c, (c + 1) % 3} {
			g := m.Adj[f][e]
			if g < 0 {
				continue
			}
			if g < f {
				ge := int32(m.Corner(g, t[(e+1)%3]))
				r.edges = append(r.edges, 3*g+ge)
			} else {
				r.edges = append(r.edges, 3*f+int32(e))
			}
		}
	}
	r.cols = sortedUnique(r.cols)
	slices.Sort(r.corners)
	slices.SortFunc(r.tmp, func(a, b rowContrib) int {
		if a.col != b.col {
			return int(a.col - b.col)
		}
		return int(a.code - b.code)
	})
	r.cptr = append(r.cptr[:0], 0)
	r.contrib = r.contrib[:0]
	k := 0
	for _, ct := range r.tmp {
		for r.cols[k] != ct.col {
			r.cptr = append(r.cptr, int32(len(r.contrib)))
			k++
		}
		r.contrib = append(r.contrib, ct.code)
	}
	for len(r.cptr) <= len(r.cols) {
		r.cptr = append(r.cptr, int32(len(r.contrib)))
	}
	// Bending: edges in the full build's order (owner face, edge index).
	slices.Sort(r.edges)
	r.qsum = buf.Keep(r.qsum[:0], len(r.cols))
	for _, code := range r.edges {
		e := m.EdgeAt(code/3, int(code%3))
		st := e.Stencil()
		p := 0
		for st[p] != i {
			p++
		}
		q := fem.EdgeBendingQ(m.Rest[st[0]], m.Rest[st[1]], m.Rest[st[2]], m.Rest[st[3]])
		for j := 0; j < 4; j++ {
			v := q[fem.QIndex[p][j]]
			k, found := slices.BinarySearch(r.cols, st[j])
			if !found { // only the vertex opposite i across the edge
				r.addOpp(st[j], v)
				continue
			}
			r.qsum[k] += v
		}
	}
}

// addOpp adds v to the bending-only coupling with column j, keeping
// oppCol sorted.
func (r *rowData) addOpp(j int32, v float64) {
	k, found := slices.BinarySearch(r.oppCol, j)
	if !found {
		r.oppCol = slices.Insert(r.oppCol, k, j)
		r.oppQ = slices.Insert(r.oppQ, k, 0)
	}
	r.oppQ[k] += v
}

// packRows fills dst (reusing its arrays where they are large enough)
// with the system of the live vertices of m, numbered by numberRows.
//
// A row comes from its cached rowData when fresh[v] is set for its slot v
// (the rows the adaptation recomputed) or src has no row for v, and
// otherwise from src, the packed system before the adaptation, with its
// columns renumbered. An adaptation leaves most rows as they were, and
// src's arrays are the ones every assembly since the last adaptation has
// read, so they are in cache, while the rowData (a dozen small slices per
// row, touched only when their vertex changes) are not: in the adaptive
// curtain a repack took 1.67 ms on average from the rowData alone and
// takes 0.67 ms this way (timed inside 4000 steps). src nil takes every
// row from the rowData. The value arrays are sized, not filled: assembly
// writes them before they are read.
//
// dst and src must be distinct: the caller keeps the two and swaps them.
func packRows(dst, src *blockSystem, rows []rowData, fresh []bool, m *geom.Mesh) {
	s := dst
	n := s.numberRows(m)
	s.n = n
	s.rowPtr = buf.Keep(s.rowPtr, n+1)
	s.oppPtr = buf.Keep(s.oppPtr, n+1)
	s.cornerPtr = buf.Keep(s.cornerPtr, n+1)
	s.diag = buf.Keep(s.diag, n)
	// Row i's element contributions start at contrib[s.rowContrib[i]];
	// s.rowSrc[i] is its row in src, or −1 when it comes from rows.
	s.rowContrib = buf.Keep(s.rowContrib, n)
	s.rowSrc = buf.Keep(s.rowSrc, n)
	s.rowLens = buf.Keep(s.rowLens, n)
	parallel.ForChunks(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := s.slot[i]
			j := int32(-1)
			if src != nil && !fresh[v] && int(v) < len(src.row) {
				j = src.row[v]
			}
			s.rowSrc[i] = j
			if j < 0 {
				r := &rows[v]
				s.rowLens[i] = [4]int32{int32(len(r.cols)), int32(len(r.oppCol)), int32(len(r.corners)), int32(len(r.contrib))}
				continue
			}
			b0, b1 := src.rowPtr[j], src.rowPtr[j+1]
			s.rowLens[i] = [4]int32{b1 - b0, src.oppPtr[j+1] - src.oppPtr[j],
				src.cornerPtr[j+1] - src.cornerPtr[j], src.contribPtr[b1] - src.contribPtr[b0]}
		}
	})
	nb, no, nc, nk := 0, 0, 0, 0
	for i := range n {
		l := &s.rowLens[i]
		s.rowPtr[i] = int32(nb)
		s.oppPtr[i] = int32(no)
		s.cornerPtr[i] = int32(nc)
		s.rowContrib[i] = int32(nk)
		nb += int(l[0])
		no += int(l[1])
		nc += int(l[2])
		nk += int(l[3])
	}
	s.rowPtr[n], s.oppPtr[n], s.cornerPtr[n] = int32(nb), int32(no), int32(nc)
	s.col = buf.Keep(s.col, nb)
	s.qsum = buf.Keep(s.qsum, nb)
	s.val = buf.Keep(s.val, nb)
	s.val32 = buf.Keep(s.val32, nb)
	s.contribPtr = buf.Keep(s.contribPtr, nb+1)
	s.contrib = buf.Keep(s.contrib, nk)
	s.oppCol = buf.Keep(s.oppCol, no)
	s.oppQ = buf.Keep(s.oppQ, no)
	s.oppVal = buf.Keep(s.oppVal, no)
	s.oppVal32 = buf.Keep(s.oppVal32, no)
	s.corners = buf.Keep(s.corners, nc)
	// src's rows renumbered: rowOfSrc[j] is the row here of src's row j
	// (−1 for a vertex that is gone).
	if src != nil {
		s.rowOfSrc = buf.Keep(s.rowOfSrc, src.n)
		for j, v := range src.slot[:src.n] {
			s.rowOfSrc[j] = -1
			if int(v) < len(s.row) {
				s.rowOfSrc[j] = s.row[v]
			}
		}
	}
	parallel.ForChunks(n, func(_, lo, hi int) {
		for i := int32(lo); i < int32(hi); i++ {
			if j := s.rowSrc[i]; j >= 0 {
				s.copyRow(i, src, j)
			} else {
				s.fillRow(i, &rows[s.slot[i]])
			}
		}
	})
	s.contribPtr[nb] = int32(nk)
}

// fillRow writes row i, laid out by packRows, from its rowData r, whose
// columns are slots.
func (s *blockSystem) fillRow(i int32, r *rowData) {
	var buf [32]rowKey
	b, c := s.rowPtr[i], s.rowContrib[i]
	for p, e := range byRow(s.row, r.cols, buf[:0]) {
		s.col[b+int32(p)] = e.row
		s.qsum[b+int32(p)] = r.qsum[e.k]
		if e.row == i {
			s.diag[i] = b + int32(p)
		}
		s.contribPtr[b+int32(p)] = c
		c += int32(copy(s.contrib[c:], r.contrib[r.cptr[e.k]:r.cptr[e.k+1]]))
	}
	o := s.oppPtr[i]
	for p, e := range byRow(s.row, r.oppCol, buf[:0]) {
		s.oppCol[o+int32(p)] = e.row
		s.oppQ[o+int32(p)] = r.oppQ[e.k]
	}
	copy(s.corners[s.cornerPtr[i]:], r.corners)
}

// copyRow writes row i, laid out by packRows, from row j of src, whose
// columns are src's rows: they map to rows of s through s.rowOfSrc and
// are sorted again (a renumbering need not keep their order, though it
// mostly does).
func (s *blockSystem) copyRow(i int32, src *blockSystem, j int32) {
	var buf [32]rowKey
	b, c := s.rowPtr[i], s.rowContrib[i]
	b0, b1 := src.rowPtr[j], src.rowPtr[j+1]
	for p, e := range byRow(s.rowOfSrc, src.col[b0:b1], buf[:0]) {
		k := b0 + e.k
		s.col[b+int32(p)] = e.row
		s.qsum[b+int32(p)] = src.qsum[k]
		if e.row == i {
			s.diag[i] = b + int32(p)
		}
		s.contribPtr[b+int32(p)] = c
		c += int32(copy(s.contrib[c:], src.contrib[src.contribPtr[k]:src.contribPtr[k+1]]))
	}
	o, o0 := s.oppPtr[i], src.oppPtr[j]
	for p, e := range byRow(s.rowOfSrc, src.oppCol[o0:src.oppPtr[j+1]], buf[:0]) {
		s.oppCol[o+int32(p)] = e.row
		s.oppQ[o+int32(p)] = src.oppQ[o0+e.k]
	}
	copy(s.corners[s.cornerPtr[i]:], src.corners[src.cornerPtr[j]:src.cornerPtr[j+1]])
}

// rowKey is entry k of a row's slot list and the row of that slot.
type rowKey struct{ row, k int32 }

// byRow returns the entries of keys with their rows row[keys[k]], in
// increasing row order (insertion sort: a row has a dozen entries),
// appended to buf.
func byRow(row, keys []int32, buf []rowKey) []rowKey {
	for k, v := range keys {
		e := rowKey{row[v], int32(k)}
		buf = append(buf, e)
		p := len(buf) - 1
		for p > 0 && buf[p-1].row > e.row {
			buf[p] = buf[p-1]
			p--
		}
		buf[p] = e
	}
	return buf
}
