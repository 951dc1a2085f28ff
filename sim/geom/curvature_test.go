package geom

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const meshDir = "../../../shared/testdata/meshes"

// readOBJForTest is a minimal test-only reader of OBJ "v" and "f" lines
// (positions only; "f a/b/c" keeps a; 1-based indices).
func readOBJForTest(t testing.TB, name string) ([]Vec3, [][3]int32) {
	t.Helper()
	fh, err := os.Open(filepath.Join(meshDir, name))
	if err != nil {
		t.Skipf("reference mesh not available: %v", err)
	}
	defer fh.Close()
	var pos []Vec3
	var tris [][3]int32
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "v":
			var c [3]float64
			for i := range 3 {
				c[i], err = strconv.ParseFloat(fs[1+i], 64)
				if err != nil {
					t.Fatal(err)
				}
			}
			pos = append(pos, Vec3{c[0], c[1], c[2]})
		case "f":
			if len(fs) != 4 {
				t.Fatalf("%s: non-triangle face %q", name, sc.Text())
			}
			var f [3]int32
			for i := range 3 {
				n, err := strconv.Atoi(strings.SplitN(fs[1+i], "/", 2)[0])
				if err != nil {
					t.Fatal(err)
				}
				f[i] = int32(n - 1)
			}
			tris = append(tris, f)
		}
	}
	return pos, tris
}

