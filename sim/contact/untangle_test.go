package contact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// This file tests untangling (untangle.go): the contour's gradient against
// finite differences, and crossing triangles and a poked-through sheet
// separating under it.

// contourOf returns the total contour length of the cloth by pairs.
func contourOf(x []geom.Vec3, tris [][3]int32) float64 {
	l := 0.0
	for i := range tris {
		for j := i + 1; j < len(tris); j++ {
			l += ContourLength(x, tris[i], tris[j])
		}
	}
	return l
}

// TestContourGradient checks Untangler's gradient of the contour length
// against central differences on random pairs of crossing triangles, and
// that a small step along it shortens the contour.
func TestContourGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tris := [][3]int32{{0, 1, 2}, {3, 4, 5}}
	var u Untangler
	checked := 0
	for trial := 0; trial < 400 && checked < 60; trial++ {
		x := make([]geom.Vec3, 6)
		for i := range x {
			x[i] = geom.Vec3{X: rng.Float64()*2 - 1, Y: rng.Float64()*2 - 1, Z: rng.Float64()*2 - 1}
		}
		if u.Find(x, tris) != 1 {
			continue
		}
		l0 := u.Length()
		if l0 < 0.05 {
			continue
		}
		if math.Abs(l0-ContourLength(x, tris[0], tris[1])) > 1e-12 {
			t.Fatalf("Length %v, ContourLength %v", l0, ContourLength(x, tris[0], tris[1]))
		}
		g := append([]geom.Vec3(nil), u.Gradient()...)
		// The clamp of the normal term changes the gradient of grazing
		// edges on purpose; check only configurations it does not touch.
		if clamped(x, tris) {
			continue
		}
		const eps = 1e-6
		ok := true
		for v := range x {
			for c := 0; c < 3; c++ {
				xp := append([]geom.Vec3(nil), x...)
				xm := append([]geom.Vec3(nil), x...)
				add(&xp[v], c, eps)
				add(&xm[v], c, -eps)
				lp, lm := ContourLength(xp, tris[0], tris[1]), ContourLength(xm, tris[0], tris[1])
				if lp == 0 || lm == 0 {
					ok = false // the segment's end changes edge within eps
					continue
				}
				fd := -(lp - lm) / (2 * eps)
				if got := comp(g[v], c); math.Abs(got-fd) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("trial %d: vertex %d axis %d: got=%v, want=%v (central difference)", trial, v, c, got, fd)
				}
			}
		}
		if !ok {
			continue
		}
		// A step along the gradient shortens the contour by about
		// step·|g|².
		const step = 1e-4
		xs := append([]geom.Vec3(nil), x...)
		g2 := 0.0
		for v := range xs {
			xs[v] = xs[v].Add(g[v].Scale(step))
			g2 += g[v].Dot(g[v])
		}
		l1 := ContourLength(xs, tris[0], tris[1])
		if !(l1 < l0) || math.Abs((l0-l1)-step*g2) > 0.1*step*g2 {
			t.Errorf("trial %d: a step of %g along the gradient: length %v → %v, want a decrease of about %v", trial, step, l0, l1, step*g2)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d configurations checked", checked)
	}
}

// clamped reports whether an end point of the pair's segment has its
// normal term clamped (an edge within about 14° of the other's plane).
func clamped(x []geom.Vec3, tris [][3]int32) bool {
	var pts [6]endPoint
	n := endPoints(x, tris[0], tris[1], &pts)
	for _, p := range pts[:n] {
		if math.Abs(p.n.Unit().Dot(p.e.Unit())) < 1/gradClamp {
			return true
		}
	}
	return false
}

func add(p *geom.Vec3, c int, d float64) {
	switch c {
	case 0:
		p.X += d
	case 1:
		p.Y += d
	default:
		p.Z += d
	}
}

func comp(p geom.Vec3, c int) float64 {
	switch c {
	case 0:
		return p.X
	case 1:
		return p.Y
	}
	return p.Z
}

// descend moves every vertex along the contour gradient by at most step
// (the direction scaled to step where it is longer than 1) until nothing
// crosses or iters steps are done, and returns the steps taken.
func descend(x []geom.Vec3, tris [][3]int32, step float64, iters int) int {
	return descendRegions(x, tris, nil, step, iters)
}

// descendRegions is descend with the regions the contours enclose pushed
// as well (Untangler.Adj = adj).
func descendRegions(x []geom.Vec3, tris, adj [][3]int32, step float64, iters int) int {
	u := Untangler{Adj: adj}
	for i := 0; i < iters; i++ {
		if u.Find(x, tris) == 0 {
			return i
		}
		for v, g := range u.Gradient() {
			x[v] = x[v].Add(g.Scale(step / math.Max(1, g.Norm())))
		}
	}
	return iters
}

