package geom

import (
	"math"
)

// SurfaceGrid answers point-to-surface distance queries against a triangle
// mesh through a uniform grid of cells (a spatial hash): each triangle is
// listed in every cell its bounding box overlaps. It is a snapshot: later
// changes to the mesh do not reach it.
//
// drape bench measures the accuracy loss of the adaptive run with it, as
// the distance of every full-resolution vertex to the adaptive surface
// (exact point-to-triangle distance, not vertex-to-vertex): the
// full-resolution vertices sample the reference surface densely (22140
// triangles), while the adaptive mesh's vertices are sparse in flat
// regions, where the surface between them is what is compared.
type SurfaceGrid struct {
	cell  float64
	cells map[[3]int32][]int32
	tris  [][3]Vec3
}

// NewSurfaceGrid returns a grid over the live faces of m, with cells twice
// the mean edge length.
func NewSurfaceGrid(m *Mesh) *SurfaceGrid {
	g := &SurfaceGrid{cells: make(map[[3]int32][]int32)}
	var edge float64
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		a, b, c := m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]]
		g.tris = append(g.tris, [3]Vec3{a, b, c})
		edge += b.Sub(a).Norm() + c.Sub(b).Norm() + a.Sub(c).Norm()
	}
	if len(g.tris) == 0 {
		return g
	}
	g.cell = 2 * edge / float64(3*len(g.tris))
	if !(g.cell > 0) {
		g.cell = 1
	}
	for i, t := range g.tris {
		lo, hi := t[0], t[0]
		for _, p := range t[1:] {
			lo = Vec3{X: math.Min(lo.X, p.X), Y: math.Min(lo.Y, p.Y), Z: math.Min(lo.Z, p.Z)}
			hi = Vec3{X: math.Max(hi.X, p.X), Y: math.Max(hi.Y, p.Y), Z: math.Max(hi.Z, p.Z)}
		}
		a, b := g.key(lo), g.key(hi)
		for x := a[0]; x <= b[0]; x++ {
			for y := a[1]; y <= b[1]; y++ {
				for z := a[2]; z <= b[2]; z++ {
					k := [3]int32{x, y, z}
					g.cells[k] = append(g.cells[k], int32(i))
				}
			}
		}
	}
	return g
}

func (g *SurfaceGrid) key(p Vec3) [3]int32 {
	return [3]int32{int32(math.Floor(p.X / g.cell)), int32(math.Floor(p.Y / g.cell)), int32(math.Floor(p.Z / g.cell))}
}

// Distance returns the distance from p to the nearest triangle. It
// searches the cells within k of p's cell for k = 1, 2, 4, … until the
// best distance found is at most k·cell (any closer triangle has a point
// within k cells), falling back to all triangles.
func (g *SurfaceGrid) Distance(p Vec3) float64 {
	if len(g.tris) == 0 {
		return math.Inf(1)
	}
	c := g.key(p)
	best := math.Inf(1)
	for k := int32(1); k <= 64; k *= 2 {
		for x := c[0] - k; x <= c[0]+k; x++ {
			for y := c[1] - k; y <= c[1]+k; y++ {
				for z := c[2] - k; z <= c[2]+k; z++ {
					for _, i := range g.cells[[3]int32{x, y, z}] {
						t := &g.tris[i]
						best = math.Min(best, PointTriangleDistance(p, t[0], t[1], t[2]))
					}
				}
			}
		}
		if best <= float64(k)*g.cell {
			return best
		}
	}
	for i := range g.tris {
		t := &g.tris[i]
		best = math.Min(best, PointTriangleDistance(p, t[0], t[1], t[2]))
	}
	return best
}

// PointTriangleDistance returns the distance from p to triangle (a, b, c)
// by the closest-point regions of Ericson, Real-Time Collision Detection
// §5.1.5; a degenerate triangle falls back to its edges.
func PointTriangleDistance(p, a, b, c Vec3) float64 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return ap.Norm()
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return bp.Norm()
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return p.Sub(a.Add(ab.Scale(v))).Norm()
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return cp.Norm()
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		w := d2 / (d2 - d6)
		return p.Sub(a.Add(ac.Scale(w))).Norm()
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return p.Sub(b.Add(c.Sub(b).Scale(w))).Norm()
	}
	den := va + vb + vc
	if den == 0 || math.IsNaN(den) {
		return math.Min(math.Min(segDist(p, a, b), segDist(p, b, c)), segDist(p, c, a))
	}
	v, w := vb/den, vc/den
	return p.Sub(a.Add(ab.Scale(v)).Add(ac.Scale(w))).Norm()
}

func segDist(p, a, b Vec3) float64 {
	ab := b.Sub(a)
	l := ab.Dot(ab)
	t := 0.0
	if l > 0 {
		t = math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l))
	}
	return p.Sub(a.Add(ab.Scale(t))).Norm()
}
