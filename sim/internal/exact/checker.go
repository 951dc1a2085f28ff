package exact

import (
	"fmt"

	"drape/sim/geom"
)

// Surface is a closed obstacle triangle mesh at one instant (world
// positions; tris: 3 indices per face into Pos, outward counter-clockwise;
// t[0] < 0 marks a dead face).
type Surface struct {
	Pos  []geom.Vec3
	Tris [][3]int32
}

// Plane is a half-space obstacle: the solid is (x − Point)·Normal < 0.
type Plane struct {
	Point, Normal geom.Vec3
}

// Checker answers the scene tests' question "is the cloth free of
// intersections?" for a fixed set of obstacles: cloth vertices strictly
// inside an obstacle (exact ray parity, accelerated by per-axis 2D grids
// of the obstacle's faces) or strictly below a plane, and cloth triangles
// that intersect an obstacle triangle or (optionally) another cloth
// triangle with which they share no vertex. Build a new Checker when the
// obstacles move. A Checker may be used by several goroutines at once.
type Checker struct {
	surfaces []*surfaceIndex
	planes   []Plane
}

// surfaceIndex lists, for each axis k, the faces whose bounding box,
// projected along k, covers each cell of a 2D grid: the candidates a ray
// along ±e_k can cross.
type surfaceIndex struct {
	Surface
	lo, hi geom.Vec3
	ok     bool
	axes   [3]axisGrid
}

type axisGrid struct {
	lo0, lo1, cell float64
	n0, n1         int
	start, items   []int32
}

func newSurfaceIndex(s Surface) *surfaceIndex {
	x := &surfaceIndex{Surface: s}
	x.lo, x.hi, x.ok = meshBounds(s.Pos, s.Tris)
	if !x.ok {
		return x
	}
	live := 0
	var side float64
	for _, t := range s.Tris {
		if t[0] >= 0 {
			b := triBox(s.Pos, t)
			side += max(b.hi.X-b.lo.X, b.hi.Y-b.lo.Y, b.hi.Z-b.lo.Z)
			live++
		}
	}
	for k := 0; k < 3; k++ {
		g := &x.axes[k]
		l0, l1 := proj(x.lo, k)
		h0, h1 := proj(x.hi, k)
		g.lo0, g.lo1 = l0, l1
		g.cell = max(side/float64(live), (h0-l0)/1024, (h1-l1)/1024, 1e-300)
		g.n0, g.n1 = int((h0-l0)/g.cell)+1, int((h1-l1)/g.cell)+1
		count := make([]int32, g.n0*g.n1+1)
		each := func(fn func(f int, c int)) {
			for f, t := range s.Tris {
				if t[0] < 0 {
					continue
				}
				b := triBox(s.Pos, t)
				a0, a1 := proj(b.lo, k)
				b0, b1 := proj(b.hi, k)
				i0, j0 := g.cellOf(a0, a1)
				i1, j1 := g.cellOf(b0, b1)
				for i := i0; i <= i1; i++ {
					for j := j0; j <= j1; j++ {
						fn(f, i*g.n1+j)
					}
				}
			}
		}
		each(func(f, c int) { count[c+1]++ })
		for c := 1; c < len(count); c++ {
			count[c] += count[c-1]
		}
		g.start = append([]int32(nil), count...)
		g.items = make([]int32, count[len(count)-1])
		each(func(f, c int) { g.items[count[c]] = int32(f); count[c]++ })
	}
	return x
}

func (g *axisGrid) cellOf(u, v float64) (int, int) {
	i := int((u - g.lo0) / g.cell)
	j := int((v - g.lo1) / g.cell)
	return min(max(i, 0), g.n0-1), min(max(j, 0), g.n1-1)
}

