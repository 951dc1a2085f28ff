package cloth

// blockRows32 sets out[i] = Σ_k val32[k]·s[col[k]] + Σ_k oppVal32[k]·s[oppCol[k]]
// over row i's blocks and bending-only scalars, for every row i in
// [lo, hi), in float32, with out[i][3] = 0: the product inside the PCG
// loop. s[j][3] must be zero.
//
// On amd64 it runs as SSE2 assembly (spmv_amd64.s, baseline amd64, no
// CPU feature checks), four lanes per block row, about 2.5 times faster
// than the Go loop, which is instruction bound; elsewhere, or with the
// purego build tag, it is blockRows32Go. The two sum in different orders,
// so they agree to float32 round-off (TestBlockRows32). Either way each
// row's sum depends only on the row, so results do not depend on how rows
// are split among goroutines.
//
// The assembly does no bounds checks: the caller must have checked the
// pattern with checkPattern.
func (a *blockSystem) blockRows32(s, out []vec3f32, lo, hi int) {
	if lo >= hi {
		return
	}
	_, _ = s[a.n-1], out[hi-1]
	blockRows32(a.rowPtr, a.col, a.val32, a.oppPtr, a.oppCol, a.oppVal32, s, out, lo, hi)
}

// checkPattern reports whether rows [lo, hi) of the pattern are
// consistent: row pointers in order and inside col, val32, oppCol and
// oppVal32, and every column a row of the system. blockRows32 relies on it.
func (a *blockSystem) checkPattern(lo, hi int) bool {
	n := a.n
	if lo < 0 || hi > n || len(a.rowPtr) < n+1 || len(a.oppPtr) < n+1 ||
		len(a.val32) < len(a.col) || len(a.oppVal32) < len(a.oppCol) {
		return false
	}
	for i := lo; i < hi; i++ {
		b0, b1 := a.rowPtr[i], a.rowPtr[i+1]
		o0, o1 := a.oppPtr[i], a.oppPtr[i+1]
		if b0 < 0 || b0 > b1 || int(b1) > len(a.col) || o0 < 0 || o0 > o1 || int(o1) > len(a.oppCol) {
			return false
		}
		for _, j := range a.col[b0:b1] {
			if uint32(j) >= uint32(n) {
				return false
			}
		}
		for _, j := range a.oppCol[o0:o1] {
			if uint32(j) >= uint32(n) {
				return false
			}
		}
	}
	return true
}

// blockRows32Go is the portable blockRows32.
func blockRows32Go(rowPtr, col []int32, val [][9]float32, oppPtr, oppCol []int32, oppVal []float32, s, out []vec3f32, lo, hi int) {
	for i := lo; i < hi; i++ {
		b0, b1 := rowPtr[i], rowPtr[i+1]
		cols, vals := col[b0:b1], val[b0:b1]
		vals = vals[:len(cols)]
		var x, y, z float32
		for j, cj := range cols {
			bl, v := &vals[j], &s[cj]
			x += bl[0]*v[0] + bl[1]*v[1] + bl[2]*v[2]
			y += bl[3]*v[0] + bl[4]*v[1] + bl[5]*v[2]
			z += bl[6]*v[0] + bl[7]*v[1] + bl[8]*v[2]
		}
		o0, o1 := oppPtr[i], oppPtr[i+1]
		ocols, ovals := oppCol[o0:o1], oppVal[o0:o1]
		ovals = ovals[:len(ocols)]
		for j, cj := range ocols {
			w, v := ovals[j], &s[cj]
			x += w * v[0]
			y += w * v[1]
			z += w * v[2]
		}
		o := &out[i]
		o[0], o[1], o[2], o[3] = x, y, z, 0
	}
}