// TestCrossingTrianglesSeparate: two triangles pierced through each other
// (the segment runs between an edge of each) come apart under steps
// along the contour gradient, and so does one pierced by the other's
// corner.
func TestCrossingTrianglesSeparate(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []geom.Vec3
	}{
		{"interlocked", []geom.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 0, Y: 1},
			{X: -0.5, Y: 0.2, Z: -0.7}, {X: -0.5, Y: 0.2, Z: 0.7}, {X: 0.9, Y: 1.5, Z: 0.1}}},
		{"corner through", []geom.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 0, Y: 1},
			{X: 0, Y: 0, Z: 0.3}, {X: 0.8, Y: 2, Z: -1}, {X: -0.8, Y: 2, Z: -1}}},
	} {
		tris := [][3]int32{{0, 1, 2}, {3, 4, 5}}
		x := append([]geom.Vec3(nil), tc.x...)
		if IntersectingPairs(x, tris) != 1 {
			t.Fatalf("%s: the triangles do not cross at the start", tc.name)
		}
		l0 := contourOf(x, tris)
		n := descend(x, tris, 0.01, 400)
		if got := IntersectingPairs(x, tris); got != 0 {
			t.Errorf("%s: still crossing after %d steps (contour %.3f → %.3f m)", tc.name, n, l0, contourOf(x, tris))
		}
		t.Logf("%s: contour %.3f m, apart after %d steps of 0.01", tc.name, l0, n)
	}
}

// TestSheetPokedThroughUntangles: a sheet whose middle is pulled up in a
// tent through a sheet 2 cm above it (a vertex dragged through) is
// intersection-free again after steps along the contour gradient, and
// the sheets end on the sides they started on: the tent's apex below
// the upper sheet.
func TestSheetPokedThroughUntangles(t *testing.T) {
	lo := sheet(t, 1, 12, 0, 0, 0, geom.Vec3{})
	up := sheet(t, 1, 11, 0.013, 0.007, 0.02, geom.Vec3{}) // offset: no vertex on an edge
	apex := int32(-1)
	for i, p := range lo.X {
		if d := math.Hypot(p.X, p.Y); d < 0.3 {
			lo.X[i].Z = 0.06 * (1 - d/0.3) // apex 6 cm up, 4 cm through
			if d < 1e-9 {
				apex = int32(i)
			}
		}
	}
	if apex < 0 {
		t.Fatal("no vertex at the middle of the lower sheet")
	}
	c := join(lo, up)
	n0 := IntersectingPairs(c.X, c.Tris)
	if n0 == 0 {
		t.Fatal("the tent does not cross the upper sheet")
	}
	l0 := contourOf(c.X, c.Tris)
	steps := descend(c.X, c.Tris, 0.002, 500)
	n := IntersectingPairs(c.X, c.Tris)
	t.Logf("%d crossing pairs, contour %.3f m; after %d steps of 2 mm: %d pairs, apex at z=%.4f", n0, l0, steps, n, c.X[apex].Z)
	if n != 0 {
		t.Fatalf("still %d crossing pairs", n)
	}
	if above := upperZ(c, len(lo.Tris), c.X[apex]); !(c.X[apex].Z < above) {
		t.Errorf("the apex ended at z=%.4f, above the upper sheet (%.4f): untangled to the wrong side", c.X[apex].Z, above)
	}
}

// upperZ returns the height of the upper sheet (faces from off on) over
// p's place in the plane (both sheets are height fields), by linear
// interpolation in the face that holds it; NaN outside the sheet.
func upperZ(c *Cloth, off int, p geom.Vec3) float64 {
	for _, t := range c.Tris[off:] {
		a, b, d := c.X[t[0]], c.X[t[1]], c.X[t[2]]
		det := (b.X-a.X)*(d.Y-a.Y) - (d.X-a.X)*(b.Y-a.Y)
		w1 := ((p.X-a.X)*(d.Y-a.Y) - (d.X-a.X)*(p.Y-a.Y)) / det
		w2 := ((b.X-a.X)*(p.Y-a.Y) - (p.X-a.X)*(b.Y-a.Y)) / det
		if w1 >= 0 && w2 >= 0 && w1+w2 <= 1 {
			return a.Z + w1*(b.Z-a.Z) + w2*(d.Z-a.Z)
		}
	}
	return math.NaN()
}

