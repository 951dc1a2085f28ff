package cloth

import (
	"math"
	"slices"
	"testing"

	"drape/sim/geom"
)

// sheetWithFreeSlot returns a simulation of an 8 × 8 sheet whose mesh has
// a free vertex slot, as an adaptation leaves one, and that slot.
func sheetWithFreeSlot(t *testing.T) (*Sim, int32) {
	t.Helper()
	m, err := geom.RegularGrid(1, 1, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	free := m.AddVertex(geom.Vec3{X: 5}, geom.Vec3{}, geom.Vec2{X: 5})
	m.RemoveVertex(free)
	s, err := New(m, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return s, free
}

// TestPerturb: the nudge moves every live vertex by at most six standard
// deviations, the same for the same seed and differently for another,
// leaves free slots and velocities alone, and a standard deviation out of
// [0, MaxPerturb] changes nothing.
func TestPerturb(t *testing.T) {
	s, free := sheetWithFreeSlot(t)
	m := s.Mesh
	orig := slices.Clone(m.Pos)
	const sigma = 1e-7
	nudged := func(seed int64) []geom.Vec3 {
		copy(m.Pos, orig)
		if err := s.Perturb(seed, sigma); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(m.Pos)
	}
	a, b, c := nudged(1), nudged(1), nudged(2)
	if m.VertAlive[free] {
		t.Fatalf("slot %d is not free", free)
	}
	for i := range orig {
		d := a[i].Sub(orig[i])
		switch {
		case !m.VertAlive[i]:
			if d != (geom.Vec3{}) {
				t.Errorf("free slot %d moved by %v", i, d)
			}
		case d == (geom.Vec3{}):
			t.Errorf("vertex %d not moved", i)
		case max(math.Abs(d.X), math.Abs(d.Y), math.Abs(d.Z)) > 6*sigma:
			t.Errorf("vertex %d moved by %v, more than 6 standard deviations", i, d)
		case a[i] != b[i]:
			t.Errorf("vertex %d: seed 1 gave %v, then %v", i, a[i], b[i])
		case a[i] == c[i]:
			t.Errorf("vertex %d: seeds 1 and 2 gave the same %v", i, a[i])
		}
		if m.Vel[i] != (geom.Vec3{}) {
			t.Errorf("vertex %d: velocity got=%v, want 0", i, m.Vel[i])
		}
	}
	for _, bad := range []float64{-1e-9, 2 * MaxPerturb, math.NaN(), math.Inf(1)} {
		before := slices.Clone(m.Pos)
		if err := s.Perturb(1, bad); err == nil || !slices.Equal(m.Pos, before) {
			t.Errorf("sigma %v: got err=%v, want an error and the mesh unchanged", bad, err)
		}
	}
}

// TestSetVelocity: a live vertex takes the velocity; a free slot, a slot
// out of range or a non-finite velocity is an error that changes nothing.
func TestSetVelocity(t *testing.T) {
	s, free := sheetWithFreeSlot(t)
	want := geom.Vec3{Y: -0.01}
	if err := s.SetVelocity(3, want); err != nil || s.Mesh.Vel[3] != want {
		t.Errorf("vertex 3: got err=%v, velocity %v, want %v", err, s.Mesh.Vel[3], want)
	}
	for _, c := range []struct {
		v   int32
		vel geom.Vec3
	}{
		{free, want},
		{-1, want},
		{int32(len(s.Mesh.Pos)), want},
		{4, geom.Vec3{X: math.NaN()}},
		{4, geom.Vec3{Z: math.Inf(-1)}},
	} {
		if err := s.SetVelocity(c.v, c.vel); err == nil {
			t.Errorf("vertex %d, velocity %v: got no error", c.v, c.vel)
		}
	}
	for i, v := range s.Mesh.Vel {
		if i != 3 && v != (geom.Vec3{}) {
			t.Errorf("vertex %d: velocity got=%v, want 0", i, v)
		}
	}
}
