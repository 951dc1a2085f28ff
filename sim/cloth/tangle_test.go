package cloth

import (
	"math"
	"testing"

	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/internal/exact"
	"drape/sim/obstacle"
)

// foldAndBlade returns a sheet of 30 × 4 squares of 0.1 m folded along its
// middle into a V of 30° that opens upwards, and a separate triangle (the
// blade) standing in the V's plane of symmetry between 0.02 and 0.045 m
// above the crease along its first 0.65 m: 5 mm from each wing, so that
// no face touches it, but
// a √3 refinement of the crease puts faces across the V at about a third
// of the faces' width (the new edges join the centroids of the faces on
// either side of the crease), through the blade.
func foldAndBlade(t *testing.T) *geom.Mesh {
	t.Helper()
	g, err := geom.RegularGrid(3, 0.4, 30, 4)
	if err != nil {
		t.Fatal(err)
	}
	alpha := 15 * math.Pi / 180
	pos := make([]geom.Vec3, 0, len(g.Pos)+3)
	rest := make([]geom.Vec2, 0, len(g.Pos)+3)
	for _, r := range g.Rest {
		s, side := r.Y-0.2, 1.0
		if s < 0 {
			s, side = -s, -1
		}
		pos = append(pos, geom.Vec3{X: r.X, Y: side * s * math.Sin(alpha), Z: s * math.Cos(alpha)})
		rest = append(rest, r)
	}
	n := int32(len(pos))
	pos = append(pos, geom.Vec3{X: 0.15, Z: 0.02}, geom.Vec3{X: 0.65, Z: 0.02}, geom.Vec3{X: 0.4, Z: 0.045})
	rest = append(rest, geom.Vec2{X: 2, Y: 0}, geom.Vec2{X: 2.5, Y: 0}, geom.Vec2{X: 2.25, Y: 0.025})
	tris := append([][3]int32(nil), g.Tris...)
	tris = append(tris, [3]int32{n, n + 1, n + 2})
	m, err := geom.NewMesh(pos, rest, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAdaptUndoesCrossings: an adaptation whose new faces would cut
// through the cloth is undone and tried again with the faces round the
// crossing held (Sim.Adapt, tangleTries). On foldAndBlade the refinement
// of the crease crosses the blade when self-collision is off (the guard's
// condition, so this shows the crossing is there to catch), and with it
// on the mesh stays intersection-free, the undo counted.
func TestAdaptUndoesCrossings(t *testing.T) {
	for _, self := range []bool{false, true} {
		m := foldAndBlade(t)
		if n := contact.IntersectingPairs(m.Pos, m.Tris); n != 0 {
			t.Fatalf("the start has %d crossing pairs", n)
		}
		s, err := New(m, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		cp := contact.DefaultParams()
		cp.Enabled, cp.SelfCollision = true, self
		if err := s.SetContactParams(cp); err != nil {
			t.Fatal(err)
		}
		if err := s.SetAdaptParams(DefaultAdaptParams()); err != nil {
			t.Fatal(err)
		}
		before := m.NumTris()
		st, err := s.Adapt()
		if err != nil {
			t.Fatal(err)
		}
		n := contact.IntersectingPairs(m.Pos, m.Tris)
		t.Logf("self-collision %v: %d → %d faces, refined %d, undone %d, crossing pairs %d", self, before, m.NumTris(), st.Refined, st.Undone, n)
		if err := m.CheckTopology(); err != nil {
			t.Fatalf("self-collision %v: %v", self, err)
		}
		if !self {
			if n == 0 {
				t.Fatal("without the guard the refinement crosses nothing: the test tests nothing")
			}
			continue
		}
		if n != 0 || st.Undone == 0 {
			t.Errorf("with the guard: %d crossing pairs, %d undone; want 0 and at least 1", n, st.Undone)
		}
		if st.Refined == 0 {
			t.Errorf("nothing refined: the retry should still refine the crease away from the blade")
		}
	}
}

// TestAdaptKeepsOutOfBodies: an adaptation whose new faces would cut
// through a mesh obstacle is undone and tried again like one that cuts
// the cloth (Sim.adaptCrossed). The sheet of foldAndBlade, without its
// blade, is folded by 90° and laid over the top front edge of a box
// along 0.15–0.65 m of its length, 5 mm off both faces: the refinement of the crease joins centroids a third of a face
// from the crease on either side, straight through the box's edge (the
// drape-box monkey, seed 12, found it: 12 cloth faces through the box
// after one refinement, every vertex outside). With collisions off (no
// guard) the crossing is there, counted by the independent checker of
// sim/internal/exact; with them on, none, the undo counted.
func TestAdaptKeepsOutOfBodies(t *testing.T) {
	const gap = 0.005
	for _, on := range []bool{false, true} {
		g, err := geom.RegularGrid(3, 0.4, 30, 4)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range g.Rest {
			s := r.Y - 0.2
			if s < 0 { // on the top face, back from the edge
				g.Pos[i] = geom.Vec3{X: r.X, Y: 0.25 + gap, Z: 0.25 + gap + s}
			} else { // down the front face
				g.Pos[i] = geom.Vec3{X: r.X, Y: 0.25 + gap - s, Z: 0.25 + gap}
			}
		}
		box, err := obstacle.Spec{Kind: "box", Position: [3]float64{0.4, 0, 0}, Size: [3]float64{0.5, 0.5, 0.5}}.Build("")
		if err != nil {
			t.Fatal(err)
		}
		body := exact.NewChecker([]exact.Surface{{Pos: box.Vertices(0, nil), Tris: box.Tris()}}, nil)
		if rep := body.Check(g.Pos, g.Tris, false); !rep.OK() {
			t.Fatalf("the start: %v", rep)
		}
		s, err := New(g, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		s.SetObstacles([]*obstacle.Obstacle{box})
		cp := contact.DefaultParams()
		cp.Enabled, cp.SelfCollision = on, false
		if err := s.SetContactParams(cp); err != nil {
			t.Fatal(err)
		}
		if err := s.SetAdaptParams(DefaultAdaptParams()); err != nil {
			t.Fatal(err)
		}
		st, err := s.Adapt()
		if err != nil {
			t.Fatal(err)
		}
		m := s.Mesh
		var live [][3]int32
		for f, tr := range m.Tris {
			if m.FaceAlive(f) {
				live = append(live, tr)
			}
		}
		rep := body.Check(m.Pos, live, false)
		t.Logf("collisions %v: refined %d, undone %d: %v", on, st.Refined, st.Undone, rep)
		if !on {
			if rep.ObstaclePairs == 0 {
				t.Fatal("without the guard the refinement crosses nothing: the test tests nothing")
			}
			continue
		}
		if !rep.OK() || st.Undone == 0 {
			t.Errorf("with the guard: %v, %d undone; want none and at least 1", rep, st.Undone)
		}
		if st.Refined == 0 {
			t.Errorf("nothing refined: the retry should still refine away from the edge")
		}
	}
}
