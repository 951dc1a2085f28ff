package geom

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"testing"
)

// minAngle returns the smallest interior angle over all faces, in degrees.
func genMinAngle(m *Mesh) float64 {
	least := 180.0
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for k := 0; k < 3; k++ {
			a, b, c := m.Rest[t[k]], m.Rest[t[(k+1)%3]], m.Rest[t[(k+2)%3]]
			u, v := b.Sub(a), c.Sub(a)
			ang := math.Atan2(math.Abs(u.Cross(v)), u.X*v.X+u.Y*v.Y) * 180 / math.Pi
			least = math.Min(least, ang)
		}
	}
	return least
}

func TestRegularGrid(t *testing.T) {
	for _, c := range []struct {
		w, h   float64
		nx, ny int
	}{
		{1, 1, 1, 1},
		{1, 1, 30, 30},
		{2.46, 1.8, 123, 90},
		{0.3, 7, 3, 17},
	} {
		m, err := RegularGrid(c.w, c.h, c.nx, c.ny)
		if err != nil {
			t.Fatalf("RegularGrid(%v, %v, %d, %d): %v", c.w, c.h, c.nx, c.ny, err)
		}
		if got, want := m.NumTris(), 2*c.nx*c.ny; got != want {
			t.Errorf("%v: triangles got=%v, want=%v", c, got, want)
		}
		if got, want := m.NumVerts(), (c.nx+1)*(c.ny+1); got != want {
			t.Errorf("%v: vertices got=%v, want=%v", c, got, want)
		}
		total, least := m.RestAreas()
		if got, want := total, c.w*c.h; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%v: area got=%v, want=%v", c, got, want)
		}
		if !(least > 0) {
			t.Errorf("%v: smallest signed area got=%v, want > 0 (CCW)", c, least)
		}
		lo, hi := m.Bounds()
		if got, want := hi.Sub(lo), (Vec3{c.w, c.h, 0}); got != want {
			t.Errorf("%v: extent got=%v, want=%v", c, got, want)
		}
	}
}

func TestRegularGridAlternatesDiagonals(t *testing.T) {
	m, err := RegularGrid(2, 1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Quad 0 is cut 0–4 (lower-left to upper-right), quad 1 is cut 2–4.
	hasEdge := func(a, b int32) bool {
		for _, t := range m.Tris {
			for k := 0; k < 3; k++ {
				if (t[k] == a && t[(k+1)%3] == b) || (t[k] == b && t[(k+1)%3] == a) {
					return true
				}
			}
		}
		return false
	}
	for _, c := range []struct {
		a, b int32
		want bool
	}{{0, 4, true}, {1, 3, false}, {2, 4, true}, {1, 5, false}} {
		if got := hasEdge(c.a, c.b); got != c.want {
			t.Errorf("edge %d–%d got=%v, want=%v", c.a, c.b, got, c.want)
		}
	}
}

func TestGridErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   func() (*Mesh, error)
	}{
		{"zero width", func() (*Mesh, error) { return RegularGrid(0, 1, 2, 2) }},
		{"negative height", func() (*Mesh, error) { return RegularGrid(1, -1, 2, 2) }},
		{"NaN width", func() (*Mesh, error) { return RegularGrid(math.NaN(), 1, 2, 2) }},
		{"Inf height", func() (*Mesh, error) { return RegularGrid(1, math.Inf(1), 2, 2) }},
		{"nx=0", func() (*Mesh, error) { return RegularGrid(1, 1, 0, 2) }},
		{"too many", func() (*Mesh, error) { return RegularGrid(1, 1, 2000, 2000) }},
		{"overflow", func() (*Mesh, error) { return RegularGrid(1, 1, math.MaxInt, math.MaxInt) }},
		{"irregular n=1", func() (*Mesh, error) { return IrregularGrid(1, 1, 1, 0) }},
		{"irregular too many", func() (*Mesh, error) { return IrregularGrid(1, 1, MaxTriangles+1, 0) }},
		{"irregular zero width", func() (*Mesh, error) { return IrregularGrid(0, 1, 100, 0) }},
		{"irregular elongated", func() (*Mesh, error) { return IrregularGrid(1e300, 1e-300, 2, 0) }},
	} {
		m, err := c.fn()
		if err == nil || m != nil {
			t.Errorf("%s: got mesh=%v err=%v, want an error", c.name, m != nil, err)
		}
	}
}

