// Package resample samples the surface of an adaptive cloth mesh at fixed
// material points, so that an adaptive run can be exported on a mesh of
// fixed topology (a point cache, meshio.PointCacheWriter).
//
// Every vertex of a drape mesh carries its material coordinates
// (geom.Mesh.Rest), and √3 refinement and coarsening keep the material
// plane tiled by the live faces, counter-clockwise, without overlap and
// without T-junctions (Bender & Deul 2012 §5; package adapt). The cloth
// surface is therefore the piecewise-linear map x(u) from a material point
// u to world space, and sampling it at u means finding the face that
// contains u and interpolating its corners' positions with u's barycentric
// coordinates there. The package implements no paper; point location is a
// uniform grid of the faces' material bounding boxes, rebuilt on every
// call in which some point has left the face that held it last time.
package resample

import (
	"fmt"
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
)

// insideTol is how far below zero a barycentric coordinate may fall for a
// point to count as inside a face: a point on an edge shared by two faces
// gets coordinates of ±1e-16 from round-off, and either face interpolates
// the same two vertices there.
const insideTol = 1e-10

// Sampler samples meshes at a fixed list of material points. It keeps, per
// point, the face that held the point in the last call (a hint: faces are
// reused slots, so a hint is checked, never trusted) and the scratch of its
// grid, so that one Sampler follows one adaptive mesh through a run. It is
// not safe for concurrent use.
type Sampler struct {
	pts  []geom.Vec2 // material points, m
	tol  float64     // how far outside every face a point may lie, m
	hint []int32     // face that held point k in the last call, −1 for none

	// The grid over the live faces' material bounding boxes: the faces
	// whose box overlaps cell (i, j) are faces[start[c]:start[c+1]] with
	// c = j·nx + i.
	lo     geom.Vec2
	inv    float64 // 1 / cell size, 1/m
	nx, ny int
	start  []int32
	faces  []int32
	next   []int32 // build's fill cursor per cell
}

// New returns a Sampler of the material points pts (m). A point may lie
// up to tol metres (≥ 0) outside every face of the meshes it samples (a
// fixed mesh whose material coordinates went through a 6-digit file, or
// that is slightly larger than the cloth); it then takes the nearest point
// of the nearest face.
func New(pts []geom.Vec2, tol float64) *Sampler {
	s := &Sampler{pts: append([]geom.Vec2(nil), pts...), tol: math.Max(tol, 0), hint: make([]int32, len(pts))}
	for k := range s.hint {
		s.hint[k] = -1
	}
	return s
}

// Len returns the number of material points.
func (s *Sampler) Len() int { return len(s.pts) }

// Positions writes into out[k] the point of m's surface at material point
// k: x = Σ_j w_j·Pos[t_j] over the corners t_j of the live face t that
// contains the point in material space, with w_j its barycentric
// coordinates there (all ≥ −1e-10, normalised to Σ w_j = 1). At a vertex v
// of m (Rest[v] equal to the point bit for bit) this is Pos[v] exactly,
// so the sample is exact wherever the meshes share vertices: v is a corner
// of t (no T-junctions), the two other coordinates are cross products
// (u−v)×(v−v) and (v−u)×0, exactly 0, so w_v = w_v/Σw = 1 and
// x = 1·Pos[v] + 0 + 0. A point outside every face by at most the
// Sampler's tolerance takes the nearest point of the nearest face. It
// returns an error naming the first point further out (out is then partly
// written) and panics when len(out) is not Len().
func (s *Sampler) Positions(m *geom.Mesh, out []geom.Vec3) error {
	if len(out) != len(s.pts) {
		panic(fmt.Sprintf("resample: Positions: len(out) = %d, want %d", len(out), len(s.pts)))
	}
	built := false
	for k, p := range s.pts {
		f := s.hint[k]
		var w [3]float64
		ok := f >= 0 && int(f) < len(m.Tris) && m.FaceAlive(int(f))
		if ok {
			w, ok = inside(m, f, p)
		}
		if !ok {
			if !built {
				s.build(m)
				built = true
			}
			var err error
			if f, w, err = s.locate(m, p); err != nil {
				return fmt.Errorf("material point %d (%g, %g): %w", k, p.X, p.Y, err)
			}
			s.hint[k] = f
		}
		out[k] = interpolate(m, f, w)
	}
	return nil
}

