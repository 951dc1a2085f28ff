package cloth

import (
	"math"
	"math/rand"
	"testing"

	"drape/sim/fem"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// bendingForces returns −k_b·Q·x per vertex slot.
func bendingForces(t *testing.T, m *geom.Mesh, kb float64) []geom.Vec3 {
	t.Helper()
	p := DefaultParams()
	p.YoungX, p.YoungY, p.Shear, p.Bending = 1e-12, 1e-12, 1e-12, kb
	s, err := New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	f := make([]geom.Vec3, len(m.Pos))
	s.InternalForces(f)
	return f
}

// TestBendingFlat checks that the isometric bending energy and force vanish
// for a flat sheet moved rigidly or deformed by any in-plane affine map
// (both keep it planar and linear functions are in the kernel of the rest
// cotangent operator), and are positive for a folded sheet.
func TestBendingFlat(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 10; trial++ {
		m := simtest.Grid(t, 1, 0.7, 8, 6, 0.3, int64(trial))
		q := simtest.RandomRotation(rng)
		a := [4]float64{1 + 0.3*rng.NormFloat64(), 0.3 * rng.NormFloat64(), 0.3 * rng.NormFloat64(), 1 + 0.3*rng.NormFloat64()}
		if trial%2 == 0 {
			a = [4]float64{1, 0, 0, 1}
		}
		tr := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(5)
		for i, r := range m.Rest {
			m.Pos[i] = q.MulVec(geom.Vec3{a[0]*r.X + a[1]*r.Y, a[2]*r.X + a[3]*r.Y, 0}).Add(tr)
		}
		if e := fem.BendingEnergy(m, 1); math.Abs(e) > 1e-12 {
			t.Errorf("trial %d: flat sheet energy %.3g J, want 0", trial, e)
		}
		if f := simtest.MaxNorm(bendingForces(t, m, 1)); f > 1e-10 {
			t.Errorf("trial %d: flat sheet bending force %.3g N, want 0", trial, f)
		}
	}
	m := simtest.Grid(t, 1, 1, 8, 8, 0, 1)
	for i, r := range m.Rest {
		if r.X > 0.5 {
			m.Pos[i] = geom.Vec3{0.5, r.Y, r.X - 0.5} // folded 90° along x = 0.5
		}
	}
	if e := fem.BendingEnergy(m, 1); !(e > 0) {
		t.Errorf("folded sheet energy %.3g J, want > 0", e)
	}
	if f := simtest.MaxNorm(bendingForces(t, m, 1)); !(f > 0) {
		t.Errorf("folded sheet bending force %.3g N, want > 0", f)
	}
}

// TestBendingCylinder wraps a unit square isometrically onto cylinders of
// radius r: the energy must scale as 1/r² and, on a fine regular mesh,
// approach the thin-plate value ½·k_b·A/r², converging under refinement.
func TestBendingCylinder(t *testing.T) {
	const kb = 0.3
	wrap := func(m *geom.Mesh, r float64) {
		for i, p := range m.Rest {
			m.Pos[i] = geom.Vec3{r * math.Sin(p.X/r), p.Y, r * (1 - math.Cos(p.X/r))}
		}
	}
	m := simtest.Grid(t, 1, 1, 48, 48, 0, 1)
	var er2 []float64
	for _, r := range []float64{0.5, 1, 2, 4} {
		wrap(m, r)
		er2 = append(er2, fem.BendingEnergy(m, kb)*r*r)
	}
	for i := 1; i < len(er2); i++ {
		if d := math.Abs(er2[i]/er2[0] - 1); d > 0.01 {
			t.Errorf("E·r² varies by %.3g%% between r=0.5 and r=%v, want < 1%%", 100*d, []float64{0.5, 1, 2, 4}[i])
		}
	}
	want := 0.5 * kb * 1.0 // ·A/r² with A = 1, times r²
	var errs []float64
	for _, n := range []int{12, 24, 48} {
		m := simtest.Grid(t, 1, 1, n, n, 0, 1)
		wrap(m, 0.5)
		errs = append(errs, math.Abs(fem.BendingEnergy(m, kb)*0.25/want-1))
	}
	if errs[2] > 0.03 {
		t.Errorf("48×48 mesh: energy off the plate value by %.3g%%, want < 3%%", 100*errs[2])
	}
	if !(errs[0] > errs[1] && errs[1] > errs[2]) {
		t.Errorf("energy error does not shrink under refinement: %v", errs)
	}
}
