package exact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
	"drape/sim/obstacle"
)

// bruteSelf is SelfIntersections without the broad phase: every pair.
func bruteSelf(pos []V, tris [][3]int32) [][2]int32 {
	var out [][2]int32
	for i := range tris {
		for j := i + 1; j < len(tris); j++ {
			if tris[i][0] < 0 || tris[j][0] < 0 || shareVertex(tris[i], tris[j]) {
				continue
			}
			if TrianglesIntersect(corners(pos, tris[i]), corners(pos, tris[j])) {
				out = append(out, [2]int32{int32(i), int32(j)})
			}
		}
	}
	return out
}

// crumpled returns a grid sheet whose vertices are displaced by random
// amounts comparable to the spacing, so that it intersects itself.
func crumpled(t testing.TB, n int, amp float64, seed uint64) ([]V, [][3]int32) {
	m, err := geom.RegularGrid(1, 1, n, n)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0))
	pos := slices.Clone(m.Pos)
	h := 1 / float64(n)
	for i := range pos {
		pos[i] = pos[i].Add(v(amp*h*(r.Float64()-0.5), amp*h*(r.Float64()-0.5), 2*amp*h*(r.Float64()-0.5)))
	}
	return pos, slices.Clone(m.Tris)
}

// TestSelfIntersectionsMatchesBruteForce checks the grid broad phase: on
// crumpled sheets SelfIntersections finds exactly the pairs that testing
// every pair finds; dead faces are skipped; a flat sheet has none.
func TestSelfIntersectionsMatchesBruteForce(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, amp := range []float64{0, 1, 3} {
		pos, tris := crumpled(t, 14, amp, uint64(10*amp+1))
		tris[5][0] = -1 // a dead face
		got := SelfIntersections(pos, tris)
		want := bruteSelf(pos, tris)
		if !slices.Equal(got, want) {
			t.Fatalf("amp %v: got %d pairs, want %d\n got=%v\nwant=%v", amp, len(got), len(want), got, want)
		}
		if amp == 0 && len(got) != 0 {
			t.Errorf("flat sheet: %d pairs", len(got))
		}
		if amp == 3 && len(got) == 0 {
			t.Errorf("amp 3: no pairs: the test is not testing anything")
		}
		t.Logf("amp %v: %d intersecting pairs", amp, len(got))
	}
}

// TestSelfIntersectionsFold folds the right half of a sheet back over the
// left half: lifted above it (z = 0.05 + slope·x, x the distance from the
// fold line) with slope 0.1 it clears the left half, with slope −0.3 it
// passes through it (z = 0 at 0.17 m from the fold).
func TestSelfIntersectionsFold(t *testing.T) {
	m, _ := geom.RegularGrid(1, 1, 10, 10)
	pos := slices.Clone(m.Pos)
	for _, slope := range []float64{0.1, -0.3} {
		for i, p := range m.Pos {
			if p.X > 0.5 {
				x := p.X - 0.5
				pos[i] = v(0.5-0.9*x, p.Y, 0.05+slope*x)
			}
		}
		got := SelfIntersections(pos, m.Tris)
		if (len(got) > 0) != (slope < 0) {
			t.Errorf("slope %v: %d pairs", slope, len(got))
		}
		if want := bruteSelf(pos, m.Tris); !slices.Equal(got, want) {
			t.Errorf("slope %v: got %d pairs, brute force %d", slope, len(got), len(want))
		}
	}
}

func TestMeshIntersections(t *testing.T) {
	cloth, ctris := crumpled(t, 12, 1, 7)
	ball, err := obstacle.Spec{Kind: "sphere", Radius: 0.3, Position: [3]float64{0.5, 0.5, 0.1}}.Build("")
	if err != nil {
		t.Fatal(err)
	}
	bpos, btris := ball.Vertices(0, nil), ball.Tris()
	got := MeshIntersections(cloth, ctris, bpos, btris)
	var want [][2]int32
	for i := range ctris {
		for j := range btris {
			if TrianglesIntersect(corners(cloth, ctris[i]), corners(bpos, btris[j])) {
				want = append(want, [2]int32{int32(i), int32(j)})
			}
		}
	}
	if !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("got %d pairs, want %d (non-zero)", len(got), len(want))
	}
}

