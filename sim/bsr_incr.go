package sim

import "slices"

// Incremental block system for the adaptive mesh (Bender & Deul §5: "only
// the parts of the system that changed are updated").
//
// newBlockSystem builds the pattern, the gather lists and the bending
// Hessian sums of every row from scratch: at 8000 triangles that costs
// tens of milliseconds, many times a simulation step. An adaptation
// changes a few hundred rows at most, so the adaptive simulation keeps one
// rowData per vertex slot, recomputes only the rows of vertices whose
// faces or bending stencils changed (rowData.compute walks the vertex's
// fan), and packs the rows into the CSR arrays of blockSystem, which is a
// linear copy. The packed system equals newBlockSystem's exactly, entry
// for entry and in the same summation order (TestIncrementalSystemMatches):
// contributions are sorted by face slot and edges by their owner face, as
// the full build visits them.

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
func (r *rowData) compute(m *Mesh, i, f0 int32) {
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
	it := newFan(m, i, f0)
	for f, c, ok := it.next(); ok; f, c, ok = it.next() {
		t := m.Tris[f]
		r.cols = append(r.cols, t[(c+1)%3], t[(c+2)%3])
		r.corners = append(r.corners, 3*f+int32(c))
		for j := 0; j < 3; j++ {
			code := int32(6*int(f)+upperIndex[c][j]) << 1
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
				ge := int32(m.corner(g, t[(e+1)%3]))
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
	r.qsum = growTo(r.qsum[:0], len(r.cols))
	for _, code := range r.edges {
		e := m.EdgeAt(code/3, int(code%3))
		st := e.stencil()
		p := 0
		for st[p] != i {
			p++
		}
		q := edgeBendingQ(m.Rest[st[0]], m.Rest[st[1]], m.Rest[st[2]], m.Rest[st[3]])
		for j := 0; j < 4; j++ {
			v := q[qIndex[p][j]]
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

// packRows fills s (reusing its arrays where they are large enough) from
// the rows of the live slots of m among rows[0:len(m.Pos)], numbered by
// numberRows, renumbering the columns from slots to rows.
func packRows(s *blockSystem, rows []rowData, m *Mesh) {
	n := s.numberRows(m)
	s.n = n
	s.rowPtr = growTo(s.rowPtr, n+1)
	s.oppPtr = growTo(s.oppPtr, n+1)
	s.cornerPtr = growTo(s.cornerPtr, n+1)
	s.diag = growTo(s.diag, n)
	// Row i's element contributions start at contrib[s.rowContrib[i]].
	s.rowContrib = growTo(s.rowContrib, n)
	// The cached rows are read in slot order, the order their memory was
	// allocated in, and written wherever numberRows put them; that is a
	// little faster than the other way round (0.91–1.08 against
	// 0.97–1.14 ms at 10114 triangles). Lengths first, by slot.
	nv := len(m.Pos)
	s.rowLens = growTo(s.rowLens, nv)
	forChunks(nv, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if r := &rows[v]; s.row[v] >= 0 {
				s.rowLens[v] = [4]int32{int32(len(r.cols)), int32(len(r.oppCol)), int32(len(r.corners)), int32(len(r.contrib))}
			}
		}
	})
	nb, no, nc, nk := 0, 0, 0, 0
	for i, v := range s.slot {
		l := &s.rowLens[v]
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
	s.col = growTo(s.col, nb)
	s.qsum = growTo(s.qsum, nb)
	s.val = growTo(s.val, nb)
	s.val32 = growTo(s.val32, nb)
	s.contribPtr = growTo(s.contribPtr, nb+1)
	s.contrib = growTo(s.contrib, nk)
	s.oppCol = growTo(s.oppCol, no)
	s.oppQ = growTo(s.oppQ, no)
	s.oppVal = growTo(s.oppVal, no)
	s.oppVal32 = growTo(s.oppVal32, no)
	s.corners = growTo(s.corners, nc)
	forChunks(nv, func(_, lo, hi int) {
		var buf [32]rowKey
		for v := lo; v < hi; v++ {
			i := s.row[v]
			if i < 0 {
				continue
			}
			r := &rows[v]
			// The row's blocks and scalars in increasing row order.
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
	})
	s.contribPtr[nb] = int32(nk)
}

// rowKey is entry k of a row's slot list and the row of that slot.
type rowKey struct{ row, k int32 }

// byRow returns the entries of slots with their rows row[slots[k]], in
// increasing row order (insertion sort: a row has a dozen entries),
// appended to buf.
func byRow(row, slots []int32, buf []rowKey) []rowKey {
	for k, v := range slots {
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
