package cloth

import (
	"math"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestAirDragTerminalVelocity drops a free horizontal sheet face-first. The
// normal drag per area is c·(v−w)·n̂, so the sheet reaches the terminal
// velocity v = w_y − ρ·g/c, whatever its mesh, with time constant ρ/c.
// Rayleigh mass damping is switched off: it is a drag on the absolute
// velocity and would give ρ·g/(c + α_M·ρ) instead. (A side wind is not
// tested: a sheet that tilts in it gains lift and flutters, as real cloth
// does.)
func TestAirDragTerminalVelocity(t *testing.T) {
	for _, tc := range []struct {
		name string
		wind geom.Vec3
	}{{"still air", geom.Vec3{}}, {"updraft", geom.Vec3{0, 1, 0}}, {"downdraft", geom.Vec3{0, -2, 0}}} {
		t.Run(tc.name, func(t *testing.T) {
			m := simtest.Grid(t, 0.5, 0.5, 6, 6, 0.3, 2)
			for i, r := range m.Rest {
				m.Pos[i] = geom.Vec3{r.X, 0, -r.Y}
			}
			p := DefaultParams()
			p.AirDrag, p.Wind, p.DampMass = 0.5, tc.wind, 0
			s, err := New(m, p)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 600; k++ { // 3 s = 15 time constants
				if _, err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			want := tc.wind.Y - p.Density*9.81/p.AirDrag
			for i, v := range m.Vel {
				if math.Abs(v.Y-want) > 1e-3*math.Abs(want) {
					t.Fatalf("vertex %d: v_y=%.6f m/s, want %.6f m/s", i, v.Y, want)
				}
				if math.Abs(v.X) > 1e-4 || math.Abs(v.Z) > 1e-4 { // in-plane elastic ringing only
					t.Fatalf("vertex %d: tangential velocity (%.3g, %.3g) m/s, want 0", i, v.X, v.Z)
				}
			}
		})
	}
}