func cube() ([]V, [][3]int32) {
	o, err := obstacle.Spec{Kind: "box", Size: [3]float64{2, 2, 2}}.Build("")
	if err != nil {
		panic(err)
	}
	return o.Vertices(0, nil), o.Tris()
}

// TestPointInsideMesh checks the exact parity on a box (whose tessellation
// has vertices and edges that axis rays from grid points hit exactly, so
// the fallback directions are exercised), on points on its surface (not
// inside), and on the sphere's tessellation against the analytic sphere,
// with the Checker's indexed version compared throughout.
func TestPointInsideMesh(t *testing.T) {
	pos, tris := cube()
	idx := newSurfaceIndex(Surface{pos, tris})
	cases := []struct {
		p    V
		want bool
	}{
		{v(0, 0, 0), true},
		{v(0.999, -0.998, 0.5), true},
		{v(1, 0, 0), false},    // on a face
		{v(1, 1, 0), false},    // on an edge
		{v(1, 1, 1), false},    // on a corner
		{v(0.998, 0, 0), true}, // on the bevel line (ray along a grid line)
		{v(0.998, 0.998, 0.998), true},
		{v(1.001, 0, 0), false},
		{v(math.Nextafter(1, 0), 0, 0), true},
		{v(math.Nextafter(1, 2), 0, 0), false},
		{v(0, 3, 0), false},
		{v(math.NaN(), 0, 0), false},
	}
	for _, c := range cases {
		if got := PointInsideMesh(c.p, pos, tris); got != c.want {
			t.Errorf("PointInsideMesh(%v): got=%v, want=%v", c.p, got, c.want)
		}
		if got := idx.inside(c.p); got != c.want {
			t.Errorf("indexed inside(%v): got=%v, want=%v", c.p, got, c.want)
		}
	}
	// Grid points: many lie in the planes of the box's faces and bevels.
	for _, x := range []float64{-1.5, -1, -0.998, -0.5, 0, 0.998, 1} {
		for _, y := range []float64{-1, -0.998, 0, 0.5, 0.998, 1, 1.2} {
			for _, z := range []float64{-1, 0, 0.998, 1} {
				p := v(x, y, z)
				want := math.Abs(x) < 1 && math.Abs(y) < 1 && math.Abs(z) < 1
				if got := PointInsideMesh(p, pos, tris); got != want {
					t.Errorf("grid point %v: got=%v, want=%v", p, got, want)
				}
				if got := idx.inside(p); got != want {
					t.Errorf("indexed grid point %v: got=%v, want=%v", p, got, want)
				}
			}
		}
	}
	ball, _ := obstacle.Spec{Kind: "sphere", Radius: 0.5}.Build("")
	bpos, btris := ball.Vertices(0, nil), ball.Tris()
	bidx := newSurfaceIndex(Surface{bpos, btris})
	r := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 300; i++ {
		p := v(r.Float64()-0.5, r.Float64()-0.5, r.Float64()-0.5).Scale(1.3)
		d := p.Norm() - 0.5
		if math.Abs(d) < obstacle.ChordTolerance {
			continue
		}
		if got := bidx.inside(p); got != (d < 0) {
			t.Fatalf("sphere, %v at distance %v: inside=%v", p, d, got)
		}
		if i%10 == 0 {
			if got := PointInsideMesh(p, bpos, btris); got != (d < 0) {
				t.Fatalf("sphere (brute), %v at distance %v: inside=%v", p, d, got)
			}
		}
	}
}

func TestBelowPlane(t *testing.T) {
	n := v(0, 1, 0)
	if BelowPlane(v(3, 0, 1), v(0, 0, 0), n) {
		t.Error("a point on the plane is below it")
	}
	if !BelowPlane(v(3, -0x1p-1074, 1), v(0, 0, 0), n) {
		t.Error("a point one subnormal below is not below")
	}
	// 0.1 + 0.2 rounds above 0.3: the exact sign must not see that.
	if BelowPlane(v(0.3, 0, 0), v(0.1, 0, 0), v(1, 0, 0)) || !BelowPlane(v(0.1, 0, 0), v(0.3, 0, 0), v(1, 0, 0)) {
		t.Error("x-direction plane wrong")
	}
}