func TestIrregularGrid(t *testing.T) {
	for _, c := range []struct {
		w, h float64
		n    int
		seed int64
	}{
		{1, 1, 2000, 1},
		{1, 1, 2000, 2},
		{2.46, 1.8, 500, 7},
		{1, 0.05, 40, 3},
		{1, 1, 2, 0},
		{5, 1, 10, 4},
	} {
		m, err := IrregularGrid(c.w, c.h, c.n, c.seed)
		if err != nil {
			t.Fatalf("IrregularGrid(%v): %v", c, err)
		}
		if got := m.NumTris(); float64(got) < 0.5*float64(c.n) || float64(got) > 2*float64(c.n)+8 {
			t.Errorf("%v: triangles got=%v, want about %v", c, got, c.n)
		}
		total, least := m.RestAreas()
		if got, want := total, c.w*c.h; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%v: area got=%v, want=%v", c, got, want)
		}
		if !(least > 0) {
			t.Errorf("%v: smallest signed area got=%v, want > 0", c, least)
		}
		// Empty circumcircles: no vertex strictly inside any face's circle.
		for f, tr := range m.Tris {
			a, b, cc := m.Rest[tr[0]], m.Rest[tr[1]], m.Rest[tr[2]]
			s := b.Sub(a).Norm2() + cc.Sub(a).Norm2()
			for v, p := range m.Rest {
				if int32(v) == tr[0] || int32(v) == tr[1] || int32(v) == tr[2] {
					continue
				}
				if ic := inCircle(a, b, cc, p); ic > 1e-9*s*s {
					t.Fatalf("%v: vertex %d inside circumcircle of face %d (incircle %g)", c, v, f, ic)
				}
			}
		}
		if c.n >= 40 {
			if got := genMinAngle(m); got < 20 {
				t.Errorf("%v: min angle got=%v°, want ≥ 20°", c, got)
			}
		}
	}
}

func TestIrregularGridDeterministic(t *testing.T) {
	a, err := IrregularGrid(1, 1, 300, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := IrregularGrid(1, 1, 300, 5)
	c, _ := IrregularGrid(1, 1, 300, 6)
	same := func(x, y *Mesh) bool {
		if len(x.Rest) != len(y.Rest) || len(x.Tris) != len(y.Tris) {
			return false
		}
		for i := range x.Rest {
			if x.Rest[i] != y.Rest[i] {
				return false
			}
		}
		for i := range x.Tris {
			if x.Tris[i] != y.Tris[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Errorf("same seed: meshes differ")
	}
	if same(a, c) {
		t.Errorf("different seeds: meshes are identical")
	}
}

func TestIrregularMinAngle(t *testing.T) {
	m, err := IrregularGrid(1, 1, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("IrregularGrid(1, 1, 2000, 1): %d triangles, %d vertices, min angle %.1f°", m.NumTris(), m.NumVerts(), genMinAngle(m))
}

// TestIrregularGridHash pins the exact output, so that a change of the
// generator (or of math/rand/v2's PCG) that would silently alter every
// irregular scene shows up here. Update the constant deliberately.
func TestIrregularGridHash(t *testing.T) {
	m, err := IrregularGrid(1, 1, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	for _, r := range m.Rest {
		binary.Write(h, binary.LittleEndian, [2]float64{r.X, r.Y})
	}
	for _, tr := range m.Tris {
		binary.Write(h, binary.LittleEndian, tr)
	}
	if got, want := h.Sum64(), uint64(0x933c4f6ec423f655); got != want {
		t.Errorf("hash got=%#x, want=%#x", got, want)
	}
}

func ExampleRegularGrid() {
	m, err := RegularGrid(2.46, 1.8, 123, 90)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.NumVerts(), "vertices,", m.NumTris(), "triangles")
	// Output: 11284 vertices, 22140 triangles
}
