package springs

import (
	"fmt"
	"math"
	"testing"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// springSag returns the static sag (m) of the bottom-middle particle of a
// vertical 1 m sheet of 5×5 base particles clamped along its top edge, run
// uniformly subdivided to layer level (so (4·2^l+1)² particles) through the
// model's own multirate step, after 1.5 s with heavy damping.
func springSag(t *testing.T, level int, k, layerExp float64) float64 {
	p := DefaultParams()
	p.KStructural, p.KShear, p.KBend = k, 0, 0
	p.LayerExp = layerExp
	p.Correction = 0
	p.Damping = 20
	p.Dt = 5e-4
	p.MaxLayer = level
	s := Spec{NX: 5, NY: 5, Origin: geom.Vec3{X: -0.5, Y: 1}, U: geom.Vec3{X: 1}, V: geom.Vec3{Y: -1}, Variant: UniformSubdivision}
	for i := range 5 {
		s.Fixed = append(s.Fixed, [2]int{i, 0})
	}
	c, err := New(s, p)
	if err != nil {
		t.Fatal(err)
	}
	// the subdivided top row must be fixed too
	for id := range c.pos {
		if c.gj[id] == 0 && c.typ[id] == Active {
			if err := c.Pin(id, c.pos[id]); err != nil {
				t.Fatal(err)
			}
		}
	}
	mid := c.at(int32(c.w/2), int32(c.h-1))
	for c.Time() < 1.5 {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	return c.rest[mid].Y - c.pos[mid].Y
}

// femSag is the same measurement for the FEM cloth (package cloth) on a
// regular n×n-quad mesh with E_y = k and ν = 0, mean over the bottom row.
func femSag(t *testing.T, n int, E float64) float64 {
	m, err := geom.RegularGrid(1, 1, n, n)
	if err != nil {
		t.Fatal(err)
	}
	p := cloth.DefaultParams()
	p.YoungX, p.YoungY, p.Shear = E, E, E
	p.PoissXY, p.PoissYX = 0, 0
	p.Bending = 0
	p.Dt = 0.02
	p.DampMass = 20
	p.Tolerance = 1e-9
	p.MaxIter = 5000
	s, err := cloth.New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range m.Rest {
		if r.Y > 1-1e-12 {
			s.Pin(int32(i), m.Pos[i])
		}
	}
	for k := 0; k < 500; k++ {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if k > 5 && s.MaxSpeed() < 1e-9 {
			break
		}
	}
	var sag float64
	for i := 0; i <= n; i++ {
		sag -= m.Pos[i].Y
	}
	return sag / float64(n+1)
}

// TestConvergenceSag is the paper-against-paper measurement of issue 15:
// the static sag of a 1 m sheet (ρ = 0.1 kg/m²) hanging from its top edge,
// under uniform refinement l = 0…3, for the spring cloth with structural
// springs only (k = 1000 N/m; no shear or bend springs, so with lateral
// springs that do not resist vertical stretch it is a set of hanging chains
// and the continuum answer is known) and for the FEM cloth with E = 1000 N/m,
// ν = 0 (plane stress: a bar under its own weight). Both have the exact sag
// ρ·g·L²/(2·E) = 0.4905 mm.
//
// What it asserts:
//   - springs with k unchanged by layer (LayerExp = 0): every level within
//     1 % of the exact sag (the lumped chain is exact: spring j from the
//     bottom carries ρh²g(j−½), Σ = ρgL²/(2k));
//   - springs with the paper's ×2^l (LayerExp = 1): the sag halves at every
//     level (ratio 0.5 ± 0.02): the model converges, but to an inextensible
//     sheet, the wrong answer, because ×2^l is the scaling of a 1D chain, not
//     of a 2D lattice, whose sheet stiffness does not depend on h;
//   - FEM: the error shrinks at every level.
func TestConvergenceSag(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s")
	}
	const k = 1000.0
	exact := 0.1 * 9.81 / (2 * k)
	var s0, s1, fem []float64
	for l := range 4 {
		s0 = append(s0, springSag(t, l, k, 0))
		s1 = append(s1, springSag(t, l, k, 1))
		fem = append(fem, femSag(t, 4<<l, k))
	}
	t.Logf("exact sag ρgL²/(2E) = %.4f mm", 1e3*exact)
	t.Logf("| level | particles | springs k (mm) | springs k·2^l (mm) | FEM quads | FEM (mm) |")
	for l := range 4 {
		n := 4<<l + 1
		t.Logf("| %d | %d×%d | %.4f | %.4f | %d×%d | %.4f |", l, n, n, 1e3*s0[l], 1e3*s1[l], n-1, n-1, 1e3*fem[l])
	}
	for l := range 4 {
		if e := math.Abs(s0[l]-exact) / exact; e > 0.01 {
			t.Errorf("level %d, k constant: sag %.4g m, %.2g%% off the exact %.4g", l, s0[l], 100*e, exact)
		}
		if l > 0 {
			if r := s1[l] / s1[l-1]; math.Abs(r-0.5) > 0.02 {
				t.Errorf("level %d, k·2^l: sag ratio %.3f, want 0.5", l, r)
			}
			if !(math.Abs(fem[l]-exact) < math.Abs(fem[l-1]-exact)) {
				t.Errorf("FEM: error does not shrink: %v", fem)
			}
		}
	}
	_ = fmt.Sprint
}

// cornerSag is the sag (m) of the bottom-middle particle of the vertical 1 m
// sheet of 5×5 base particles hanging from its two top corners, uniformly
// subdivided to layer level, with the default springs (structural, shear and
// bend), Provot's correction off, after 3 s with damping 10 1/s.
func cornerSag(t *testing.T, level int, layerExp float64) float64 {
	p := DefaultParams()
	p.LayerExp = layerExp
	p.Correction = 0
	p.Damping = 10
	p.Dt = 5e-4
	p.MaxLayer = level
	s := Spec{NX: 5, NY: 5, Origin: geom.Vec3{X: -0.5, Y: 1}, U: geom.Vec3{X: 1}, V: geom.Vec3{Y: -1}, Fixed: [][2]int{{0, 0}, {4, 0}}, Variant: UniformSubdivision}
	c, err := New(s, p)
	if err != nil {
		t.Fatal(err)
	}
	mid := c.at(int32(c.w/2), int32(c.h-1))
	for c.Time() < 3 {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	return c.rest[mid].Y - c.pos[mid].Y
}

// TestConvergenceCorners records the sag of the sheet hanging from two
// corners with the default material (k = 50, 10, 2 N/m), levels 0…3, for
// the paper's ×2^l and for k unchanged. A sheet held at two points is not a
// convergent benchmark for any discretisation: the displacement under a
// point load in a 2D membrane grows like log(1/h), and with k unchanged the
// sag indeed grows by a nearly constant 6 mm per halving of h (22.3, 28.2,
// 34.6, 40.6 mm). It asserts that growth (differences within 25 % of each
// other) and that with ×2^l the sheet gets stiffer at every level instead
// (sag decreases: 22.3, 14.4, 9.2, 5.7 mm).
func TestConvergenceCorners(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s")
	}
	var s0, s1 []float64
	for l := range 4 {
		s0 = append(s0, cornerSag(t, l, 0))
		s1 = append(s1, cornerSag(t, l, 1))
	}
	t.Logf("| level | particles | k unchanged (mm) | k·2^l (mm) |")
	for l := range 4 {
		n := 4<<l + 1
		t.Logf("| %d | %d×%d | %.2f | %.2f |", l, n, n, 1e3*s0[l], 1e3*s1[l])
	}
	for l := 2; l < 4; l++ {
		d0, d1 := s0[l-1]-s0[l-2], s0[l]-s0[l-1]
		if !(d0 > 0 && d1 > 0 && math.Abs(d1-d0) < 0.25*d0) {
			t.Errorf("k unchanged: sag does not grow by a constant step (log(1/h)): %v", s0)
		}
	}
	for l := 1; l < 4; l++ {
		if !(s1[l] < s1[l-1]) {
			t.Errorf("k·2^l: sag does not decrease: %v", s1)
		}
	}
}
