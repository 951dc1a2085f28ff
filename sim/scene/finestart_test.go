package scene

import (
	"math"
	"strings"
	"testing"

	"drape/sim/geom"
)

// flatFineScene is a free 1 m sheet without gravity or mass damping drifting sideways at
// 0.1 m/s: it stays flat, so the adaptivity criterion (|H| = 0 < c·l_g)
// coarsens every face it may.
const flatFineScene = `{"duration": 1,
  "mesh": {"kind": "staggered", "width": 1, "height": 1, "nx": 4, "ny": 4},
  "placement": {"orientation": "horizontal"},
  "params": {"dt": 0.01, "gravity": [0, 0, 0], "damp_mass": 0},
  "adapt": {"enabled": true, "g_max": 4, "interval": 1, "fine_start": FINE, "fine_hold": 0.2}}`

// TestFineStartScene: with "fine_start" the scene is built at the base
// mesh refined uniformly to g_max (two √3 steps: 9× the faces), nothing
// adapts during fine_hold, and afterwards the flat sheet coarsens back to
// exactly the base mesh. Mass and linear momentum (no external force) are
// conserved through the coarsening.
func TestFineStartScene(t *testing.T) {
	build := func(fine string) (*Scene, int) {
		sc, err := ParseScene([]byte(strings.Replace(flatFineScene, "FINE", fine, 1)), "t.json")
		if err != nil {
			t.Fatal(err)
		}
		s, err := sc.Build()
		if err != nil {
			t.Fatal(err)
		}
		return sc, s.Mesh.NumTris()
	}
	_, base := build("false")
	sc, _ := build("true")
	if !sc.Adapt.FineStart || sc.Adapt.FineHold != 0.2 {
		t.Fatalf("adapt block: fine_start got=%v, fine_hold got=%v, want true, 0.2", sc.Adapt.FineStart, sc.Adapt.FineHold)
	}
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Mesh.NumTris(), 9*base; got != want {
		t.Fatalf("fine start: faces got=%d, want=%d (9 × %d)", got, want, base)
	}
	for i := range s.Mesh.Vel {
		if s.Mesh.VertAlive[i] {
			s.Mesh.Vel[i] = geom.Vec3{X: 0.1}
		}
	}
	mass0 := s.TotalMass()
	p0 := momentum(s.Mesh.Vel, s.Mesh.VertAlive, s.Mass)
	for s.Time < 0.2-0.01-1e-9 { // the step that reaches 0.2 s adapts
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if got := s.Mesh.NumTris(); got != 9*base {
			t.Fatalf("t = %.2f s, inside the hold: faces got=%d, want=%d", s.Time, got, 9*base)
		}
	}
	for s.Time < 0.5 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Mesh.NumTris(); got != base {
		t.Errorf("t = %.2f s, after the hold: faces got=%d, want the base mesh's %d", s.Time, got, base)
	}
	if got := s.TotalMass(); math.Abs(got-mass0) > 1e-12*mass0 {
		t.Errorf("total mass got=%.17g, want=%.17g", got, mass0)
	}
	if d := momentum(s.Mesh.Vel, s.Mesh.VertAlive, s.Mass).Sub(p0).Norm(); d > 1e-9*p0.Norm() {
		t.Errorf("momentum changed by %g kg·m/s of %g", d, p0.Norm())
	}
}

// momentum returns Σ m_i·v_i over live vertices.
func momentum(vel []geom.Vec3, alive []bool, mass func(int) float64) geom.Vec3 {
	var p geom.Vec3
	for i, v := range vel {
		if alive[i] {
			p = p.Add(v.Scale(mass(i)))
		}
	}
	return p
}
