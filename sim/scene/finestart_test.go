package scene

import (
	"math"
	"strings"
	"testing"

	"drape/sim/adapt"
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

// TestFineStartDrapeBox: on drape-box with a fine start the cloth falls
// onto the box fine through fine_hold (0.2 s) and is then coarsened where
// it is flat but keeps the finest faces where it folds over the box's
// top edges: at 0.6 s it has fewer vertices than the fine mesh but more
// than 4× the base mesh's, and the faces of generation g_max lie closer
// to the top edges, on average, than the cloth's faces do overall.
func TestFineStartDrapeBox(t *testing.T) {
	if testing.Short() {
		t.Skip("120 steps at up to 1867 vertices")
	}
	sc, err := LoadScene(sceneAssets, "drape-box")
	if err != nil {
		t.Fatal(err)
	}
	base, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	a := *sc.Adapt
	a.FineStart, a.FineHold = true, 0.2
	sc.Adapt = &a
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	nBase, nFine := base.Mesh.NumVerts(), s.Mesh.NumVerts()
	for s.Time < 0.6-1e-9 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m := s.Mesh
	if n := m.NumVerts(); n >= nFine || n <= 4*nBase {
		t.Errorf("vertices at 0.6 s got=%d, want in (4×%d, %d)", n, nBase, nFine)
	}
	// Distance of a point to the four top edges of the 0.5 m box on the
	// ground at the origin (its top at y = 0.5, sides at ±0.25).
	edgeDist := func(p geom.Vec3) float64 {
		dy := p.Y - 0.5
		ax, az := math.Abs(p.X), math.Abs(p.Z)
		zEdges := math.Hypot(math.Hypot(dy, ax-0.25), math.Max(0, az-0.25)) // the edges along z at x = ±0.25
		xEdges := math.Hypot(math.Hypot(dy, az-0.25), math.Max(0, ax-0.25)) // the edges along x at z = ±0.25
		return math.Min(zEdges, xEdges)
	}
	var sumFine, sumAll float64
	var nF, nA int
	for f, tri := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		c := m.Pos[tri[0]].Add(m.Pos[tri[1]]).Add(m.Pos[tri[2]]).Scale(1.0 / 3)
		d := edgeDist(c)
		sumAll += d
		nA++
		if adapt.Generation(m.Gen[f]) == a.GMax {
			sumFine += d
			nF++
		}
	}
	if nF == 0 {
		t.Fatalf("no face of generation %d left", a.GMax)
	}
	fine, all := sumFine/float64(nF), sumAll/float64(nA)
	if fine >= all {
		t.Errorf("mean distance to the box's top edges: generation-%d faces %.3f m, all faces %.3f m; want the finest closer", a.GMax, fine, all)
	}
	t.Logf("0.6 s: %d vertices (base %d, fine %d); %d of %d faces at g_max, mean distance to the top edges %.3f m against %.3f m for all", m.NumVerts(), nBase, nFine, nF, nA, fine, all)
}
