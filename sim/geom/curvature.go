package geom

import "drape/sim/parallel"

// CurvatureWorkspace holds the scratch that MeanCurvature and VertexNormals
// need, so that repeated calls on meshes of similar size allocate nothing.
// The zero value is ready to use.
// A workspace must not be used by two calls at once.
type CurvatureWorkspace struct {
	vertFace []int32 // one live face per vertex slot, −1 for dead or isolated slots
	boundary []bool  // vertex slot lies on the mesh boundary
}

// MeanCurvature returns in out[i] the signed mean curvature H of vertex slot
// i, in 1/m, using the cotangent operator of Meyer, Desbrun, Schröder & Barr
// 2003 ("Discrete differential-geometry operators for triangulated
// 2-manifolds", §3.3–3.5):
//
//	K(x_i) = 1/(2·A_mixed) · Σ_j (cot α_ij + cot β_ij)·(x_i − x_j),   |H| = ½|K|,
//
// where A_mixed is the Voronoi area of the vertex in non-obtuse triangles,
// and area/2 (at the obtuse corner) or area/4 (at the other two corners) of
// an obtuse triangle. The sign of H is the sign of K·n, with n the
// area-weighted vertex normal (VertexNormals): for a consistently oriented
// mesh whose normals point outwards, a sphere of radius R has H = +1/R and a
// cylinder of radius R has H = +1/(2R). When K·n is exactly zero (a flat
// region: every x_i − x_j is perpendicular to n) H is exactly 0.
//
// Boundary vertices: the cotangent formula at a boundary vertex picks up the
// in-plane curvature of the boundary curve, of order 1/h for edge length h,
// which would make every boundary triangle look curved. Instead H at a
// boundary vertex is the mean of H over its interior one-ring neighbours
// (a flat sheet's boundary therefore gets 0 and an open cylinder's rim gets
// ≈1/(2R)); a boundary vertex without interior neighbours (a lone corner
// triangle) gets 0.
//
// Degenerate cases: a vertex whose one-ring has zero area gets H = 0; dead
// vertex slots get 0. out must have len(out) ≥ len(m.Pos); it panics
// otherwise. The loop runs in parallel over vertex ranges.
func (w *CurvatureWorkspace) MeanCurvature(m *Mesh, out []float64) {
	nv := len(m.Pos)
	if len(out) < nv {
		panic("sim: MeanCurvature: len(out) < len(m.Pos)")
	}
	w.prepare(m)
	parallel.ForChunks(nv, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			out[v] = w.interiorH(m, int32(v))
		}
	})
	parallel.ForChunks(nv, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if w.boundary[v] {
				out[v] = w.boundaryH(m, int32(v), out)
			}
		}
	})
}

// MeanCurvature is CurvatureWorkspace.MeanCurvature with a throw-away
// workspace.
func MeanCurvature(m *Mesh, out []float64) {
	var w CurvatureWorkspace
	w.MeanCurvature(m, out)
}

// VertexNormals returns in out[i] the unit area-weighted normal of vertex
// slot i, n_i = Σ_f (x_1−x_0)×(x_2−x_0) / |Σ_f …| over the live faces f around
// it (the cross product's length is twice the face area, so this weights by
// area). The zero vector is returned for dead slots and for vertices whose
// faces' normals cancel. out must have len(out) ≥ len(m.Pos).
func (w *CurvatureWorkspace) VertexNormals(m *Mesh, out []Vec3) {
	nv := len(m.Pos)
	if len(out) < nv {
		panic("sim: VertexNormals: len(out) < len(m.Pos)")
	}
	w.prepare(m)
	parallel.ForChunks(nv, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			out[v] = w.normal(m, int32(v))
		}
	})
}

// VertexNormals is CurvatureWorkspace.VertexNormals with a throw-away
// workspace.
func VertexNormals(m *Mesh, out []Vec3) {
	var w CurvatureWorkspace
	w.VertexNormals(m, out)
}

// prepare records one live face per vertex slot (a serial O(faces) pass).
func (w *CurvatureWorkspace) prepare(m *Mesh) {
	nv := len(m.Pos)
	if cap(w.vertFace) < nv {
		w.vertFace = make([]int32, nv, nv+nv/4)
		w.boundary = make([]bool, nv, nv+nv/4)
	}
	w.vertFace = w.vertFace[:nv]
	w.boundary = w.boundary[:nv]
	for i := range w.vertFace {
		w.vertFace[i] = -1
		w.boundary[i] = false
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for k, v := range t {
			w.vertFace[v] = int32(f)
			if m.Adj[f][k] < 0 {
				w.boundary[v] = true
				w.boundary[t[(k+1)%3]] = true
			}
		}
	}
}

