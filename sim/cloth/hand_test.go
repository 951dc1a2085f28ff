package cloth

import (
	"math"
	"testing"

	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// hangingSheet returns a 1 m sheet of 10 × 10 squares in the XY plane
// pinned at its two top corners, and those corners.
func hangingSheet(t *testing.T) (*Sim, int32, int32) {
	t.Helper()
	g, err := geom.RegularGrid(1, 1, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]geom.Vec3, len(g.Rest))
	var a, b int32 = -1, -1
	for i, r := range g.Rest {
		pos[i] = geom.Vec3{X: r.X, Y: 1 + r.Y}
		switch {
		case r.X == 0 && r.Y == 1:
			a = int32(i)
		case r.X == 1 && r.Y == 1:
			b = int32(i)
		}
	}
	m, err := geom.NewMesh(pos, g.Rest, g.Tris)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(m, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int32{a, b} {
		if err := s.Pin(v, m.Pos[v]); err != nil {
			t.Fatal(err)
		}
	}
	return s, a, b
}

// TestHandStretchCap is the monkey's seed 2 on hanging, shrunk: a corner
// pin of a hanging sheet dragged 2 m away from the other, then unpinned.
// The pin moves at HandSpeed and stops at (1+HandStretch) times the
// corners' rest distance from the other pin; the release then stays
// finite and under the speed limit. (Before the cap the corner went the
// full 2 m, the sheet stretched to three times its width, and the
// release snapped back at 1160 m/s.)
func TestHandStretchCap(t *testing.T) {
	s, a, b := hangingSheet(t)
	m := s.Mesh
	start := m.Pos[b]
	if err := s.Pin(b, start.Add(geom.Vec3{X: 2})); err != nil {
		t.Fatal(err)
	}
	dt := s.Params().Dt
	for i := 0; i < 200; i++ { // 1 s
		if _, err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i == 0 {
			if d := m.Pos[b].Sub(start).Norm(); math.Abs(d-HandSpeed*dt) > 1e-9 {
				t.Errorf("first step moved the pin %v m, want HandSpeed·Δt = %v", d, HandSpeed*dt)
			}
		}
	}
	span := m.Pos[b].Sub(m.Pos[a]).Norm()
	if want := 1 + HandStretch; math.Abs(span-want) > 1e-9 {
		t.Errorf("pins %v m apart after the drag, want the cap %v m", span, want)
	}
	s.Unpin(b)
	var fastest float64
	for i := 0; i < 100; i++ {
		if _, err := s.Step(); err != nil {
			t.Fatalf("after the release, step %d: %v", i, err)
		}
		fastest = max(fastest, s.MaxSpeed())
	}
	t.Logf("pins %.3f m apart; fastest vertex after the release %.1f m/s; %d steps retried", span, fastest, s.Retried())
}

// TestDragObstacleClearance: a sphere dragged down into the ground
// stops ObstacleClearance above it (the monkey's seed 1 on
// sphere-adaptive squeezed the cloth lying there and tangled it), moves
// at HandSpeed on the way, and can be dragged away again.
func TestDragObstacleClearance(t *testing.T) {
	s, _, _ := hangingSheet(t)
	ground, err := obstacle.Spec{Kind: "plane"}.Build("")
	if err != nil {
		t.Fatal(err)
	}
	ball, err := obstacle.Spec{Kind: "sphere", Position: [3]float64{3, 0.5, 0}, Radius: 0.2}.Build("")
	if err != nil {
		t.Fatal(err)
	}
	s.SetObstacles([]*obstacle.Obstacle{ground, ball})
	if err := s.SetContactParams(contact.DefaultParams()); err != nil {
		t.Fatal(err)
	}
	if err := s.DragObstacle(1, geom.Vec3{Y: -1}); err != nil {
		t.Fatal(err)
	}
	if err := s.DragObstacle(2, geom.Vec3{}); err == nil {
		t.Error("DragObstacle(2) of two obstacles: no error")
	}
	dt := s.Params().Dt
	prev := ball.Offset()
	for i := 0; i < 100; i++ {
		if _, err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d := ball.Offset().Sub(prev).Norm(); d > HandSpeed*dt*(1+1e-12) {
			t.Fatalf("step %d: the ball moved %v m, more than HandSpeed·Δt", i, d)
		}
		prev = ball.Offset()
	}
	bottom := 0.5 + ball.Offset().Y - 0.2
	clear := max(ObstacleClearance, 6*s.ContactParams().Thickness)
	if bottom < clear-obstacle.ChordTolerance || bottom > clear+HandSpeed*dt {
		t.Errorf("the ball's bottom is %.4f m above the ground, want it stopped at the clearance %.4f m", bottom, clear)
	}
	if _, on := s.ObstacleGoal(1); !on {
		t.Error("the blocked drag ended; it should still pull towards its goal")
	}
	if err := s.DragObstacle(1, geom.Vec3{Y: 0.5}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if ball.Offset().Y <= prev.Y {
		t.Errorf("dragged up, the ball stayed at %v", ball.Offset())
	}
}

// TestPinStaysOutside is the monkey's seed 1 on ground-angled, shrunk: a
// pin dragged into the ground stops at the contact thickness above it
// (before, the pinned vertex went in, the ground pushed its free
// neighbours out, and the cloth blew up at 397 m/s).
func TestPinStaysOutside(t *testing.T) {
	s, a, b := hangingSheet(t)
	s.Unpin(b) // one pin, as in the monkey's run: nothing else limits its reach
	ground, err := obstacle.Spec{Kind: "plane"}.Build("")
	if err != nil {
		t.Fatal(err)
	}
	s.SetObstacles([]*obstacle.Obstacle{ground})
	if err := s.SetContactParams(contact.DefaultParams()); err != nil {
		t.Fatal(err)
	}
	if err := s.Pin(a, geom.Vec3{Y: -1}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	h := s.ContactParams().Thickness
	if y := s.Mesh.Pos[a].Y; math.Abs(y-h) > 1e-9 {
		t.Errorf("the pin dragged into the ground is at y = %v, want the thickness %v above it", y, h)
	}
}
