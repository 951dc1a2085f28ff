package detail

import "drape/sim/buf"

// edgeTable numbers the edges of a triangle mesh in increasing edgeKey
// order (by lower, then higher vertex index), as sorting the keys would,
// but in O(vertices + faces): a counting sort of the half-edges on their
// lower vertex, then an insertion sort of each vertex's few entries. On
// the 10,000-triangle curtain the rebuild of the fine topology sorted
// 120,000 fine half-edge keys and looked every one up by binary search:
// 24 ms of the 34 ms a rebuild took at level 1 (pprof of BenchmarkCurtain).
// Its slices are reused by the next build.
type edgeTable struct {
	keys []uint64   // edge e: lo<<32 | hi, increasing
	of   [][3]int32 // of[f][i]: the edge from corner i to corner i+1 of face f
	// dir[e] bit 0: some face runs lo → hi; bit 1: some face runs hi → lo.
	// An edge with one bit set is a boundary edge in that direction.
	dir []uint8
	// nface[e]: faces at edge e (2 for an interior edge, 1 on the boundary)
	nface []uint8

	ptr []int32  // scratch: start of each lower vertex's entries
	ent []uint64 // scratch: hi<<32 | 3f+i per half-edge, bucketed by lo
}

// build fills the table for tris over nv vertices, in increasing key order.
func (et *edgeTable) build(nv int, tris [][3]int32) {
	ptr := buf.Grow(et.ptr, nv+1)
	clear(ptr)
	for _, t := range tris {
		for i := 0; i < 3; i++ {
			ptr[min(t[i], t[(i+1)%3])+1]++
		}
	}
	for v := 0; v < nv; v++ {
		ptr[v+1] += ptr[v]
	}
	ent := buf.Grow(et.ent, 3*len(tris))
	// Place each half-edge at its lower vertex's cursor (ptr[lo]++), which
	// leaves ptr[v] at the start of v+1; shift back afterwards.
	for f, t := range tris {
		for i := 0; i < 3; i++ {
			a, b := t[i], t[(i+1)%3]
			ent[ptr[min(a, b)]] = uint64(max(a, b))<<32 | uint64(3*f+i)
			ptr[min(a, b)]++
		}
	}
	copy(ptr[1:], ptr[:nv])
	ptr[0] = 0
	et.of = buf.Grow(et.of, len(tris))
	et.keys = et.keys[:0]
	et.dir = et.dir[:0]
	et.nface = et.nface[:0]
	for v := 0; v < nv; v++ {
		b := ent[ptr[v]:ptr[v+1]]
		for i := 1; i < len(b); i++ { // insertion sort: a few entries
			for j := i; j > 0 && b[j] < b[j-1]; j-- {
				b[j], b[j-1] = b[j-1], b[j]
			}
		}
		for i, x := range b {
			hi := int32(x >> 32)
			if i == 0 || hi != int32(b[i-1]>>32) {
				et.keys = append(et.keys, uint64(v)<<32|uint64(hi))
				et.dir = append(et.dir, 0)
				et.nface = append(et.nface, 0)
			}
			e := len(et.keys) - 1
			h := int(uint32(x))
			f, c := h/3, h%3
			et.of[f][c] = int32(e)
			if tris[f][c] == int32(v) {
				et.dir[e] |= 1
			} else {
				et.dir[e] |= 2
			}
			if et.nface[e] < 255 {
				et.nface[e]++
			}
		}
	}
	et.ptr, et.ent = ptr, ent
}

// fineEdges fills dst with the edges of l's fine faces l.tris, read off the
// subdivision instead of sorted: edges 2e and 2e+1 are the halves of input
// edge e (2e the one at its lower vertex), and 2·ne + 3f + {0, 1, 2} the
// inner edges (m0, m2), (m0, m1), (m1, m2) of input face f, m_i the odd
// vertex on its edge i (see buildLoopLevel's face order). The keys are not
// in increasing order, so edgeIndex does not apply to dst. On the
// 10,000-triangle curtain it took the fine edges' build from 3.5 to 1 ms
// (level 1).
func (l *loopLevel) fineEdges(dst *edgeTable) {
	in := &l.et
	ne := int32(l.ne)
	nt := len(l.tris) / 4
	dst.keys = buf.Grow(dst.keys, 2*l.ne+3*nt)
	for e, k := range in.keys {
		m := uint64(int32(l.nv) + int32(e))
		dst.keys[2*e] = k>>32<<32 | m               // (lo, m)
		dst.keys[2*e+1] = uint64(uint32(k))<<32 | m // (hi, m)
	}
	// half returns the half of input edge e at its end v.
	half := func(e, v int32) int32 {
		if int32(in.keys[e]>>32) == v {
			return 2 * e
		}
		return 2*e + 1
	}
	dst.of = buf.Grow(dst.of, len(l.tris))
	for f := 0; f < nt; f++ {
		c := l.tris[4*f:][:4]
		t0, t1, t2 := c[0][0], c[1][0], c[2][0]
		m0, m1, m2 := c[3][0], c[3][1], c[3][2]
		e0, e1, e2 := in.of[f][0], in.of[f][1], in.of[f][2]
		a := 2*ne + 3*int32(f) // (m0, m2)
		dst.keys[a] = edgeKey(m0, m2)
		dst.keys[a+1] = edgeKey(m0, m1)
		dst.keys[a+2] = edgeKey(m1, m2)
		dst.of[4*f] = [3]int32{half(e0, t0), a, half(e2, t0)}
		dst.of[4*f+1] = [3]int32{half(e1, t1), a + 1, half(e0, t1)}
		dst.of[4*f+2] = [3]int32{half(e2, t2), a + 2, half(e1, t2)}
		dst.of[4*f+3] = [3]int32{a + 1, a + 2, a}
	}
	dst.dir = buf.Grow(dst.dir, len(dst.keys))
	dst.nface = buf.Grow(dst.nface, len(dst.keys))
	clear(dst.dir)
	clear(dst.nface)
	for f, t := range l.tris {
		for i := 0; i < 3; i++ {
			e := dst.of[f][i]
			if t[i] < t[(i+1)%3] {
				dst.dir[e] |= 1
			} else {
				dst.dir[e] |= 2
			}
			if dst.nface[e] < 255 {
				dst.nface[e]++
			}
		}
	}
}