// interpolate returns Σ_j w_j·Pos[t_j] over the corners of face f.
func interpolate(m *geom.Mesh, f int32, w [3]float64) geom.Vec3 {
	t := m.Tris[f]
	a, b, c := m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]]
	return geom.Vec3{
		X: w[0]*a.X + w[1]*b.X + w[2]*c.X,
		Y: w[0]*a.Y + w[1]*b.Y + w[2]*c.Y,
		Z: w[0]*a.Z + w[1]*b.Z + w[2]*c.Z,
	}
}

// barycentric returns the barycentric coordinates of p in the material
// triangle (a, b, c), each from the edge opposite its corner, w_a =
// (c−b)×(p−b) / (b−a)×(c−a) and cyclically, so that a point on an edge
// gets a coordinate that is zero to round-off whichever face it is
// computed in. A degenerate triangle gives NaN or ±Inf.
func barycentric(p, a, b, c geom.Vec2) [3]float64 {
	d := b.Sub(a).Cross(c.Sub(a))
	return [3]float64{
		c.Sub(b).Cross(p.Sub(b)) / d,
		a.Sub(c).Cross(p.Sub(c)) / d,
		b.Sub(a).Cross(p.Sub(a)) / d,
	}
}

// inside returns the normalised barycentric coordinates of p in face f
// and whether p lies in it (every coordinate ≥ −insideTol).
func inside(m *geom.Mesh, f int32, p geom.Vec2) ([3]float64, bool) {
	t := m.Tris[f]
	w := barycentric(p, m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
	if !(w[0] >= -insideTol && w[1] >= -insideTol && w[2] >= -insideTol) {
		return w, false
	}
	sum := w[0] + w[1] + w[2]
	return [3]float64{w[0] / sum, w[1] / sum, w[2] / sum}, true
}

// build fills the grid with the live faces of m: cells of side
// √(box area / faces), so about one cell per face, each face listed in
// every cell its material bounding box overlaps. Two passes over the
// faces (count, then fill) make the cell lists one flat slice.
func (s *Sampler) build(m *geom.Mesh) {
	lo := geom.Vec2{X: math.Inf(1), Y: math.Inf(1)}
	hi := geom.Vec2{X: math.Inf(-1), Y: math.Inf(-1)}
	n := 0
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		n++
		for _, v := range t {
			r := m.Rest[v]
			lo = geom.Vec2{X: math.Min(lo.X, r.X), Y: math.Min(lo.Y, r.Y)}
			hi = geom.Vec2{X: math.Max(hi.X, r.X), Y: math.Max(hi.Y, r.Y)}
		}
	}
	s.lo, s.nx, s.ny, s.inv = lo, 1, 1, 1
	if n > 0 {
		w, h := hi.X-lo.X, hi.Y-lo.Y
		if cell := math.Sqrt(w * h / float64(n)); cell > 0 {
			s.inv = 1 / cell
			s.nx = max(1, min(int(math.Ceil(w*s.inv)), 4*n))
			s.ny = max(1, min(int(math.Ceil(h*s.inv)), 4*n))
		}
	}
	nc := s.nx * s.ny
	s.start = buf.Zeroed(s.start, nc+1)
	s.next = buf.Zeroed(s.next, nc)
	for pass := 0; pass < 2; pass++ {
		for f, t := range m.Tris {
			if !m.FaceAlive(f) {
				continue
			}
			i0, j0, i1, j1 := s.cellRange(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
			for j := j0; j <= j1; j++ {
				for i := i0; i <= i1; i++ {
					c := j*s.nx + i
					if pass == 0 {
						s.start[c+1]++
					} else {
						s.faces[s.next[c]] = int32(f)
						s.next[c]++
					}
				}
			}
		}
		if pass == 0 { // counts → offsets: cell c's faces begin at start[c]
			for c := 1; c <= nc; c++ {
				s.start[c] += s.start[c-1]
			}
			s.faces = buf.Zeroed(s.faces, int(s.start[nc]))
			copy(s.next, s.start[:nc])
		}
	}
}

// cellRange returns the cells (i0..i1, j0..j1) that the bounding box of
// the points overlaps, clamped to the grid.
func (s *Sampler) cellRange(ps ...geom.Vec2) (i0, j0, i1, j1 int) {
	i0, j0 = s.nx, s.ny
	i1, j1 = -1, -1
	for _, p := range ps {
		i, j := s.cell(p)
		i0, j0 = min(i0, i), min(j0, j)
		i1, j1 = max(i1, i), max(j1, j)
	}
	return i0, j0, i1, j1
}

// cell returns the grid cell of p, clamped to the grid.
func (s *Sampler) cell(p geom.Vec2) (i, j int) {
	fi, fj := math.Floor((p.X-s.lo.X)*s.inv), math.Floor((p.Y-s.lo.Y)*s.inv)
	return int(math.Max(0, math.Min(fi, float64(s.nx-1)))), int(math.Max(0, math.Min(fj, float64(s.ny-1))))
}

// locate returns the face of m that contains p and p's barycentric
// coordinates in it; failing that, the nearest face within the tolerance
// and the coordinates of its nearest point to p; failing that, an error.
// The grid must be built.
func (s *Sampler) locate(m *geom.Mesh, p geom.Vec2) (int32, [3]float64, error) {
	i, j := s.cell(p)
	c := j*s.nx + i
	for _, f := range s.faces[s.start[c]:s.start[c+1]] {
		if w, ok := inside(m, f, p); ok {
			return f, w, nil
		}
	}
	// Outside every face: a face within tol of p has its box within tol
	// of p, in the cells that p's box grown by tol overlaps.
	d := geom.Vec2{X: s.tol, Y: s.tol}
	i0, j0, i1, j1 := s.cellRange(p.Sub(d), p.Add(d))
	best, bestD := int32(-1), math.Inf(1)
	var bestW [3]float64
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			c := j*s.nx + i
			for _, f := range s.faces[s.start[c]:s.start[c+1]] {
				t := m.Tris[f]
				w, d2 := nearest(p, m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
				if d2 < bestD {
					best, bestD, bestW = f, d2, w
				}
			}
		}
	}
	if best < 0 || math.Sqrt(bestD) > s.tol {
		if best < 0 {
			return -1, bestW, fmt.Errorf("lies outside the cloth by more than %g m", s.tol)
		}
		return -1, bestW, fmt.Errorf("lies %.3g m outside the cloth (tolerance %g m)", math.Sqrt(bestD), s.tol)
	}
	return best, bestW, nil
}

// nearest returns the barycentric coordinates in the material triangle
// (a, b, c) of its point nearest to p, and the squared distance to it:
// p's own coordinates when it is inside, otherwise those of the nearest
// point on the nearest edge (Ericson, Real-Time Collision Detection §5.1.5,
// in the plane).
func nearest(p, a, b, c geom.Vec2) ([3]float64, float64) {
	w := barycentric(p, a, b, c)
	if w[0] >= 0 && w[1] >= 0 && w[2] >= 0 {
		return w, 0
	}
	best := math.Inf(1)
	var bw [3]float64
	corners := [3]geom.Vec2{a, b, c}
	for e := 0; e < 3; e++ {
		u, v := corners[e], corners[(e+1)%3]
		uv := v.Sub(u)
		s := 0.0
		if l2 := uv.Norm2(); l2 > 0 {
			s = math.Max(0, math.Min(1, (p.Sub(u).X*uv.X+p.Sub(u).Y*uv.Y)/l2))
		}
		d2 := p.Sub(u.Add(uv.Scale(s))).Norm2()
		if d2 < best {
			best = d2
			bw = [3]float64{}
			bw[e], bw[(e+1)%3] = 1-s, s
		}
	}
	return bw, best
}
