package cloth

import (
	"fmt"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestEnergyNeverGrows swings an undamped sheet hanging from two corners
// and checks that the total energy never rises: linearly implicit Euler is
// dissipative, so a rise means the system is inconsistent (e.g. a
// stiffness term in the matrix but not in the velocity term of the
// right-hand side, which once pumped 10 J into a 0.5 J swing) or unstable.
func TestEnergyNeverGrows(t *testing.T) {
	simtest.SkipUnderRace(t)
	aniso := DefaultParams() // the curtain's E_s = E is not isotropic
	for _, c := range []struct {
		name string
		p    Params
	}{{"orthotropic", aniso}, {"isotropic", isotropic(1000, 0.33)}} {
		for _, dt := range []float64{0.005, 0.02} {
			t.Run(fmt.Sprintf("%s dt=%v", c.name, dt), func(t *testing.T) {
				const n = 12
				m := simtest.Grid(t, 1, 1, n, n, 0, 5)
				for i, r := range m.Rest {
					m.Pos[i] = geom.Vec3{r.X, 1, -r.Y}
				}
				p := c.p
				p.Bending, p.DampMass, p.DampStiff, p.Dt = 1e-4, 0, 0, dt
				p.Tolerance, p.MaxIter = 1e-9, 5000
				s, err := New(m, p)
				if err != nil {
					t.Fatal(err)
				}
				s.Pin(0, m.Pos[0])
				s.Pin(n, m.Pos[n])
				prev := s.Energy()
				drop := 0.0
				steps := int(4 / dt)
				every := int(0.25 / dt)
				for k := 1; k <= steps; k++ {
					if _, err := s.Step(); err != nil {
						t.Fatal(err)
					}
					if k%every == 0 {
						e := s.Energy()
						if e > prev+1e-4 {
							t.Errorf("t=%.2f s: energy rose from %.6f J to %.6f J", s.Time, prev, e)
						}
						drop += prev - e
						prev = e
					}
				}
				if drop <= 0 {
					t.Errorf("energy did not fall at all (%.3g J)", drop)
				}
			})
		}
	}
}