// TestUntanglerFlags: the tangled faces are those of the crossing pairs
// and the rings round them, and nothing is flagged once untangled.
func TestUntanglerFlags(t *testing.T) {
	lo := sheet(t, 1, 8, 0, 0, 0, geom.Vec3{})
	up := sheet(t, 1, 8, 0.011, 0.013, 0.01, geom.Vec3{})
	for i, p := range lo.X {
		if math.Hypot(p.X, p.Y) < 1e-9 {
			lo.X[i].Z = 0.05
		}
	}
	c := join(lo, up)
	var u Untangler
	count := func() (nf int) {
		for _, f := range u.Faces() {
			if f != 0 {
				nf++
			}
		}
		return nf
	}
	for _, rings := range []int{0, 1, 2} {
		u.Rings = rings
		np := u.Find(c.X, c.Tris)
		if np == 0 {
			t.Fatal("nothing crosses")
		}
		inPairs := map[int32]bool{}
		for _, p := range u.Pairs() {
			inPairs[p[0]], inPairs[p[1]] = true, true
			if u.Faces()[p[0]] != Crossing || u.Faces()[p[1]] != Crossing {
				t.Errorf("rings %d: pair %v not flagged", rings, p)
			}
		}
		nf := count()
		if rings == 0 && nf != len(inPairs) {
			t.Errorf("rings 0: %d faces flagged, want the %d of the pairs", nf, len(inPairs))
		}
		t.Logf("rings %d: %d pairs, %d faces flagged", rings, np, nf)
	}
	flat := join(sheet(t, 1, 8, 0, 0, 0, geom.Vec3{}), up)
	if n := u.Find(flat.X, flat.Tris); n != 0 || count() != 0 {
		t.Errorf("untangled: %d pairs, %d faces flagged; want 0 and 0", n, count())
	}
}

// BenchmarkUntanglerFind is the cost of one Find on an untangled cloth:
// what the step pays when it checks.
func BenchmarkUntanglerFind(b *testing.B) {
	for _, n := range []int{30, 100} {
		c := folded(b, n)
		b.Run(fmt.Sprintf("tris=%d", len(c.Tris)), func(b *testing.B) {
			var u Untangler
			u.Find(c.X, c.Tris)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if u.Find(c.X, c.Tris) != 0 {
					b.Fatal("the folded sheet crosses itself")
				}
			}
			b.ReportMetric(float64(len(c.Tris)), "triangles")
		})
	}
}

// TestTouchingVertexThrough: a vertex 10⁻¹⁵ m above a face of another
// layer, over its interior, with its six neighbours 1 cm below (the
// monkey's two-sheets seed 942, where the collision phase held a vertex
// 2·10⁻¹⁶ m on the far side of a face from its own sheet): its six faces
// cross the face, as an exact test says, and steps along the contour
// gradient take the vertex through to its sheet's side. The same vertex
// touching from its sheet's side, neighbours above, crosses nothing.
// Before, an end within 10⁻¹⁰ of the plane never counted, and Find saw
// no crossing in either.
func TestTouchingVertexThrough(t *testing.T) {
	for _, tc := range []struct {
		name  string
		z     float64 // the neighbours' height; the face is at z = 0
		pairs int
	}{{"neighbours below", -0.01, 6}, {"neighbours above", 0.01, 0}} {
		x := []geom.Vec3{{X: -0.2, Y: -0.2}, {X: 0.3, Y: -0.2}, {X: 0, Y: 0.3}, {X: 0.01, Y: 0.02, Z: 1e-15}}
		tris := [][3]int32{{0, 1, 2}}
		for k := range 6 {
			a := 2 * math.Pi * float64(k) / 6
			x = append(x, geom.Vec3{X: 0.01 + 0.03*math.Cos(a), Y: 0.02 + 0.03*math.Sin(a), Z: tc.z})
			tris = append(tris, [3]int32{3, int32(4 + k), int32(4 + (k+1)%6)})
		}
		if got := IntersectingPairs(x, tris); got != tc.pairs {
			t.Fatalf("%s: %d crossing pairs, want %d", tc.name, got, tc.pairs)
		}
		if tc.pairs == 0 {
			continue
		}
		n := descend(x, tris, 0.001, 50)
		if got := IntersectingPairs(x, tris); got != 0 || !(x[3].Z < 0) {
			t.Errorf("%s: after %d steps %d crossing pairs, the vertex at z = %g; want none, below the face", tc.name, n, got, x[3].Z)
		}
		t.Logf("%s: free after %d steps, the vertex at z = %.2g m", tc.name, n, x[3].Z)
	}
}
