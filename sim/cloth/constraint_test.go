package cloth

import (
	"math"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestNormalConstraint holds every vertex of a sheet in the plane z = 0
// with Baraff & Witkin's one-direction filter (S = I − n·nᵀ, n = ẑ, normal
// speed 0) while gravity pulls along −z and a mouse drag pulls a corner
// along +x and +z: the sheet must stay in its plane to round-off and
// still slide along x (the tangential directions stay free). Without the
// constraints it leaves the plane by metres.
func TestNormalConstraint(t *testing.T) {
	run := func(constrained bool) (maxZ, meanX float64) {
		m := simtest.Grid(t, 1, 1, 8, 8, 0.2, 3)
		p := DefaultParams()
		p.Gravity = geom.Vec3{0, 0, -9.81}
		s, err := New(m, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Drag(0, geom.Vec3{2, 0, 1}); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 50; k++ {
			if constrained {
				for v := range m.Pos {
					s.constrain(int32(v), geom.Vec3{0, 0, 1}, 0)
				}
			}
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for _, x := range m.Pos {
			maxZ = math.Max(maxZ, math.Abs(x.Z))
			meanX += x.X / float64(len(m.Pos))
		}
		return maxZ, meanX
	}
	freeZ, _ := run(false)
	z, x := run(true)
	if z > 1e-12 {
		t.Errorf("constrained sheet left its plane by %g m (free: %g m)", z, freeZ)
	}
	if !(x > 0.5+0.01) {
		t.Errorf("constrained sheet's mean x got=%v, want > 0.51: the tangential directions must stay free", x)
	}
	if freeZ < 0.1 {
		t.Errorf("unconstrained sheet fell only %g m: the test does not exercise the filter", freeZ)
	}
	t.Logf("max |z| constrained %.3g m, free %.3g m; mean x %.4f m", z, freeZ, x)
}
