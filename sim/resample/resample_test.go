package resample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"drape/sim/adapt"
	"drape/sim/geom"
)

// affine is the map u ↦ M·u + t from material to world space, which a
// piecewise-linear surface reproduces exactly whatever its faces.
func affine(u geom.Vec2) geom.Vec3 {
	return geom.Vec3{X: 0.3 + 0.9*u.X - 0.2*u.Y, Y: 1.1 - 0.4*u.X + 0.7*u.Y, Z: -0.5 + 0.25*u.X + 0.6*u.Y}
}

// wavy is a curved placement, which only the faces' own planes follow.
func wavy(u geom.Vec2) geom.Vec3 {
	return geom.Vec3{X: u.X, Y: 0.2 * math.Sin(3*u.X) * math.Cos(2*u.Y), Z: -u.Y}
}

// adaptedMesh returns the curtain's staggered base mesh (2.46 m × 1.8 m,
// 820 faces) placed by place, refined where rng picks, up to g_max = 6,
// with the Adapter, so that its faces span four generations.
func adaptedMesh(t testing.TB, place func(geom.Vec2) geom.Vec3, seed uint64) (*geom.Mesh, *adapt.Adapter) {
	t.Helper()
	m, err := geom.StaggeredGrid(2.46, 1.8, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapt.NewAdapter(m, 6)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for round := 0; round < 6; round++ {
		for f := range m.Tris {
			if m.FaceAlive(f) && rng.IntN(4) == 0 {
				a.Refine(int32(f))
			}
		}
	}
	place2(m, place)
	return m, a
}

// place2 sets every live vertex's position to place(Rest).
func place2(m *geom.Mesh, place func(geom.Vec2) geom.Vec3) {
	for v, alive := range m.VertAlive {
		if alive {
			m.Pos[v] = place(m.Rest[v])
		}
	}
}

// randomPoints returns n material points in the 2.46 m × 1.8 m sheet,
// its four corners and points on its edges.
func randomPoints(n int, seed uint64) []geom.Vec2 {
	rng := rand.New(rand.NewPCG(seed, 2))
	pts := []geom.Vec2{{X: 0, Y: 0}, {X: 2.46, Y: 0}, {X: 2.46, Y: 1.8}, {X: 0, Y: 1.8}, {X: 1.1, Y: 0}, {X: 2.46, Y: 0.77}, {X: 0, Y: 1.3}, {X: 0.5, Y: 1.8}}
	for len(pts) < n {
		pts = append(pts, geom.Vec2{X: 2.46 * rng.Float64(), Y: 1.8 * rng.Float64()})
	}
	return pts
}

// TestPositionsAffine: on a sheet placed by an affine map, every sample is
// that map at its material point to round-off, on meshes of mixed
// generations, and after the topology changes under the same Sampler
// (its hints then point at freed or reused faces).
func TestPositionsAffine(t *testing.T) {
	pts := randomPoints(2000, 1)
	s := New(pts, 1e-9)
	out := make([]geom.Vec3, len(pts))
	m, a := adaptedMesh(t, affine, 1)
	for _, step := range []struct {
		name   string
		change func()
	}{
		{"adapted", func() {}},
		{"coarsened", func() {
			for f := range m.Tris {
				if m.FaceAlive(f) && f%3 == 0 {
					a.Coarsen(int32(f))
				}
			}
		}},
		{"refined", func() {
			for f := range m.Tris {
				if m.FaceAlive(f) && f%5 == 0 {
					a.Refine(int32(f))
				}
			}
		}},
	} {
		step.change()
		place2(m, affine)
		if err := s.Positions(m, out); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		worst := 0.0
		for k, p := range pts {
			worst = math.Max(worst, out[k].Sub(affine(p)).Norm())
		}
		if !(worst <= 1e-14) {
			t.Errorf("%s (%d faces): largest distance to the affine map got=%g m, want ≤ 1e-14", step.name, m.NumTris(), worst)
		}
	}
}

// TestPositionsOnSurface: on a curved sheet every sample lies on the mesh's
// surface to round-off, by an independent point-to-triangle distance
// (geom.SurfaceGrid), and a sample at a vertex's material point is that
// vertex's position bit for bit.
func TestPositionsOnSurface(t *testing.T) {
	m, _ := adaptedMesh(t, wavy, 2)
	pts := randomPoints(2000, 2)
	var verts []int32
	for v, alive := range m.VertAlive {
		if alive {
			pts = append(pts, m.Rest[v])
			verts = append(verts, int32(v))
		}
	}
	out := make([]geom.Vec3, len(pts))
	if err := New(pts, 1e-9).Positions(m, out); err != nil {
		t.Fatal(err)
	}
	g := geom.NewSurfaceGrid(m)
	worst := 0.0
	for _, p := range out {
		worst = math.Max(worst, g.Distance(p))
	}
	if !(worst <= 1e-14) {
		t.Errorf("largest distance to the surface got=%g m, want ≤ 1e-14", worst)
	}
	first := len(pts) - len(verts)
	for k, v := range verts {
		if got := out[first+k]; got != m.Pos[v] {
			t.Errorf("vertex %d: got=%v, want=%v exactly", v, got, m.Pos[v])
		}
	}
}

// TestPositionsSharedVertices: the uniform g_max mesh sampled on an
// adaptive mesh of the same base gets the adaptive mesh's positions
// exactly wherever the two share a vertex (the same material point, made
// by the same operations), and on a uniform mesh of its own generation it
// gets every position exactly.
func TestPositionsSharedVertices(t *testing.T) {
	fine, err := geom.StaggeredGrid(2.46, 1.8, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	fa, _ := adapt.NewAdapter(fine, 6)
	if err := fa.RefineUniform(4); err != nil {
		t.Fatal(err)
	}
	var pts []geom.Vec2
	for v, alive := range fine.VertAlive {
		if alive {
			pts = append(pts, fine.Rest[v])
		}
	}
	for _, c := range []struct {
		name    string
		mesh    func() *geom.Mesh
		atLeast int // shared vertices, at least
	}{
		{"adaptive", func() *geom.Mesh { m, _ := adaptedMesh(t, wavy, 3); return m }, 1000},
		{"uniform g=4", func() *geom.Mesh {
			m, _ := geom.StaggeredGrid(2.46, 1.8, 20, 20)
			a, _ := adapt.NewAdapter(m, 6)
			a.RefineUniform(4)
			place2(m, wavy)
			return m
		}, len(pts)},
	} {
		m := c.mesh()
		at := map[geom.Vec2]geom.Vec3{}
		for v, alive := range m.VertAlive {
			if alive {
				at[m.Rest[v]] = m.Pos[v]
			}
		}
		out := make([]geom.Vec3, len(pts))
		if err := New(pts, 1e-9).Positions(m, out); err != nil {
			t.Fatal(err)
		}
		shared := 0
		for k, p := range pts {
			if want, ok := at[p]; ok {
				shared++
				if out[k] != want {
					t.Errorf("%s: point %d %v: got=%v, want=%v exactly", c.name, k, p, out[k], want)
				}
			}
		}
		if shared < c.atLeast {
			t.Errorf("%s: shared vertices got=%d, want at least %d", c.name, shared, c.atLeast)
		}
	}
}

// TestPositionsOutside: a point just outside the sheet takes the nearest
// point of its edge; one further out than the tolerance is an error that
// names it.
func TestPositionsOutside(t *testing.T) {
	m, _ := adaptedMesh(t, affine, 4)
	const tol = 1e-3
	for _, c := range []struct {
		p    geom.Vec2
		want geom.Vec2 // the edge point it takes
		err  string
	}{
		{geom.Vec2{X: -0.5e-3, Y: 0.9}, geom.Vec2{X: 0, Y: 0.9}, ""},
		{geom.Vec2{X: 1.2, Y: 1.8 + 0.9e-3}, geom.Vec2{X: 1.2, Y: 1.8}, ""},
		{geom.Vec2{X: 2.46 + 0.5e-3, Y: -0.5e-3}, geom.Vec2{X: 2.46, Y: 0}, ""},
		{geom.Vec2{X: -2e-3, Y: 0.9}, geom.Vec2{}, "material point 0 (-0.002, 0.9): lies 0.002 m outside the cloth (tolerance 0.001 m)"},
		{geom.Vec2{X: 9, Y: 9}, geom.Vec2{}, "material point 0 (9, 9): lies 9.73 m outside the cloth"},
	} {
		out := make([]geom.Vec3, 1)
		err := New([]geom.Vec2{c.p}, tol).Positions(m, out)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: got err=%v, want %q", c.p, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.p, err)
			continue
		}
		if d := out[0].Sub(affine(c.want)).Norm(); !(d <= 1e-12) {
			t.Errorf("%v: got=%v, want=%v (the edge point %v)", c.p, out[0], affine(c.want), c.want)
		}
	}
}

// BenchmarkPositions samples the 11191 material points of the curtain's
// uniform g_max = 6 mesh on an adapted mesh: cold (every hint misses: the
// grid is built and every point located in it) and warm (every hint holds,
// as between two cache frames of a run whose mesh did not change).
func BenchmarkPositions(b *testing.B) {
	fine, _ := geom.StaggeredGrid(2.46, 1.8, 20, 20)
	fa, _ := adapt.NewAdapter(fine, 6)
	fa.RefineUniform(6)
	var pts []geom.Vec2
	for v, alive := range fine.VertAlive {
		if alive {
			pts = append(pts, fine.Rest[v])
		}
	}
	m, _ := adaptedMesh(b, wavy, 5)
	out := make([]geom.Vec3, len(pts))
	for _, warm := range []bool{false, true} {
		b.Run(fmt.Sprintf("points=%d/faces=%d/warm=%v", len(pts), m.NumTris(), warm), func(b *testing.B) {
			s := New(pts, 1e-9)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if !warm {
					for k := range s.hint {
						s.hint[k] = -1
					}
				}
				if err := s.Positions(m, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pts)), "ns/point")
		})
	}
}