// meshFromWorld builds a Mesh from world positions only, bypassing NewMesh's
// material-space checks (closed meshes have no planar rest state): Rest is
// left zero. It fails the test if the faces are not an oriented manifold.
func meshFromWorld(t testing.TB, pos []Vec3, tris [][3]int32) *Mesh {
	t.Helper()
	m, err := NewSurfaceMesh(pos, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// orientOutward flips every face if the signed volume is negative.
func orientOutward(m *Mesh) {
	var vol float64
	for _, t := range m.Tris {
		vol += m.Pos[t[0]].Dot(m.Pos[t[1]].Cross(m.Pos[t[2]]))
	}
	if vol < 0 {
		for f := range m.Tris {
			m.Tris[f][1], m.Tris[f][2] = m.Tris[f][2], m.Tris[f][1]
		}
		if err := m.buildAdjacency(); err != nil {
			panic(err)
		}
	}
}

func TestMeanCurvatureReference(t *testing.T) {
	// Sphere: every vertex within 2 % of 1/R = 1.
	pos, tris := readOBJForTest(t, "sphere.obj")
	m := meshFromWorld(t, pos, tris)
	orientOutward(m)
	h := make([]float64, len(m.Pos))
	MeanCurvature(m, h)
	maxErr := 0.0
	for i, p := range m.Pos {
		r := p.Norm()
		maxErr = math.Max(maxErr, math.Abs(h[i]*r-1))
	}
	t.Logf("sphere.obj: max |H·R−1| = %.4f", maxErr)
	if maxErr > 0.02 {
		t.Errorf("sphere: max relative error got=%v, want ≤ 0.02", maxErr)
	}

	// Cylinder side (radius 1): H = ½ at vertices away from the rims.
	pos, tris = readOBJForTest(t, "cylinder.obj")
	m = meshFromWorld(t, pos, tris)
	orientOutward(m)
	h = make([]float64, len(m.Pos))
	MeanCurvature(m, h)
	maxErr, n := 0.0, 0
	for i, p := range m.Pos {
		rho := math.Hypot(p.X, p.Z)
		if math.Abs(rho-1) > 1e-3 || math.Abs(p.Y) > 0.5-1e-3 {
			continue // caps and rims
		}
		if d := rimDistance(m, int32(i)); d < 2 {
			continue // one ring away from the rim still sees the rim crease
		}
		n++
		maxErr = math.Max(maxErr, math.Abs(h[i]/0.5-1))
	}
	t.Logf("cylinder.obj: %d side vertices, max |H/0.5−1| = %.4f", n, maxErr)
	if n == 0 || maxErr > 0.02 {
		t.Errorf("cylinder side: %d vertices, max relative error got=%v, want ≤ 0.02", n, maxErr)
	}
	// Cap interiors are flat: H = 0.
	for i, p := range m.Pos {
		if math.Abs(math.Abs(p.Y)-0.5) < 1e-9 && math.Hypot(p.X, p.Z) < 0.999 && rimDistance(m, int32(i)) >= 2 {
			if math.Abs(h[i]) > 1e-9 {
				t.Errorf("cylinder cap vertex %d: H got=%v, want 0", i, h[i])
			}
		}
	}

	// Torus R = 1, r = 0.5: H = (R + 2r cos v)/(2r(R + r cos v)).
	pos, tris = readOBJForTest(t, "torus.obj")
	m = meshFromWorld(t, pos, tris)
	orientOutward(m)
	h = make([]float64, len(m.Pos))
	MeanCurvature(m, h)
	var sq, maxAbs float64
	for i, p := range m.Pos {
		rho := math.Hypot(p.X, p.Z)
		cv := (rho - 1) / 0.5
		want := (1 + 2*0.5*cv) / (2 * 0.5 * (1 + 0.5*cv))
		// Relative to the curvature scale 1/r = 2 so that the zero
		// crossing of H (cos v = −½) does not blow up the ratio.
		e := (h[i] - want) / 2
		sq += e * e
		maxAbs = math.Max(maxAbs, math.Abs(e))
	}
	rms := math.Sqrt(sq / float64(len(m.Pos)))
	t.Logf("torus.obj: RMS |H−H_exact|·r = %.4f, max %.4f", rms, maxAbs)
	if rms > 0.02 || maxAbs > 0.05 {
		t.Errorf("torus: RMS error got=%v (max %v), want ≤ 0.02 (max ≤ 0.05)", rms, maxAbs)
	}

	// Plane (open sheet): exactly zero, boundary included.
	pos, tris = readOBJForTest(t, "plane_50x50.obj")
	m = meshFromWorld(t, pos, tris)
	h = make([]float64, len(m.Pos))
	MeanCurvature(m, h)
	for i := range h {
		if math.Abs(h[i]) >= 1e-12 {
			t.Fatalf("plane vertex %d: H got=%v, want |H| < 1e-12", i, h[i])
		}
	}
}

// rimDistance returns the number of edges from vertex v to the nearest
// vertex on the cylinder rims (|y| = 0.5, radius 1), capped at 3.
func rimDistance(m *Mesh, v int32) int {
	onRim := func(i int32) bool {
		p := m.Pos[i]
		return math.Abs(math.Abs(p.Y)-0.5) < 1e-6 && math.Abs(math.Hypot(p.X, p.Z)-1) < 1e-3
	}
	frontier := []int32{v}
	seen := map[int32]bool{v: true}
	for d := 0; d < 3; d++ {
		var next []int32
		for _, u := range frontier {
			if onRim(u) {
				return d
			}
			for f, tr := range m.Tris {
				_ = f
				for k := range 3 {
					if tr[k] == u {
						for _, w := range []int32{tr[(k+1)%3], tr[(k+2)%3]} {
							if !seen[w] {
								seen[w] = true
								next = append(next, w)
							}
						}
					}
				}
			}
		}
		frontier = next
	}
	return 3
}

func TestMeanCurvatureConvergesOnIcosphere(t *testing.T) {
	// Level 1 is so symmetric that the operator is exact there (error
	// ~1e-16), so the sequence starts at level 2, the first with vertices
	// of valence 5 and 6 in irregular arrangement.
	prev := math.Inf(1)
	for s := 2; s <= 5; s++ {
		pos, tris := Icosphere(s)
		const R = 2.5
		for i := range pos {
			pos[i] = pos[i].Scale(R)
		}
		m := meshFromWorld(t, pos, tris)
		h := make([]float64, len(pos))
		MeanCurvature(m, h)
		e := 0.0
		for i := range h {
			e = math.Max(e, math.Abs(h[i]*R-1))
		}
		t.Logf("icosphere %d (%d faces): max |H·R−1| = %.2e", s, len(tris), e)
		if !(e < prev) {
			t.Errorf("subdivision %d: max error got=%v, want < %v (previous level)", s, e, prev)
		}
		prev = e
	}
	if prev > 0.02 {
		t.Errorf("finest icosphere: max error got=%v, want ≤ 0.02", prev)
	}
}

// openCylinder returns an open cylindrical sheet of radius r: nu columns
// around (not closing), nv rows along y, alternating diagonals.
func openCylinder(r float64, nu, nv int, arc float64) ([]Vec3, [][3]int32) {
	var pos []Vec3
	for j := 0; j <= nv; j++ {
		for i := 0; i <= nu; i++ {
			a := arc * float64(i) / float64(nu)
			pos = append(pos, Vec3{r * math.Cos(a), float64(j) / float64(nv), -r * math.Sin(a)})
		}
	}
	id := func(i, j int) int32 { return int32(j*(nu+1) + i) }
	var tris [][3]int32
	for j := 0; j < nv; j++ {
		for i := 0; i < nu; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			if (i+j)%2 == 0 {
				tris = append(tris, [3]int32{a, b, c}, [3]int32{a, c, d})
			} else {
				tris = append(tris, [3]int32{a, b, d}, [3]int32{b, c, d})
			}
		}
	}
	return pos, tris
}

func TestMeanCurvatureBoundary(t *testing.T) {
	// Half a cylinder of radius 0.5 (H = 1): no spike at the boundary.
	pos, tris := openCylinder(0.5, 24, 12, math.Pi)
	m := meshFromWorld(t, pos, tris)
	h := make([]float64, len(pos))
	MeanCurvature(m, h)
	var nrm []Vec3 = make([]Vec3, len(pos))
	VertexNormals(m, nrm)
	sign := 1.0
	if nrm[len(pos)/2].Dot(Vec3{pos[len(pos)/2].X, 0, pos[len(pos)/2].Z}) < 0 {
		sign = -1 // normals point inwards: H is negative by convention
	}
	var maxB, maxI float64
	for i := range h {
		e := math.Abs(sign*h[i] - 1)
		if m.isBoundaryVertexForTest(int32(i)) {
			maxB = math.Max(maxB, e)
		} else {
			maxI = math.Max(maxI, e)
		}
	}
	t.Logf("open half-cylinder: max rel. error interior %.3f, boundary %.3f", maxI, maxB)
	if maxI > 0.05 || maxB > 0.25 {
		t.Errorf("open cylinder: max rel. error interior got=%v (want ≤ 0.05), boundary got=%v (want ≤ 0.25)", maxI, maxB)
	}
	// The same sheet flattened: H = 0 everywhere, boundary included.
	pos, tris = openCylinder(0.5, 24, 12, 0)
	for i := range pos {
		pos[i] = Vec3{float64(i%25) * 0.03, pos[i].Y, 0}
	}
	m = meshFromWorld(t, pos, tris)
	MeanCurvature(m, h)
	for i := range h {
		if h[i] != 0 {
			t.Fatalf("flat sheet vertex %d: H got=%v, want 0", i, h[i])
		}
	}
}

func (m *Mesh) isBoundaryVertexForTest(v int32) bool {
	for f, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		for k := range 3 {
			if m.Adj[f][k] < 0 && (t[k] == v || t[(k+1)%3] == v) {
				return true
			}
		}
	}
	return false
}

func TestVertexNormalsSphere(t *testing.T) {
	pos, tris := Icosphere(2)
	m := meshFromWorld(t, pos, tris)
	n := make([]Vec3, len(pos))
	VertexNormals(m, n)
	for i := range n {
		if d := n[i].Dot(pos[i]); d < 0.999 {
			t.Errorf("vertex %d: n·x̂ got=%v, want ≥ 0.999", i, d)
		}
	}
}

func BenchmarkMeanCurvature(b *testing.B) {
	pos, tris := Icosphere(5)
	m := meshFromWorld(b, pos, tris)
	h := make([]float64, len(pos))
	var w CurvatureWorkspace
	b.Run("tris="+strconv.Itoa(len(tris)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.MeanCurvature(m, h)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pos)), "ns/vertex")
	})
}