// TestChecker drops a crumpled sheet near a box and a ground plane: clear
// of both it is OK; pushing one vertex into the box counts that vertex and
// the triangles that cross the box's surface; pushing one below the ground
// counts it too.
func TestChecker(t *testing.T) {
	bpos, btris := cube() // [−1, 1]³
	for i := range bpos {
		bpos[i] = bpos[i].Scale(0.2).Add(v(0.5, 0.5, -0.5)) // [0.3, 0.7]² × [−0.7, −0.3]
	}
	c := NewChecker([]Surface{{bpos, btris}}, []Plane{{Point: v(0, 0, -2), Normal: v(0, 0, 1)}})
	pos, tris := crumpled(t, 20, 0.3, 9) // z within ±0.015
	if r := c.Check(pos, tris, true); !r.OK() {
		t.Fatalf("clear sheet: %v", r)
	}
	pos[220] = v(pos[220].X, pos[220].Y, -0.5)
	r := c.Check(pos, tris, true)
	if r.Inside != 1 || r.ObstaclePairs == 0 || r.NonFinite != 0 {
		t.Errorf("vertex in the box: %v", r)
	}
	if r.SelfPairs != 0 {
		t.Errorf("a spike is not a self-intersection: %v", r)
	}
	pos[3] = v(pos[3].X, pos[3].Y, -2.5)
	if r := c.Check(pos, tris, false); r.Inside != 2 {
		t.Errorf("vertex below the ground: %v", r)
	}
	pos[4].X = math.Inf(1)
	if r := c.Check(pos, tris, false); r.NonFinite != 1 {
		t.Errorf("infinite vertex: %v", r)
	}
}

// BenchmarkSelfIntersections runs on a 20000-triangle sheet (100×100
// quads), flat-ish and crumpled (the scene tests call it every few
// steps; it must take well under a second).
func BenchmarkSelfIntersections(b *testing.B) {
	for _, amp := range []float64{0.2, 2} {
		pos, tris := crumpled(b, 100, amp, 1)
		b.Run("tris=20000/amp="+map[float64]string{0.2: "0.2", 2: "2"}[amp], func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; i < b.N; i++ {
				n = len(SelfIntersections(pos, tris))
			}
			b.ReportMetric(float64(n), "pairs")
			b.ReportMetric(float64(len(tris)), "tris")
		})
	}
	// Exactly flat: every candidate pair is coplanar and goes to the
	// exact stages.
	m, _ := geom.RegularGrid(1, 1, 100, 100)
	b.Run("tris=20000/flat", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			SelfIntersections(m.Pos, m.Tris)
		}
	})
}

// BenchmarkChecker checks a 20000-triangle 2 m sheet draped 2 mm over the
// 0.5 m sphere obstacle (20480 triangles) and the ground: wrapped around
// the sphere by arc length from the top down to the equator, then hanging
// as a vertical skirt. It has no problems, so every test runs to the end.
func BenchmarkChecker(b *testing.B) {
	ball, err := obstacle.Spec{Kind: "sphere", Radius: 0.5}.Build("")
	if err != nil {
		b.Fatal(err)
	}
	m, _ := geom.RegularGrid(2, 2, 100, 100)
	pos := make([]V, len(m.Pos))
	const R = 0.502
	for i, p := range m.Pos {
		x, z := p.X-1, p.Y-1
		r := math.Hypot(x, z)
		if r == 0 {
			pos[i] = v(0, R, 0)
			continue
		}
		if th := r / R; th <= math.Pi/2 {
			pos[i] = v(R*math.Sin(th)*x/r, R*math.Cos(th), R*math.Sin(th)*z/r)
		} else {
			pos[i] = v(R*x/r, -(r - R*math.Pi/2), R*z/r)
		}
	}
	c := NewChecker([]Surface{{ball.Vertices(0, nil), ball.Tris()}}, []Plane{{Point: v(0, -1, 0), Normal: v(0, 1, 0)}})
	b.ReportAllocs()
	var r Report
	for i := 0; i < b.N; i++ {
		r = c.Check(pos, m.Tris, true)
	}
	if !r.OK() {
		b.Fatal(r)
	}
	b.ReportMetric(float64(len(m.Tris)), "tris")
}
