package detail

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

// build fills the table for tris over nv vertices.
func (et *edgeTable) build(nv int, tris [][3]int32) {
	ptr := grow(et.ptr, nv+1)
	clear(ptr)
	for _, t := range tris {
		for i := 0; i < 3; i++ {
			ptr[min(t[i], t[(i+1)%3])+1]++
		}
	}
	for v := 0; v < nv; v++ {
		ptr[v+1] += ptr[v]
	}
	ent := grow(et.ent, 3*len(tris))
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
	et.of = grow(et.of, len(tris))
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