// FanIter walks the faces around vertex v through Adj, first turning
// across the edge entering v until it returns to the start face or reaches
// the boundary, then (at the boundary) turning the other way from the start
// face. It visits each face of the fan once, for interior and boundary
// vertices alike, and does not allocate.
type FanIter struct {
	m        *Mesh
	v, f0, f int32
	back     bool
}

func NewFan(m *Mesh, v, f0 int32) FanIter { return FanIter{m: m, v: v, f0: f0, f: f0} }

// Next returns the next face and the corner of v in it, or ok=false.
func (it *FanIter) Next() (f int32, c int, ok bool) {
	if it.f < 0 {
		return -1, 0, false
	}
	f = it.f
	c = it.m.Corner(f, it.v)
	if !it.back {
		g := it.m.Adj[f][(c+2)%3] // across the edge entering v
		switch {
		case g == it.f0:
			it.f = -1
		case g >= 0:
			it.f = g
		default:
			it.back = true
			it.f = it.m.Adj[it.f0][it.m.Corner(it.f0, it.v)]
		}
	} else {
		it.f = it.m.Adj[f][c] // across the edge leaving v
	}
	return f, c, true
}

// meyer returns the mean-curvature normal K and the area-weighted normal
// (unnormalised) at interior vertex v, and A_mixed.
//
// The cotangent of the angle between two edges a, b of a triangle is
// a·b / |a×b|, and |a×b| is twice the triangle's area whichever corner the
// edges meet at, so one cross product per face serves all three corners.
func meyer(m *Mesh, v, f0 int32) (k, n Vec3, area float64) {
	xi := m.Pos[v]
	it := NewFan(m, v, f0)
	for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
		t := m.Tris[f]
		xj, xk := m.Pos[t[(c+1)%3]], m.Pos[t[(c+2)%3]]
		eij, eik, ejk := xj.Sub(xi), xk.Sub(xi), xk.Sub(xj)
		cr := eij.Cross(eik)
		n = n.Add(cr)
		twoA := cr.Norm()
		// Corner dot products: at i between eij, eik; at j between
		// (xi−xj), (xk−xj); at k between (xi−xk), (xj−xk).
		di, dj, dk := eij.Dot(eik), -eij.Dot(ejk), eik.Dot(ejk)
		var cotJ, cotK float64
		if twoA > 0 {
			cotJ, cotK = dj/twoA, dk/twoA
		}
		// Edge ij is opposite the angle at k, edge ik opposite the angle at j.
		k = k.Add(eij.Scale(-cotK)).Add(eik.Scale(-cotJ))
		ta := 0.5 * twoA
		switch {
		case di < 0: // obtuse at i
			area += ta / 2
		case dj < 0 || dk < 0:
			area += ta / 4
		default:
			area += (eij.Dot(eij)*cotK + eik.Dot(eik)*cotJ) / 8
		}
	}
	if area > 0 {
		k = k.Scale(1 / (2 * area))
	}
	return k, n, area
}

func (w *CurvatureWorkspace) interiorH(m *Mesh, v int32) float64 {
	f0 := w.vertFace[v]
	if f0 < 0 || !m.VertAlive[v] || w.boundary[v] {
		return 0
	}
	k, n, area := meyer(m, v, f0)
	if !(area > 0) {
		return 0
	}
	s := k.Dot(n)
	switch {
	case s > 0:
		return 0.5 * k.Norm()
	case s < 0:
		return -0.5 * k.Norm()
	}
	return 0
}

func (w *CurvatureWorkspace) boundaryH(m *Mesh, v int32, h []float64) float64 {
	// Every interior neighbour of a boundary vertex appears in two faces of
	// its fan (as t[c+1] of one and t[c+2] of the next), so counting both
	// slots weights all of them equally.
	var sum float64
	cnt := 0
	it := NewFan(m, v, w.vertFace[v])
	for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
		t := m.Tris[f]
		for _, j := range [2]int32{t[(c+1)%3], t[(c+2)%3]} {
			if !w.boundary[j] {
				sum += h[j]
				cnt++
			}
		}
	}
	if cnt == 0 {
		return 0
	}
	return sum / float64(cnt)
}

func (w *CurvatureWorkspace) normal(m *Mesh, v int32) Vec3 {
	f0 := w.vertFace[v]
	if f0 < 0 || !m.VertAlive[v] {
		return Vec3{}
	}
	var n Vec3
	xi := m.Pos[v]
	it := NewFan(m, v, f0)
	for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
		t := m.Tris[f]
		n = n.Add(m.Pos[t[(c+1)%3]].Sub(xi).Cross(m.Pos[t[(c+2)%3]].Sub(xi)))
	}
	return n.Unit()
}