// inside is PointInsideMesh with the axis rays restricted to the faces of
// p's cell (a face whose projected box misses p's projection cannot meet
// a ray along that axis); the oblique fallbacks test every face.
func (x *surfaceIndex) inside(p geom.Vec3) bool {
	if !x.ok || !p.IsFinite() || !inBox(p, x.lo, x.hi) {
		return false
	}
	for k := range rayDirs {
		var cand []int32
		if k < 6 {
			g := &x.axes[k%3]
			u, v := proj(p, k%3)
			i, j := g.cellOf(u, v)
			c := i*g.n1 + j
			cand = g.items[g.start[c]:g.start[c+1]]
			if len(cand) == 0 {
				return false // no face above or below p along this axis
			}
		}
		odd, on, ok := parity(p, k, x.lo, x.hi, x.Pos, x.Tris, cand)
		if on {
			return false
		}
		if ok {
			return odd
		}
	}
	return false
}

// NewChecker indexes the obstacles. The slices are kept, not copied.
func NewChecker(surfaces []Surface, planes []Plane) *Checker {
	c := &Checker{planes: planes}
	for _, s := range surfaces {
		c.surfaces = append(c.surfaces, newSurfaceIndex(s))
	}
	return c
}

// Report counts the problems Check found.
type Report struct {
	NonFinite     int    // cloth vertices with a NaN or infinite coordinate
	Inside        int    // cloth vertices strictly inside an obstacle mesh or below a plane (each counted once)
	ObstaclePairs int    // (cloth face, obstacle face) pairs that intersect
	SelfPairs     int    // cloth face pairs sharing no vertex that intersect (when asked)
	First         string // the first problem, for a test message; "" when none
}

// OK reports whether no problem was found.
func (r Report) OK() bool { return r.NonFinite+r.Inside+r.ObstaclePairs+r.SelfPairs == 0 }

func (r Report) String() string {
	if r.OK() {
		return "no intersections"
	}
	return fmt.Sprintf("%d non-finite vertices, %d vertices inside obstacles, %d cloth–obstacle and %d cloth–cloth intersecting triangle pairs; first: %s",
		r.NonFinite, r.Inside, r.ObstaclePairs, r.SelfPairs, r.First)
}

// Check examines a cloth mesh (pos; tris: 3 indices per face into pos,
// t[0] < 0 for dead faces; only vertices of live faces are checked)
// against the obstacles, and against itself when self is true.
func (c *Checker) Check(pos []geom.Vec3, tris [][3]int32, self bool) Report {
	var r Report
	note := func(format string, a ...any) {
		if r.First == "" {
			r.First = fmt.Sprintf(format, a...)
		}
	}
	used := make([]bool, len(pos))
	for _, t := range tris {
		if t[0] >= 0 {
			used[t[0]], used[t[1]], used[t[2]] = true, true, true
		}
	}
	for v, p := range pos {
		if !used[v] {
			continue
		}
		if !p.IsFinite() {
			r.NonFinite++
			note("vertex %d at %v", v, p)
			continue
		}
		in := false
		for i, pl := range c.planes {
			if !in && BelowPlane(p, pl.Point, pl.Normal) {
				in = true
				note("vertex %d at %v below plane %d", v, p, i)
			}
		}
		for i, s := range c.surfaces {
			if !in && s.inside(p) {
				in = true
				note("vertex %d at %v inside obstacle %d", v, p, i)
			}
		}
		if in {
			r.Inside++
		}
	}
	for i, s := range c.surfaces {
		pairs := MeshIntersections(pos, tris, s.Pos, s.Tris)
		for _, pr := range pairs {
			if pr[1] < 0 {
				continue // non-finite, counted above
			}
			r.ObstaclePairs++
			note("cloth face %d intersects face %d of obstacle %d", pr[0], pr[1], i)
		}
	}
	if self {
		for _, pr := range SelfIntersections(pos, tris) {
			if pr[0] == pr[1] {
				continue
			}
			r.SelfPairs++
			note("cloth faces %d and %d intersect", pr[0], pr[1])
		}
	}
	return r
}
